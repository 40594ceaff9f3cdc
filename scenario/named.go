package scenario

import (
	"context"
	"fmt"
	"os"
)

// Request describes a run of a named scenario (the sim and demo commands).
type Request struct {
	// Scenario is a built-in name (Names).
	Scenario string
	// CC ("hpcc", "hpcc-rx", "ldcp" or "dcqcn") and Model ("fixed" or
	// "float") override the scenario's when not empty.
	CC, Model string
	// ConfigFile, if set, is a JSON file overlaying the scenario (Overlay);
	// CC and Model are applied after it.
	ConfigFile string
	// OutDir, if set, receives the run's files (Result.Write).
	OutDir string
	// TraceHosts and Progress are passed to Run (Options).
	TraceHosts []int
	Progress   func(Progress)
}

// Resolve returns the configuration a request runs: the built-in scenario,
// the config file over it, then CC and Model.
func Resolve(req Request) (Config, error) {
	c, err := Lookup(req.Scenario)
	if err != nil {
		return Config{}, err
	}
	if req.ConfigFile != "" {
		f, err := os.Open(req.ConfigFile)
		if err != nil {
			return Config{}, fmt.Errorf("scenario: %w", err)
		}
		c, err = Overlay(c, f)
		f.Close()
		if err != nil {
			return Config{}, fmt.Errorf("%s: %w", req.ConfigFile, err)
		}
	}
	if req.CC != "" {
		if err := c.CC.UnmarshalText([]byte(req.CC)); err != nil {
			return Config{}, fmt.Errorf("scenario: --cc: %w", err)
		}
		if !knownCC(c.CC) {
			return Config{}, cerr("cc", req.CC, "must be "+ccChoices)
		}
	}
	if req.Model != "" {
		if err := c.Model.UnmarshalText([]byte(req.Model)); err != nil {
			return Config{}, fmt.Errorf("scenario: --model: %w", err)
		}
	}
	if err := c.Validate(); err != nil {
		return Config{}, err
	}
	return c, nil
}

// RunNamed resolves a request, runs it and, with OutDir set, writes its
// files. The demo command calls it with a small scenario
// ("demo-incast-4to1") and prints Result.Report(files, dir).
func RunNamed(ctx context.Context, req Request) (*Result, []OutputFile, error) {
	c, err := Resolve(req)
	if err != nil {
		return nil, nil, err
	}
	r, err := Run(ctx, c, Options{Progress: req.Progress, TraceHosts: req.TraceHosts})
	if err != nil {
		return nil, nil, err
	}
	if req.OutDir == "" {
		return r, nil, nil
	}
	files, err := r.Write(ctx, req.OutDir)
	return r, files, err
}
