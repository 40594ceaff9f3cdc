package cli

// commandList returns every subcommand. Each lives in its own file; add one
// line here per new subcommand.
func commandList() []command {
	return []command{
		{"version", "print the tool version", runVersion},
		{"explore", "design-space exploration: sweep datapath precision, measure area, error and network behaviour; shards, merge, batch plans", runExplore},
		{"demo", "run hpccgold end to end: scenario, captured and directed vectors, Verilog, co-simulation", runDemo},
		{"sim", "run a network scenario (seeds' and HPCC paper's experiments) on the NIC model", runSim},
		{"compare", "run a scenario under HPCC++, Rx-HPCC, LDCP and DCQCN and compare them (table, plots)", runCompare},
		{"replay", "run a telemetry trace through the HPCC++ float and/or fixed-point model", runReplay},
		{"vectors", "generate, check and verify golden HPCC++ test vectors", runVectors},
		{"emit", "write the HPCC++ RTL (Verilog) from a configuration", runEmit},
		{"verify", "check any output directory against its manifest: hashes, unlisted files, vector sets re-run", runVerify},
		{"grade", "mutation-grade a golden vector set: seeded single-point mutants of the RTL description, killed, equivalent or gap", runGrade},
		{"bench", "time hpccgold's scenarios and, where built, the HPCC authors' ns-3 simulator on the same scenarios (table of times and ratios)", runBench},
		{"cosim", "co-simulate the emitted RTL against golden vectors (Verilator or Icarus)", runCosim},
	}
}
