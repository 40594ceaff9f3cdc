package pipeline

import (
	"bytes"
	"fmt"
	"reflect"
	"testing"

	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/pipeline/wire"
	"github.com/hpccgold/hpccgold/telemetry"
)

// runTx runs host A's Tx on a PktSend script and returns the frames the MAC
// sink popped.
func runTx(t *testing.T, noSkip bool, tc TxConfig, d depths, outFrom engine.Cycle, script []stamped[PktSend], until engine.Cycle) ([]stamped[Frame], TxCounters) {
	t.Helper()
	e := newEngine(t, noSkip)
	n := addNIC(t, e, "A", DefaultRxConfig(), tc, testFlows(t, false), nil, d)
	_, fs, _ := n.attach(t, e, "A", 0, outFrom, script)
	e.Run(until)
	if s := e.Stats(); s.UnexpectedProgress != 0 {
		t.Fatalf("engine: UnexpectedProgress = %d", s.UnexpectedProgress)
	}
	return fs.got, n.tx.Counters()
}

// TestTxBuildsPackets: PktSend commands become data and probe frames with
// the flow's addressing (remote QPN, path), the PSN, payload size, A bit
// and an INT request (encoding, MaxHops) from the config; bad commands are
// dropped and counted. Timing: a command pushed in cycle c is taken by Tx in
// c+1 and, through build (3) and egress (2), reaches the MAC FIFO in c+6;
// the MAC pops it in c+7.
func TestTxBuildsPackets(t *testing.T) {
	tc := DefaultTxConfig()
	tc.Encoding = telemetry.Compact
	script := []stamped[PktSend]{
		{10, PktSend{Kind: SendData, Flow: 1, PSN: 5, Bytes: 100, AckReq: true}},
		{11, PktSend{Kind: SendData, Flow: 2, PSN: 0xFFFFFF, Bytes: 1024}},
		{12, PktSend{Kind: SendData, Flow: 2, PSN: 0, Bytes: 1025}}, // > MTU
		{13, PktSend{Kind: SendProbe, Flow: 3, PSN: 77}},
		{14, PktSend{Kind: SendData, Flow: 6, PSN: 1, Bytes: 1}}, // not a flow
		{15, PktSend{Kind: SendProbe, Flow: 3, PSN: 78, Bytes: 4}},
		{16, PktSend{Kind: SendData, Flow: 3, PSN: 9, Bytes: 0}},
	}
	type want struct {
		at      engine.Cycle
		class   wire.Class
		qp      wire.QPN
		psn     wire.PSN
		payload int
		ackReq  bool
	}
	wants := []want{
		{17, wire.ClassData, 1, 5, 100, true},
		{18, wire.ClassData, 2, 0xFFFFFF, 1024, false},
		{20, wire.ClassProbe, 3, 77, 0, false},
		{23, wire.ClassData, 3, 9, 0, false},
	}
	got, cnt := runTx(t, false, tc, defaultDepths, 0, script, 100)
	if len(got) != len(wants) {
		t.Fatalf("%d frames, want %d", len(got), len(wants))
	}
	for i, g := range got {
		w := wants[i]
		p := decode(g.v.Data)
		if g.at != w.at || p.Class != w.class || p.DestQP != w.qp || p.PSN != w.psn || p.PayloadLen != w.payload || p.AckReq != w.ackReq {
			t.Errorf("frame %d: at %d %v qp %d psn %#x payload %d A %t; want %+v", i, g.at, p.Class, p.DestQP, p.PSN, p.PayloadLen, p.AckReq, w)
		}
		if !p.HasINT || p.INT.Kind != wire.KindRequest || p.INT.Encoding != telemetry.Compact || p.INT.MaxHops != 5 || p.INT.HopCount != 0 {
			t.Errorf("frame %d INT = %t %+v", i, p.HasINT, p.INT)
		}
		ip := p.IPv4()
		if ip.Src() != pathAB.SrcIP || ip.Dst() != pathAB.DstIP || p.UDPSrcPort != pathAB.UDPSrcPort+uint16(w.qp) {
			t.Errorf("frame %d addressing %v -> %v port %#x", i, ip.Src(), ip.Dst(), p.UDPSrcPort)
		}
	}
	if cnt.Commands != 7 || cnt.Frames[FrameData] != 3 || cnt.Frames[FrameProbe] != 1 ||
		cnt.Drops[DropBadCommand] != 2 || cnt.Drops[DropUnknownFlow] != 1 {
		t.Errorf("counters %+v", cnt)
	}
	// Without INTOnData, data frames carry no request (probes still do).
	tc.INTOnData = false
	got, _ = runTx(t, false, tc, defaultDepths, 0, script[:1], 100)
	if p := decode(got[0].v.Data); p.Class != wire.ClassData || p.HasINT {
		t.Errorf("INTOnData=false: class %v HasINT %t", p.Class, p.HasINT)
	}
}

// TestTxEgressFull: the MAC does not pop until cycle 300 and its FIFO holds
// 2. 20 commands are scripted at cycles 1..20.
//   - BackPressure: the MAC FIFO (2), egress (2) and build (3) fill; Tx
//     stops taking commands, which wait in the scheduler FIFO; nothing is
//     lost and all 20 frames leave in PSN order once the MAC pops.
//   - Drop: the MAC FIFO keeps the first 2; the other 18 are dropped at
//     egress (DropEgressFull = 18), none stall.
func TestTxEgressFull(t *testing.T) {
	var script []stamped[PktSend]
	for i := 0; i < 20; i++ {
		script = append(script, stamped[PktSend]{engine.Cycle(1 + i), PktSend{Flow: 1, PSN: wire.PSN(i), Bytes: 64}})
	}
	d := defaultDepths
	d.out = 2
	var ref [2]TxCounters // counters of the skipping run, compared with NoSkip
	for _, noSkip := range []bool{false, true} {
		t.Run(fmt.Sprintf("noskip=%t", noSkip), func(t *testing.T) {
			got, cnt := runTx(t, noSkip, DefaultTxConfig(), d, 300, script, 500)
			if len(got) != 20 || cnt.Stalls[StallEgress] == 0 || cnt.Stalls[StallBuild] == 0 || cnt.Stalls[StallCommand] == 0 {
				t.Fatalf("backpressure: %d frames, stalls %v", len(got), cnt.Stalls)
			}
			for i, g := range got {
				if p := decode(g.v.Data); p.PSN != wire.PSN(i) {
					t.Fatalf("frame %d PSN %d", i, p.PSN)
				}
			}
			bp := cnt
			tc := DefaultTxConfig()
			tc.EgressFull = Drop
			got, cnt = runTx(t, noSkip, tc, d, 300, script, 500)
			if len(got) != 2 || cnt.Drops[DropEgressFull] != 18 || cnt.Stalls != [NumStallPoints]uint64{} {
				t.Fatalf("drop: %d frames, drops %v stalls %v", len(got), cnt.Drops, cnt.Stalls)
			}
			if !noSkip {
				ref = [2]TxCounters{bp, cnt}
			} else if ref != [2]TxCounters{bp, cnt} {
				t.Fatalf("counters differ with idle skipping off:\n skip   %+v\n noskip %+v", ref, [2]TxCounters{bp, cnt})
			}
		})
	}
}

// receiver runs host B (receiver side): data/probe frames into its Rx, ACKs
// and notifications out of its Tx.
func runReceiver(t *testing.T, noSkip bool, tc TxConfig, cc RxCC, in []arrival, until engine.Cycle) ([]stamped[Frame], *nic) {
	t.Helper()
	e := newEngine(t, noSkip)
	n := addNIC(t, e, "B", DefaultRxConfig(), tc, testFlows(t, true), cc, defaultDepths)
	_, fs, _ := n.attach(t, e, "B", 0, 0, nil)
	n.feed(t, e, in)
	e.Run(until)
	if s := e.Stats(); s.UnexpectedProgress != 0 {
		t.Fatalf("engine: UnexpectedProgress = %d", s.UnexpectedProgress)
	}
	return fs.got, n
}

// TestTxPerPacketAck: with AckEvery=1 each data packet gets its own ACK
// echoing its own telemetry. Timing: data arriving in cycle a leaves Rx
// into the reply FIFO in a+6, Tx takes it in a+7, and the ACK reaches the
// MAC FIFO in a+12 and is popped in a+13; back-to-back arrivals give
// back-to-back ACKs.
func TestTxPerPacketAck(t *testing.T) {
	for _, enc := range telemetry.Encodings() {
		t.Run(enc.String(), func(t *testing.T) {
			var in []arrival
			for i := 0; i < 8; i++ {
				in = append(in, arrival{engine.Cycle(20 + i), dataFrame(t, enc, 2, wire.PSN(i), 50, false, hopsFor(t, enc, 2, i, 1+i%5))})
			}
			tc := DefaultTxConfig()
			got, n := runReceiver(t, false, tc, nil, in, 200)
			if len(got) != 8 {
				t.Fatalf("%d ACKs, want 8", len(got))
			}
			for i, g := range got {
				p := decode(g.v.Data)
				if g.at != engine.Cycle(33+i) || p.Class != wire.ClassAck || p.DestQP != 2 || p.PSN != wire.PSN(i) || p.MSN != wire.MSN(i+1) {
					t.Errorf("ACK %d at %d: %v qp %d psn %d msn %d", i, g.at, p.Class, p.DestQP, p.PSN, p.MSN)
				}
				if !p.HasINT || p.INT.Kind != wire.KindEcho || !reflect.DeepEqual(p.HopList(), hopsFor(t, enc, 2, i, 1+i%5)) {
					t.Errorf("ACK %d echo = %+v %+v", i, p.INT, p.HopList())
				}
				if ip := p.IPv4(); ip.Src() != pathBA.SrcIP || ip.Dst() != pathBA.DstIP {
					t.Errorf("ACK %d addressing %v -> %v", i, ip.Src(), ip.Dst())
				}
			}
			if c := n.tx.Counters(); c.Frames[FrameAck] != 8 || c.Coalesced != 0 || c.Replies != 8 {
				t.Errorf("tx counters %+v", c)
			}
		})
	}
}

// TestTxDelayedAck: AckEvery=4, AckTimeout=50. Flow 1 gets PSNs 0..9 in
// cycles 10..19 (PSN 5 marked CE), then PSNs 10..15 in cycles 200..205 with
// the A bit on PSN 12. Expected ACKs, worked from the rules in the Tx doc
// (Tx takes the reply of a packet arriving in cycle a in a+7; a frame
// started in cycle s is popped by the MAC in s+6):
//
//	PSN 3  (4th pending)            started 20, popped 26, MSN 4
//	PSN 7  (8th), BECN (PSN 5 CE)   started 24, popped 30, MSN 8
//	PSN 9  timer: PSN 8 at Tx 25, deadline 75, popped 81, MSN 10
//	PSN 12 A bit                    started 209, popped 215, MSN 13
//	PSN 15 timer: PSN 13 at Tx 210, deadline 260, popped 266, MSN 16
//
// Each ACK echoes the telemetry of the PSN it acknowledges.
func TestTxDelayedAck(t *testing.T) {
	enc := telemetry.IFA
	var in []arrival
	for i := 0; i < 16; i++ {
		at := engine.Cycle(10 + i)
		if i >= 10 {
			at = engine.Cycle(200 + i - 10)
		}
		f := dataFrame(t, enc, 1, wire.PSN(i), 10, i == 12, hopsFor(t, enc, 1, i, 2))
		if i == 5 {
			if _, err := wire.MarkCE(f); err != nil {
				t.Fatal(err)
			}
		}
		in = append(in, arrival{at, f})
	}
	tc := DefaultTxConfig()
	tc.AckEvery, tc.AckTimeout = 4, 50
	type want struct {
		at   engine.Cycle
		psn  wire.PSN
		becn bool
	}
	wants := []want{{26, 3, false}, {30, 7, true}, {81, 9, false}, {215, 12, false}, {266, 15, false}}
	for _, noSkip := range []bool{false, true} {
		t.Run(fmt.Sprintf("noskip=%t", noSkip), func(t *testing.T) {
			got, n := runReceiver(t, noSkip, tc, nil, in, 400)
			if len(got) != len(wants) {
				t.Fatalf("%d ACKs, want %d", len(got), len(wants))
			}
			for i, g := range got {
				w := wants[i]
				p := decode(g.v.Data)
				if g.at != w.at || p.Class != wire.ClassAck || p.PSN != w.psn || p.MSN != wire.MSN(w.psn+1) || p.BECN != w.becn {
					t.Errorf("ACK %d: at %d %v psn %d msn %d becn %t; want %+v", i, g.at, p.Class, p.PSN, p.MSN, p.BECN, w)
				}
				if !reflect.DeepEqual(p.HopList(), hopsFor(t, enc, 1, int(w.psn), 2)) {
					t.Errorf("ACK %d does not echo the telemetry of PSN %d", i, w.psn)
				}
			}
			c := n.tx.Counters()
			// 16 replies: 3 started an ACK at once (PSNs 3, 7, 12), 13 were
			// absorbed (two groups of them later ACKed by the timer).
			if c.Frames[FrameAck] != 5 || c.AckTimeouts != 2 || c.Coalesced != 13 || n.tx.Pending(1) != 0 {
				t.Errorf("tx counters %+v pending %d", c, n.tx.Pending(1))
			}
		})
	}
}

// TestTxProbeReply: a probe arriving at the receiver is answered with a
// probe reply echoing its stack and PSN, without touching the flow's ACK
// state.
func TestTxProbeReply(t *testing.T) {
	enc := telemetry.Compact
	p := pathAB
	p.UDPSrcPort += 3
	f := must(wire.AppendProbe(nil, &wire.Probe{Path: p, Transport: wire.Transport{DestQP: 3, PSN: 4242},
		INT: wire.INTRequest{Enabled: true, Encoding: enc, MaxHops: 4}}))(t)
	hops := hopsFor(t, enc, 3, 9, 4)
	for _, h := range hops {
		f = must3(wire.PushHop(f, enc, h, 0))(t)
	}
	f = must3(wire.PushHop(f, enc, hops[0], 0))(t) // 5th: over MaxHops 4, sets E
	got, n := runReceiver(t, false, DefaultTxConfig(), nil, []arrival{{5, f}}, 100)
	if len(got) != 1 {
		t.Fatalf("%d frames, want 1", len(got))
	}
	r := decode(got[0].v.Data)
	if r.Class != wire.ClassProbeReply || r.PSN != 4242 || r.DestQP != 3 || !r.INT.Exceeded || r.INT.MaxHops != 4 ||
		!reflect.DeepEqual(r.HopList(), hops) {
		t.Errorf("probe reply: %v psn %d qp %d %+v", r.Class, r.PSN, r.DestQP, r.INT)
	}
	if n.tx.Pending(3) != 0 || n.tx.Counters().Frames[FrameProbeReply] != 1 {
		t.Errorf("counters %+v", n.tx.Counters())
	}
}

func must3[T, U any](v T, _ U, err error) func(testing.TB) T { return must(v, err) }

// periodCC is a test RxCC with the timing rule of HPCC++ section 6.2 lines
// 29-34 and a trivial window: notify when now > lastUpdateTime + T (first
// packet always notifies), W = 1000 * packets seen.
type periodCC struct {
	period engine.Cycle
	last   map[wire.QPN]engine.Cycle
	seen   map[wire.QPN]uint32
	calls  []engine.Cycle
}

func (c *periodCC) OnTelemetry(now engine.Cycle, flow wire.QPN, psn wire.PSN, enc telemetry.Encoding, hops []telemetry.Hop) (bool, uint32) {
	c.calls = append(c.calls, now)
	c.seen[flow]++
	last, ok := c.last[flow]
	if ok && now <= last+c.period {
		return false, 0
	}
	c.last[flow] = now
	return true, 1000 * c.seen[flow]
}

// TestRxHPCCNotifications: receiver-based HPCC with AckEvery=0 (no ACKs).
// 40 data packets of flow 1 arrive every 3 cycles from cycle 10; the hook
// notifies at most once per T=20 cycles. The receiver sends only
// notifications: one per hook decision, carrying the hook's W and the PSN
// of the triggering packet, spaced more than T apart; every other packet is
// absorbed. A second run with AckEvery=1 shows a notification replaces the
// ACK of its packet and every other packet is ACKed.
func TestRxHPCCNotifications(t *testing.T) {
	enc := telemetry.Compact
	var in []arrival
	for i := 0; i < 40; i++ {
		in = append(in, arrival{engine.Cycle(10 + 3*i), dataFrame(t, enc, 1, wire.PSN(i), 32, false, hopsFor(t, enc, 1, i, 2))})
	}
	for _, every := range []int{0, 1} {
		t.Run(fmt.Sprintf("AckEvery=%d", every), func(t *testing.T) {
			cc := &periodCC{period: 20, last: map[wire.QPN]engine.Cycle{}, seen: map[wire.QPN]uint32{}}
			tc := DefaultTxConfig()
			tc.AckEvery = every
			got, n := runReceiver(t, false, tc, cc, in, 400)
			rc := n.rx.Counters()
			if rc.CCCalls != 40 || len(cc.calls) != 40 {
				t.Fatalf("hook called %d times, want 40", rc.CCCalls)
			}
			var notes, acks int
			var lastAt engine.Cycle
			for _, g := range got {
				p := decode(g.v.Data)
				switch p.Class {
				case wire.ClassNotify:
					// The hook saw packet k (arrival 10+3k) at 10+3k+4.
					k := int(p.PSN)
					if notes > 0 && g.at-lastAt <= 20 {
						t.Errorf("notification at %d only %d cycles after the previous", g.at, g.at-lastAt)
					}
					if p.Window != 1000*uint32(k+1) || p.DestQP != 1 || p.MSN != wire.MSN(k+1) {
						t.Errorf("notification for PSN %d: W %d qp %d msn %d", k, p.Window, p.DestQP, p.MSN)
					}
					lastAt = g.at
					notes++
				case wire.ClassAck:
					acks++
				default:
					t.Errorf("unexpected %v", p.Class)
				}
			}
			// Hook calls at 14+3k: notifications at k = 0, 7, 14, 21, 28, 35
			// (each the first call more than 20 cycles after the previous).
			if notes != 6 || rc.Notifies != 6 {
				t.Errorf("%d notifications (hook said %d), want 6", notes, rc.Notifies)
			}
			wantAcks := 0
			if every == 1 {
				wantAcks = 34
			}
			if acks != wantAcks {
				t.Errorf("%d ACKs, want %d", acks, wantAcks)
			}
		})
	}
}

// TestConfigValidate: every invalid field is reported with its name and
// value.
func TestConfigValidate(t *testing.T) {
	rx := []struct {
		edit func(*RxConfig)
		want string
	}{
		{func(c *RxConfig) { c.Parse.Latency = 0 }, "RxConfig.Parse.Latency=0"},
		{func(c *RxConfig) { c.Dispatch.Depth = 0 }, "RxConfig.Dispatch.Depth=0"},
		{func(c *RxConfig) { c.Parse.Depth = MaxStageDepth + 1 }, "RxConfig.Parse.Depth=65537"},
		{func(c *RxConfig) { c.IngressFull = 2 }, "RxConfig.IngressFull=2"},
		{func(c *RxConfig) { c.OutputFull = 9 }, "RxConfig.OutputFull=9"},
	}
	for _, c := range rx {
		cfg := DefaultRxConfig()
		c.edit(&cfg)
		if err := cfg.Validate(); err == nil || !contains(err.Error(), c.want) {
			t.Errorf("Validate = %v, want %q", err, c.want)
		}
	}
	tx := []struct {
		edit func(*TxConfig)
		want string
	}{
		{func(c *TxConfig) { c.Build.Latency = -1 }, "TxConfig.Build.Latency=-1"},
		{func(c *TxConfig) { c.Egress.Depth = 0 }, "TxConfig.Egress.Depth=0"},
		{func(c *TxConfig) { c.EgressFull = 3 }, "TxConfig.EgressFull=3"},
		{func(c *TxConfig) { c.MTU = 1500 }, "TxConfig.MTU=1500"},
		{func(c *TxConfig) { c.Encoding = 0 }, "Encoding=0"},
		{func(c *TxConfig) { c.MaxHops = 9 }, "TxConfig.MaxHops=9"},
		{func(c *TxConfig) { c.AckEvery = -1 }, "TxConfig.AckEvery=-1"},
		{func(c *TxConfig) { c.AckTimeout = -5 }, "TxConfig.AckTimeout=-5"},
		{func(c *TxConfig) { c.AckEvery = 4 }, "TxConfig.AckTimeout=0 with AckEvery=4"},
	}
	for _, c := range tx {
		cfg := DefaultTxConfig()
		c.edit(&cfg)
		if err := cfg.Validate(); err == nil || !contains(err.Error(), c.want) {
			t.Errorf("Validate = %v, want %q", err, c.want)
		}
	}
	if err := (&RxConfig{}).Validate(); err == nil {
		t.Errorf("zero RxConfig accepted")
	}
	r, x := DefaultRxConfig(), DefaultTxConfig()
	if r.Validate() != nil || x.Validate() != nil {
		t.Errorf("defaults invalid")
	}
	// Flow table errors.
	good := FlowContext{QPN: 1, RemoteQPN: 2, Path: pathAB}
	bad := pathAB
	bad.TTL = 0
	for _, c := range []struct {
		size  int
		flows []FlowContext
		want  string
	}{
		{0, nil, "size=0"},
		{4, []FlowContext{{QPN: 4, Path: pathAB}}, "flows[0].QPN=4"},
		{4, []FlowContext{good, good}, "flows[1].QPN=1: used twice"},
		{4, []FlowContext{{QPN: 1, RemoteQPN: 1 << 24, Path: pathAB}}, "flows[0].RemoteQPN=0x1000000"},
		{4, []FlowContext{{QPN: 1, Path: bad}}, "flows[0]: wire: Path.TTL=0"},
	} {
		if _, err := NewFlowTable(c.size, c.flows); err == nil || !contains(err.Error(), c.want) {
			t.Errorf("NewFlowTable = %v, want %q", err, c.want)
		}
	}
	var p Policy
	if err := p.UnmarshalText([]byte("drop")); err != nil || p != Drop {
		t.Errorf("UnmarshalText(drop) = %v, %v", p, err)
	}
	if err := p.UnmarshalText([]byte("lossy")); err == nil {
		t.Errorf("UnmarshalText(lossy) accepted")
	}
}

func contains(s, sub string) bool { return bytes.Contains([]byte(s), []byte(sub)) }
