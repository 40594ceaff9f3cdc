package guardvec

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/cc/intguard"
	"github.com/hpccgold/hpccgold/fieldtable"
	"github.com/hpccgold/hpccgold/telemetry"
	"github.com/hpccgold/hpccgold/vectors"
)

// Name is the manifest model name, intguard.ModelName ("int_guard").
const Name = intguard.ModelName

// Model is the vector model of the guard.
type Model struct {
	cfg     intguard.Config
	g       *intguard.Guard
	k       intguard.Constants
	enc     telemetry.Encoding
	mh      int
	in, out fieldtable.Table

	classes []vectors.Class
	gens    []func(emit func(hpcc.State, hpcc.Input) error) error
	detect  []func(o *obs) bool
	points  []vectors.CoverPoint
	fired0  int // first bin of the per-check points
	drop0   int

	code100 uint8 // a deployed code (the fastest deployed speed)
	wrap    uint64
}

// New builds the vector model for cfg (validated by intguard.New).
func New(cfg intguard.Config) (*Model, error) {
	g, err := intguard.New(cfg)
	if err != nil {
		return nil, fmt.Errorf("guardvec: %w", err)
	}
	m := &Model{cfg: cfg, g: g, k: g.Constants(), enc: cfg.Datapath.Encoding, mh: cfg.Datapath.MaxHops,
		in: g.InputTable(), out: g.OutputTable(), wrap: cfg.Datapath.Encoding.TsWrapNs()}
	fast := uint32(0)
	for _, gb := range cfg.Speed.AllowedGbps {
		if gb > fast {
			fast = gb
			m.code100, _ = m.enc.SpeedCode(gb)
		}
	}
	m.buildClasses()
	m.buildPoints()
	return m, nil
}

// Open rebuilds the model from a manifest's model name and configuration
// (a vectors.OpenFunc).
func Open(name string, config json.RawMessage) (vectors.Model, error) {
	if name != Name {
		return nil, fmt.Errorf("guardvec: unknown model %q", name)
	}
	cfg, err := intguard.LoadConfig(bytes.NewReader(config))
	if err != nil {
		return nil, fmt.Errorf("guardvec: %w", err)
	}
	return New(cfg)
}

// Guard returns the compiled guard.
func (m *Model) Guard() *intguard.Guard { return m.g }

// Name implements vectors.Model.
func (m *Model) Name() string { return Name }

// Input implements vectors.Model.
func (m *Model) Input() fieldtable.Table { return m.in }

// Output implements vectors.Model.
func (m *Model) Output() fieldtable.Table { return m.out }

// Config implements vectors.Model.
func (m *Model) Config() any { return m.cfg }

// Classes implements vectors.Model.
func (m *Model) Classes() []vectors.Class { return m.classes }

// CoverPoints implements vectors.Model.
func (m *Model) CoverPoints() []vectors.CoverPoint { return m.points }

// obs is one evaluated transaction.
type obs struct {
	st hpcc.State
	in hpcc.Input
	v  intguard.Verdict
	m  *Model
}

// inPath is the mask of the event's in-path slots.
func (o *obs) inPath() uint8 {
	n := min(int(o.in.NHops), o.m.mh)
	return uint8(1)<<uint(n) - 1
}

func (m *Model) add(name, doc, unreachable string, gen func(emit func(hpcc.State, hpcc.Input) error) error, detect func(o *obs) bool) {
	m.classes = append(m.classes, vectors.Class{Name: name, Doc: doc, Level: 1, Detected: detect != nil, Unreachable: unreachable})
	m.gens = append(m.gens, gen)
	m.detect = append(m.detect, detect)
}

// setTs writes the stored-form timestamp rec into the event hop's wire
// fields (IFA: rx = rec's sec and ns, residence 0).
func (m *Model) setTs(h *telemetry.Hop, rec uint64) {
	if m.enc == telemetry.Compact {
		h.Ts = uint32(rec)
		return
	}
	h.RxSec = uint32(rec >> telemetry.IFAEgressNsBits)
	h.RxNs = uint32(rec & (1<<telemetry.IFAEgressNsBits - 1))
	h.ResidenceNs = 0
}

// addTs returns the stored-form timestamp dts ns after rec, modulo the wrap.
func (m *Model) addTs(rec, dts uint64) uint64 {
	if m.enc == telemetry.Compact {
		return (rec + dts) & (1<<telemetry.CompactTsBits - 1)
	}
	ns := (rec>>telemetry.IFAEgressNsBits)*telemetry.NsPerSecond + rec&(1<<telemetry.IFAEgressNsBits-1)
	ns = (ns + dts) % m.wrap
	return (ns/telemetry.NsPerSecond)<<telemetry.IFAEgressNsBits | ns%telemetry.NsPerSecond
}

// tsAt returns the stored form of t ns (modulo the wrap).
func (m *Model) tsAt(t uint64) uint64 { return m.addTs(0, t%m.wrap) }

// flow is a plausible stored state with n hops and an event dts ns later
// carrying txBytes deltas of db units and queue length q units at every
// hop, on the fastest deployed speed; hop identities match.
func (m *Model) flow(n int, t0, dts, db uint64, q uint32) (hpcc.State, hpcc.Input) {
	st := hpcc.State{Valid: true, NHops: uint8(n)}
	in := hpcc.Input{NHops: uint8(n)}
	txm := fieldtable.Mask(m.enc.TxBytesBits())
	for i := 0; i < n && i < m.mh; i++ {
		rec := m.tsAt(t0 + uint64(i)*1000)
		tx := (uint64(i)*7919 + 123456) & txm
		st.Hops[i] = hpcc.HopState{Ts: rec, TxBytes: uint32(tx), Qlen: q}
		h := &in.Hops[i]
		m.setTs(h, m.addTs(rec, dts))
		h.TxBytes = uint32((tx + db) & txm)
		h.Qlen = q
		h.SpeedCode = m.code100
		if m.cfg.Datapath.HopIDBits() > 0 {
			h.DeviceID, h.EgressPort = uint32(100+i), uint16(i+1)
			st.Hops[i].ID = uint64(h.DeviceID)<<telemetry.IFAPortBits | uint64(h.EgressPort)
		}
	}
	return st, in
}

// dbMax is the rate bound in units for dts at the fastest deployed code.
func (m *Model) dbMax(dts uint64) uint64 { return m.g.DBMax(dts, m.code100) }

type pair struct {
	st hpcc.State
	in hpcc.Input
}

func each(emit func(hpcc.State, hpcc.Input) error, ps ...pair) error {
	for _, p := range ps {
		if err := emit(p.st, p.in); err != nil {
			return err
		}
	}
	return nil
}

func p(st hpcc.State, in hpcc.Input) pair { return pair{st, in} }

// buildClasses defines the directed classes: each generator emits a few
// transactions; each detector recognises the class from the
// transaction's inputs and the guard's verdict alone.
func (m *Model) buildClasses() {
	mh := m.mh
	n := mh
	const dts = 2000 // ns: 2 us between two events' telemetry
	lim := m.dbMax(dts)
	db := lim / 2
	qmax := uint32(m.k.Qmax)
	qFieldMax := uint32(fieldtable.Mask(m.enc.QlenBits()))
	none := func(o *obs) bool {
		for _, f := range o.v.Fired {
			if f != 0 {
				return false
			}
		}
		return !o.v.DropEvent
	}
	hit := func(k intguard.Check, i int) func(o *obs) bool {
		return func(o *obs) bool { return o.v.Fired[k]>>uint(i)&1 != 0 }
	}
	// modAt applies f to each hop slot in turn (a flow of MaxHops hops,
	// two start times): every slot's comparators see the corner.
	modAt := func(f func(st *hpcc.State, in *hpcc.Input, i int)) func(emit func(hpcc.State, hpcc.Input) error) error {
		return func(emit func(hpcc.State, hpcc.Input) error) error {
			var ps []pair
			for i := 0; i < n; i++ {
				for _, t0 := range []uint64{5_000_000 + uint64(i)*77_777, m.wrap - 1500 - uint64(i)*100} {
					st, in := m.flow(n, t0, dts, db, 10)
					f(&st, &in, i)
					ps = append(ps, p(st, in))
				}
			}
			return each(emit, ps...)
		}
	}
	mod := func(f func(st *hpcc.State, in *hpcc.Input)) func(emit func(hpcc.State, hpcc.Input) error) error {
		return func(emit func(hpcc.State, hpcc.Input) error) error {
			var ps []pair
			for _, t0 := range []uint64{5_000_000, 1_234_567_891, m.wrap - 1500} {
				st, in := m.flow(n, t0, dts, db, 10)
				f(&st, &in)
				ps = append(ps, p(st, in))
			}
			return each(emit, ps...)
		}
	}
	m.add("clean", "every hop plausible: nothing fires, inputs pass through", "",
		mod(func(*hpcc.State, *hpcc.Input) {}), func(o *obs) bool { return o.st.Valid && o.in.NHops > 0 && none(o) })
	m.add("first_event", "st_valid = 0: only the qlen and speed checks apply", "",
		mod(func(st *hpcc.State, in *hpcc.Input) { st.Valid = false; in.Hops[0].Qlen = qmax + 1 }),
		func(o *obs) bool { return !o.st.Valid && o.in.NHops > 0 })
	m.add("no_hops", "in_nhops = 0 with a stored path of 0 hops: nothing to check, no event drop", "",
		mod(func(st *hpcc.State, in *hpcc.Input) { st.NHops, in.NHops = 0, 0 }),
		func(o *obs) bool { return o.st.Valid && o.in.NHops == 0 && o.st.NHops == 0 })
	m.add("qlen_at_buffer", "queue length exactly floor(buffer/unit): plausible, not clamped", "",
		modAt(func(_ *hpcc.State, in *hpcc.Input, i int) { in.Hops[i].Qlen = qmax }),
		func(o *obs) bool {
			for i := 0; i < int(min(o.in.NHops, uint8(mh))); i++ {
				if o.in.Hops[i].Qlen == qmax && o.v.Fired[intguard.CheckQlen]>>uint(i)&1 == 0 {
					return true
				}
			}
			return false
		})
	m.add("qlen_above_buffer", "queue length one unit above the buffer: clamped to it", "",
		modAt(func(_ *hpcc.State, in *hpcc.Input, i int) { in.Hops[i].Qlen = qmax + 1 }),
		func(o *obs) bool {
			for i := 0; i < int(min(o.in.NHops, uint8(mh))); i++ {
				if o.in.Hops[i].Qlen == qmax+1 && o.v.Fired[intguard.CheckQlen]>>uint(i)&1 != 0 {
					return true
				}
			}
			return false
		})
	m.add("qlen_field_max", "queue length at the field's maximum (a saturated or forged report): clamped", "",
		mod(func(_ *hpcc.State, in *hpcc.Input) {
			for i := range in.Hops[:n] {
				in.Hops[i].Qlen = qFieldMax
			}
		}), func(o *obs) bool {
			return o.v.Fired[intguard.CheckQlen] != 0 && o.v.Fired[intguard.CheckQlen] == o.inPath()
		})
	txm := fieldtable.Mask(m.enc.TxBytesBits())
	setDB := func(st *hpcc.State, in *hpcc.Input, i int, d uint64) {
		in.Hops[i].TxBytes = uint32((uint64(st.Hops[i].TxBytes) + d) & txm)
	}
	atLimit := func(o *obs) bool {
		for i := 0; i < int(min(o.in.NHops, uint8(mh))); i++ {
			h, s := o.in.Hops[i], o.st.Hops[i]
			if o.v.Fired[intguard.CheckRate]>>uint(i)&1 == 0 && o.v.Drop>>uint(i)&1 == 0 && o.st.Valid {
				d := (uint64(h.TxBytes) - uint64(s.TxBytes)) & txm
				if d != 0 && d == m.g.DBMax(m.dtsOf(o, i), o.v.Hops[i].Speed) {
					return true
				}
			}
		}
		return false
	}
	m.add("rate_at_limit", "txBytes delta exactly floor(B*(1+tol)*dts/(8*unit)): plausible, not clamped", "",
		modAt(func(st *hpcc.State, in *hpcc.Input, i int) { setDB(st, in, i, lim) }), atLimit)
	m.add("rate_above_limit", "txBytes delta one unit above B*(1+tol)*dts: clamped to the bound", "",
		modAt(func(st *hpcc.State, in *hpcc.Input, i int) { setDB(st, in, i, lim+1) }), func(o *obs) bool { return o.v.Fired[intguard.CheckRate] != 0 })
	m.add("rate_tx_wrap", "txBytes counter wraps between the two records, delta at the bound: not clamped", "",
		mod(func(st *hpcc.State, in *hpcc.Input) {
			st.Hops[0].TxBytes = uint32(txm - lim/2)
			setDB(st, in, 0, lim)
		}), func(o *obs) bool {
			h, s := o.in.Hops[0], o.st.Hops[0]
			return o.st.Valid && o.in.NHops > 0 && uint64(h.TxBytes)&txm < uint64(s.TxBytes)&txm && o.v.Fired[intguard.CheckRate]&1 == 0
		})
	m.add("rate_huge", "txBytes delta of half the counter over 1 ns (a forged counter): clamped", "",
		func(emit func(hpcc.State, hpcc.Input) error) error {
			st, in := m.flow(n, 77_000_000, 1, txm/2, 10)
			return emit(st, in)
		}, hit(intguard.CheckRate, 0))
	long := min(300_000_000, m.wrap/2-1) // below NegFrom: BackWindowNs < wrap/2 (validated)
	m.add("rate_long_interval", "a long interval (min(300 ms, wrap/2 - 1)) with a txBytes delta near the counter's maximum, below the bound: the wide compare's upper bits", "",
		func(emit func(hpcc.State, hpcc.Input) error) error {
			for i := 0; i < n; i++ {
				st, in := m.flow(n, 1_000_000, long, 0, 10)
				setDB(&st, &in, i, min(txm-1000, m.dbMax(long)))
				if err := emit(st, in); err != nil {
					return err
				}
			}
			return nil
		}, func(o *obs) bool {
			for i := 0; i < int(min(o.in.NHops, uint8(mh))); i++ {
				d := (uint64(o.in.Hops[i].TxBytes) - uint64(o.st.Hops[i].TxBytes)) & txm
				if o.st.Valid && o.v.Fired[intguard.CheckRate]>>uint(i)&1 == 0 && o.v.Drop>>uint(i)&1 == 0 && d > txm/2 {
					return true
				}
			}
			return false
		})
	setTsRel := func(st *hpcc.State, in *hpcc.Input, i int, d uint64) { m.setTs(&in.Hops[i], m.addTs(st.Hops[i].Ts, d)) }
	oneHop := ""
	if mh == 1 {
		oneHop = "MaxHops=1: a stale hop is a stale event (class replay)"
	}
	m.add("dts_zero", "one hop's egress time equals the stored one: hop record dropped, event kept", oneHop,
		modAt(func(st *hpcc.State, in *hpcc.Input, i int) { setTsRel(st, in, i, 0) }),
		func(o *obs) bool {
			return o.v.Fired[intguard.CheckTime] != 0 && !o.v.DropEvent && m.dtsOf(o, lowBit(o.v.Fired[intguard.CheckTime])) == 0
		})
	m.add("dts_negative", "one hop's egress time 1 ns behind the stored one (wrapped delta): hop record dropped", "",
		modAt(func(st *hpcc.State, in *hpcc.Input, i int) { setTsRel(st, in, i, m.wrap-1) }),
		func(o *obs) bool {
			return o.v.Fired[intguard.CheckTime] != 0 && m.dtsOf(o, lowBit(o.v.Fired[intguard.CheckTime])) == m.wrap-1
		})
	back := m.cfg.Time.BackWindowNs
	m.add("dts_back_edge_in", "egress time exactly BackWindowNs behind: negative, dropped", "",
		modAt(func(st *hpcc.State, in *hpcc.Input, i int) { setTsRel(st, in, i, m.wrap-back) }),
		func(o *obs) bool {
			return o.v.Fired[intguard.CheckTime] != 0 && m.dtsOf(o, lowBit(o.v.Fired[intguard.CheckTime])) == m.wrap-back
		})
	m.add("dts_back_edge_out", "egress time BackWindowNs+1 behind: read as a (long) forward delta, not dropped", "",
		modAt(func(st *hpcc.State, in *hpcc.Input, i int) { setTsRel(st, in, i, m.wrap-back-1) }),
		func(o *obs) bool {
			for i := 0; i < int(min(o.in.NHops, uint8(mh))); i++ {
				if o.st.Valid && o.v.Drop>>uint(i)&1 == 0 && m.dtsOf(o, i) == m.wrap-back-1 {
					return true
				}
			}
			return false
		})
	m.add("replay", "every hop's egress time equals the stored one (a replayed stack): the event is dropped", "",
		mod(func(st *hpcc.State, in *hpcc.Input) {
			for i := 0; i < n; i++ {
				setTsRel(st, in, i, 0)
			}
		}), func(o *obs) bool { return o.v.DropEvent })
	m.add("replay_older", "every hop 1 us behind the stored record (an older stack replayed): the event is dropped", "",
		mod(func(st *hpcc.State, in *hpcc.Input) {
			for i := 0; i < n; i++ {
				setTsRel(st, in, i, m.wrap-1000)
			}
		}), func(o *obs) bool { return o.v.DropEvent && m.dtsOf(o, 0) != 0 })
	m.add("ts_wrap_forward", "the egress time wraps between the two records, forward delta: plausible (also with every delta one unit above the rate bound, so a wrong dts shows)", "",
		func(emit func(hpcc.State, hpcc.Input) error) error {
			for _, t0 := range []uint64{m.wrap - 500, m.wrap - 1000, m.wrap - 1999} {
				st, in := m.flow(n, t0, dts, db, 10)
				if err := emit(st, in); err != nil {
					return err
				}
				for i := 0; i < n; i++ {
					setDB(&st, &in, i, lim+1)
				}
				if err := emit(st, in); err != nil {
					return err
				}
			}
			return nil
		}, func(o *obs) bool {
			return o.st.Valid && o.in.NHops > 0 && o.v.Drop&1 == 0 && m.tsOf(o, 0) < o.st.Hops[0].Ts && m.dtsOf(o, 0) < m.wrap/2
		})
	carryUnreach := ""
	if m.enc != telemetry.IFA {
		carryUnreach = "Compact carries the egress time itself (no rx + residence sum)"
	}
	m.add("egress_carry", "IFA rx_ns + residence at each k*10^9 - 1 and k*10^9 (k = 1..8), every slot: the egress-time carry's comparators at their edges", carryUnreach,
		func(emit func(hpcc.State, hpcc.Input) error) error {
			if m.enc != telemetry.IFA {
				return nil
			}
			for i := 0; i < n; i++ {
				for k := uint64(1); k <= 8; k++ {
					for _, t := range []uint64{k*telemetry.NsPerSecond - 1, k * telemetry.NsPerSecond} {
						// Two variants make the recorded time visible at the
						// outputs: dts = 0 (the hop is dropped and its
						// recorded ts becomes out_hop<i>_st_ts), and dts =
						// 2000 with the txBytes delta one unit above the
						// bound (a wrong dts moves the bound).
						for _, stale := range []bool{true, false} {
							st, in := m.flow(n, 3_000_000_000, dts, db, 10)
							h := &in.Hops[i]
							h.RxSec = uint32(1000 + k)
							h.RxNs = uint32(min(t, 1<<32-1))
							h.ResidenceNs = uint32(t - uint64(h.RxNs))
							rec := m.tsOf(&obs{in: in, m: m}, i)
							if stale {
								st.Hops[i].Ts = rec
							} else {
								st.Hops[i].Ts = m.addTs(rec, m.wrap-dts)
								setDB(&st, &in, i, lim+1)
							}
							if err := emit(st, in); err != nil {
								return err
							}
						}
					}
				}
			}
			return nil
		}, func(o *obs) bool {
			for i := 0; i < int(min(o.in.NHops, uint8(mh))); i++ {
				t := uint64(o.in.Hops[i].RxNs) + uint64(o.in.Hops[i].ResidenceNs)
				if o.m.enc == telemetry.IFA && t+1 >= telemetry.NsPerSecond && (t%telemetry.NsPerSecond == 0 || (t+1)%telemetry.NsPerSecond == 0) {
					return true
				}
			}
			return false
		})
	m.add("path_count_change", "the hop count differs from the stored one: every hop record dropped", "",
		mod(func(st *hpcc.State, in *hpcc.Input) { st.NHops = uint8(n - 1) }),
		func(o *obs) bool {
			return o.v.Fired[intguard.CheckPath] != 0 && o.v.Fired[intguard.CheckPath] == o.inPath() && o.st.NHops != o.in.NHops
		})
	idUnreach := ""
	if m.cfg.Datapath.HopIDBits() == 0 {
		idUnreach = "the configuration stores no hop identity (Compact, or IFA without TrackHopIdentity)"
	} else if mh == 1 {
		idUnreach = "MaxHops=1: an identity change is a change of the whole path"
	}
	m.add("path_id_change", "one hop's identity differs from the stored one: that hop record dropped", idUnreach,
		modAt(func(_ *hpcc.State, in *hpcc.Input, i int) {
			if m.cfg.Datapath.HopIDBits() > 0 {
				in.Hops[i].EgressPort++
			}
		}), func(o *obs) bool {
			f := o.v.Fired[intguard.CheckPath]
			return f != 0 && f != o.inPath() && o.st.NHops == o.in.NHops
		})
	reserved, undeployed := -1, -1
	for code, gb := range m.enc.SpeedTable() {
		if gb == 0 && reserved < 0 {
			reserved = code
		}
		if gb != 0 && !m.k.Allowed[code] && undeployed < 0 {
			undeployed = code
		}
	}
	m.add("speed_reserved", "a reserved speed code: clamped to the slowest deployed speed", "",
		modAt(func(_ *hpcc.State, in *hpcc.Input, i int) { in.Hops[i].SpeedCode = uint8(reserved) }),
		func(o *obs) bool {
			f := o.v.Fired[intguard.CheckSpeed]
			for i := 0; i < mh; i++ {
				if f>>uint(i)&1 != 0 {
					if _, ok := m.enc.SpeedGbps(o.in.Hops[i].SpeedCode); !ok {
						return true
					}
				}
			}
			return false
		})
	undUnreach := ""
	if undeployed < 0 {
		undUnreach = "every speed of the encoding is deployed (speed.allowed_gbps)"
	}
	m.add("speed_undeployed", "a defined speed no link has (a forged speed): clamped to the slowest deployed speed", undUnreach,
		modAt(func(_ *hpcc.State, in *hpcc.Input, i int) {
			if undeployed >= 0 {
				in.Hops[i].SpeedCode = uint8(undeployed)
			}
		}), func(o *obs) bool {
			f := o.v.Fired[intguard.CheckSpeed]
			for i := 0; i < mh; i++ {
				if f>>uint(i)&1 != 0 {
					if _, ok := m.enc.SpeedGbps(o.in.Hops[i].SpeedCode); ok {
						return true
					}
				}
			}
			return false
		})
	overUnreach := ""
	nhMax := fieldtable.Mask(m.cfg.Datapath.NHopsBits())
	if nhMax <= uint64(mh) {
		overUnreach = "MaxHops fills the in_nhops field"
	}
	m.add("nhops_over_max", "in_nhops above MaxHops with a stored count equal to it: every slot checked, no event drop", overUnreach,
		mod(func(st *hpcc.State, in *hpcc.Input) {
			if nhMax > uint64(mh) {
				st2, in2 := m.flow(mh, 9_000_000, 0, 0, 10)
				*st, *in = st2, in2
				st.NHops, in.NHops = uint8(nhMax), uint8(nhMax)
			}
		}), func(o *obs) bool { return uint64(o.in.NHops) > uint64(mh) && !o.v.DropEvent })
	m.add("all_checks", "every check fires on some hop of one event (qlen, rate, speed on one hop; time on another; path elsewhere)", "",
		mod(func(st *hpcc.State, in *hpcc.Input) {
			in.Hops[0].Qlen = qFieldMax
			in.Hops[0].SpeedCode = uint8(reserved)
			setDB(st, in, 0, txm/2)
			if n > 1 {
				setTsRel(st, in, 1, 0)
			}
			if n > 2 && m.cfg.Datapath.HopIDBits() > 0 {
				in.Hops[2].DeviceID++
			}
		}), func(o *obs) bool {
			return o.v.Fired[intguard.CheckQlen] != 0 && o.v.Fired[intguard.CheckRate] != 0 && o.v.Fired[intguard.CheckSpeed] != 0
		})
}

func lowBit(x uint8) int {
	for i := 0; i < 8; i++ {
		if x>>uint(i)&1 != 0 {
			return i
		}
	}
	return 0
}

// tsOf is the stored form of the event's timestamp at hop i.
func (m *Model) tsOf(o *obs, i int) uint64 {
	h := o.in.Hops[i]
	if m.enc == telemetry.Compact {
		return uint64(h.Ts) & (1<<telemetry.CompactTsBits - 1)
	}
	t := uint64(h.RxNs) + uint64(h.ResidenceNs)
	carry := t / telemetry.NsPerSecond
	sec := (uint64(h.RxSec) + carry) & (1<<telemetry.IFARxSecBits - 1)
	return sec<<telemetry.IFAEgressNsBits | (t - carry*telemetry.NsPerSecond)
}

// dtsOf is the egress-time delta at hop i as the guard computes it.
func (m *Model) dtsOf(o *obs, i int) uint64 {
	cur, prev := m.tsOf(o, i), o.st.Hops[i].Ts
	if m.enc == telemetry.Compact {
		return (cur - prev) & (1<<telemetry.CompactTsBits - 1)
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

func (m *Model) buildPoints() {
	for k := intguard.Check(0); k < intguard.NumChecks; k++ {
		m.points = append(m.points, vectors.CoverPoint{Name: "fired_" + k.String(), Doc: "hops on which the " + k.String() + " check fired, per slot",
			Bins: m.mh})
	}
	m.points = append(m.points, vectors.CoverPoint{Name: "drop_event", Doc: "events dropped / kept", Bins: 2, Labels: []string{"kept", "dropped"}})
	offs, _ := vectors.PointOffsets(m.points)
	m.fired0, m.drop0 = offs[0], offs[len(offs)-1]
}

// Directed implements vectors.Model.
func (m *Model) Directed(level int, emit func(class int, in []uint64) error) error {
	word := make([]uint64, m.in.Words())
	for c, cl := range m.classes {
		if cl.Level > level || cl.Unreachable != "" {
			continue
		}
		err := m.gens[c](func(st hpcc.State, in hpcc.Input) error {
			if err := m.g.PackInput(st, in, word); err != nil {
				return fmt.Errorf("guardvec: class %s: %w", cl.Name, err)
			}
			return emit(c, word)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// Random implements vectors.Model: one in eight transactions has every
// field uniformly random; the others are a plausible flow (1..MaxHops
// hops, dts log-uniform up to 2^20 ns, deltas near the rate bound, queues
// near the buffer) with, per hop, a one-in-six chance of each forgery:
// a queue above the buffer, a delta above the bound, a zero or negative
// delta, a reserved or random speed code, a changed identity; and a
// one-in-twelve chance of a hop-count change or a replayed stack.
func (m *Model) Random(r *vectors.Rand, in []uint64) error {
	if r.Chance(1, 8) {
		for _, f := range m.in.Fields {
			fieldtable.PutBits(in, f.Offset, f.Width, r.Bits(f.Width))
		}
		return nil
	}
	n := int(1 + r.Below(uint64(m.mh)))
	dts := 1 + r.LogUniform(1<<20)
	lim := m.dbMax(dts)
	st, ev := m.flow(n, r.Below(m.wrap), dts, 0, 0)
	st.Valid = !r.Chance(1, 16)
	txm := fieldtable.Mask(m.enc.TxBytesBits())
	qm := fieldtable.Mask(m.enc.QlenBits())
	for i := 0; i < n; i++ {
		st.Hops[i].TxBytes = uint32(r.Bits(m.enc.TxBytesBits()))
		d := r.Range(0, lim+2)
		if r.Chance(1, 4) {
			d = lim - 1 + r.Below(3)
		}
		ev.Hops[i].TxBytes = uint32((uint64(st.Hops[i].TxBytes) + d) & txm)
		ev.Hops[i].Qlen = uint32(min(qm, m.k.Qmax-2+r.Below(5)))
		if r.Chance(1, 2) {
			ev.Hops[i].Qlen = uint32(r.LogUniform(qm))
		}
		switch r.Below(6) {
		case 0:
			ev.Hops[i].TxBytes = uint32(r.Bits(m.enc.TxBytesBits()))
		case 1:
			m.setTs(&ev.Hops[i], m.addTs(st.Hops[i].Ts, m.wrap-r.LogUniform(m.cfg.Time.BackWindowNs+2)))
		case 2:
			m.setTs(&ev.Hops[i], st.Hops[i].Ts)
		case 3:
			ev.Hops[i].SpeedCode = uint8(r.Bits(m.enc.SpeedBits()))
		case 4:
			if m.cfg.Datapath.HopIDBits() > 0 {
				ev.Hops[i].EgressPort ^= uint16(1 + r.Below(3))
			}
		}
	}
	switch r.Below(12) {
	case 0:
		st.NHops = uint8(r.Bits(m.cfg.Datapath.NHopsBits()))
	case 1:
		for i := 0; i < n; i++ {
			m.setTs(&ev.Hops[i], st.Hops[i].Ts)
		}
	}
	return m.g.PackInput(st, ev, in)
}

// NewEvaluator implements vectors.Model.
func (m *Model) NewEvaluator() (vectors.Evaluator, error) { return &eval{m: m}, nil }

type eval struct {
	m *Model
	o obs
}

// Eval implements vectors.Evaluator: unpack, run the golden guard, pack,
// detect the classes and count the cover bins.
func (e *eval) Eval(in, out []uint64, h *vectors.Hits) error {
	m := e.m
	o := &e.o
	o.m = m
	var err error
	if o.st, o.in, err = m.g.UnpackInput(in); err != nil {
		return err
	}
	o.v = m.g.Check(o.st, o.in)
	if err := m.g.PackOutput(o.v, out); err != nil {
		return err
	}
	for c, det := range m.detect {
		if det != nil && m.classes[c].Unreachable == "" && det(o) {
			h.Hit(c)
		}
	}
	for k := 0; k < int(intguard.NumChecks); k++ {
		for i := 0; i < m.mh; i++ {
			if o.v.Fired[k]>>uint(i)&1 != 0 {
				h.Count(m.fired0 + k*m.mh + i)
			}
		}
	}
	if o.v.DropEvent {
		h.Count(m.drop0 + 1)
	} else {
		h.Count(m.drop0)
	}
	return nil
}

// CheckConfigs returns the configurations the guard's vectors are checked in:
// IFA with identity tracking and only 100 Gbps deployed (every class
// reachable), and Compact with 25 and 100 Gbps deployed, a 1 MiB buffer, a
// 1/256 tolerance and a 1 ms back window.
func CheckConfigs() map[string]intguard.Config {
	ifa := intguard.DefaultConfig(hpcc.DefaultConfig())
	ifa.Speed.AllowedGbps = []uint32{100}
	cmp := intguard.DefaultConfig(hpcc.DefaultConfigFor(telemetry.Compact))
	cmp.Speed.AllowedGbps = []uint32{25, 100}
	cmp.Qlen.BufferBytes, cmp.Rate.TolQ8, cmp.Time.BackWindowNs = 1<<20, 1, 1_000_000
	return map[string]intguard.Config{"ifa": ifa, "compact": cmp}
}
