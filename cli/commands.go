package cli

// commandList returns every subcommand. Each lives in its own file; add one
// line here per new subcommand.
func commandList() []command {
	return []command{
		{"version", "print the tool version", runVersion},
		{"vectors", "generate, check and verify golden HPCC++ test vectors", runVectors},
	}
}
