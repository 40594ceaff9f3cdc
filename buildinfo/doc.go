// Package buildinfo holds the tool's name and version, stamped into every
// artefact hpccgold writes (vector manifests, Verilog and LLVM headers,
// reports) so an output always says which tool made it.
package buildinfo
