package ccutil

import (
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/fieldtable"
)

type tState struct{ A uint64 }
type tEvent struct{ B bool }
type tOut struct{ C uint64 }

func testTx(t *testing.T) Transaction[tState, tEvent, tOut] {
	t.Helper()
	tx, err := NewTransaction("pkg", "t_in", []Binding[tState, tEvent, tOut]{
		{Spec: fieldtable.Spec{Name: "a", Width: 60, Format: "uint", Doc: "state a"},
			Get: func(s *tState, _ *tEvent, _ *tOut) uint64 { return s.A },
			Set: func(s *tState, _ *tEvent, _ *tOut, v uint64) { s.A = v }},
		{Spec: fieldtable.Spec{Name: "b", Width: 1, Format: "bool", Doc: "event b"},
			Get: func(_ *tState, e *tEvent, _ *tOut) uint64 { return B2U(e.B) },
			Set: func(_ *tState, e *tEvent, _ *tOut, v uint64) { e.B = v != 0 }},
		{Spec: fieldtable.Spec{Name: "c", Width: 8, Format: "uint", Doc: "output c"},
			Get: func(_ *tState, _ *tEvent, o *tOut) uint64 { return o.C },
			Set: func(_ *tState, _ *tEvent, o *tOut, v uint64) { o.C = v }},
	})
	if err != nil {
		t.Fatal(err)
	}
	return tx
}

// TestTransactionRoundTrip checks that Pack lays the fields out LSB-first in
// binding order (a at bits 0-59, b at 60, c at 61-68, so c straddles the
// word boundary), clears stale bits, and that Unpack inverts it. The
// expected words are computed by hand from those offsets.
func TestTransactionRoundTrip(t *testing.T) {
	tx := testTx(t)
	if tx.Table.Width != 69 || tx.Table.Words() != 2 {
		t.Fatalf("table width %d words %d, want 69 and 2", tx.Table.Width, tx.Table.Words())
	}
	st, ev, out := tState{A: 0x0abc_def0_1234_5678}, tEvent{B: true}, tOut{C: 0xa5}
	word := []uint64{^uint64(0), ^uint64(0)}
	if err := tx.Pack(&st, &ev, &out, word); err != nil {
		t.Fatal(err)
	}
	want := []uint64{0x0abc_def0_1234_5678 | 1<<60 | (0xa5&0x7)<<61, 0xa5 >> 3}
	if word[0] != want[0] || word[1] != want[1] {
		t.Fatalf("packed %#x, want %#x", word, want)
	}
	var st2 tState
	var ev2 tEvent
	var out2 tOut
	if err := tx.Unpack(&st2, &ev2, &out2, word); err != nil {
		t.Fatal(err)
	}
	if st2 != st || ev2 != ev || out2 != out {
		t.Fatalf("unpacked %+v %+v %+v, want %+v %+v %+v", st2, ev2, out2, st, ev, out)
	}
}

// TestTransactionErrors checks the error texts the cc packages rely on: a
// short word slice and a value too wide for its field both name the
// package prefix and the table.
func TestTransactionErrors(t *testing.T) {
	tx := testTx(t)
	tests := []struct {
		name string
		run  func() error
		want string
	}{
		{"pack short", func() error { return tx.Pack(&tState{}, &tEvent{}, &tOut{}, make([]uint64, 1)) },
			"pkg: t_in: word has 1 uint64s, need 2"},
		{"unpack short", func() error { return tx.Unpack(&tState{}, &tEvent{}, &tOut{}, nil) },
			"pkg: t_in: word has 0 uint64s, need 2"},
		{"too wide", func() error { return tx.Pack(&tState{}, &tEvent{}, &tOut{C: 256}, make([]uint64, 2)) },
			"pkg: t_in: "},
	}
	for _, tc := range tests {
		err := tc.run()
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want prefix %q", tc.name, err, tc.want)
		}
	}
	if _, err := NewTransaction[tState, tEvent, tOut]("pkg", "bad", []Binding[tState, tEvent, tOut]{{Spec: fieldtable.Spec{Name: "x", Width: 0}}}); err == nil || !strings.HasPrefix(err.Error(), "pkg: ") {
		t.Errorf("zero-width field: error %v, want one prefixed \"pkg: \"", err)
	}
}
