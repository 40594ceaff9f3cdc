package nicmodel

import (
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
)

// TestDatapathsShare checks the sharing rule: equal configurations get the
// same datapath, a different one its own, a nil set a new one per call.
// (That sharing changes no output is pinned by scenario's
// TestOutputDigests, whose runs share, against the same goldens as runs
// that did not.)
func TestDatapathsShare(t *testing.T) {
	a := hpcc.DefaultConfig()
	b := a
	b.Eta = a.Eta * 0.5
	s := NewDatapaths()
	d1 := must(s.get(a))(t)
	d2 := must(s.get(a))(t)
	d3 := must(s.get(b))(t)
	if d1 != d2 {
		t.Error("equal configurations got different datapaths")
	}
	if d3 == d1 {
		t.Error("different configurations got one datapath")
	}
	if s.Len() != 2 {
		t.Errorf("Len %d, want 2", s.Len())
	}
	var none *Datapaths
	if must(none.get(a))(t) == must(none.get(a))(t) {
		t.Error("nil set shared a datapath")
	}
	bad := a
	bad.MaxHops = 0
	if _, err := s.get(bad); err == nil {
		t.Error("invalid configuration accepted")
	}
	if s.Len() != 2 {
		t.Errorf("a failed build was kept: Len %d", s.Len())
	}
}
