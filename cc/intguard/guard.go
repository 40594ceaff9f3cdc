package intguard

import (
	"fmt"
	"math/bits"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/fieldtable"
	"github.com/hpccgold/hpccgold/fixedpoint"
	"github.com/hpccgold/hpccgold/telemetry"
)

// MaxHopsLimit is the most hop slots a guard has (cc/hpcc's limit).
const MaxHopsLimit = hpcc.MaxHopsLimit

// Check identifies one of the guard's five checks; the order is the order
// of the per-check masks and counters everywhere (Verdict, output table,
// NIC status registers).
type Check uint8

// The checks.
const (
	CheckQlen  Check = iota // queue length above the port buffer: clamped
	CheckRate               // txBytes delta above B*(1+tol)*dts: clamped
	CheckSpeed              // speed code not deployed: clamped to the slowest deployed speed
	CheckPath               // hop count or hop identity changed: hop record dropped
	CheckTime               // egress-time delta zero or negative: hop record dropped (event, when every hop)
	NumChecks
)

var checkNames = [NumChecks]string{"qlen", "rate", "speed", "path", "time"}

// String returns the check's name ("qlen", "rate", "speed", "path", "time").
func (k Check) String() string {
	if k < NumChecks {
		return checkNames[k]
	}
	return fmt.Sprintf("Check(%d)", uint8(k))
}

// HopOut is what the guard hands the update for one hop slot: the event's
// speed code and queue length (clamped when their check fired), and the
// stored record's timestamp and txBytes the update differences against
// (StTs is the event's own recorded timestamp for a dropped hop, so that
// the update sees dts = 0, takes no measurement and re-baselines the slot;
// StTxBytes is moved to tx - dBmax when the rate check fired, so that the
// update's dB is exactly the clamp). Slots outside the event's path pass
// their inputs through.
type HopOut struct {
	Speed     uint8  // speed code, SpeedBits wide
	Qlen      uint32 // queue length, QlenBits wide, QlenUnit units
	StTs      uint64 // stored egress timestamp, HopTsBits wide (cc/hpcc HopState.Ts form)
	StTxBytes uint32 // stored txBytes, TxBytesBits wide, TxBytesUnit units
}

// Verdict is the guard's result for one event.
type Verdict struct {
	// DropEvent: the whole event is dropped (not handed to the update):
	// every hop of the path failed the time check.
	DropEvent bool
	// Fired holds one hop mask per Check (bit i: the check fired at hop i).
	Fired [NumChecks]uint8
	// Drop is the mask of hop records dropped: Fired[CheckPath] |
	// Fired[CheckTime].
	Drop uint8
	// Hops are the guarded hop slots (MaxHops of them).
	Hops [MaxHopsLimit]HopOut
}

// Guard is a compiled guard: the configuration's thresholds as the
// integer constants the hardware holds. It is immutable and safe for
// concurrent use.
type Guard struct {
	cfg     Config
	enc     telemetry.Encoding
	maxHops int
	ids     bool

	nhMask, tsMask, txMask, qMask, idMask uint64
	codeMask                              uint8

	qmax     uint64     // floor(BufferBytes / QlenUnit)
	allowed  [16]bool   // per speed code: deployed
	slowCode uint8      // the slowest deployed speed's code
	c2       [16]uint64 // per speed code: Gbps * (256 + TolQ8); 0 for a reserved code
	shift    uint       // log2(8 * 256 * TxBytesUnit)
	negFrom  uint64     // dts >= negFrom (dts != 0) is negative: wrap - BackWindowNs

	in, out transaction
}

// New validates cfg and compiles it.
func New(cfg Config) (*Guard, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	dp := cfg.Datapath
	e := dp.Encoding
	g := &Guard{cfg: cfg, enc: e, maxHops: dp.MaxHops, ids: dp.HopIDBits() > 0}
	g.nhMask = fieldtable.Mask(dp.NHopsBits())
	g.tsMask = fieldtable.Mask(dp.HopTsBits())
	g.txMask = fieldtable.Mask(e.TxBytesBits())
	g.qMask = fieldtable.Mask(e.QlenBits())
	g.idMask = fieldtable.Mask(dp.HopIDBits())
	g.codeMask = uint8(fieldtable.Mask(e.SpeedBits()))
	g.qmax = cfg.Qlen.BufferBytes / e.QlenUnit()
	slow := uint32(0)
	for _, gb := range cfg.Speed.AllowedGbps {
		code, _ := e.SpeedCode(gb) // validated
		g.allowed[code] = true
		if slow == 0 || gb < slow {
			slow, g.slowCode = gb, code
		}
	}
	for code, gb := range e.SpeedTable() {
		g.c2[code] = uint64(gb) * (1<<TolFracBits + uint64(cfg.Rate.TolQ8))
	}
	g.shift = uint(3 + TolFracBits + bits.TrailingZeros64(e.TxBytesUnit()))
	g.negFrom = e.TsWrapNs() - cfg.Time.BackWindowNs
	var err error
	if g.in, g.out, err = g.tables(); err != nil {
		return nil, err
	}
	return g, nil
}

// Config returns the guard's configuration.
func (g *Guard) Config() Config { return g.cfg }

// Constants the hardware holds, exported for the rtl description and the
// vector model (raw integers; docs/guard.md).
type Constants struct {
	Qmax     uint64     // queue-length threshold and clamp value, QlenUnit units
	Allowed  [16]bool   // deployed speed codes
	SlowCode uint8      // clamp value of the speed check
	C2       [16]uint64 // rate bound multiplier per speed code, Gbps*(256+TolQ8)
	Shift    uint       // dBmax = (dts * C2[code]) >> Shift
	NegFrom  uint64     // dts >= NegFrom is a negative delta
}

// Constants returns the compiled thresholds.
func (g *Guard) Constants() Constants {
	return Constants{Qmax: g.qmax, Allowed: g.allowed, SlowCode: g.slowCode, C2: g.c2, Shift: g.shift, NegFrom: g.negFrom}
}

// recordTs is the stored form of hop h's egress timestamp (cc/hpcc
// HopState.Ts): Compact Ts; IFA (sec mod 2^20)<<30 | ns of rx + residence.
func (g *Guard) recordTs(h *telemetry.Hop) uint64 {
	if g.enc == telemetry.Compact {
		return uint64(h.Ts) & (1<<telemetry.CompactTsBits - 1)
	}
	t := uint64(h.RxNs) + uint64(h.ResidenceNs)
	carry := t / telemetry.NsPerSecond // t < 9*10^9: at most 8
	sec := (uint64(h.RxSec) + carry) & (1<<telemetry.IFARxSecBits - 1)
	return sec<<telemetry.IFAEgressNsBits | (t - carry*telemetry.NsPerSecond)
}

// recordID is hop h's link identity deviceID<<16 | egressPort (0 without
// identity tracking).
func (g *Guard) recordID(h *telemetry.Hop) uint64 {
	if !g.ids {
		return 0
	}
	return (uint64(h.DeviceID&(1<<telemetry.IFADeviceIDBits-1))<<telemetry.IFAPortBits | uint64(h.EgressPort)) & g.idMask
}

// deltaTs is cur - prev of two stored timestamps, exactly as cc/hpcc's
// datapath computes it: Compact modulo 2^24; IFA dsec*10^9 + dns with a
// borrow from the ns field (dns 31 bits wrapping, result < 2^51).
func (g *Guard) deltaTs(cur, prev uint64) uint64 {
	if g.enc == telemetry.Compact {
		return fixedpoint.WrapDiff(cur, prev, telemetry.CompactTsBits)
	}
	const nsMask = 1<<telemetry.IFAEgressNsBits - 1
	cn, pn := cur&nsMask, prev&nsMask
	var borrow uint64
	if cn < pn {
		borrow = 1
	}
	dsec := (cur>>telemetry.IFAEgressNsBits - prev>>telemetry.IFAEgressNsBits - borrow) & (1<<telemetry.IFARxSecBits - 1)
	dns := (cn + borrow*telemetry.NsPerSecond - pn) & (1<<31 - 1)
	return dsec*telemetry.NsPerSecond + dns
}

// DBMax returns the largest plausible txBytes delta, in TxBytesUnit units,
// over dts ns at speed code code: floor(dts * C2[code] / 2^Shift), the
// exact integer form of floor(dts * B * (1 + tol) / (8 * unit)).
func (g *Guard) DBMax(dts uint64, code uint8) uint64 {
	hi, lo := bits.Mul64(dts, g.c2[code&15])
	return hi<<(64-g.shift) | lo>>g.shift
}

// Check runs the guard on one event of a flow whose stored state is st.
// It reads only the fields the guard's input table holds, masked to their
// widths; it allocates nothing.
func (g *Guard) Check(st hpcc.State, in hpcc.Input) Verdict {
	c := &g.cfg
	var v Verdict
	nh := uint64(in.NHops) & g.nhMask
	stNH := uint64(st.NHops) & g.nhMask
	countChange := st.Valid && nh != stNH
	var inPath uint8
	for i := 0; i < g.maxHops; i++ {
		h := &in.Hops[i]
		sh := &st.Hops[i]
		code := h.SpeedCode & g.codeMask
		ql := uint64(h.Qlen) & g.qMask
		tx := uint64(h.TxBytes) & g.txMask
		stTs, stTx := sh.Ts&g.tsMask, uint64(sh.TxBytes)&g.txMask
		o := HopOut{Speed: code, Qlen: uint32(ql), StTs: stTs, StTxBytes: uint32(stTx)}
		if uint64(i) >= nh {
			v.Hops[i] = o
			continue
		}
		bit := uint8(1) << uint(i)
		inPath |= bit
		if c.Qlen.Enable && ql > g.qmax {
			v.Fired[CheckQlen] |= bit
			o.Qlen = uint32(g.qmax)
		}
		if c.Speed.Enable && !g.allowed[code] {
			v.Fired[CheckSpeed] |= bit
			o.Speed = g.slowCode
		}
		ts := g.recordTs(h)
		idChange := g.ids && st.Valid && g.recordID(h) != sh.ID&g.idMask
		if c.Path.Enable && (countChange || idChange) {
			v.Fired[CheckPath] |= bit
		}
		comparable := st.Valid && !countChange && !idChange
		dts := g.deltaTs(ts, stTs)
		stale := dts == 0 || dts >= g.negFrom
		if c.Time.Enable && comparable && stale {
			v.Fired[CheckTime] |= bit
		}
		if c.Rate.Enable && comparable && !stale && g.c2[o.Speed] != 0 {
			dB := (tx - stTx) & g.txMask
			if lim := g.DBMax(dts, o.Speed); dB > lim {
				v.Fired[CheckRate] |= bit
				o.StTxBytes = uint32((tx - lim) & g.txMask)
			}
		}
		if (v.Fired[CheckPath]|v.Fired[CheckTime])&bit != 0 {
			v.Drop |= bit
			o.StTs = ts
		}
		v.Hops[i] = o
	}
	v.DropEvent = c.Time.Enable && st.Valid && !countChange && nh >= 1 && nh <= uint64(g.maxHops) &&
		v.Fired[CheckTime] == inPath
	return v
}

// Apply runs the guard and applies its verdict to the update's inputs:
// the event's speed codes and queue lengths, the stored timestamps and
// txBytes of the flow state. The other fields pass unchanged. When
// v.DropEvent is set the caller must not run the update (the flow state
// stays st).
func (g *Guard) Apply(st hpcc.State, in hpcc.Input) (hpcc.State, hpcc.Input, Verdict) {
	v := g.Check(st, in)
	for i := 0; i < g.maxHops; i++ {
		o := &v.Hops[i]
		in.Hops[i].SpeedCode, in.Hops[i].Qlen = o.Speed, o.Qlen
		st.Hops[i].Ts, st.Hops[i].TxBytes = o.StTs, o.StTxBytes
	}
	return st, in, v
}
