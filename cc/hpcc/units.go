package hpcc

import (
	"math"
	"sync"

	"github.com/hpccgold/hpccgold/fixedpoint"
	"github.com/hpccgold/hpccgold/telemetry"
)

// RecipUnit describes one reciprocal unit of the datapath so that the RTL
// generator can build the same hardware and ROM.
type RecipUnit struct {
	Name   string                      // "recip_dts", "recip_u", "recip_n" or "recip_mq"
	Doc    string                      // what it computes
	Config fixedpoint.ReciprocalConfig // In, TableBits, Entry, NRSteps, Work (filled in), Out, Q, O
	Table  []uint64                    // raw ROM entries (format Config.Entry), index = k bits after the leading one
	// MaxRelError is the unit's worst relative error of the mantissa path
	// (fixedpoint.Reciprocal.MaxRelError); Exact reports whether it was
	// found exhaustively.
	MaxRelError float64
	Exact       bool
}

// unitCache holds the lazily computed RecipUnits of a Datapath.
type unitCache struct {
	unitsOnce sync.Once
	units     []RecipUnit
}

// RecipUnits returns the reciprocal units in datapath order: 1/dts (per hop,
// line 4), 1/U (line 13), with DynamicWAI 1/N and with MultiQ recip_mq
// (per hop).
func (d *Datapath) RecipUnits() []RecipUnit {
	// The exhaustive error search costs up to tens of ms per unit: do it
	// once per datapath.
	d.unitsOnce.Do(func() {
		add := func(name, doc string, r *fixedpoint.Reciprocal) {
			if r == nil {
				return
			}
			eps, exact := r.MaxRelError()
			d.units = append(d.units, RecipUnit{Name: name, Doc: doc, Config: r.Config(), Table: r.Table(), MaxRelError: eps, Exact: exact})
		}
		add("recip_dts", "1/dts, dts = per-hop egress timestamp delta in ns (one unit per hop slot)", d.recipDts)
		add("recip_u", "1/U for the multiplicative window (line 13)", d.recipU)
		add("recip_n", "1/N for the dynamic W_ai", d.recipN)
		add("recip_mq", "1/txRate (MultiQ, backlogged) or 1/((txRate + B)/2) (MultiQ, no backlog), one unit per hop slot", d.mq.recip)
	})
	us := make([]RecipUnit, len(d.units))
	for i, u := range d.units {
		us[i] = u
		us[i].Table = append([]uint64(nil), u.Table...)
	}
	return us
}

// Tables returns the constant tables: kq and kr (indexed by speed code),
// inv_t (1/T) and, with DynamicWAI, k_wai. Entries are copies.
func (d *Datapath) Tables() []Table {
	out := make([]Table, len(d.tables))
	for i, t := range d.tables {
		out[i] = t
		out[i].Entries = append([]uint64(nil), t.Entries...)
		out[i].Reals = append(out[i].Reals[:0:0], t.Reals...)
	}
	return out
}

// Constant is one parameter quantized into its datapath format.
type Constant struct {
	Name   string
	Format fixedpoint.Format
	Raw    uint64
	Value  string // exact decimal value of Raw
}

// Constants returns the quantized parameters: eta, w_ai, w_min, w_max,
// w_init, u_init and T; with MultiQ also the class weight mq_w (w_q), the
// backlog threshold mq_backlog (qlen units) and one_term (1.0 in
// Formats.Term).
func (d *Datapath) Constants() []Constant {
	var cs []Constant
	for _, k := range []struct {
		n string
		v fixedpoint.Value
	}{{"eta", d.eta}, {"w_ai", d.wai}, {"w_min", d.wmin}, {"w_max", d.wmax}, {"w_init", d.winit}, {"u_init", d.uinit}, {"t", d.tT}} {
		cs = append(cs, Constant{Name: k.n, Format: k.v.Format(), Raw: k.v.RawUint(), Value: k.v.String()})
	}
	if d.mq.on {
		bl := bits64(d.fQ, d.mq.backlog)
		cs = append(cs,
			Constant{Name: "mq_w", Format: d.mq.wq.Format(), Raw: d.mq.wq.RawUint(), Value: d.mq.wq.String()},
			Constant{Name: "mq_backlog", Format: d.fQ, Raw: d.mq.backlog, Value: bl.String()},
			Constant{Name: "one_term", Format: d.mq.one.Format(), Raw: d.mq.one.RawUint(), Value: d.mq.one.String()})
	}
	return cs
}

// Real converts a raw datapath value of format f to float64 (display and
// comparison only).
func Real(f fixedpoint.Format, raw uint64) float64 { return math.Ldexp(float64(raw), -f.F()) }

// WBytes returns a raw W or Wc register in bytes.
func (d *Datapath) WBytes(raw uint64) float64 { return Real(d.cfg.Formats.W, raw) }

// UValue returns a raw U register as a real number.
func (d *Datapath) UValue(raw uint64) float64 { return Real(d.cfg.Formats.U, raw) }

// RateBytesPerNs returns a raw rate output in bytes per ns (x8 for Gbps).
func (d *Datapath) RateBytesPerNs(raw uint64) float64 { return Real(d.cfg.Formats.Rate, raw) }

// RefState converts a flow-table entry to the float reference's state with
// the same real values (exact: W, Wc and U have at most 53 significant
// bits in the default formats), so both models can be stepped from the same
// state. Stored IFA timestamps become hops with zero residence (with
// Sojourn: with the stored sojourn as residence and the same egress time).
func (d *Datapath) RefState(st State) RefState {
	rs := RefState{
		Valid: st.Valid, NHops: int(st.NHops), W: d.WBytes(st.W), Wc: d.WBytes(st.Wc), U: d.UValue(st.U),
		IncStage: int(st.IncStage), LastUpdate: st.LastUpdate,
	}
	for i := 0; i < d.maxHops; i++ {
		h := st.Hops[i]
		var th telemetry.Hop
		th.TxBytes, th.Qlen = h.TxBytes, h.Qlen
		if d.enc == telemetry.Compact {
			th.Ts = uint32(h.Ts)
		} else {
			th.RxSec = uint32(h.Ts >> telemetry.IFAEgressNsBits)
			th.RxNs = uint32(h.Ts & (1<<telemetry.IFAEgressNsBits - 1))
			if d.sojourn {
				// The stored sample is the sojourn: a hop with that
				// residence and the same egress time (ingress = egress -
				// sojourn, borrowing a second; sojourn < 2^24 < 10^9).
				res := h.Qlen
				th.ResidenceNs = res
				if th.RxNs >= res {
					th.RxNs -= res
				} else {
					th.RxNs += telemetry.NsPerSecond - res
					th.RxSec = (th.RxSec - 1) & (1<<telemetry.IFARxSecBits - 1)
				}
			}
			th.DeviceID = uint32(h.ID >> telemetry.IFAPortBits)
			th.EgressPort = uint16(h.ID)
		}
		rs.Hops[i] = th
	}
	return rs
}
