package simvec

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/fieldtable"
	"github.com/hpccgold/hpccgold/nicmodel"
	"github.com/hpccgold/hpccgold/scenario"
	"github.com/hpccgold/hpccgold/vectors"
)

// Source is the CaptureInfo.Source of sets captured from scenario runs.
const Source = "sim"

// ClassPrefix prefixes the scenario name in the class of captured vectors
// ("sim:demo-incast-4to1").
const ClassPrefix = "sim:"

// Request is a capture of a scenario's HPCC++ datapath transactions.
type Request struct {
	// Scenario is a built-in scenario name (scenario.Names).
	Scenario string
	// ConfigFile, if set, is a JSON file overlaying the scenario
	// (scenario.Overlay); CC is applied after it.
	ConfigFile string
	// CC ("hpcc" or "hpcc-rx") overrides the scenario's congestion
	// control when not empty: hpcc captures the sender-mode datapath of
	// every sender's module, hpcc-rx the receiver-mode datapath of every
	// receiver's Rx-HPCC.
	CC string
	// Seed, if not nil, replaces the scenario's seeds: network.seed (WRED
	// and ECMP) and, for a random workload, traffic.random.seed.
	Seed *uint64
	// Limit is the largest number of transactions captured, the first in
	// the capture order (see the package doc); 0 captures every
	// transaction of the run. The run stops soon after the limit is
	// passed.
	Limit int64
	// Shard, Workers, NoJSONL and Progress are those of
	// vectors.CaptureOptions (Progress of writing the set).
	Shard    vectors.Shard
	Workers  int
	NoJSONL  bool
	Progress func(done, total int64)
	// RunProgress, if set, receives the scenario run's progress.
	RunProgress func(scenario.Progress)
}

// Resolve returns the scenario configuration a request runs: the built-in
// scenario, the config file over it, CC, then Seed. A configuration whose
// model is not "fixed" is an error: vectors come from the golden
// fixed-point datapath.
func Resolve(req Request) (scenario.Config, error) {
	c, err := scenario.Resolve(scenario.Request{Scenario: req.Scenario, ConfigFile: req.ConfigFile, CC: req.CC})
	if err != nil {
		return scenario.Config{}, err
	}
	if req.Seed != nil {
		c.Network.Seed = *req.Seed
		if c.Traffic.Random != nil {
			r := *c.Traffic.Random
			r.Seed = *req.Seed
			c.Traffic.Random = &r
		}
	}
	if c.Model != nicmodel.Fixed {
		return scenario.Config{}, fmt.Errorf("simvec: scenario %s: model=%v: vectors are captured from the golden fixed-point datapath only (model fixed)", req.Scenario, c.Model)
	}
	if err := c.Validate(); err != nil {
		return scenario.Config{}, err
	}
	return c, nil
}

// Capture runs the scenario of req and returns its captured transactions
// (every shard of a set is written from the same capture).
func Capture(ctx context.Context, req Request) (*vectors.Capture, error) {
	if req.Limit < 0 || req.Limit > vectors.MaxCount {
		return nil, fmt.Errorf("simvec: Limit=%d: must be in [0,%d]", req.Limit, int64(vectors.MaxCount))
	}
	cfg, err := Resolve(req)
	if err != nil {
		return nil, err
	}
	return CaptureConfig(ctx, req.Scenario, cfg, req)
}

// CaptureConfig is Capture for an already resolved configuration named
// name (req's Scenario, ConfigFile, CC and Seed are ignored). Its model
// must be fixed.
func CaptureConfig(ctx context.Context, name string, cfg scenario.Config, req Request) (*vectors.Capture, error) {
	if cfg.Model != nicmodel.Fixed {
		return nil, fmt.Errorf("simvec: scenario %s: model=%v: vectors are captured from the golden fixed-point datapath only (model fixed)", name, cfg.Model)
	}
	cfgJSON, err := cfg.JSON()
	if err != nil {
		return nil, err
	}
	rctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	c := &collector{name: name, cc: cfg.CC.String(), cfgJSON: bytes.TrimSpace(cfgJSON), limit: req.Limit, stop: cancel, checked: map[*hpcc.Datapath]bool{}}
	_, runErr := scenario.Run(rctx, cfg, scenario.Options{Progress: req.RunProgress, OnHPCCUpdate: c.observe})
	if c.err != nil {
		return nil, c.err
	}
	if runErr != nil && !(c.more && errors.Is(context.Cause(rctx), errLimit) && ctx.Err() == nil) {
		return nil, runErr
	}
	if err := c.flush(); err != nil {
		return nil, err
	}
	if c.capt == nil || c.capt.Len() == 0 {
		return nil, fmt.Errorf("simvec: scenario %s (cc=%s) made no HPCC++ datapath update", name, c.cc)
	}
	c.capt.SetComplete(!c.more)
	return c.capt, nil
}

// Set captures the scenario of req and returns the vector set (the shard
// req selects) in memory.
func Set(ctx context.Context, req Request) (*vectors.Set, error) {
	capt, err := Capture(ctx, req)
	if err != nil {
		return nil, err
	}
	return capt.Set(captureOptions(req))
}

// CaptureDir captures the scenario of req into the vector set directory
// dir and returns the manifest it wrote: what `hpccgold vectors gen
// --from-sim` does, for the demo command and scripts.
func CaptureDir(ctx context.Context, dir string, req Request) (*vectors.Manifest, error) {
	capt, err := Capture(ctx, req)
	if err != nil {
		return nil, err
	}
	return capt.WriteDirContext(ctx, dir, captureOptions(req))
}

func captureOptions(req Request) vectors.CaptureOptions {
	return vectors.CaptureOptions{Shard: req.Shard, Workers: req.Workers, NoJSONL: req.NoJSONL, Progress: req.Progress}
}

// errLimit is the cause of the run's cancellation once the limit is passed.
var errLimit = errors.New("simvec: capture limit reached")

// pending is one captured update of the current cycle, packed.
type pending struct {
	o       vectors.Origin
	in, out []uint64
}

// collector receives the run's updates (inside the engine's cycle, one
// goroutine) and feeds them to the capture one cycle at a time, ordered.
type collector struct {
	name, cc string
	cfgJSON  []byte
	limit    int64
	stop     context.CancelCauseFunc

	model   *vectors.HPCC
	mcfg    []byte // the model's hpcc.Config as JSON
	capt    *vectors.Capture
	checked map[*hpcc.Datapath]bool // datapaths whose configuration equals the model's
	seqMask uint64
	nowMask uint64
	iw, ow  int

	cycle uint64
	batch []pending
	free  []pending // recycled buffers
	more  bool      // the run made an update beyond the limit
	err   error
}

func (c *collector) fail(err error) {
	if c.err == nil {
		c.err = err
		c.stop(err)
	}
}

// observe is the scenario's OnHPCCUpdate.
func (c *collector) observe(host int, u *nicmodel.HPCCUpdate) {
	if c.err != nil || c.more {
		return
	}
	if c.model == nil {
		if err := c.start(u.Datapath); err != nil {
			c.fail(err)
			return
		}
	}
	if !c.checked[u.Datapath] {
		b, err := json.Marshal(u.Datapath.Config())
		if err != nil || !bytes.Equal(b, c.mcfg) {
			c.fail(fmt.Errorf("simvec: scenario %s: host %d's HPCC++ configuration differs from the first updating NIC's: a vector set has one configuration", c.name, host))
			return
		}
		c.checked[u.Datapath] = true
	}
	if cy := uint64(u.Cycle); cy != c.cycle {
		if err := c.flush(); err != nil {
			c.fail(err)
			return
		}
		c.cycle = cy
		if c.more {
			return
		}
	}
	var p pending
	if n := len(c.free); n > 0 {
		p, c.free = c.free[n-1], c.free[:n-1]
	} else {
		p = pending{in: make([]uint64, c.iw), out: make([]uint64, c.ow)}
	}
	// The wrapping counters reach the datapath's ports at their width.
	in := u.Input
	in.Seq &= c.seqMask
	in.SndNxt &= c.seqMask
	in.NowNs &= c.nowMask
	if err := u.Datapath.PackInput(u.State, in, p.in); err != nil {
		c.fail(fmt.Errorf("simvec: host %d QP %d cycle %d: input: %w", host, u.QPN, u.Cycle, err))
		return
	}
	if err := u.Datapath.PackOutput(u.Next, u.Output, p.out); err != nil {
		c.fail(fmt.Errorf("simvec: host %d QP %d cycle %d: output: %w", host, u.QPN, u.Cycle, err))
		return
	}
	p.o = vectors.Origin{Host: host, Receiver: u.Receiver, QPN: uint32(u.QPN), Conn: u.Conn, Cycle: uint64(u.Cycle)}
	c.batch = append(c.batch, p)
}

// start builds the vector model from the first update's datapath.
func (c *collector) start(d *hpcc.Datapath) error {
	hc := d.Config()
	m, err := vectors.NewHPCC(hc)
	if err != nil {
		return fmt.Errorf("simvec: scenario %s: %w", c.name, err)
	}
	if c.mcfg, err = json.Marshal(hc); err != nil {
		return fmt.Errorf("simvec: scenario %s: %w", c.name, err)
	}
	doc := fmt.Sprintf("HPCC++ datapath updates of the NICs in a closed-loop run of scenario %s (cc=%s); origins in %s", c.name, c.cc, vectors.CaptureFile)
	info := vectors.CaptureInfo{Source: Source, Scenario: c.name, ScenarioConfig: json.RawMessage(c.cfgJSON), Limit: c.limit}
	if c.capt, err = vectors.NewCapture(m, vectors.Class{Name: ClassPrefix + c.name, Doc: doc}, info); err != nil {
		return err
	}
	c.model = m
	c.seqMask = fieldtable.Mask(hc.SeqBits)
	c.nowMask = fieldtable.Mask(hc.TimeBits)
	c.iw, c.ow = m.Input().Words(), m.Output().Words()
	return nil
}

// flush adds the current cycle's updates, ordered by host, role and QP,
// up to the limit; past it, it marks the capture incomplete and stops the
// run.
func (c *collector) flush() error {
	slices.SortStableFunc(c.batch, func(a, b pending) int {
		switch {
		case a.o.Host != b.o.Host:
			return a.o.Host - b.o.Host
		case a.o.Receiver != b.o.Receiver:
			if b.o.Receiver {
				return -1
			}
			return 1
		case a.o.QPN < b.o.QPN:
			return -1
		case a.o.QPN > b.o.QPN:
			return 1
		}
		return 0
	})
	for _, p := range c.batch {
		if c.limit > 0 && int64(c.capt.Len()) >= c.limit {
			c.more = true
			c.stop(errLimit)
			break
		}
		if err := c.capt.Add(p.o, p.in, p.out); err != nil {
			return err
		}
	}
	c.free = append(c.free, c.batch...)
	c.batch = c.batch[:0]
	return nil
}
