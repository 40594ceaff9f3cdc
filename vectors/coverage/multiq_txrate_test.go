package coverage

import (
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/rtl"
)

// TestTxRateAlikeDeclared checks the carried txRate exhaustion
// (declareTxRateAlike). MultiQ and Sojourn compute txRate with the default
// configuration's circuit: each gets exactly one carried "at" bin per hop,
// on a compare against the txRate maximum 2^52 - 1, its below/above twins
// reachable. The default configuration gets none carried (ForHPCC declares
// its own), and neither does a MultiQ configuration whose txRate cone
// differs (MaxDeltaTsNs one lower: the hop-valid compare reads another
// constant, so the exhaustion says nothing about it). Oracle: the fact
// itself is vectors.TxRateSaturationEdges' (TestTxRateExhaustionDeclared);
// here, that the carry happens exactly where the circuit is the same.
func TestTxRateAlikeDeclared(t *testing.T) {
	mq := hpcc.DefaultConfig()
	mq.MultiQ = hpcc.MultiQConfig{Enabled: true, ClassWeight: 0.4, BacklogBytes: 1500}
	sj := hpcc.DefaultConfig()
	sj.Sojourn = true
	other := mq
	other.MaxDeltaTsNs--
	for _, c := range []struct {
		name string
		cfg  hpcc.Config
		want int
	}{{"multiq", mq, mq.MaxHops}, {"sojourn", sj, sj.MaxHops}, {"default", hpcc.DefaultConfig(), 0}, {"multiq_other_dts", other, 0}} {
		t.Run(c.name, func(t *testing.T) {
			m, err := ForHPCC(c.cfg)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for _, p := range m.Points {
				for b, bin := range p.Bins {
					if bin.Unreachable != txRateAlike {
						continue
					}
					n++
					if p.Kind != KindCompare || b != 1 || !strings.Contains(p.Doc, "threshold 0000fffffffffffff") {
						t.Errorf("%s.%s (%s): carried, but not a txRate maximum's at bin", p.Name, bin.Name, p.Doc)
					}
					if p.Bins[0].Unreachable != "" || p.Bins[2].Unreachable != "" {
						t.Errorf("%s: below/above declared unreachable: the twins are reachable", p.Name)
					}
				}
			}
			if n != c.want {
				t.Errorf("%d at bins carried, want %d", n, c.want)
			}
		})
	}
}

// TestFaninSig checks the signature the carry compares: equal for two
// builds of the same circuit (other node names), different when one
// constant, one table entry or one port differs.
func TestFaninSig(t *testing.T) {
	build := func(k uint64, e uint64, port string, prefix string) (*rtl.Module, *rtl.Node) {
		m := rtl.NewModule("sig", "")
		x := m.In(port, 8, false)
		a := m.Add(x, m.Const(8, false, k)).Named(prefix + "a")
		r := m.ROM(m.Slice(a, 0, 2), 8, []uint64{1, 2, e, 4})
		g := m.Gt(m.Mul(a, r), m.Const(16, false, 1000)).Named(prefix + "g")
		m.Out("g", g, "")
		f, err := rtl.Flatten(m)
		if err != nil {
			t.Fatal(err)
		}
		return f, f.Outputs[0].Node
	}
	f0, n0 := build(3, 3, "x", "p_")
	base := faninSig(f0, n0)
	if f, n := build(3, 3, "x", "q_"); faninSig(f, n) != base {
		t.Error("same circuit, other node names: signatures differ")
	}
	for _, c := range []struct {
		k, e uint64
		port string
	}{{4, 3, "x"}, {3, 5, "x"}, {3, 3, "y"}} {
		if f, n := build(c.k, c.e, c.port, "p_"); faninSig(f, n) == base {
			t.Errorf("constant %d, entry %d, port %s: same signature as the base circuit", c.k, c.e, c.port)
		}
	}
}
