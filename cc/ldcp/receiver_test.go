package ldcp

import "testing"

// TestReceiver: the ACK policy of draft section 2.2 with go-back-N: per-
// packet ACKs echo CE; with m = 4 unmarked packets are acknowledged four at
// a time, a CE-marked one at once with ECE, a message's last packet
// (AckReq) at once; a gap gives one NAK carrying the expected PSN and the
// pending count; a duplicate an ACK; PSNs wrap at 2^24. Expected values
// worked by hand from those rules.
func TestReceiver(t *testing.T) {
	type pkt struct {
		psn        uint32
		ce, ackReq bool
		want       AckDecision
	}
	c := DefaultConfig()
	c.DelayedAckPkts = 4
	rx := mustRx(t, c)
	const s = 1<<24 - 2
	steps := []pkt{
		{s, false, false, AckDecision{Accepted: true}},
		{s + 1, false, false, AckDecision{Accepted: true}},
		{0, false, false, AckDecision{Accepted: true}}, // wrapped
		{1, false, false, AckDecision{Accepted: true, Send: true, AckSeq: 2, N: 4}},
		{2, false, false, AckDecision{Accepted: true}},
		{3, true, false, AckDecision{Accepted: true, Send: true, AckSeq: 4, ECE: true, N: 2}},
		{4, false, false, AckDecision{Accepted: true}},
		{6, false, false, AckDecision{Send: true, AckSeq: 5, NAK: true, N: 1}}, // gap at 5
		{7, true, false, AckDecision{}},                                        // still the gap: one NAK
		{3, false, false, AckDecision{Send: true, AckSeq: 5}},                  // duplicate
		{5, false, true, AckDecision{Accepted: true, Send: true, AckSeq: 6, N: 1}},
	}
	st := rx.Start(s)
	for i, p := range steps {
		var a AckDecision
		st, a = rx.OnData(st, p.psn, p.ce, p.ackReq)
		if a != p.want {
			t.Errorf("packet %d (psn %d ce %v): %+v, want %+v", i, p.psn, p.ce, a, p.want)
		}
	}
	per := mustRx(t, DefaultConfig())
	st = per.Start(10)
	for k, ce := range []bool{false, true, false} {
		var a AckDecision
		st, a = per.OnData(st, uint32(10+k), ce, false)
		if !a.Send || a.ECE != ce || a.N != 1 || a.AckSeq != uint32(11+k) {
			t.Errorf("per-packet ACK %d: %+v", k, a)
		}
	}
}

func mustRx(t *testing.T, c Config) *Receiver {
	t.Helper()
	r, err := NewReceiver(c)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
