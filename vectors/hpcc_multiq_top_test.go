package vectors

import (
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
)

// TestMQTopExactUnreachable: for the MultiQ configuration docs/grade.md
// grades, no (delta ts, dTx) puts mq_y exactly at 2^52, the start of its
// top binade (MQYTopExact, exhaustive over every 1/dts input): that is why
// mq_y_top_binade aims at a window and why #942 (recip_mq's y == 0
// constant made 2^52) is equivalent. Oracle: the datapath's own 1/dts unit
// and txRate cast, restated (TestHopArithMatchesRTL checks the
// restatement against the description). Twin: the same enumeration
// (txExact) over targets that are on the grid, the txRate values of
// mq_y_top_binade's own vectors, must find them.
func TestMQTopExactUnreachable(t *testing.T) {
	if testing.Short() {
		t.Skip("exhaustive over 2^26 delta ts values (about 10 s of CPU)")
	}
	cfg := hpcc.DefaultConfig()
	cfg.MultiQ = hpcc.MultiQConfig{Enabled: true, ClassWeight: 0.4, BacklogBytes: 1500}
	reach, hits, err := MQYTopExact(cfg)
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		t.Error(h)
	}
	if reach == 0 {
		t.Fatal("no delta ts reaches the targets: the test would check nothing")
	}
	h, err := NewHPCC(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var twin []txTarget
	k := h.cx
	lo, width, _ := k.a.mq.mqTopWindow()
	for _, tg := range []uint64{lo >> 1, lo - k.a.mq.bh[h.baseCode]} {
		dts, dTx, ok := k.mqTxIn(tg, width>>1, h.baseCode)
		if !ok {
			t.Fatalf("no txRate in the window from %#x", tg)
		}
		v := hopVals{rd: k.a.recip.Recip(dts)}
		k.a.fromRd(&v, dTx, 0, h.baseCode)
		twin = append(twin, txTarget{v.tx, "twin"})
	}
	if len(twin) == 0 {
		t.Fatal("mq_y_top_binade produced no loaded hop")
	}
	if _, th, err := h.txExact(twin); err != nil || len(th) < len(twin) {
		t.Fatalf("twin: %d hits for %d reachable txRate values (err %v)", len(th), len(twin), err)
	}
	t.Logf("%d delta ts values reach a txRate putting mq_y at 2^52 or above; none lands on it", reach)
}
