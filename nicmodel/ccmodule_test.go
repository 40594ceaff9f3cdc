package nicmodel

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/cc/dcqcn"
	"github.com/hpccgold/hpccgold/cc/ldcp"
	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/pipeline"
	"github.com/hpccgold/hpccgold/pipeline/wire"
)

// Test bench of the CC module (cc=ldcp, cc=dcqcn): two NICs back to back
// through links that can drop or CE-mark chosen data packets, as a
// WRED/ECN switch queue would, and record what crossed them.

// seen is one frame a ccLink carried.
type seen struct {
	cycle engine.Cycle
	class wire.Class
	cnp   bool
	psn   wire.PSN
	ecn   wire.ECN
	syn   wire.Syndrome
	becn  bool
	drop  bool
}

type ccLink struct {
	from, to *engine.TimedQueue[pipeline.Frame]
	delay    engine.Cycle
	drop     func(psn wire.PSN, ecn wire.ECN, n int) bool // data frames: drop the n-th (0-based) one?
	mark     func(psn wire.PSN, n int) bool               // data frames: set CE (ECN-capable ones only)?
	data     int
	got      []seen
}

func (l *ccLink) Tick(now engine.Cycle) bool {
	p := false
	for {
		f, ok := l.from.Pop(now)
		if !ok {
			return p
		}
		p = true
		var pk wire.Packet
		wire.Decode(f.Data, &pk)
		s := seen{cycle: now, class: pk.Class}
		if _, ok := wire.ParseCNP(f.Data); ok {
			s.cnp = true
		} else if pk.Class != wire.ClassMalformed {
			s.psn, s.ecn, s.syn, s.becn = pk.PSN, pk.ECN, pk.Syndrome, pk.BECN
		}
		if pk.Class == wire.ClassData {
			n := l.data
			l.data++
			if l.drop != nil && l.drop(pk.PSN, pk.ECN, n) {
				s.drop = true
				l.got = append(l.got, s)
				continue
			}
			if l.mark != nil && l.mark(pk.PSN, n) {
				if ok, _ := wire.MarkCE(f.Data); ok {
					s.ecn = wire.CE
				}
			}
		}
		l.got = append(l.got, s)
		l.to.Push(now, now+l.delay, f)
	}
}

func (l *ccLink) NextWake(engine.Cycle) (engine.Cycle, bool) { return engine.Never, false }

type ccBench struct {
	e      *engine.Engine
	a, b   *NIC
	ab, ba *ccLink
	recs   []FlowRecord
}

func ccTestConfig(cc CCMode) Config {
	c := testConfig(cc)
	c.Tx.INTOnData = false // LDCP and DCQCN need no telemetry
	return c
}

func newCCBench(t testing.TB, cfg Config, flows int, delay engine.Cycle, noSkip bool, ab *ccLink) *ccBench {
	t.Helper()
	e := must(engine.New(engine.Config{Freq: cfg.ClockHz, NoSkip: noSkip}))(t)
	qa, qb := qpPair(flows)
	cb := &ccBench{e: e}
	cb.a = must(New(cfg, qa, Options{Name: "A", OnComplete: func(r FlowRecord) { cb.recs = append(cb.recs, r) }}))(t)
	cb.b = must(New(cfg, qb, Options{Name: "B"}))(t)
	for _, n := range []*NIC{cb.a, cb.b} {
		if err := n.Register(e); err != nil {
			t.Fatal(err)
		}
	}
	if ab == nil {
		ab = &ccLink{}
	}
	ab.from, ab.to, ab.delay = cb.a.Out(), cb.b.In(), delay
	cb.ab = ab
	cb.ba = &ccLink{from: cb.b.Out(), to: cb.a.In(), delay: delay}
	abID := must(e.Add("link_ab", cb.ab))(t)
	baID := must(e.Add("link_ba", cb.ba))(t)
	if err := cb.a.ConnectOut(abID); err != nil {
		t.Fatal(err)
	}
	if err := cb.b.ConnectOut(baID); err != nil {
		t.Fatal(err)
	}
	return cb
}

// delivered returns the data PSNs that reached B, in order.
func (cb *ccBench) delivered() []seen {
	var out []seen
	for _, s := range cb.ab.got {
		if s.class == wire.ClassData && !s.drop {
			out = append(out, s)
		}
	}
	return out
}

// TestLDCPFastStartECN checks LDCP's zero-RTT bandwidth acquisition on a
// loss-free path (LDCP draft section 2.3 and 3.1): with IW = 63 (the BDP
// of 100 Gbit/s x 5 us in 1000-byte packets, LDCPResolved), the first
// IW-1 = 62 packets of a 200-packet message leave ECN-incapable (Not-ECT),
// the IW-th and every later one ECN-capable (ECT(0), "ever since"); a
// 10-packet message (below the BDP) that follows on the same QP continues
// its PSNs and has only its last packet ECN-capable.
// The flows complete, the 200-packet one through transition 2 (a full IW
// acknowledged), and every packet is delivered once, in order.
func TestLDCPFastStartECN(t *testing.T) {
	cfg := ccTestConfig(CCLDCP)
	if iw := cfg.LDCPResolved().IWPkts; iw != 63 {
		t.Fatalf("IW = %d, want 63", iw)
	}
	cb := newCCBench(t, cfg, 1, 1000, false, nil)
	cb.a.OpenFlow(FlowSpec{QPN: 1, Bytes: 200_000})
	cb.e.RunUntilIdle(10_000_000)
	// The second message on the same QP continues its PSNs (200..209).
	cb.a.OpenFlow(FlowSpec{QPN: 1, Bytes: 10_000, Start: cb.e.Now() + 1})
	if !cb.e.RunUntilIdle(20_000_000) {
		t.Fatal("not idle")
	}
	if len(cb.recs) != 2 {
		t.Fatalf("%d flows completed, want 2", len(cb.recs))
	}
	d := cb.delivered()
	if len(d) != 210 {
		t.Fatalf("%d data packets delivered, want 210 (no loss, no retransmission)", len(d))
	}
	for i, s := range d {
		want := wire.ECT0
		switch {
		case i < 62: // message 1 (PSN 0..199): the first IW-1 packets
			want = wire.NotECT
		case i >= 200 && i < 209: // message 2 (PSN 200..209): all but its last
			want = wire.NotECT
		}
		if s.psn != wire.PSN(i) || s.ecn != want {
			t.Fatalf("data packet %d: PSN %d ECN %v, want PSN %d ECN %v", i, s.psn, s.ecn, i, want)
		}
	}
	c := cb.a.Counters().CC
	if c.FastStartFull != 1 || c.FastStartLoss != 0 || c.Retransmits != 0 || c.NotECTPackets != 62+9 {
		t.Errorf("counters: full %d loss %d retransmits %d not-ect %d; want 1 0 0 71", c.FastStartFull, c.FastStartLoss,
			c.Retransmits, c.NotECTPackets)
	}
	if rb := cb.b.Counters().CC; rb.RxAccepted != 210 || rb.NAKsSent != 0 {
		t.Errorf("receiver: accepted %d NAKs %d, want 210 and 0", rb.RxAccepted, rb.NAKsSent)
	}
}

// TestLDCPGoBackN drops the ECN-incapable packet PSN 10 of a 200-packet
// message, as a switch above the threshold K does (draft Eq. (3)). The
// receiver answers the first out-of-order packet (PSN 11) with one NAK for
// PSN 10; the sender ends fast start by transition 1 with cw = 10 (the
// packets acknowledged before the loss, draft section 3.1) and goes back
// to PSN 10 (go-back-N); packets already handed to the Tx pipeline still
// leave and are dropped by the receiver. Every PSN is delivered exactly
// once and in order, the retransmitted packets are ECN-capable (stable
// stage), and the run is the same with the engine's idle skipping off.
func TestLDCPGoBackN(t *testing.T) {
	run := func(noSkip bool) (*ccBench, []seen) {
		link := &ccLink{drop: func(psn wire.PSN, ecn wire.ECN, n int) bool { return psn == 10 && n == 10 }}
		cb := newCCBench(t, ccTestConfig(CCLDCP), 1, 1000, noSkip, link)
		cb.a.OpenFlow(FlowSpec{QPN: 1, Bytes: 200_000})
		if !cb.e.RunUntilIdle(10_000_000) {
			t.Fatal("not idle")
		}
		if len(cb.recs) != 1 {
			t.Fatalf("flow did not complete")
		}
		return cb, cb.delivered()
	}
	cb, d := run(false)
	var inOrder []wire.PSN
	next := wire.PSN(0)
	for _, s := range d {
		if s.psn == next {
			inOrder = append(inOrder, s.psn)
			if s.psn >= 10 && s.ecn != wire.ECT0 {
				t.Errorf("PSN %d after the loss: ECN %v, want ECT(0) (stable stage)", s.psn, s.ecn)
			}
			next++
		}
	}
	if len(inOrder) != 200 {
		t.Fatalf("in-order PSNs delivered: %d, want 200", len(inOrder))
	}
	ca, cbk := cb.a.Counters().CC, cb.b.Counters().CC
	if ca.FastStartLoss != 1 || ca.NAKEvents != 1 || ca.GoBackN != 1 || ca.Timeouts != 0 {
		t.Errorf("sender: loss %d NAKs %d go-back-N %d timeouts %d; want 1 1 1 0", ca.FastStartLoss, ca.NAKEvents, ca.GoBackN, ca.Timeouts)
	}
	if cbk.NAKsSent != 1 || cbk.RxAccepted != 200 || cbk.RxOutOfOrder == 0 || cbk.RxOutOfOrder != ca.Retransmits-1 {
		t.Errorf("receiver: NAKs %d accepted %d out-of-order %d (sender retransmits %d): want 1, 200, and out-of-order = retransmits - 1",
			cbk.NAKsSent, cbk.RxAccepted, cbk.RxOutOfOrder, ca.Retransmits)
	}
	// The NAK carries PSN 10.
	naks := 0
	for _, s := range cb.ba.got {
		if s.class == wire.ClassAck && s.syn.Type() == wire.AckTypeNAK {
			naks++
			if s.psn != 10 {
				t.Errorf("NAK PSN %d, want 10", s.psn)
			}
		}
	}
	if naks != 1 {
		t.Errorf("%d NAK frames, want 1", naks)
	}
	// cw after transition 1 is 10 packets, then grows by alpha/cw per ACK:
	// the final cw equals the golden datapath fed the same ACKs (one per
	// packet, ECE = 0) from the transition on.
	dp := must(ldcp.NewDatapath(ccTestConfig(CCLDCP).LDCPResolved()))(t)
	cw := dp.CwRaw(10)
	for k := 11; k <= 200; k++ {
		cw, _ = dp.Window(cw, false, 1)
	}
	st, _ := cb.a.QP(1)
	if st.CC.CwPkts != dp.CwPackets(cw) {
		t.Errorf("final cw %v, want %v (datapath replay)", st.CC.CwPkts, dp.CwPackets(cw))
	}
	cb2, d2 := run(true)
	if !reflect.DeepEqual(d, d2) || !reflect.DeepEqual(cb.recs, cb2.recs) || *cb.a.Counters().CC != *cb2.a.Counters().CC {
		t.Error("results differ with idle skipping off")
	}
	if u := cb2.e.Stats().UnexpectedProgress; u != 0 {
		t.Errorf("UnexpectedProgress = %d with NoSkip", u)
	}
}

// TestLDCPECE marks CE on every ECN-capable data packet from PSN 100 on.
// Each marked packet is echoed by exactly one ACK with ECE (per-packet
// ACKs, draft section 2.2); the window falls by beta per marked ACK below
// 1, where the sub-packet timer paces the sender (draft: "ticked out by a
// timer, whose timeout is set as RTT/cw"); the final cw equals the golden
// datapath fed the same ACK sequence; the flow completes.
func TestLDCPECE(t *testing.T) {
	const pkts = 300
	link := &ccLink{mark: func(psn wire.PSN, n int) bool { return psn >= 100 }}
	cb := newCCBench(t, ccTestConfig(CCLDCP), 1, 1000, false, link)
	cb.a.OpenFlow(FlowSpec{QPN: 1, Bytes: pkts * 1000})
	if !cb.e.RunUntilIdle(100_000_000) {
		t.Fatal("not idle")
	}
	if len(cb.recs) != 1 {
		t.Fatal("flow did not complete")
	}
	ca := cb.a.Counters().CC
	marked := uint64(0)
	for _, s := range cb.delivered() {
		if s.ecn == wire.CE {
			marked++
		}
	}
	if marked != pkts-100 || ca.ECNEchoes != marked {
		t.Errorf("marked %d, ECN echoes %d; want %d each", marked, ca.ECNEchoes, pkts-100)
	}
	if ca.TimerWaits == 0 {
		t.Error("the sub-packet timer never held a packet (cw should fall below 1)")
	}
	// Replay: fast start ends at the ACK of PSN 62 (transition 2, cw = IW),
	// then one ACK per packet 63..299 with ECE = (PSN >= 100).
	lc := ccTestConfig(CCLDCP).LDCPResolved()
	dp := must(ldcp.NewDatapath(lc))(t)
	cw := dp.CwRaw(float64(lc.IWPkts))
	for psn := int(lc.IWPkts); psn < pkts; psn++ {
		cw, _ = dp.Window(cw, psn >= 100, 1)
	}
	st, _ := cb.a.QP(1)
	if st.CC.CwPkts != dp.CwPackets(cw) || st.CC.CwPkts >= 1 {
		t.Errorf("final cw %v, want %v (datapath replay, below 1)", st.CC.CwPkts, dp.CwPackets(cw))
	}
}

// TestDCQCNCutOnCNP marks CE on one data packet of a long DCQCN flow. The
// receiver's notification point sends one CNP; the sender's reaction
// point cuts the rate at its first decrease check, 4 us after the CNP
// (Mellanox variant, docs/dcqcn.md: RC = 100 x (1 - (1-1/256)^4 / 2) =
// 50.777 Gbit/s); the QP's pacing register follows (round down into the
// rate format); packets then leave at most at that rate; the flow
// completes. Expected values: cc/dcqcn's RP run on the CNP's arrival time
// (independently checked there against hand-worked values).
func TestDCQCNCutOnCNP(t *testing.T) {
	cfg := ccTestConfig(CCDCQCN)
	link := &ccLink{mark: func(psn wire.PSN, n int) bool { return n == 20 }}
	cb := newCCBench(t, cfg, 1, 1000, false, link)
	cb.a.OpenFlow(FlowSpec{QPN: 1, Bytes: 2_000_000})
	// Run until the CNP has crossed the link.
	var cnpAt engine.Cycle
	for cnpAt == 0 {
		cb.e.Run(cb.e.Now() + 100)
		for _, s := range cb.ba.got {
			if s.cnp {
				cnpAt = s.cycle
			}
		}
		if cb.e.Now() > 1_000_000 {
			t.Fatal("no CNP")
		}
	}
	// The CNP arrives at A at cnpAt + delay; MAC Rx -> CC port -> CC
	// module takes two more cycles.
	taken := cnpAt + 1000 + 2
	rp := must(dcqcn.NewRP(cfg.DCQCNResolved()))(t)
	st, _ := rp.OnCNP(rp.InitialState(), cfg.ClockHz.NS(taken))
	st, _ = rp.Advance(st, cfg.ClockHz.NS(taken)+4000)
	if want := 100 * (1 - math.Pow(1-1.0/256, 4)/2); math.Abs(dcqcn.Gbps(st.RC)-want) > 1e-9 {
		t.Fatalf("oracle RC = %v Gbit/s, want %v", dcqcn.Gbps(st.RC), want)
	}
	cb.e.Run(taken + 4000 + 20)
	qs, _ := cb.a.QP(1)
	if qs.CC.RCGbps != dcqcn.Gbps(st.RC) {
		t.Errorf("RC = %v Gbit/s, want %v", qs.CC.RCGbps, dcqcn.Gbps(st.RC))
	}
	f := cfg.HPCC.Formats.Rate.F()
	if want := uint64(math.Floor(math.Ldexp(st.RC, f))); qs.Scheduler.Rate != want {
		t.Errorf("scheduler rate register %d, want %d", qs.Scheduler.Rate, want)
	}
	// Departures after the cut are paced: 100 packets take at least
	// 100 x wire bytes / RC.
	n0 := len(cb.ab.got)
	for len(cb.ab.got) < n0+101 {
		cb.e.Run(cb.e.Now() + 100)
	}
	dt := float64(cb.ab.got[n0+100].cycle - cb.ab.got[n0].cycle)
	// 0.1% for the pacer's gap register granularity (2^-16 cycle per byte).
	if lo := 100 * float64(1000+cfg.OverheadBytes()) / st.RC; dt < lo*0.999 {
		t.Errorf("100 packets after the cut took %.0f ns, want at least %.0f (paced at RC)", dt, lo)
	}
	if !cb.e.RunUntilIdle(100_000_000) || len(cb.recs) != 1 {
		t.Fatal("flow did not complete")
	}
	ca, cbk := cb.a.Counters().CC, cb.b.Counters().CC
	if cbk.CNPsSent != 1 || ca.CNPs != 1 || cb.a.Counters().CC.CNPsTaken != 1 || ca.RateCuts != 1 {
		t.Errorf("CNPs sent %d received %d taken %d, cuts %d; want 1 each", cbk.CNPsSent, ca.CNPs, ca.CNPsTaken, ca.RateCuts)
	}
	for _, s := range cb.ba.got {
		if s.class == wire.ClassAck && s.becn {
			t.Fatal("a DCQCN ACK echoes ECN; the CNP is the only feedback")
		}
	}
}

// TestCCModuleConfig checks the cc=ldcp/dcqcn configuration rules: the
// sections load over defaults, irrelevant sections and inconsistent values
// are errors naming the field and value, and the resolved sections appear
// in the NIC's configuration.
func TestCCModuleConfig(t *testing.T) {
	c, err := LoadConfig(strings.NewReader(`{"cc": "ldcp", "tx": {"int_on_data": false}, "ldcp": {"alpha": 2}}`))
	if err != nil {
		t.Fatal(err)
	}
	if c.LDCP.Alpha != 2 || c.LDCP.Beta != ldcp.DefaultConfig().Beta {
		t.Errorf("ldcp section: alpha %v beta %v, want 2 and the default", c.LDCP.Alpha, c.LDCP.Beta)
	}
	d, err := LoadConfig(strings.NewReader(`{"cc": "dcqcn", "dcqcn": {"variant": "paper", "line_rate_gbps": 100}}`))
	if err != nil {
		t.Fatal(err)
	}
	if d.DCQCN.Variant != dcqcn.Paper || d.DCQCN.CNPIntervalNs != 50_000 {
		t.Errorf("dcqcn section: %+v, want the paper profile", d.DCQCN.Config)
	}
	for _, tc := range []struct{ json, want string }{
		{`{"cc": "hpcc", "ldcp": {}}`, `ldcp={...}: set with cc=hpcc`},
		{`{"cc": "ldcp", "dcqcn": {}}`, `dcqcn={...}: set with cc=ldcp`},
		{`{"cc": "dcqcn", "dcqcn": {"line_rate_gbps": 25}}`, `dcqcn.line_rate_gbps=25: must equal`},
		{`{"cc": "ldcp", "ldcp": {"delayed_ack_pkts": 2}}`, `ldcp.delayed_ack_pkts=2: must equal tx.ack_every=1`},
		{`{"cc": "ldcp", "ldcp": {"gamma": 2}}`, `Gamma=2`},
		{`{"cc": "ldcp", "ldcp": {"gama": 2}}`, `unknown field "gama"`},
		{`{"cc": "ldcp", "cc_module": {"credits": 65}}`, `cc_module.credits=65`},
		{`{"cc": "ldcp", "cc_module": {"rto_ns": 5}}`, `cc_module.rto_ns=5`},
		{`{"cc": "ldcp", "tx": {"egress_full": "drop"}}`, `tx.egress_full=drop`},
	} {
		_, err := LoadConfig(strings.NewReader(tc.json))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("LoadConfig(%s) = %v, want an error containing %q", tc.json, err, tc.want)
		}
	}
	qa, _ := qpPair(1)
	n := must(New(ccTestConfig(CCLDCP), qa, Options{}))(t)
	if n.Config().LDCP == nil || n.Config().LDCP.IWPkts != 63 {
		t.Error("the NIC's configuration lacks the resolved ldcp section")
	}
}

// TestDCQCNByteCounter runs the paper variant with a 100 KB byte counter
// and alpha and increase timers of 1 s (so that only bytes sent can raise
// the rate). The 21st packet is marked; its CNP returns one RTT (2.2 us,
// about 25 packets) later and cuts RC to RC x (1 - alpha/2) = 50 Gbit/s
// (paper: RT = RC, RC = RC(1 - alpha/2), alpha = 1 initially). The module
// feeds every packet sent to the reaction point (RP.OnSent): the 1.9-1.98
// MB sent after the cut are 19 byte-counter events (fast recovery RC =
// (RT + RC)/2 for the first F = 5, then additive increase), and RC equals
// cc/dcqcn's RP given the same CNP and 19 x 100 KB. After the flow the QP
// is idle and its RP timers stop (its next message restarts the RP at line
// rate), so the model becomes idle although RC < line rate.
func TestDCQCNByteCounter(t *testing.T) {
	cfg := ccTestConfig(CCDCQCN)
	d := dcqcn.PaperConfig(100)
	d.ByteCounterBytes = 100_000
	d.IncreaseTimerNs = 1_000_000_000
	d.AlphaTimerNs = 1_000_000_000
	cfg.DCQCN = &DCQCNConfig{d}
	link := &ccLink{mark: func(psn wire.PSN, n int) bool { return n == 20 }}
	cb := newCCBench(t, cfg, 1, 1000, false, link)
	cb.a.OpenFlow(FlowSpec{QPN: 1, Bytes: 2_000_000})
	if !cb.e.RunUntilIdle(100_000_000) || len(cb.recs) != 1 {
		t.Fatal("flow did not complete, or the model did not become idle")
	}
	ca := cb.a.Counters().CC
	if ca.CNPs != 1 || ca.RateCuts != 1 || ca.RateIncreases != 19 {
		t.Fatalf("CNPs %d cuts %d increases %d; want 1, 1, 19", ca.CNPs, ca.RateCuts, ca.RateIncreases)
	}
	rp := must(dcqcn.NewRP(d))(t)
	st, _ := rp.OnCNP(rp.InitialState(), 0)
	st, _ = rp.OnSent(st, 0, 19*d.ByteCounterBytes)
	qs, _ := cb.a.QP(1)
	if qs.CC.RCGbps != dcqcn.Gbps(st.RC) || !(st.RC*8 > 50) {
		t.Errorf("RC = %v Gbit/s after 19 increases, want %v (RP replay, above the cut's 50)", qs.CC.RCGbps, dcqcn.Gbps(st.RC))
	}
}
