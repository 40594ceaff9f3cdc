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
// fields are random bit patterns.
func Stream(cfg hpcc.Config, opts ModuleOptions, kind StreamKind, n int, seed int64) ([]Event, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	r := rand.New(rand.NewSource(seed))
	nflows := 1 << uint(opts.FlowBits)
	e := cfg.Encoding
	var codes []uint8
	for c, g := range e.SpeedTable() {
		if g != 0 && g <= cfg.MaxLinkSpeedGbps {
			codes = append(codes, uint8(c))
		}
	}
	if len(codes) == 0 {
		return nil, fmt.Errorf("hpccrtl: no usable speed code")
	}
	gens := make([]*flowGen, nflows)
	now := uint64(1_000_000)
	pick := func(i int) uint32 {
		switch kind {
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
	var out []Event
	for i := 0; i < n; i++ {
		f := pick(i)
		g := gens[f]
		init := false
		if g == nil || (kind == Mixed && r.Intn(200) == 0) {
			g = &flowGen{nhops: 1 + r.Intn(cfg.MaxHops)}
			for h := 0; h < cfg.MaxHops; h++ {
				g.codes = append(g.codes, codes[r.Intn(len(codes))])
				g.ts = append(g.ts, now+uint64(r.Intn(1000)))
				g.tx = append(g.tx, r.Uint64()&0xffffffff)
			}
			gens[f] = g
			init = true
		}
		now += uint64(10 + r.Intn(200))
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
		out = append(out, Event{Flow: f, Init: init, In: in})
	}
	return out, nil
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
