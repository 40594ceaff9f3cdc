package nicmodel

import (
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/pipeline"
	"github.com/hpccgold/hpccgold/pipeline/wire"
)

// TestProberTiming drives the probe generator cycle by cycle (1 GHz, T =
// 5000 ns, so idle 5000 and timeout 20000 cycles by default; linger 30000)
// and checks when it requests probes, gives them up and closes a
// lingering connection. Oracle: the rules of ProbeConfig worked by hand
// for each step (the cycle numbers in the table).
func TestProberTiming(t *testing.T) {
	cfg := DefaultConfig()
	cfg.QPs = 2
	cfg.Probe = &ProbeConfig{Enable: true, LingerNs: 30000}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	fifo, err := engine.NewFIFO[pipeline.PktSend]("probe_reqs", probeFIFODepth)
	if err != nil {
		t.Fatal(err)
	}
	p := newProber(&cfg, fifo)
	m := &module{qps: make([]qpState, cfg.QPs), probe: p}
	const q = wire.QPN(1)
	busy := func(b bool) {
		m.qps[q].posted = 1000
		m.qps[q].acked = 1000
		if b {
			m.qps[q].acked = 0
		}
	}
	var requests []engine.Cycle
	run := func(from, to engine.Cycle) {
		for c := from; c <= to; c++ {
			n := p.cnt.Requests
			p.tick(c, m)
			if p.cnt.Requests != n {
				requests = append(requests, c)
				if r, ok := fifo.Pop(c + 1); !ok || r.Kind != pipeline.SendProbe || r.Flow != q || r.PSN != wire.PSN(m.qps[q].sndNxt) {
					t.Fatalf("cycle %d: request %+v, %v", c, r, ok)
				}
			}
		}
	}
	// A message in flight: opened at 100, last data packet at 200, then
	// the window is full: quiet from 200, probe at 200 + 5000.
	busy(true)
	m.qps[q].sndNxt = 7
	p.opened(q, 100)
	p.sent(q, 200)
	run(0, 5199)
	if len(requests) != 0 {
		t.Fatalf("probe requested at %v before 5200", requests)
	}
	run(5200, 5200)
	if len(requests) != 1 || requests[0] != 5200 {
		t.Fatalf("requests %v, want one at 5200", requests)
	}
	// At most one outstanding: nothing until the reply at 9000; next
	// probe at 9000 + 5000.
	run(5201, 8999)
	p.reply(q, 9000, true)
	run(9000, 14000)
	if len(requests) != 2 || requests[1] != 14000 || p.cnt.Replies != 1 {
		t.Fatalf("requests %v, replies %d; want the second at 14000 after one reply", requests, p.cnt.Replies)
	}
	// No reply: given up at 14000 + 20000 = 34000 and another sent at once.
	run(14001, 34000)
	if len(requests) != 3 || requests[2] != 34000 || p.cnt.Timeouts != 1 {
		t.Fatalf("requests %v, timeouts %d; want a timeout and a probe at 34000", requests, p.cnt.Timeouts)
	}
	// The reply at 35000 answers the probe of 34000; a second one finds
	// none outstanding and counts as late. Data resumes: no probe while
	// data flows.
	p.reply(q, 35000, true)
	p.reply(q, 35001, true)
	for c := engine.Cycle(35001); c < 60000; c += 1000 {
		p.sent(q, c)
		run(c, c+999)
	}
	if len(requests) != 3 || p.cnt.Late != 1 || p.cnt.Replies != 2 {
		t.Fatalf("requests %v, late %d: a probe while data flows", requests, p.cnt.Late)
	}
	// The message completes at 60000 (last data at 59001): probes go on
	// (64001, then 5000 after each reply at +1000) until the connection
	// closes at 60000 + 30000.
	busy(false)
	p.done(q, 60000)
	for c := engine.Cycle(60000); c <= 100000; c++ {
		n := len(requests)
		run(c, c)
		if len(requests) > n {
			p.reply(q, c+1000, false)
			run(c+1, c+1000)
			c += 1000
		}
	}
	want := []engine.Cycle{64001, 70001, 76001, 82001, 88001}
	if got := requests[3:]; len(got) != len(want) || got[0] != want[0] || got[len(got)-1] != want[len(want)-1] {
		t.Fatalf("requests after completion %v, want %v", got, want)
	}
	if p.qps[q].open || p.continues(q, 100001) {
		t.Fatal("connection still open after linger_ns")
	}
	if p.timers.Len() != 0 && p.qps[q].live {
		t.Fatal("a closed connection keeps a live timer")
	}
}

// TestProbeConfig: the section is refused outside cc=hpcc (naming the
// section and the cc), and without it the NIC has no probe registers and
// no probe FIFO (so the status registers, and the digests of
// TestOutputDigests, are those of a NIC without probes).
func TestProbeConfig(t *testing.T) {
	for _, cc := range []CCMode{CCHPCCRx, CCLDCP, CCNone} {
		cfg := DefaultConfig()
		cfg.CC = cc
		if cc == CCHPCCRx {
			cfg.HPCC.Mode = hpcc.Receiver
		}
		cfg.Probe = &ProbeConfig{Enable: true}
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), "probe: cc="+cc.String()) {
			t.Errorf("cc=%s with probes: %v", cc, err)
		}
	}
	for _, pc := range []*ProbeConfig{nil, {LingerNs: 1000}, {Enable: true}} {
		cfg := DefaultConfig()
		cfg.Probe = pc
		n, err := New(cfg, nil, Options{})
		if err != nil {
			t.Fatal(err)
		}
		c := n.Counters()
		hasFIFO := false
		for _, f := range c.FIFOs {
			hasFIFO = hasFIFO || f.Name == "probe_reqs"
		}
		if (c.Probe != nil) != (pc != nil) || hasFIFO != (pc != nil && pc.Enable) {
			t.Errorf("probe section %+v: registers %v, probe FIFO %v", pc, c.Probe, hasFIFO)
		}
		regs := 0
		for _, r := range c.Registers() {
			if strings.HasPrefix(r.Name, "probe.") {
				regs++
			}
		}
		if (regs > 0) != (pc != nil) {
			t.Errorf("probe section %+v: %d probe registers listed", pc, regs)
		}
	}
}
