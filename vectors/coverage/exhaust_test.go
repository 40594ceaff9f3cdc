package coverage

import (
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/telemetry"
	"github.com/hpccgold/hpccgold/vectors"
)

// TestTxRateExhaustionDeclared ties the txRate "at" declarations to their
// proof. For the default configuration the model declares, by exhaustion,
// exactly the "at" bin of one saturation compare per hop, that compare
// being the txRate cast (its operand the product of the hop's counter
// difference, its threshold the txRate format's maximum 2^52 - 1); its
// "below" and "above" twins, which the set reaches, stay reachable; another
// configuration (Compact) gets no such declaration. And the fact itself is
// rechecked: vectors.TxRateSaturationEdges enumerates every input of the
// cast's operands for the default configuration and must find none at the
// maximum or one above (the test fails if it stops holding).
func TestTxRateExhaustionDeclared(t *testing.T) {
	cfg := hpcc.DefaultConfig()
	m, err := ForHPCC(cfg)
	if err != nil {
		t.Fatal(err)
	}
	declared := map[string]bool{}
	for _, p := range m.Points {
		for b, bin := range p.Bins {
			if bin.Unreachable != txRateExhaustion {
				continue
			}
			if p.Kind != KindCompare || b != 1 {
				t.Errorf("%s.%s declared by exhaustion: only compare \"at\" bins may be", p.Name, bin.Name)
			}
			if !strings.Contains(p.Doc, "threshold 0000fffffffffffff") {
				t.Errorf("%s (%s): not the txRate threshold 2^52 - 1", p.Name, p.Doc)
			}
			if p.Bins[0].Unreachable != "" || p.Bins[2].Unreachable != "" {
				t.Errorf("%s: below/above declared unreachable (%q, %q): the twins are reachable", p.Name, p.Bins[0].Unreachable, p.Bins[2].Unreachable)
			}
			declared[p.Name] = true
		}
	}
	if len(declared) != cfg.MaxHops {
		t.Errorf("%d txRate compares declared by exhaustion, want one per hop (%d): %v", len(declared), cfg.MaxHops, declared)
	}
	cm, err := ForHPCC(hpcc.DefaultConfigFor(telemetry.Compact))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range cm.Points {
		for _, bin := range p.Bins {
			if bin.Unreachable == txRateExhaustion {
				t.Errorf("Compact configuration: %s.%s declared by the default configuration's exhaustion", p.Name, bin.Name)
			}
		}
	}
	if testing.Short() {
		t.Skip("the exhaustion itself: 2^26 delta ts values (about 10 s of CPU)")
	}
	reach, hits, err := vectors.TxRateSaturationEdges(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		t.Errorf("declared unreachable by exhaustion, but reached: %s", h)
	}
	if reach == 0 {
		t.Fatal("no delta ts reaches the txRate maximum: the exhaustion would check nothing")
	}
}
