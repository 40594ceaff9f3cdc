package scenario

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"

	"github.com/hpccgold/hpccgold/artefact"
	"github.com/hpccgold/hpccgold/nicmodel"
	"github.com/hpccgold/hpccgold/nicmodel/network"
)

// ForgedINTName is the built-in scenario of the forged-telemetry study.
const ForgedINTName = "forged-int"

// Forged-INT study parameters (docs/scenarios.md, "Forged telemetry").
const (
	forgeBufferBytes = 1 << 20  // the switch's per-port buffer and the guard's qlen threshold
	forgeQlenBytes   = 16 << 20 // forged queue (saturates the Compact field: 10.48 MB)
	forgeSpeedGbps   = 400      // forged link speed on the 100 Gbps links
	forgeReplayNs    = 50_000   // a replayed record lives 50 us (about 12 T)
	forgeFlowBytes   = 2_000_000
)

// forgedINTBase is the forged-telemetry scenario with an honest switch and
// no guard: 4 victims x 2 MB into one host through the one 100 Gbps
// switch of a star (the switch that forges in the study, and the victims'
// bottleneck), compact INT, a 1 MiB port buffer, 3 ms.
func forgedINTBase() Config {
	c := paperBase(5)
	c.Network.Switch.BufferBytes = forgeBufferBytes
	for s := 0; s < 4; s++ {
		c.Traffic.Flows = append(c.Traffic.Flows, network.Flow{Src: s, Dst: 4, Bytes: forgeFlowBytes})
	}
	c.Run.DurationNs = 3_000_000
	c.Run.SampleNs = 2000
	return c
}

// ForgeStudyForgeries lists the study's forgeries in order: "none" (an
// honest switch), then each network.ForgeKind.
func ForgeStudyForgeries() []string {
	return []string{"none", string(network.ForgeQlen), string(network.ForgeFrozenTx), string(network.ForgeSpeed), string(network.ForgeReplay)}
}

// forgeConfig returns the switch forgery of kind (nil for "none").
func forgeConfig(kind string) ([]network.ForgeConfig, error) {
	f := network.ForgeConfig{Switch: 0, Kind: network.ForgeKind(kind)}
	switch f.Kind {
	case "none":
		return nil, nil
	case network.ForgeQlen:
		f.QlenBytes = forgeQlenBytes
	case network.ForgeSpeed:
		f.SpeedGbps = forgeSpeedGbps
	case network.ForgeReplay:
		f.ReplayNs = forgeReplayNs
	case network.ForgeFrozenTx:
	default:
		return nil, fmt.Errorf("scenario: forgery %q: must be one of %s", kind, strings.Join(ForgeStudyForgeries(), ", "))
	}
	return []network.ForgeConfig{f}, nil
}

// ForgeStudyGuard is the guard the study's guarded runs give every NIC:
// every check on, the deployed speed 100 Gbps, the buffer 1 MiB (the
// switch's), tolerance 25%, back window 2^22 ns.
func ForgeStudyGuard(c Config) (*nicmodel.GuardConfig, error) {
	nc, err := c.nicConfig(5000, 100, 1)
	if err != nil {
		return nil, err
	}
	g := nicmodel.DefaultGuardConfig(nc.HPCC)
	g.Qlen.BufferBytes = forgeBufferBytes
	g.Speed.AllowedGbps = []uint32{100}
	return g, nil
}

// ForgeStudyConfig returns the forged-int scenario with forgery kind at
// its switch and, when guard is set, ForgeStudyGuard on every NIC.
func ForgeStudyConfig(kind string, guard bool) (Config, error) {
	c := forgedINTBase()
	c.Name = ForgedINTName
	f, err := forgeConfig(kind)
	if err != nil {
		return Config{}, err
	}
	c.Network.Forge = f
	if guard {
		g, err := ForgeStudyGuard(c)
		if err != nil {
			return Config{}, err
		}
		b, err := json.Marshal(struct {
			Guard *nicmodel.GuardConfig `json:"guard"`
		}{g})
		if err != nil {
			return Config{}, fmt.Errorf("scenario: guard: %w", err)
		}
		c.NIC.Overrides = b
	}
	c.Description = fmt.Sprintf("forged INT: %s, guard %v", kind, guard)
	return c, nil
}

// ForgeRow is one run of the study: what the victims got.
type ForgeRow struct {
	Forgery string
	Guard   bool
	// Victims: flows completed of Flows, their mean FCT (us, completed
	// ones), the mean of their summed wire rate through the bottleneck
	// over the run (Gbit/s).
	Completed, Flows int
	MeanFCTUs        float64
	RateGbps         float64
	// Bottleneck queue: peak and time-weighted 99th percentile, bytes;
	// switch drops.
	PeakQueue, P99Queue, Drops uint64
	// Counters are the guard's registers summed over the NICs (nil
	// without a guard).
	Counters *nicmodel.GuardCounters
	res      *Result
}

// ForgeStudyResult is the whole study.
type ForgeStudyResult struct {
	Rows []ForgeRow // forgery by forgery, guard off then on
}

// ForgeStudy runs every forgery with the guard off and on (10 runs, up to
// o.Workers at a time).
func ForgeStudy(ctx context.Context, o ParallelOptions) (*ForgeStudyResult, error) {
	var cfgs []Config
	var rows []ForgeRow
	for _, k := range ForgeStudyForgeries() {
		for _, g := range []bool{false, true} {
			c, err := ForgeStudyConfig(k, g)
			if err != nil {
				return nil, err
			}
			cfgs = append(cfgs, c)
			rows = append(rows, ForgeRow{Forgery: k, Guard: g})
		}
	}
	res, err := RunParallel(ctx, cfgs, o)
	if err != nil {
		return nil, err
	}
	for i, r := range res {
		row := &rows[i]
		row.res = r
		row.Flows = len(r.Flows)
		var fct float64
		for _, f := range r.Flows {
			if f.Done {
				row.Completed++
				fct += float64(f.FCTNs) / 1000
			}
		}
		if row.Completed > 0 {
			row.MeanFCTUs = fct / float64(row.Completed)
		}
		var sum float64
		n := 0
		for _, v := range r.Series.SumRate {
			if !math.IsNaN(v) {
				sum += v
				n++
			}
		}
		if n > 0 {
			row.RateGbps = sum / float64(n)
		}
		row.PeakQueue, row.P99Queue, row.Drops = r.Summary.PeakQueueBytes, r.Summary.P99QueueBytes, r.Summary.SwitchDrops
		if row.Guard {
			g := &nicmodel.GuardCounters{}
			for _, nic := range r.nics {
				if c := nic.Counters().Guard; c != nil {
					g.Events += c.Events
					g.EventsDropped += c.EventsDropped
					g.HopsDropped += c.HopsDropped
					g.QlenClamped += c.QlenClamped
					g.RateClamped += c.RateClamped
					g.SpeedClamped += c.SpeedClamped
					g.PathChanged += c.PathChanged
					g.TimeStale += c.TimeStale
				}
			}
			row.Counters = g
		}
	}
	return &ForgeStudyResult{Rows: rows}, nil
}

// Markdown returns the study's table (docs/scenarios.md).
func (s *ForgeStudyResult) Markdown() string {
	var b strings.Builder
	b.WriteString("| forgery | guard | victims done | mean FCT (us) | victims' rate (Gbit/s) | peak queue (KB) | p99 queue (KB) | drops | guard: clamped qlen / rate / speed, hops dropped, events dropped |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	for _, r := range s.Rows {
		g, gc := "off", "-"
		if r.Guard {
			g = "on"
			c := r.Counters
			gc = fmt.Sprintf("%d / %d / %d, %d, %d", c.QlenClamped, c.RateClamped, c.SpeedClamped, c.HopsDropped, c.EventsDropped)
		}
		fct := "-"
		if r.Completed > 0 {
			fct = fmt.Sprintf("%.0f", r.MeanFCTUs)
		}
		fmt.Fprintf(&b, "| %s | %s | %d/%d | %s | %.1f | %.0f | %.0f | %d | %s |\n", r.Forgery, g, r.Completed, r.Flows, fct,
			r.RateGbps, float64(r.PeakQueue)/1000, float64(r.P99Queue)/1000, r.Drops, gc)
	}
	return b.String()
}

// figures returns, per forgery, the bottleneck queue and the victims'
// summed rate over time with the guard off and on.
func (s *ForgeStudyResult) figures() ([]figure, error) {
	var figs []figure
	for i := 0; i+1 < len(s.Rows); i += 2 {
		off, on := s.Rows[i], s.Rows[i+1]
		for _, m := range []struct {
			name, label string
			y           func(r *Result) []float64
			useMax      bool
		}{
			{"queue", "bottleneck queue (KB, max per sample)", func(r *Result) []float64 {
				y := make([]float64, len(r.Series.QueueMax))
				for j, v := range r.Series.QueueMax {
					y[j] = float64(v) / 1000
				}
				return y
			}, true},
			{"rate", "victims' summed rate (Gbit/s, mean over 5 samples)", func(r *Result) []float64 { return smooth(r.Series.SumRate, 5) }, false},
		} {
			p := newPlot(fmt.Sprintf("forged INT: %s", off.Forgery), "time (us)", m.label)
			for k, r := range []ForgeRow{off, on} {
				x := make([]float64, len(r.res.Series.TimeNs))
				for j, t := range r.res.Series.TimeNs {
					x[j] = float64(t) / 1000
				}
				l, err := addSeries(p, x, m.y(r.res), m.useMax, plotutil.Color(k), vg.Points(1), maxPoints)
				if err != nil {
					return nil, err
				}
				if l != nil {
					p.Legend.Add([]string{"guard off", "guard on"}[k], l)
				}
			}
			figs = append(figs, figure{name: "forge_" + off.Forgery + "_" + m.name, doc: m.label, p: p})
		}
	}
	return figs, nil
}

// Write writes the study into dir (an artefact output directory): the
// table (forge.md) and per forgery the queue and rate plots
// (forge_<forgery>_{queue,rate}.png).
func (s *ForgeStudyResult) Write(ctx context.Context, dir string) error {
	aw, err := artefact.Create(dir, "forge-study")
	if err != nil {
		return err
	}
	defer aw.Close()
	if err := aw.WriteFile("forge.md", []byte(s.Markdown())); err != nil {
		return err
	}
	figs, err := s.figures()
	if err != nil {
		return err
	}
	for _, f := range figs {
		b, err := f.render("png")
		if err != nil {
			return fmt.Errorf("scenario: plot %s: %w", f.name, err)
		}
		if err := aw.WriteFile(f.name+".png", b); err != nil {
			return err
		}
	}
	return aw.Commit(ctx)
}
