package vectors

import (
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
)

// TestTxRateSaturationEdgeUnreachable is the exhaustive fact behind the
// txRate saturation holes (docs/vectors.md, Coverage; docs/grade.md, #1221):
// for the default configuration, no input of the cast's operands puts
// txRate before saturation exactly at the format's maximum or one above it.
// The oracle is enumeration (TxRateSaturationEdges: every 1/dts unit input,
// every dTx by bisection).
func TestTxRateSaturationEdgeUnreachable(t *testing.T) {
	if testing.Short() {
		t.Skip("exhaustive over 2^26 delta ts values (about 10 s of CPU)")
	}
	reach, hits, err := TxRateSaturationEdges(hpcc.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		t.Error(h)
	}
	if reach == 0 {
		t.Fatal("no delta ts reaches the txRate maximum: the test would check nothing")
	}
	t.Logf("%d delta ts values reach the txRate maximum; none lands on it or one above", reach)
}
