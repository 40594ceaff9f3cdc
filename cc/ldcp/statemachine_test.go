package ldcp

import (
	"testing"
)

func mustDP(t testing.TB, c Config) *Datapath {
	t.Helper()
	d, err := NewDatapath(c)
	if err != nil {
		t.Fatalf("NewDatapath: %v", err)
	}
	return d
}

func mustRef(t testing.TB, c Config) *Reference {
	t.Helper()
	r, err := NewReference(c)
	if err != nil {
		t.Fatalf("NewReference: %v", err)
	}
	return r
}

// view is the part of an output both models report identically, with cw
// and the interval as reals: what the scenario tables below check.
type view struct {
	Cw                                      float64
	Stage                                   Stage
	Rule                                    Rule
	N                                       uint32
	Allowed                                 bool
	Block                                   Block
	PSN                                     uint32
	ECT, Last, Done, Invalid, Stale         bool
	FullAck, Loss, GoBackN, Sub, TimerArmed bool
	IntervalNs                              float64
	Start, Una, Nxt, End                    uint32
	NextSendNs                              float64
}

func fixedView(d *Datapath, st State, o Output) view {
	return view{d.CwPackets(o.Cw), o.Stage, o.Rule, o.N, o.Allowed, o.Block, o.PSN, o.ECT, o.Last, o.Done, o.Invalid, o.Stale,
		o.FullAck, o.Loss, o.GoBackN, o.Sub, o.TimerArmed, float64(o.IntervalNs), st.Start, st.Una, st.Nxt, st.End, float64(st.NextSend)}
}

func refView(st RefState, o RefOutput) view {
	return view{o.Cw, o.Stage, o.Rule, o.N, o.Allowed, o.Block, o.PSN, o.ECT, o.Last, o.Done, o.Invalid, o.Stale,
		o.FullAck, o.Loss, o.GoBackN, o.Sub, o.TimerArmed, o.IntervalNs, st.Start, st.Una, st.Nxt, st.End, st.NextSendNs}
}

// run feeds the same events to both models from their initial states and
// returns the per-event views (fixed, float).
func run(t *testing.T, c Config, evs []Event) ([]view, []view) {
	t.Helper()
	d, r := mustDP(t, c), mustRef(t, c)
	st, rs := d.InitialState(), r.InitialState()
	var fv, rv []view
	for _, e := range evs {
		var o Output
		var ro RefOutput
		st, o = d.Update(st, e)
		rs, ro = r.Update(rs, e)
		fv = append(fv, fixedView(d, st, o))
		rv = append(rv, refView(rs, ro))
	}
	return fv, rv
}

func start(seq, msg uint32) Event { return Event{Kind: Start, Seq: seq, MsgPkts: msg} }
func send(now uint64) Event       { return Event{Kind: Send, NowNs: now} }
func ack(seq uint32, ece bool) Event {
	return Event{Kind: Ack, AckSeq: seq, ECE: ece}
}
func nak(seq uint32) Event { return Event{Kind: Ack, AckSeq: seq, NAK: true} }

func repeat(n int, f func(i int) Event) []Event {
	var evs []Event
	for i := 0; i < n; i++ {
		evs = append(evs, f(i))
	}
	return evs
}

func cat(parts ...[]Event) []Event {
	var evs []Event
	for _, p := range parts {
		evs = append(evs, p...)
	}
	return evs
}

// TestFastStartShortMessage: a message smaller than IW is sent in the first
// RTT: every packet ECN-incapable but the last, which is ECN-capable (draft
// section 3.1: "the last packet of a message if its size is below BDP");
// then no data is left; the ACKs leave cw = IW and the stage fast start and
// the last ACK completes the message. Expected values from the draft.
func TestFastStartShortMessage(t *testing.T) {
	c := DefaultConfig()
	evs := cat([]Event{start(1000, 5)}, repeat(6, func(i int) Event { return send(uint64(i)) }), repeat(5, func(i int) Event { return ack(uint32(1001+i), false) }))
	fv, rv := run(t, c, evs)
	for k := range evs {
		for _, v := range []view{fv[k], rv[k]} {
			switch {
			case k >= 1 && k <= 5:
				i := uint32(k - 1)
				if !v.Allowed || v.PSN != 1000+i || v.ECT != (i == 4) || v.Last != (i == 4) {
					t.Errorf("send %d: %+v, want allowed psn %d ect=last=%v", i, v, 1000+i, i == 4)
				}
			case k == 6:
				if v.Allowed || v.Block != BlockNoData {
					t.Errorf("send 5: %+v, want blocked no_data", v)
				}
			case k >= 7:
				if v.Stage != FastStart || v.Cw != 63 || v.Rule != NoRule || v.N != 1 || v.Done != (k == 11) || v.FullAck {
					t.Errorf("ack %d: %+v, want fast start cw 63 n 1 done=%v", k-6, v, k == 11)
				}
			}
		}
	}
}

// TestFastStartFullIW: a message larger than IW: the first IW-1 = 62
// packets are ECN-incapable, the IW-th is ECN-capable, the (IW+1)-th is
// refused by the window; each first-RTT ACK frees one packet, which leaves
// ECN-capable ("set the packets to ECN-capable ever since"); the ACK that
// completes IW packets is transition 2 (stable, cw = BDP = IW) and the next
// ECE=0 ACK applies Eq. (1): cw = 63 + 1/63.
func TestFastStartFullIW(t *testing.T) {
	c := DefaultConfig()
	const s = 50
	evs := cat([]Event{start(s, 200)}, repeat(64, func(i int) Event { return send(uint64(i)) }))
	for i := 1; i <= 63; i++ {
		evs = append(evs, ack(uint32(s+i), false), send(uint64(100+i)))
	}
	evs = append(evs, ack(s+64, false))
	fv, rv := run(t, c, evs)
	for pass, vs := range [][]view{fv, rv} {
		model := [...]string{"fixed", "float"}[pass]
		for i := 0; i < 63; i++ {
			v := vs[1+i]
			if !v.Allowed || v.PSN != uint32(s+i) || v.ECT != (i == 62) || v.Last {
				t.Errorf("%s: send %d: %+v, want allowed ect=%v", model, i, v, i == 62)
			}
		}
		if v := vs[64]; v.Allowed || v.Block != BlockWindow {
			t.Errorf("%s: send 63 in the first RTT: %+v, want blocked by the window", model, v)
		}
		for i := 1; i <= 63; i++ {
			a, snd := vs[65+2*(i-1)], vs[66+2*(i-1)]
			wantStage := FastStart
			if i == 63 {
				wantStage = Stable
			}
			if a.Stage != wantStage || a.Cw != 63 || a.FullAck != (i == 63) || a.Rule != NoRule {
				t.Errorf("%s: ack %d: %+v, want stage %s cw 63 full=%v", model, i, a, wantStage, i == 63)
			}
			if !snd.Allowed || snd.PSN != uint32(s+62+i) || !snd.ECT {
				t.Errorf("%s: send after ack %d: %+v, want psn %d ECN-capable", model, i, snd, s+62+i)
			}
		}
		last := vs[len(vs)-1]
		if last.Rule != RuleAI || last.Stage != Stable || abs(last.Cw-(63+1.0/63)) > 1e-6 {
			t.Errorf("%s: first stable ack: %+v, want ai cw 63.015873", model, last)
		}
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// TestFastStartLoss: transition 1 (draft section 3.1): a NAK in fast start
// sets cw to the packets acknowledged before the loss, goes back to the lost
// PSN and enters the stable stage, where every packet is ECN-capable; with
// nothing acknowledged cw is 1 (our choice, docs/ldcp.md); a timeout in fast
// start is the same transition from snd_una; a timeout in the stable stage
// sets cw = min(cw, 1) (RFC 5681; our choice).
func TestFastStartLoss(t *testing.T) {
	c := DefaultConfig()
	sends := repeat(63, func(i int) Event { return send(uint64(i)) })
	cases := []struct {
		name   string
		evs    []Event
		wantCw float64
		wantNx uint32
		check  func(v view) string
	}{
		{"nak after 10", cat([]Event{start(0, 500)}, sends, repeat(10, func(i int) Event { return ack(uint32(i+1), false) }), []Event{nak(10), send(7)}), 10, 11, nil},
		{"nak of the first packet", cat([]Event{start(0, 500)}, sends, []Event{nak(0), send(7)}), 1, 1, nil},
		{"timeout after 20", cat([]Event{start(0, 500)}, sends, repeat(20, func(i int) Event { return ack(uint32(i+1), false) }), []Event{{Kind: Timeout}, send(7)}), 20, 21, nil},
		{"stable timeout", cat([]Event{start(0, 500)}, sends, repeat(63, func(i int) Event { return ack(uint32(i+1), false) }), []Event{{Kind: Timeout}, send(7)}), 1, 64, nil},
	}
	for _, tc := range cases {
		fv, rv := run(t, c, tc.evs)
		for pass, vs := range [][]view{fv, rv} {
			model := [...]string{"fixed", "float"}[pass]
			tr, snd := vs[len(vs)-2], vs[len(vs)-1]
			stable := tc.name == "stable timeout"
			if tr.Stage != Stable || tr.Cw != tc.wantCw || !tr.GoBackN || tr.Loss == stable || tr.Nxt != tr.Una {
				t.Errorf("%s %s: transition %+v, want stable cw %v go-back-N loss=%v nxt=una", tc.name, model, tr, tc.wantCw, !stable)
			}
			if !snd.Allowed || snd.PSN != tr.Una || !snd.ECT || snd.Nxt != tc.wantNx {
				t.Errorf("%s %s: retransmission %+v, want psn %d ECN-capable", tc.name, model, snd, tr.Una)
			}
		}
	}
}

// stableState is a stable-stage flow-table entry with the given cw (packets,
// quantized) and sequence registers; the float reference starts from its
// exact conversion (RefState).
func stableState(d *Datapath, cw float64, una, nxt uint32) State {
	return State{Stage: Stable, Cw: d.CwRaw(cw), Start: 0, Una: una, Nxt: nxt, End: 1 << 20}
}

// TestWindowRules: the four rules of draft section 2.2 from a stable state,
// per-packet and delayed ACKs. Expected values are exact arithmetic on the
// draft's formulas with the default alpha = 1, beta = 1/2, gamma = 1/8,
// eta = 1/2 (all exactly representable): the MD and sub-packet rules are
// exact in fixed point, AI within its bound.
func TestWindowRules(t *testing.T) {
	c := DefaultConfig()
	d, r := mustDP(t, c), mustRef(t, c)
	b := d.ErrorBounds()
	cases := []struct {
		cw   float64
		ece  bool
		n    uint64
		want float64
		rule Rule
	}{
		{2, false, 1, 2.5, RuleAI},
		{8, false, 4, 8.5, RuleAI},         // Eq. (2): 8 + 4*1/8
		{10, true, 4, 8, RuleMD},           // Eq. (2): 10 - 4*0.5
		{1, true, 1, 0.5, RuleMD},          // into the sub-packet regime
		{1.25, true, 4, 0.125, RuleMD},     // floor gamma
		{0.5, true, 1, 0.25, RuleSubMD},    // eta*cw
		{0.125, true, 1, 0.125, RuleSubMD}, // floor gamma
		{0.2, true, 1, 0.125, RuleSubMD},   // max(gamma, 0.1)
		{0.25, false, 1, 0.375, RuleSubAI}, // + gamma
		{0.25, false, 7, 1.125, RuleSubAI}, // + 7 gamma, out of the sub-packet regime
		{126, false, 1, 126, RuleAI},       // clamp CwMax
		{125.99, false, 2, 126, RuleAI},    // clamp CwMax
		{3, true, 300, 0.125, RuleMD},      // n clamped to 255: 3 - 127.5 -> gamma
		{0.999, false, 1, 0.999 + 0.125, RuleSubAI},
	}
	for _, tc := range cases {
		fw, fr := d.Window(d.CwRaw(tc.cw), tc.ece, tc.n)
		cw := d.CwPackets(d.CwRaw(tc.cw)) // the exact register value
		rw, rr := r.Window(cw, tc.ece, tc.n)
		wantF := tc.want
		if tc.cw == 0.999 {
			wantF = cw + 0.125
		}
		if fr != tc.rule || rr != tc.rule {
			t.Errorf("Window(%v, %v, %d) rules fixed %s float %s, want %s", tc.cw, tc.ece, tc.n, fr, rr, tc.rule)
		}
		if abs(rw-wantF) > 1e-12 && tc.cw != 125.99 {
			t.Errorf("float Window(%v, %v, %d) = %v, want %v", tc.cw, tc.ece, tc.n, rw, wantF)
		}
		tol := b.Step(c, tc.rule, min(tc.n, c.NMax()), cw)
		if got := d.CwPackets(fw); abs(got-rw) > tol {
			t.Errorf("fixed Window(%v, %v, %d) = %v, float %v, |diff| > bound %v", tc.cw, tc.ece, tc.n, got, rw, tol)
		}
		if tc.rule == RuleMD || tc.rule == RuleSubAI {
			if got := d.CwPackets(fw); got != rw {
				t.Errorf("fixed Window(%v, %v, %d) = %v, want exactly %v", tc.cw, tc.ece, tc.n, got, rw)
			}
		}
	}
}

// TestSubPacketTimer: an ECE ACK that takes cw from 1 to 1/2 arms the timer
// RTT/cw = 10000 ns (draft section 2.2); a Send 1 ns before the deadline is
// refused, at the deadline allowed (and re-arms: RTT/cw from the send); the
// sub-packet decrease halves cw down to the floor gamma, after which the
// interval is RTT/gamma = 40000 ns; seven unmarked packets acknowledged
// at once take cw out of the regime (1/8 + 7/8 = 1).
func TestSubPacketTimer(t *testing.T) {
	c := DefaultConfig()
	d, r := mustDP(t, c), mustRef(t, c)
	st := stableState(d, 1, 100, 101)
	rs := d.RefState(st)
	type step struct {
		ev    Event
		check func(v view) string
	}
	const t0 = 1_000_000
	ackAt := func(seq uint32) Event { return Event{Kind: Ack, AckSeq: seq, ECE: true, NowNs: t0} }
	steps := []step{
		{ackAt(101), func(v view) string {
			if v.Cw != 0.5 || v.Rule != RuleMD || !v.TimerArmed || v.IntervalNs != 10000 || v.NextSendNs != t0+10000 || !v.Sub {
				return "want cw 0.5, timer armed 10000 ns"
			}
			return ""
		}},
		{send(t0 + 9999), func(v view) string {
			if v.Allowed || v.Block != BlockTimer {
				return "want blocked by the timer"
			}
			return ""
		}},
		{send(t0 + 10000), func(v view) string {
			if !v.Allowed || v.PSN != 101 || !v.ECT || !v.TimerArmed || v.NextSendNs != t0+20000 {
				return "want allowed, re-armed to t0+20000"
			}
			return ""
		}},
		{ackAt(102), func(v view) string {
			if v.Cw != 0.25 || v.Rule != RuleSubMD || v.TimerArmed {
				return "want cw 0.25 (sub_md), no re-arm"
			}
			return ""
		}},
		{ackAt(102), func(v view) string { // duplicate: n = 0, nothing changes
			if v.Cw != 0.25 || v.Rule != NoRule || v.N != 0 {
				return "want unchanged on a duplicate ACK"
			}
			return ""
		}},
		{send(t0 + 20000), func(v view) string {
			if !v.Allowed || v.IntervalNs != 20000 {
				return "want allowed with interval RTT/0.25 = 20000"
			}
			return ""
		}},
		{ackAt(103), func(v view) string {
			if v.Cw != 0.125 {
				return "want cw 0.125"
			}
			return ""
		}},
		{send(t0 + 40000), func(v view) string {
			if !v.Allowed || v.IntervalNs != 40000 {
				return "want allowed with interval RTT/gamma = 40000"
			}
			return ""
		}},
		{ackAt(104), func(v view) string {
			if v.Cw != 0.125 || v.Rule != RuleSubMD {
				return "want the floor gamma"
			}
			return ""
		}},
	}
	for i, s := range steps {
		var o Output
		var ro RefOutput
		st, o = d.Update(st, s.ev)
		rs, ro = r.Update(rs, s.ev)
		if msg := s.check(fixedView(d, st, o)); msg != "" {
			t.Errorf("step %d fixed: %s: %+v", i, msg, fixedView(d, st, o))
		}
		if msg := s.check(refView(rs, ro)); msg != "" {
			t.Errorf("step %d float: %s: %+v", i, msg, refView(rs, ro))
		}
	}
	// Seven unmarked packets acknowledged at once: cw = 0.125 + 7/8 = 1,
	// which leaves the sub-packet regime.
	st.Nxt, rs.Nxt = 111, 111
	st, o := d.Update(st, Event{Kind: Ack, AckSeq: 111, NowNs: t0})
	rs, ro := r.Update(rs, Event{Kind: Ack, AckSeq: 111, NowNs: t0})
	for _, v := range []view{fixedView(d, st, o), refView(rs, ro)} {
		if v.Cw != 1 || v.Rule != RuleSubAI || v.Sub || v.N != 7 {
			t.Errorf("leaving the sub-packet regime: %+v, want cw 1 sub_ai", v)
		}
	}
}

// TestAckClassification: an ACK older than snd_una is stale, one beyond
// snd_nxt invalid; both leave the state unchanged. PSNs wrap at 2^24: a
// flow starting 3 PSNs before the wrap acknowledges across it. Events in
// stage Idle and a Start of 0 packets are invalid. Expected values: serial
// arithmetic modulo 2^24.
func TestAckClassification(t *testing.T) {
	c := DefaultConfig()
	const s = 1<<24 - 3
	evs := cat([]Event{start(s, 10)}, repeat(10, func(i int) Event { return send(uint64(i)) }),
		[]Event{ack(s+1, false), ack(s, false), ack(s+11, false), ack(2, false), ack(7, false)})
	fv, rv := run(t, c, evs)
	for pass, vs := range [][]view{fv, rv} {
		model := [...]string{"fixed", "float"}[pass]
		if v := vs[10]; v.PSN != 6 || !v.Last || !v.ECT {
			t.Errorf("%s: last send %+v, want PSN 6 (wrapped) last ECN-capable", model, v)
		}
		if v := vs[11]; v.N != 1 || v.Una != s+1 {
			t.Errorf("%s: ack s+1 %+v", model, v)
		}
		if v := vs[12]; !v.Stale || v.Una != s+1 {
			t.Errorf("%s: ack s (before una) %+v, want stale", model, v)
		}
		if v := vs[13]; !v.Invalid || v.Una != s+1 {
			t.Errorf("%s: ack s+11 (beyond nxt) %+v, want invalid", model, v)
		}
		if v := vs[14]; v.N != 4 || v.Una != 2 || v.Done {
			t.Errorf("%s: ack 2 (across the wrap) %+v, want n 4", model, v)
		}
		if v := vs[15]; v.N != 5 || v.Una != 7 || !v.Done || v.Stage != FastStart {
			t.Errorf("%s: ack 7 %+v, want done in fast start", model, v)
		}
	}
	fv, rv = run(t, c, []Event{send(0), ack(3, true), {Kind: Timeout}, start(5, 0)})
	for pass, vs := range [][]view{fv, rv} {
		model := [...]string{"fixed", "float"}[pass]
		if vs[0].Block != BlockIdle || !vs[1].Invalid || !vs[2].Invalid || !vs[3].Invalid || vs[3].Stage != Idle {
			t.Errorf("%s: idle events %+v", model, vs)
		}
	}
}

// TestNClamp: with AckPktsBits = 4 an ACK of 20 packets is applied as n =
// 15 (docs/ldcp.md): cw = 40 - 15/2 = 32.5.
func TestNClamp(t *testing.T) {
	c := DefaultConfig()
	c.AckPktsBits = 4
	d, r := mustDP(t, c), mustRef(t, c)
	st := stableState(d, 40, 0, 30)
	n, o := d.Update(st, ack(20, true))
	rn, ro := r.Update(d.RefState(st), ack(20, true))
	if d.CwPackets(n.Cw) != 32.5 || ro.Cw != 32.5 || o.N != 15 || ro.N != 15 || rn.Una != 20 {
		t.Errorf("fixed cw %v n %d, float cw %v n %d: want 32.5 and n 15", d.CwPackets(n.Cw), o.N, ro.Cw, ro.N)
	}
}

// TestFractionalWindow: a whole packet must fit: with cw = 2.5 a third
// packet in flight is refused, a second allowed (inflight + 1 <= cw).
func TestFractionalWindow(t *testing.T) {
	c := DefaultConfig()
	d, r := mustDP(t, c), mustRef(t, c)
	for _, tc := range []struct {
		inflight uint32
		allowed  bool
	}{{0, true}, {1, true}, {2, false}} {
		st := stableState(d, 2.5, 10, 10+tc.inflight)
		_, o := d.Update(st, send(0))
		_, ro := r.Update(d.RefState(st), send(0))
		if o.Allowed != tc.allowed || ro.Allowed != tc.allowed {
			t.Errorf("cw 2.5 inflight %d: fixed %v float %v, want %v", tc.inflight, o.Allowed, ro.Allowed, tc.allowed)
		}
	}
}

// TestStableNAK: in the stable stage a NAK acknowledges what precedes the
// gap (with its ECE, Eq. (2)) and goes back to it.
func TestStableNAK(t *testing.T) {
	c := DefaultConfig()
	d, r := mustDP(t, c), mustRef(t, c)
	st := stableState(d, 10, 100, 110)
	ev := Event{Kind: Ack, AckSeq: 104, ECE: true, NAK: true}
	n, o := d.Update(st, ev)
	rn, ro := r.Update(d.RefState(st), ev)
	for _, v := range []view{fixedView(d, n, o), refView(rn, ro)} {
		if v.Cw != 8 || v.Rule != RuleMD || !v.GoBackN || v.Una != 104 || v.Nxt != 104 || v.N != 4 {
			t.Errorf("stable NAK: %+v, want cw 8, go back to 104", v)
		}
	}
}
