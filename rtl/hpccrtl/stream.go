package hpccrtl

import (
	"fmt"
	"math/rand"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/telemetry"
)

// StreamKind selects the flow pattern of a generated event stream.
type StreamKind string

// Stream kinds for hpcc_module co-simulation.
const (
	// SameFlow sends bursts of back-to-back events of one flow (the
	// read-after-write hazard case: forwarding and stalls).
	SameFlow StreamKind = "same"
	// Interleaved spreads events over many flows in random order (every
	// flow-table address, II = 1 when flows differ).
	Interleaved StreamKind = "interleaved"
	// Mixed alternates bursts, round-robin over a few flows (same flow at
	// every distance 1..4) and random flows, with occasional re-starts and
	// events whose fields are random bit patterns.
	Mixed StreamKind = "mixed"
)

// flowGen keeps one flow's path so consecutive events carry coherent
// telemetry (timestamps and counters that advance).
type flowGen struct {
	nhops   int
	codes   []uint8
	ts      []uint64 // ns
	tx      []uint64 // bytes
	seq     uint64
	started bool
}

// Stream returns n events of the given kind for hpcc_module: each flow's
// first event has Init set; telemetry advances per hop like a real path
// (time steps of 0.1..20 us, txBytes at 20..100% of the link rate,
// queue lengths from empty to deep), with a small share of events whose
// fields are random bit patterns. It is the first n events of
// NewStreamGen's generator (which makes a stream of any length in memory
// bounded by the flow table).
func Stream(cfg hpcc.Config, opts ModuleOptions, kind StreamKind, n int, seed int64) ([]Event, error) {
	g, err := NewStreamGen(cfg, opts, kind, seed)
	if err != nil {
		return nil, err
	}
	out := make([]Event, 0, max(n, 0))
	for i := 0; i < n; i++ {
		out = append(out, g.Next())
	}
	return out, nil
}

// StreamGen generates the events of one stream kind one at a time (those
// Stream returns, in the same order): its memory is the flow table's paths,
// 2^FlowBits flows of at most MaxHops hops, whatever the stream's length.
// A StreamGen is not safe for concurrent use.
type StreamGen struct {
	cfg    hpcc.Config
	kind   StreamKind
	r      *rand.Rand
	nflows int
	codes  []uint8 // usable speed codes
	gens   []*flowGen
	now    uint64 // ns
	i      int    // index of the next event
}

// NewStreamGen returns the generator of the stream of kind with seed; its
// first event is the stream's event 0.
func NewStreamGen(cfg hpcc.Config, opts ModuleOptions, kind StreamKind, seed int64) (*StreamGen, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	switch kind {
	case SameFlow, Interleaved, Mixed:
	default:
		return nil, fmt.Errorf("hpccrtl: stream kind %q: want %s, %s or %s", kind, SameFlow, Interleaved, Mixed)
	}
	g := &StreamGen{cfg: cfg, kind: kind, r: rand.New(rand.NewSource(seed)), nflows: 1 << uint(opts.FlowBits), now: 1_000_000}
	for c, gbps := range cfg.Encoding.SpeedTable() {
		if gbps != 0 && gbps <= cfg.MaxLinkSpeedGbps {
			g.codes = append(g.codes, uint8(c))
		}
	}
	if len(g.codes) == 0 {
		return nil, fmt.Errorf("hpccrtl: no usable speed code")
	}
	g.gens = make([]*flowGen, g.nflows)
	return g, nil
}

// pick returns the flow of event i.
func (sg *StreamGen) pick(i int) uint32 {
	nflows, r := sg.nflows, sg.r
	switch sg.kind {
	case SameFlow:
		return uint32((i / 16) % nflows) // bursts of 16
	case Interleaved:
		return uint32(r.Intn(nflows))
	default:
		switch (i / 32) % 3 {
		case 0:
			return uint32((i / 8) % nflows)
		case 1:
			return uint32(i % min(1+(i/96)%4+1, nflows)) // distances 1..4
		default:
			return uint32(r.Intn(nflows))
		}
	}
}

// Next returns the stream's next event.
func (sg *StreamGen) Next() Event {
	cfg, kind, r, e := sg.cfg, sg.kind, sg.r, sg.cfg.Encoding
	i := sg.i
	sg.i++
	f := sg.pick(i)
	g := sg.gens[f]
	init := false
	if g == nil || (kind == Mixed && r.Intn(200) == 0) {
		g = &flowGen{nhops: 1 + r.Intn(cfg.MaxHops)}
		for h := 0; h < cfg.MaxHops; h++ {
			g.codes = append(g.codes, sg.codes[r.Intn(len(sg.codes))])
			g.ts = append(g.ts, sg.now+uint64(r.Intn(1000)))
			g.tx = append(g.tx, r.Uint64()&0xffffffff)
		}
		sg.gens[f] = g
		init = true
	}
	sg.now += uint64(10 + r.Intn(200))
	now := sg.now
	var in hpcc.Input
	in.NHops = uint8(g.nhops)
	if r.Intn(50) == 0 {
		in.NHops = uint8(r.Intn(cfg.MaxHops + 1)) // path change
	}
	step := uint64(100 + r.Intn(20000))
	for h := 0; h < cfg.MaxHops; h++ {
		gbps, _ := e.SpeedGbps(g.codes[h])
		g.ts[h] += step + uint64(r.Intn(50))
		g.tx[h] += step * uint64(gbps) / 8 * uint64(20+r.Intn(81)) / 100
		q := uint64(0)
		if r.Intn(3) > 0 {
			q = uint64(r.Intn(1 << uint(10+r.Intn(14))))
		}
		hop := telemetry.Hop{SpeedCode: g.codes[h]}
		if e == telemetry.Compact {
			hop.Ts = uint32(g.ts[h] & (1<<telemetry.CompactTsBits - 1))
			hop.TxBytes = uint32((g.tx[h] / e.TxBytesUnit()) & (1<<uint(e.TxBytesBits()) - 1))
			hop.Qlen = uint32((q / e.QlenUnit()) & (1<<uint(e.QlenBits()) - 1))
		} else {
			res := uint64(r.Intn(5000))
			rx := g.ts[h] - res
			hop.RxSec = uint32((rx / telemetry.NsPerSecond) & (1<<telemetry.IFARxSecBits - 1))
			hop.RxNs = uint32(rx % telemetry.NsPerSecond)
			hop.ResidenceNs = uint32(res)
			hop.TxBytes = uint32(g.tx[h])
			hop.Qlen = uint32(q & (1<<uint(e.QlenBits()) - 1))
			hop.DeviceID = uint32(100 + h)
			hop.EgressPort = uint16(f % 64)
		}
		in.Hops[h] = hop
	}
	g.seq += uint64(1 + r.Intn(8000))
	in.Seq = g.seq & mask(cfg.SeqBits)
	in.SndNxt = (g.seq + uint64(r.Intn(60000))) & mask(cfg.SeqBits)
	in.NowNs = now & mask(cfg.TimeBits)
	in.NFlows = uint32(r.Intn(1<<uint(min(cfg.FlowCountBits, 8)))) & uint32(mask(cfg.FlowCountBits))
	if kind == Mixed && r.Intn(40) == 0 {
		in = randomInput(r, cfg)
	}
	return Event{Flow: f, Init: init, In: in}
}

func mask(bits int) uint64 {
	if bits >= 64 {
		return ^uint64(0)
	}
	return 1<<uint(bits) - 1
}

// randomInput returns an event whose fields are random bit patterns of
// their wire widths.
func randomInput(r *rand.Rand, cfg hpcc.Config) hpcc.Input {
	e := cfg.Encoding
	in := hpcc.Input{Seq: r.Uint64() & mask(cfg.SeqBits), SndNxt: r.Uint64() & mask(cfg.SeqBits),
		NowNs: r.Uint64() & mask(cfg.TimeBits), NFlows: uint32(r.Uint64() & mask(cfg.FlowCountBits)),
		NHops: uint8(r.Intn(int(mask(cfg.NHopsBits())) + 1))}
	for h := 0; h < cfg.MaxHops; h++ {
		hop := telemetry.Hop{SpeedCode: uint8(r.Uint64() & mask(e.SpeedBits())),
			TxBytes: uint32(r.Uint64() & mask(e.TxBytesBits())), Qlen: uint32(r.Uint64() & mask(e.QlenBits()))}
		if e == telemetry.Compact {
			hop.Ts = uint32(r.Uint64() & mask(telemetry.CompactTsBits))
		} else {
			hop.RxSec = uint32(r.Uint64() & mask(telemetry.IFARxSecBits))
			hop.RxNs = uint32(r.Uint64())
			hop.ResidenceNs = uint32(r.Uint64())
			hop.DeviceID = uint32(r.Uint64() & mask(telemetry.IFADeviceIDBits))
			hop.EgressPort = uint16(r.Uint64())
		}
		in.Hops[h] = hop
	}
	return in
}
