package cli

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/hpccgold/hpccgold/cc/hpcc"
)

// runReplay implements `hpccgold replay`: it reads a telemetry trace (one
// JSON ACK per line), runs it through the float reference and/or the golden
// fixed-point datapath of cc/hpcc, and prints one JSON line per ACK. The
// trace is read once, streaming, so it may be a pipe, a FIFO or stdin
// ("--trace -"); a malformed line stops the replay with an error naming the
// line and field (exit 2) after the lines before it were printed. An empty
// trace is an error (docs/replay.md).
func runReplay(env *Env) error {
	fs := newFlagSet(env, "replay", "replay --trace FILE [--model float|fixed|both] [--config FILE] [parameter flags]")
	trace := fs.String("trace", "", "telemetry trace, one JSON object per line (required; - reads stdin); format: docs/replay.md")
	model := fs.String("model", "fixed", "model to run: float, fixed or both")
	config := fs.String("config", "", "HPCC++ configuration JSON (unknown keys rejected); flags below override it")
	baseRTT := fs.Uint64("base-rtt-ns", 0, "T, the base RTT in ns")
	eta := fs.Float64("eta", 0, "target utilization eta")
	maxStage := fs.Int("max-stage", 0, "maxStage")
	wai := fs.Float64("w-ai-bytes", 0, "additive increase W_ai, bytes")
	winit := fs.Float64("w-init-bytes", 0, "initial window W_init, bytes")
	wmin := fs.Float64("w-min-bytes", 0, "minimum window, bytes")
	wmax := fs.Float64("w-max-bytes", 0, "maximum window, bytes")
	if err := fs.Parse(env.Args); err != nil {
		return err
	}
	if err := noPositional(fs); err != nil {
		return err
	}
	if *trace == "" {
		return fmt.Errorf("--trace is required")
	}
	m, err := hpcc.ParseReplayModel(*model)
	if err != nil {
		return err
	}
	cfg, err := loadHPCCConfig(*config)
	if err != nil {
		return err
	}
	if *baseRTT > math.MaxUint32 {
		return fmt.Errorf("--base-rtt-ns=%d: must be at most %d (and at most MaxBaseRTTNs=%d)", *baseRTT, uint64(math.MaxUint32), cfg.MaxBaseRTTNs)
	}
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "base-rtt-ns":
			cfg.BaseRTTNs = uint32(*baseRTT)
		case "eta":
			cfg.Eta = *eta
		case "max-stage":
			cfg.MaxStage = *maxStage
		case "w-ai-bytes":
			cfg.WAIBytes = *wai
		case "w-init-bytes":
			cfg.WInitBytes = *winit
		case "w-min-bytes":
			cfg.WMinBytes = *wmin
		case "w-max-bytes":
			cfg.WMaxBytes = *wmax
		}
	})
	if err := cfg.Validate(); err != nil {
		return err
	}
	rp, err := hpcc.NewReplayer(cfg, m)
	if err != nil {
		return err
	}
	var in io.Reader = env.Stdin
	name := "stdin"
	if *trace != "-" {
		f, err := os.Open(*trace)
		if err != nil {
			return fmt.Errorf("--trace: %w", err)
		}
		defer f.Close()
		in, name = f, *trace
	}
	if in == nil {
		return errors.New("--trace -: no standard input")
	}
	w := bufio.NewWriter(env.Stdout)
	err = hpcc.ScanTrace(cfg, in, func(ev hpcc.TraceEvent) error {
		if err := env.context().Err(); err != nil {
			return fmt.Errorf("interrupted: %w", err)
		}
		return rp.Step(ev, w)
	})
	if ferr := w.Flush(); ferr != nil && err == nil {
		err = ferr
	}
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	return nil
}
