package cli

import (
	"fmt"
	"os"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/cc/intguard"
	"github.com/hpccgold/hpccgold/cc/ldcp"
)

// The configuration files of every command are read here, by the library
// loaders (hpcc.LoadConfig, ldcp.LoadConfig; scenario.Overlay for the
// scenario commands), so one file gets one verdict whichever command reads
// it: the same exit status (2) and the same field named. docs/cli.md.

// loadHPCCConfig reads an HPCC++ configuration file (hpcc.LoadConfig:
// strict keys, validated), or returns the default when path is empty.
func loadHPCCConfig(path string) (hpcc.Config, error) {
	if path == "" {
		return hpcc.DefaultConfig(), nil
	}
	f, err := os.Open(path)
	if err != nil {
		return hpcc.Config{}, fmt.Errorf("--config: %w", err)
	}
	defer f.Close()
	cfg, err := hpcc.LoadConfig(f)
	if err != nil {
		return hpcc.Config{}, fmt.Errorf("%s: %w", path, err)
	}
	return cfg, nil
}

// loadLDCPConfig reads an LDCP configuration file (ldcp.LoadConfig), or
// returns the default when path is empty.
// loadGuardConfig reads the telemetry guard's configuration
// (intguard.LoadConfig form), or returns the default guard of the default
// HPCC++ datapath when path is empty.
func loadGuardConfig(path string) (intguard.Config, error) {
	if path == "" {
		return intguard.DefaultConfig(hpcc.DefaultConfig()), nil
	}
	f, err := os.Open(path)
	if err != nil {
		return intguard.Config{}, fmt.Errorf("--config: %w", err)
	}
	defer f.Close()
	cfg, err := intguard.LoadConfig(f)
	if err != nil {
		return intguard.Config{}, fmt.Errorf("%s: %w", path, err)
	}
	return cfg, nil
}

func loadLDCPConfig(path string) (ldcp.Config, error) {
	if path == "" {
		return ldcp.DefaultConfig(), nil
	}
	f, err := os.Open(path)
	if err != nil {
		return ldcp.Config{}, fmt.Errorf("--config: %w", err)
	}
	defer f.Close()
	cfg, err := ldcp.LoadConfig(f)
	if err != nil {
		return ldcp.Config{}, fmt.Errorf("%s: %w", path, err)
	}
	return cfg, nil
}
