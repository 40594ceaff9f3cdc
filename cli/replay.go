package cli

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/hpccgold/hpccgold/fieldtable"
	"github.com/hpccgold/hpccgold/vectors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

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
	emit := fs.String("emit-vectors", "", "also write the golden datapath's transactions as a vector set into DIR (needs --model fixed or both; docs/replay.md)")
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
	var capt *replayCapture
	if *emit != "" {
		if m == hpcc.ReplayFloat {
			return errors.New("--emit-vectors: vectors come from the golden fixed-point datapath: use --model fixed or both")
		}
		if capt, err = newReplayCapture(rp, cfg, *trace); err != nil {
			return err
		}
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
	if capt != nil {
		man, err := capt.write(env.context(), *emit)
		if err != nil {
			return err
		}
		fmt.Fprintf(env.Stderr, "replay: wrote %d vectors (class %s) to %s\n", man.Count, capt.class, *emit)
	}
	return nil
}

// replayCapture collects a replay's golden-datapath transactions as a
// captured vector set (package vectors): origin host 0, the flow's low and
// high 32 bits as QP and connection, the event's ordinal (from 1) as cycle.
type replayCapture struct {
	capt             *vectors.Capture
	class            string
	dp               *hpcc.Datapath
	seqMask, nowMask uint64
	in, out          []uint64
	receiver         bool
	n                uint64
}

func newReplayCapture(rp *hpcc.Replayer, cfg hpcc.Config, trace string) (*replayCapture, error) {
	vm, err := vectors.NewHPCC(cfg)
	if err != nil {
		return nil, err
	}
	base := "stdin"
	if trace != "-" {
		base = filepath.Base(trace)
	}
	name := "replay:" + strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '.' || r == '-' {
			return r
		}
		return '_'
	}, base)
	doc := fmt.Sprintf("HPCC++ datapath updates of the telemetry trace %s replayed through the golden datapath (hpccgold replay --emit-vectors)", base)
	c, err := vectors.NewCapture(vm, vectors.Class{Name: name, Doc: doc}, vectors.CaptureInfo{Source: "replay", Scenario: base})
	if err != nil {
		return nil, err
	}
	rc := &replayCapture{capt: c, class: name, dp: rp.Datapath(), seqMask: fieldtable.Mask(cfg.SeqBits), nowMask: fieldtable.Mask(cfg.TimeBits),
		in: make([]uint64, vm.Input().Words()), out: make([]uint64, vm.Output().Words()), receiver: cfg.Mode == hpcc.Receiver}
	rp.OnFixed = rc.add
	return rc, nil
}

// add packs one update (the wrapping counters at their port widths, as the
// datapath reduces them) and appends it to the capture.
func (rc *replayCapture) add(flow uint64, st hpcc.State, in hpcc.Input, next hpcc.State, o hpcc.Output) error {
	rc.n++
	in.Seq &= rc.seqMask
	in.SndNxt &= rc.seqMask
	in.NowNs &= rc.nowMask
	if err := rc.dp.PackInput(st, in, rc.in); err != nil {
		return fmt.Errorf("--emit-vectors: event %d (flow %d): input: %w", rc.n, flow, err)
	}
	if err := rc.dp.PackOutput(next, o, rc.out); err != nil {
		return fmt.Errorf("--emit-vectors: event %d (flow %d): output: %w", rc.n, flow, err)
	}
	org := vectors.Origin{Receiver: rc.receiver, QPN: uint32(flow), Conn: uint32(flow >> 32), Cycle: rc.n}
	return rc.capt.Add(org, rc.in, rc.out)
}

// write writes the captured set (every event of the trace) into dir.
func (rc *replayCapture) write(ctx context.Context, dir string) (*vectors.Manifest, error) {
	rc.capt.SetComplete(true)
	return rc.capt.WriteDirContext(ctx, dir, vectors.CaptureOptions{})
}
