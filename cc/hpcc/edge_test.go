package hpcc

import (
	"math"
	"testing"

	"github.com/hpccgold/hpccgold/telemetry"
)

// flowAt returns a valid fixed state with the given registers and stored
// hops, and its float twin.
func flowAt(d *Datapath, wc, w, u float64, inc int, last uint64, prev []telemetry.Hop) (State, RefState) {
	st := State{Valid: true, NHops: uint8(len(prev)), IncStage: uint8(inc), LastUpdate: last}
	st.Wc = uint64(math.Round(math.Ldexp(wc, d.cfg.Formats.W.F())))
	st.W = uint64(math.Round(math.Ldexp(w, d.cfg.Formats.W.F())))
	st.U = uint64(math.Round(math.Ldexp(u, d.cfg.Formats.U.F())))
	for i := range prev {
		st.Hops[i] = d.record(&prev[i])
	}
	return st, d.RefState(st)
}

func event(seq uint64, hops ...telemetry.Hop) Input {
	in := Input{Seq: seq, SndNxt: seq + 100000, NHops: uint8(len(hops))}
	copy(in.Hops[:], hops)
	return in
}

// TestHandExample checks one update against values computed by hand from the
// draft's lines 4-27 (defaults: T = 5000 ns, eta = 0.95, W_ai = 62.5):
// one 100 Gbps hop (B = 12.5 B/ns), dts = 1000 ns, dTxBytes = 11000,
// min(qlen) = 6250: u' = 6250/62500 + 11/12.5 = 0.98; tau = 1000:
// U = 0.8*1 + 0.2*0.98 = 0.996 >= eta, so W = 50000*0.95/0.996 + 62.5 =
// 47753.263052208835; seq > lastUpdateSeq commits Wc = W, incStage = 0;
// R = W/T = 9.550652610441767 B/ns. The float model must match to 1e-12,
// the fixed one within ErrorBounds. The same deltas across a txBytes wrap
// and a timestamp wrap (IFA: seconds wrap with a 10^9 ns borrow; Compact:
// 24-bit ns wrap, 86 units of 128 bytes) give the same u'.
func TestHandExample(t *testing.T) {
	const wantU, wantW, wantR = 0.996, 47753.263052208835, 9.550652610441767
	for _, e := range telemetry.Encodings() {
		c := DefaultConfigFor(e)
		d, r := mustDP(t, c), mustRef(t, c)
		b := d.ErrorBounds()
		type pair struct {
			name      string
			prev, cur telemetry.Hop
			wantUHop  float64
		}
		cases := []pair{{"plain", hop(t, e, 1, 100, 5_000_000, 1_000_000*128, 8000), hop(t, e, 1, 100, 5_001_000, 1_000_000*128+11000, 6250), 0.98}}
		if e == telemetry.Compact {
			// Compact carries 128-byte and 80-byte units: 11008 bytes, 6240 bytes.
			cases[0] = pair{"plain", hop(t, e, 1, 100, 5_000_000, 1_000_000*128, 8000), hop(t, e, 1, 100, 5_001_000, 1_000_000*128+11008, 6240), 6240.0/62500 + 11.008/12.5}
		}
		if e == telemetry.IFA {
			cases = append(cases, pair{"wrap",
				telemetry.Hop{SpeedCode: 4, DeviceID: 1, EgressPort: 1, RxSec: 1<<20 - 1, RxNs: 999_999_500, TxBytes: 1<<32 - 5000, Qlen: 8000},
				telemetry.Hop{SpeedCode: 4, DeviceID: 1, EgressPort: 1, RxSec: 0, RxNs: 200, ResidenceNs: 300, TxBytes: 6000, Qlen: 6250}, 0.98})
		} else {
			// 86 units * 128 = 11008 bytes: u' = 0.1 + 11.008/12.5; qlen 6240 = 78 units.
			cases = append(cases, pair{"wrap",
				telemetry.Hop{SpeedCode: 2, Ts: 1<<24 - 500, TxBytes: 1<<20 - 40, Qlen: 100},
				telemetry.Hop{SpeedCode: 2, Ts: 500, TxBytes: 46, Qlen: 78}, 6240.0/62500 + 11.008/12.5})
		}
		for _, cs := range cases {
			st, rs := flowAt(d, 50000, 50000, 1, 0, 1000, []telemetry.Hop{cs.prev})
			in := event(2000, cs.cur)
			next, o := d.Update(st, in)
			rnext, ro := r.Update(rs, in)
			if math.Abs(ro.HopU[0]-cs.wantUHop) > 1e-12 {
				t.Errorf("%s %s: float u' = %.15g, want %.15g", e, cs.name, ro.HopU[0], cs.wantUHop)
			}
			if e == telemetry.IFA {
				if math.Abs(ro.U-wantU) > 1e-12 || math.Abs(ro.W-wantW) > 1e-9 || math.Abs(ro.RateBytesPerNs-wantR) > 1e-12 {
					t.Errorf("%s %s: float U=%.15g W=%.15g R=%.15g; want %v %v %v", e, cs.name, ro.U, ro.W, ro.RateBytesPerNs, wantU, wantW, wantR)
				}
			}
			if !o.MI || !o.UpdateWc || o.SelHop != 0 || o.HopValid != 1 || next.IncStage != 0 || next.LastUpdate != 102000 || next.Wc != next.W {
				t.Errorf("%s %s: flags %+v next %+v", e, cs.name, o, next)
			}
			if u := d.UValue(next.U); math.Abs(u-ro.U) > b.URel*ro.U+b.UAbs {
				t.Errorf("%s %s: fixed U %.12g vs float %.12g", e, cs.name, u, ro.U)
			}
			if w := d.WBytes(next.W); math.Abs(w-ro.W) > b.WRel*ro.W {
				t.Errorf("%s %s: fixed W %.9g vs float %.9g", e, cs.name, w, ro.W)
			}
			if rnext.Wc != rnext.W || rnext.IncStage != 0 {
				t.Errorf("%s %s: float Wc %v incStage %d", e, cs.name, rnext.Wc, rnext.IncStage)
			}
		}
	}
}

// TestEdgeCases covers the decisions the drafts leave open (docs/datapath.md
// "Edge cases"), each with the outcome the rule prescribes, in both models.
func TestEdgeCases(t *testing.T) {
	for _, e := range telemetry.Encodings() {
		c := DefaultConfigFor(e)
		d, r := mustDP(t, c), mustRef(t, c)
		h := func(sw uint32, g uint32, ts, tx, q uint64) telemetry.Hop { return hop(t, e, sw, g, ts, tx, q) }
		p0, p1 := h(1, 100, 1_000_000, 0, 0), h(2, 25, 1_000_300, 0, 0)
		type tc struct {
			name      string
			inc       int
			u         float64
			last      uint64
			prev      []telemetry.Hop
			in        Input
			wantValid uint8
			wantSel   uint8
			wantU     float64 // -1: do not check
			wantW     float64 // -1: do not check
			wantUpd   bool
		}
		cases := []tc{
			{name: "dts=0 (duplicate telemetry)", u: 0.5, last: 10, prev: []telemetry.Hop{p0},
				in: event(5, h(1, 100, 1_000_000, 5000, 0)), wantValid: 0, wantSel: NoHop, wantU: 0.5, wantW: 20062.5},
			{name: "stale gap > MaxDeltaTsNs", u: 0.5, last: 10, prev: []telemetry.Hop{p0},
				in: event(5, h(1, 100, 1_000_000+c.MaxDeltaTsNs+1, 5000, 0)), wantValid: 0, wantSel: NoHop, wantU: 0.5, wantW: 20062.5},
			{name: "hop count changed", u: 0.5, last: 10, prev: []telemetry.Hop{p0},
				in: event(5, h(1, 100, 1_001_000, 5000, 0), h(2, 25, 1_001_300, 100, 0)), wantValid: 0, wantSel: NoHop, wantU: 0.5, wantW: 20062.5},
			{name: "hop count above MaxHops", u: 0.5, last: 10, prev: []telemetry.Hop{p0},
				in: func() Input { in := event(5, h(1, 100, 1_001_000, 5000, 0)); in.NHops = 7; return in }(), wantValid: 0, wantSel: NoHop, wantU: 0.5, wantW: 20062.5},
			{name: "idle hop selected at u'=0", u: 0.5, last: 10, prev: []telemetry.Hop{p0},
				in: event(5, h(1, 100, 1_001_000, 0, 0)), wantValid: 1, wantSel: 0, wantU: 0.4, wantW: 20062.5},
			{name: "seq wraps past lastUpdateSeq", u: 0.5, last: 1<<32 - 10, prev: []telemetry.Hop{p0},
				in: event(5, h(1, 100, 1_001_000, 0, 0)), wantValid: 1, wantSel: 0, wantU: 0.4, wantW: 20062.5, wantUpd: true},
			{name: "incStage >= maxStage forces MI", inc: c.MaxStage, u: 0.5, last: 10, prev: []telemetry.Hop{p0},
				in: event(5, h(1, 100, 1_000_000, 0, 0)), wantValid: 0, wantSel: NoHop, wantU: 0.5, wantW: 20000*0.95/0.5 + 62.5},
			{name: "U = 0 on MI gives W_max", inc: c.MaxStage, u: 0, last: 10, prev: []telemetry.Hop{p0},
				in: event(5, h(1, 100, 1_000_000, 0, 0)), wantValid: 0, wantSel: NoHop, wantU: 0, wantW: c.WMaxBytes},
			// Byte counts are multiples of 128 so both encodings carry them
			// exactly: u' = 5.12/12.5 = 0.4096, 3.2/3.125 = 12.8/12.5 = 1.024.
			{name: "second hop larger u' wins", u: 0.5, last: 10, prev: []telemetry.Hop{p0, p1},
				in: event(5, h(1, 100, 1_001_000, 5120, 0), h(2, 25, 1_001_300, 3200, 0)), wantValid: 3, wantSel: 1, wantU: 0.5*0.8 + 0.2*1.024, wantW: -1},
			{name: "tie keeps the earlier hop", u: 0.5, last: 10, prev: []telemetry.Hop{p0, p1},
				in: event(5, h(1, 100, 1_001_000, 12800, 0), h(2, 25, 1_001_300, 3200, 0)), wantValid: 3, wantSel: 0, wantU: 0.5*0.8 + 0.2*1.024, wantW: -1},
		}
		if e == telemetry.IFA {
			moved := h(9, 25, 1_001_300, 3200, 0) // another switch at hop 1
			cases = append(cases,
				tc{name: "hop identity changed", u: 0.5, last: 10, prev: []telemetry.Hop{p0, p1},
					in: event(5, h(1, 100, 1_001_000, 5120, 0), moved), wantValid: 1, wantSel: 0, wantU: 0.5*0.8 + 0.2*0.4096, wantW: -1},
				tc{name: "reserved speed code", u: 0.5, last: 10, prev: []telemetry.Hop{p0},
					in: func() Input { x := h(1, 100, 1_001_000, 5000, 0); x.SpeedCode = 9; return event(5, x) }(), wantValid: 0, wantSel: NoHop, wantU: 0.5, wantW: -1})
		}
		for _, cs := range cases {
			st, rs := flowAt(d, 20000, 20000, cs.u, cs.inc, cs.last, cs.prev)
			next, o := d.Update(st, cs.in)
			rnext, ro := r.Update(rs, cs.in)
			for _, m := range []struct {
				model     string
				valid     uint8
				sel       uint8
				u, w      float64
				upd       bool
				nh        int
				storedDts uint64
			}{
				{"fixed", o.HopValid, o.SelHop, d.UValue(next.U), d.WBytes(next.W), o.UpdateWc, int(next.NHops), 0},
				{"float", ro.HopValid, ro.SelHop, rnext.U, rnext.W, ro.UpdateWc, rnext.NHops, 0},
			} {
				if m.valid != cs.wantValid || m.sel != cs.wantSel || m.upd != cs.wantUpd || m.nh != int(cs.in.NHops) {
					t.Errorf("%s %s %s: valid %b sel %d upd %v nhops %d; want %b %d %v %d", e, cs.name, m.model, m.valid, m.sel, m.upd, m.nh, cs.wantValid, cs.wantSel, cs.wantUpd, cs.in.NHops)
				}
				if cs.wantU >= 0 && math.Abs(m.u-cs.wantU) > 1e-6 {
					t.Errorf("%s %s %s: U = %.9g, want %.9g", e, cs.name, m.model, m.u, cs.wantU)
				}
				if cs.wantW >= 0 && math.Abs(m.w-cs.wantW) > 1e-4*cs.wantW {
					t.Errorf("%s %s %s: W = %.9g, want %.9g", e, cs.name, m.model, m.w, cs.wantW)
				}
			}
			// Telemetry is always recorded for the hops on the path (L = ack.L).
			rsNext := d.RefState(next)
			for i := 0; i < int(min(cs.in.NHops, uint8(c.MaxHops))); i++ {
				if telemetry.DeltaTsNs(e, cs.in.Hops[i], rsNext.Hops[i]) != 0 {
					t.Errorf("%s %s: hop %d not recorded", e, cs.name, i)
				}
			}
		}
	}
}

// TestSpeedAboveMax: with MaxLinkSpeedGbps = 100, a 400 Gbps hop is invalid
// (its table entries are 0), in both models.
func TestSpeedAboveMax(t *testing.T) {
	c := DefaultConfig()
	c.MaxLinkSpeedGbps = 100
	d, r := mustDP(t, c), mustRef(t, c)
	p := hop(t, c.Encoding, 1, 400, 1000, 0, 0)
	st, rs := flowAt(d, 20000, 20000, 0.5, 0, 10, []telemetry.Hop{p})
	in := event(5, hop(t, c.Encoding, 1, 400, 2000, 50000, 0))
	_, o := d.Update(st, in)
	_, ro := r.Update(rs, in)
	if o.HopValid != 0 || ro.HopValid != 0 {
		t.Errorf("400G hop over a 100G maximum: valid fixed %b float %b, want 0", o.HopValid, ro.HopValid)
	}
}
