package hpcc

import (
	"math"
	"strings"
	"testing"
)

// TestMultiQCases checks the three cases of the slides' MultiQ U (seeds
// 002_..., "HPCC++ MultiQ Algorithm") in the float reference against values
// worked out by hand: 100 Gbps link (B = 12.5 B/ns), T = 5000 ns, class
// weight 0.4 (wB = 5 B/ns), backlog threshold 1500 bytes, dts = 1000 ns,
// starting U = 0 so U = 0.2*u'.
func TestMultiQCases(t *testing.T) {
	c := DefaultConfig()
	c.MultiQ = MultiQConfig{Enabled: true, ClassWeight: 0.4, BacklogBytes: 1500}
	r := mustRef(t, c)
	cases := []struct {
		name  string
		tx, q uint64 // bytes sent in 1000 ns, queue (both samples)
		want  float64
	}{
		// txRate 4 <= wB 5: q/(wB*T) + txRate/wB = 5000/25000 + 0.8 = 1.0
		{"within guarantee", 4000, 5000, 5000.0/25000 + 4.0/5},
		// txRate 8 > 5, backlog 5000 > 1500: q/(txRate*T) + 1 = 5000/40000 + 1
		{"above guarantee, backlog", 8000, 5000, 5000.0/40000 + 1},
		// txRate 8 > 5, queue 1000 <= 1500: txRate/((txRate+B)/2) = 8/10.25
		{"above guarantee, no backlog", 8000, 1000, 8 / ((8 + 12.5) / 2)},
	}
	for _, cs := range cases {
		prev := hop(t, c.Encoding, 1, 100, 1_000_000, 1<<30, cs.q)
		cur := hop(t, c.Encoding, 1, 100, 1_001_000, 1<<30+cs.tx, cs.q)
		rs := RefState{Valid: true, NHops: 1, W: 20000, Wc: 20000, U: 0}
		rs.Hops[0] = prev
		_, o := r.Update(rs, event(5, cur))
		if math.Abs(o.HopU[0]-cs.want) > 1e-12 || math.Abs(o.U-0.2*cs.want) > 1e-12 {
			t.Errorf("%s: u' = %.15g U = %.15g, want u' %.15g", cs.name, o.HopU[0], o.U, cs.want)
		}
	}
	if _, err := NewDatapath(c); err == nil || !strings.Contains(err.Error(), "MultiQ.Enabled") {
		t.Errorf("NewDatapath with MultiQ: err = %v, want the float-only error", err)
	}
	if _, err := NewReplayer(c, ReplayFloat); err != nil {
		t.Errorf("float replay with MultiQ: %v", err)
	}
}
