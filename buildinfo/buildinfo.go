package buildinfo

// Version is the hpccgold version written into generated files. It is a
// constant (not read from the VCS) so outputs stay byte-identical across
// clones and build modes; bump it with each release.
const Version = "0.1.0"

// Tool is the tool name as printed in generated-file headers.
const Tool = "hpccgold"

// String returns "hpccgold 0.1.0".
func String() string { return Tool + " " + Version }
