package scenario

import (
	"context"
	"fmt"
	"math"
	"reflect"
	"testing"
)

// dataFrameBytes is a full data frame without telemetry as a switch queue
// counts it: Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + payload 1000 + ICRC 4.
const dataFrameBytes = 14 + 20 + 8 + 12 + 1000 + 4

// TestLDCPIncast runs an 8:1 incast of 200 KB per sender under LDCP on the
// HPCC paper's 100 Gbit/s switch (K_min 5 KB, K_max 40 KB, P_max 0.2, K 16
// KB, the default LDCPParams). Expected, and why:
//   - every flow completes (incast checks it): go-back-N recovers every
//     loss;
//   - 8 senders each send IW = 53 packets (the BDP over T = 4.2 us) in the
//     first RTT, ECN-incapable except the IW-th (draft section 3.1), into a
//     queue that reaches K after 16 KB: ECN-incapable packets are dropped
//     (NotECTDrops > 0), ECN-capable ones are not (BufferDrops = 0, the
//     buffer is 32 MiB), receivers answer the gaps with NAKs, and each
//     dropped packet is sent again (Retransmits >= NotECTDrops);
//   - no retransmission timeout fires: the ECN-capable last fast-start
//     packet reaches the receiver and reveals any loss before it (draft
//     section 3.1, "allowing the receiver to detect if packet loss
//     happens");
//   - the time-weighted 99th-percentile queue stays below K_max plus one
//     full frame per flow: above K_max every ECN-capable packet is marked
//     and each marked ACK takes beta = 1/2 packet off its sender's window,
//     so the queue grows past K_max only by what the senders add before
//     the marks come back, at most alpha = 1 packet per flow per RTT (Eq.
//     (1)).
func TestLDCPIncast(t *testing.T) {
	const n = 8
	r := incast(t, n, 200_000, "ldcp", "fixed")
	s := r.Summary
	if s.NotECTDrops == 0 || s.BufferDrops != 0 || s.NAKs == 0 || s.Retransmits < s.NotECTDrops || s.Timeouts != 0 {
		t.Errorf("Not-ECT drops %d, buffer drops %d, NAKs %d, retransmits %d, timeouts %d; want > 0, 0, > 0, >= Not-ECT drops, 0",
			s.NotECTDrops, s.BufferDrops, s.NAKs, s.Retransmits, s.Timeouts)
	}
	l := DefaultLDCPParams()
	if bound := l.KMaxBytes + n*dataFrameBytes; s.P99QueueBytes > bound {
		t.Errorf("p99 queue %d bytes, want at most K_max + %d frames = %d", s.P99QueueBytes, n, bound)
	}
	if s.Feedback != s.ACKs+s.NAKs || s.CNPs != 0 {
		t.Errorf("feedback %d = ACKs %d + NAKs %d + CNPs %d: LDCP sends no CNPs", s.Feedback, s.ACKs, s.NAKs, s.CNPs)
	}
}

// TestDCQCNIncast runs the same 8:1 incast under DCQCN (the Mellanox
// profile at 100 Gbit/s: K_min 400 KB, K_max 1600 KB, P_max 0.2, marking
// at dequeue; a CNP per marked packet). Expected, and why:
//   - every flow completes, with no drop, retransmission or timeout (the
//     8 x 200 KB fit in the 32 MiB buffer, and ECN-capable packets are
//     only marked);
//   - the receivers send one CNP per CE-marked packet (CNP interval 0), and
//     marks happen only at the bottleneck: CNPs = ECN marks > 0;
//   - the senders react: every sampled flow's pacing rate RC falls below
//     the line rate, and never below the profile's minimum rate (1
//     Gbit/s).
func TestDCQCNIncast(t *testing.T) {
	r := incast(t, 8, 200_000, "dcqcn", "fixed")
	s := r.Summary
	if s.SwitchDrops != 0 || s.Retransmits != 0 || s.Timeouts != 0 || s.NAKs != 0 {
		t.Errorf("drops %d, retransmits %d, timeouts %d, NAKs %d; want 0", s.SwitchDrops, s.Retransmits, s.Timeouts, s.NAKs)
	}
	if s.CNPs == 0 || s.CNPs != s.ECNMarks {
		t.Errorf("CNPs %d, ECN marks %d: want equal and > 0", s.CNPs, s.ECNMarks)
	}
	if len(r.Series.Flows) != 8 {
		t.Fatalf("%d sampled flows, want 8", len(r.Series.Flows))
	}
	for _, f := range r.Series.Flows {
		lo := math.Inf(1)
		for _, x := range f.Pacing {
			if !math.IsNaN(x) {
				lo = math.Min(lo, x)
			}
		}
		if !(lo < 100) || lo < 1 {
			t.Errorf("flow %d: lowest pacing rate %v Gbit/s, want in [1, 100)", f.Flow, lo)
		}
	}
}

// TestCCSkipEquivalence runs a 4:1 incast (50 KB per sender) under LDCP
// and DCQCN with and without the engine's idle skipping: flows, time
// series and summaries must be identical and no component may make
// progress in a cycle it was not due in (the CC module's and CC port's
// NextWake contract).
func TestCCSkipEquivalence(t *testing.T) {
	for _, cc := range []string{"ldcp", "dcqcn"} {
		c := small(t)
		if err := c.CC.UnmarshalText([]byte(cc)); err != nil {
			t.Fatal(err)
		}
		a, err := Run(context.Background(), c, Options{})
		if err != nil {
			t.Fatal(err)
		}
		b, err := Run(context.Background(), c, Options{NoSkip: true})
		if err != nil {
			t.Fatal(err)
		}
		if b.Stats.UnexpectedProgress != 0 {
			t.Errorf("%s: UnexpectedProgress = %d", cc, b.Stats.UnexpectedProgress)
		}
		if a.Summary.Completed != a.Summary.Flows {
			t.Errorf("%s: %d of %d flows completed", cc, a.Summary.Completed, a.Summary.Flows)
		}
		if !reflect.DeepEqual(a.Flows, b.Flows) || fmt.Sprint(a.Series) != fmt.Sprint(b.Series) ||
			fmt.Sprint(a.Summary) != fmt.Sprint(b.Summary) {
			t.Errorf("%s: results differ with and without idle skipping", cc)
		}
	}
}
