// Package scenario runs the experiments of the seeds and of the HPCC paper
// on hpccgold's NIC model (package nicmodel) inside the network of package
// nicmodel/network, and writes their results: time series and flow
// completion times as CSV, plots as PNG and SVG (gonum.org/v1/plot), a
// summary table (tablewriter) and a manifest.
//
// A scenario is a Config: topology, switch and telemetry settings, HPCC++
// parameters, NIC parameters, workload and run control, every one settable
// from a JSON file that overlays a built-in scenario (unknown keys are
// rejected). Run executes one; Result.Write writes its files through
// package artefact (staged, manifest last); Result.Report is a short
// text report. RunNamed does all three for the demo command.
//
// Units: ns for time in configuration and results, bytes, Gbit/s (10^9
// bit/s) for rates. docs/scenarios.md lists the scenarios, what they show
// and the results next to the seeds' numbers.
package scenario
