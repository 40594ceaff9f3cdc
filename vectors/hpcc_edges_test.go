package vectors

import (
	"fmt"
	"slices"
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/telemetry"
)

// TestEgressEdgeTimes pins the egress times of class egress_carry_edges,
// worked by hand: rxTimeStampNs < 10^9 and residenceTime < 2^32 give
// t <= 999999999 + 4294967295 = 5294967294, so the carries k = 1..5 are
// reachable and each contributes k*10^9 - 1, k*10^9, k*10^9 + 1.
func TestEgressEdgeTimes(t *testing.T) {
	want := []uint64{999_999_999, 1_000_000_000, 1_000_000_001, 1_999_999_999, 2_000_000_000, 2_000_000_001,
		2_999_999_999, 3_000_000_000, 3_000_000_001, 3_999_999_999, 4_000_000_000, 4_000_000_001,
		4_999_999_999, 5_000_000_000, 5_000_000_001, 5_294_967_294}
	if got := egressEdgeTimes(); !slices.Equal(got, want) {
		t.Fatalf("egressEdgeTimes() = %v, want %v", got, want)
	}
	for _, tt := range want {
		if !isEgressEdge(tt) {
			t.Errorf("isEgressEdge(%d) = false, want true", tt)
		}
		for _, s := range egressSplits(tt) {
			if s[0]+s[1] != tt || s[0] >= telemetry.NsPerSecond || s[1] >= 1<<telemetry.IFAResidenceBits {
				t.Errorf("egressSplits(%d) has %v: not a legal split of t", tt, s)
			}
		}
	}
	for _, tt := range []uint64{0, 999_999_997, 1_000_000_002, 1_500_000_000, 1_999_999_997} {
		if isEgressEdge(tt) {
			t.Errorf("isEgressEdge(%d) = true, want false", tt)
		}
	}
}

// TestDtsBorrowEdges pins dtsBorrowEdges for MaxDeltaTsNs = 2^26-1 (the
// IFA default) and for one of a second or more (only e = 1 can borrow).
func TestDtsBorrowEdges(t *testing.T) {
	const m = 1<<26 - 1
	var want []uint64
	for _, k := range []uint64{0, 1, 2, 5} {
		want = append(want, k*1_000_000_000+1, k*1_000_000_000+m, k*1_000_000_000+m+1)
	}
	if got := dtsBorrowEdges(m); !slices.Equal(got, want) {
		t.Errorf("dtsBorrowEdges(%d) = %v, want %v", m, got, want)
	}
	if got, want := dtsBorrowEdges(2_000_000_000), []uint64{1, 1_000_000_001, 2_000_000_001, 5_000_000_001}; !slices.Equal(got, want) {
		t.Errorf("dtsBorrowEdges(2e9) = %v, want %v", got, want)
	}
	if isDtsBorrowEdge(3_000_000_001, m) || !isDtsBorrowEdge(5_000_000_000+m, m) {
		t.Error("isDtsBorrowEdge disagrees with dtsBorrowEdges")
	}
}

// runClass returns every (state, event) class name of the default
// configuration generates, with the golden next state.
func runClass(t *testing.T, h *HPCC, name string) (sts []hpcc.State, ins []hpcc.Input, nexts []hpcc.State) {
	t.Helper()
	for c, cl := range h.classes {
		if cl.Name != name {
			continue
		}
		err := h.gens[c](func(st hpcc.State, in hpcc.Input) error {
			ns, _ := h.update(st, in)
			sts, ins, nexts = append(sts, st), append(ins, in), append(nexts, ns)
			return nil
		})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return
	}
	t.Fatalf("class %s missing", name)
	return
}

// TestHPCCBoundaryClassesReachTheirEdges checks, per hop slot, that the new
// boundary classes put that slot where they claim. Oracle: package
// telemetry's EgressTime and DeltaTsNs (exact integer arithmetic on the
// wire fields), independent of the datapath and of the rtl description.
func TestHPCCBoundaryClassesReachTheirEdges(t *testing.T) {
	h, err := NewHPCC(hpcc.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	maxDts := h.cfg.MaxDeltaTsNs

	// egress_carry_edges: every hop sees every edge time, with both splits,
	// and records it normalized (carry = t / 10^9 added to the seconds).
	_, ins, nexts := runClass(t, h, "egress_carry_edges")
	seen := map[[2]uint64]int{}
	for v, in := range ins {
		for i := 0; i < h.maxHops; i++ {
			hop := in.Hops[i]
			tt := uint64(hop.RxNs) + uint64(hop.ResidenceNs)
			if !isEgressEdge(tt) {
				continue
			}
			seen[[2]uint64{uint64(i), tt}]++
			sec, ns := telemetry.EgressTime(telemetry.IFA, hop)
			if got, want := nexts[v].Hops[i].Ts, uint64(sec)<<telemetry.IFAEgressNsBits|uint64(ns); got != want {
				t.Errorf("vector %d hop %d: t=%d: stored ts %#x, want %#x", v, i, tt, got, want)
			}
		}
	}
	for i := 0; i < h.maxHops; i++ {
		for _, tt := range egressEdgeTimes() {
			if seen[[2]uint64{uint64(i), tt}] != 2 {
				t.Errorf("egress_carry_edges: hop %d, t=%d: %d vectors, want 2 (both splits)", i, tt, seen[[2]uint64{uint64(i), tt}])
			}
		}
	}

	// dts_borrow_edges: every hop sees every edge with an ns borrow; the
	// hop is valid exactly when the delta is in [1, MaxDeltaTsNs].
	sts, ins, _ := runClass(t, h, "dts_borrow_edges")
	got := map[[2]uint64]bool{}
	for v := range ins {
		for i := 0; i < h.maxHops; i++ {
			prev := telemetry.Hop{RxSec: uint32(sts[v].Hops[i].Ts >> telemetry.IFAEgressNsBits), RxNs: uint32(sts[v].Hops[i].Ts & (1<<telemetry.IFAEgressNsBits - 1))}
			d := telemetry.DeltaTsNs(telemetry.IFA, ins[v].Hops[i], prev)
			_, cn := telemetry.EgressTime(telemetry.IFA, ins[v].Hops[i])
			if isDtsBorrowEdge(d, maxDts) && cn < prev.RxNs {
				got[[2]uint64{uint64(i), d}] = true
			}
		}
	}
	for i := 0; i < h.maxHops; i++ {
		for _, d := range dtsBorrowEdges(maxDts) {
			if !got[[2]uint64{uint64(i), d}] {
				t.Errorf("dts_borrow_edges: hop %d never has delta %d with a borrow", i, d)
			}
		}
	}
}

// TestHopTermExtremesSelectsTheLoadedHop checks class hop_term_extremes:
// on every hop slot, every valid speed code is driven with the smallest
// delta ts and the counter maximum (the largest txRate a sample can carry),
// and the golden datapath selects that slot, the only loaded one, as the
// maximum u' (lines 6-7). Oracle: the class's own construction (the other
// slots are idle, u' = 0) and the speed table.
func TestHopTermExtremesSelectsTheLoadedHop(t *testing.T) {
	h, err := NewHPCC(hpcc.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	sts, ins, _ := runClass(t, h, "hop_term_extremes")
	seen := map[[2]uint64]bool{}
	for v, in := range ins {
		_, out := h.update(sts[v], in)
		for i := 0; i < h.maxHops; i++ {
			prev := sts[v].Hops[i]
			dTx := (uint64(in.Hops[i].TxBytes) - uint64(prev.TxBytes)) & h.txMask
			p := telemetry.Hop{RxSec: uint32(prev.Ts >> telemetry.IFAEgressNsBits), RxNs: uint32(prev.Ts & (1<<telemetry.IFAEgressNsBits - 1))}
			if dTx != h.txMask || telemetry.DeltaTsNs(telemetry.IFA, in.Hops[i], p) != 1 {
				continue
			}
			if int(out.SelHop) != i {
				t.Errorf("vector %d: hop %d at dts 1, dTx max: selected hop %d", v, i, out.SelHop)
			}
			seen[[2]uint64{uint64(i), uint64(in.Hops[i].SpeedCode)}] = true
		}
	}
	for i := 0; i < h.maxHops; i++ {
		for _, c := range h.okCodes {
			if !seen[[2]uint64{uint64(i), uint64(c)}] {
				t.Errorf("hop %d, speed code %d: no vector at dts 1 with the counter maximum", i, c)
			}
		}
	}
}

// TestIllegalEgressEdges checks class egress_carry_illegal_rx's times and
// splits against hand-worked values: every time is a carry-6..8 edge or the
// 32-bit maximum, every split sums to its time with both fields in 32 bits
// and rxTimeStampNs >= 10^9, and the golden datapath normalizes each to
// carry floor(t/10^9) (the oracle: t / 10^9 and t mod 10^9 by hand).
func TestIllegalEgressEdges(t *testing.T) {
	want := []uint64{5999999999, 6000000000, 6000000001, 6999999999, 7000000000, 7000000001, 7999999999, 8000000000, 8000000001, 8589934590}
	d, err := hpcc.NewDatapath(hpcc.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	got := illegalEgressTimes()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("illegalEgressTimes() = %v, want %v", got, want)
	}
	for _, tt := range got {
		for _, s := range illegalSplits(tt) {
			if s[0]+s[1] != tt || s[0] > 1<<32-1 || s[1] > 1<<32-1 || s[0] < 1e9 {
				t.Errorf("split %v of %d: want rx >= 10^9, both 32-bit, summing to t", s, tt)
			}
			if !isIllegalEgress(s[0], s[1]) {
				t.Errorf("isIllegalEgress(%d, %d) = false", s[0], s[1])
			}
			var in hpcc.Input
			in.NHops = 1
			in.Hops[0].RxSec, in.Hops[0].RxNs, in.Hops[0].ResidenceNs = 5, uint32(s[0]), uint32(s[1])
			next, _ := d.Update(hpcc.State{}, in)
			wantTs := (5+tt/1e9)<<telemetry.IFAEgressNsBits | tt%1e9
			if next.Hops[0].Ts != wantTs {
				t.Errorf("rx %d + residence %d: stored ts %#x, want sec %d ns %d", s[0], s[1], next.Hops[0].Ts, 5+tt/1e9, tt%1e9)
			}
		}
	}
	for _, c := range []struct{ rx, res uint64 }{{999999999, 1<<32 - 1}, {1e9, 4999999997}, {4e9, 1}} {
		if isIllegalEgress(c.rx, c.res) {
			t.Errorf("isIllegalEgress(%d, %d) = true, want false", c.rx, c.res)
		}
	}
}
