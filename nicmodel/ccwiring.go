package nicmodel

import (
	"fmt"

	"github.com/hpccgold/hpccgold/cc/dcqcn"
	"github.com/hpccgold/hpccgold/cc/ldcp"
	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/pipeline"
	"github.com/hpccgold/hpccgold/pipeline/wire"
	"github.com/hpccgold/hpccgold/scheduler"
)

// ccWiring holds the parts of a NIC that runs cc=ldcp or cc=dcqcn: the CC
// module (ccmodule.go), the CC port (ccport.go) and the FIFOs that connect
// them. The NIC of Figure 4 is otherwise unchanged:
//
//	MAC Rx --[rx_raw]--> CC port --rx_mac--> Rx --events--> CC module <--posts-- host
//	           (DCQCN: CNPs --cnps--> CC module)              |  doorbells, updates, acks    ^ sends
//	Rx --replies_raw--> CC port --replies--> Tx               v                              |
//	CC module --pkt_sends--> Tx --tx_mac--> CC port --tx_port--> MAC Tx      scheduler ------+
//	CC module --ecn--> CC port (LDCP: one ECN decision per data packet)
//
// (rx_raw and cnps exist under DCQCN only; LDCP's MAC Rx feeds rx_mac
// directly.)
type ccWiring struct {
	mod  *ccModule
	port *ccPort
	cnt  CCCounters

	rawRx  *engine.FIFO[pipeline.Frame]
	cnps   *engine.FIFO[wire.QPN]
	repRaw *engine.FIFO[pipeline.Reply]
	txPort *engine.FIFO[pipeline.Frame]
	ect    *engine.FIFO[bool]

	modID, portID engine.ID
}

// newCCWiring builds the CC module and port of n (cfg.CC is ldcp or dcqcn).
// It runs inside New after the NIC's own FIFOs, before the Rx pipeline
// (which writes its replies into the port's FIFO).
func newCCWiring(n *NIC, cfg *Config) (*ccWiring, error) {
	a := &ccWiring{modID: engine.NoID, portID: engine.NoID}
	f := &cfg.FIFOs
	var err error
	mk := func(e error) {
		if e != nil && err == nil {
			err = e
		}
	}
	var e error
	a.repRaw, e = engine.NewFIFO[pipeline.Reply](n.name+".replies_raw", f.Replies)
	mk(e)
	a.txPort, e = engine.NewFIFO[pipeline.Frame](n.name+".tx_port", f.TxMAC)
	mk(e)
	if cfg.CC == CCLDCP {
		// One ECN decision per data packet between the CC module's
		// hand-off and the egress: room for every PktSend the Tx pipeline
		// and its output FIFO can hold, so the FIFO never limits.
		a.ect, e = engine.NewFIFO[bool](n.name+".ecn", f.PktSends+cfg.Tx.Build.Depth+cfg.Tx.Egress.Depth+f.TxMAC+1)
		mk(e)
	} else {
		a.rawRx, e = engine.NewFIFO[pipeline.Frame](n.name+".rx_raw", f.RxMAC)
		mk(e)
		a.cnps, e = engine.NewFIFO[wire.QPN](n.name+".cnps", f.Events)
		mk(e)
	}
	if err != nil {
		return nil, fmt.Errorf("nicmodel: %w", err)
	}
	m := &ccModule{freq: cfg.ClockHz, mtu: uint64(cfg.Scheduler.MTU), credits: cfg.credits(),
		rto: cfg.ClockHz.CyclesNS(cfg.rtoNs()), ackReq: cfg.Tx.AckReqLast, qps: make([]ccQP, cfg.QPs),
		events: n.events, posts: n.posts, sends: n.sends, cnps: a.cnps, bells: n.bells, upd: n.updates, sacks: n.acks,
		pkts: n.pkts, ect: a.ect, complete: n.complete, hooks: n.hooks, cnt: &a.cnt}
	for i := range m.qps {
		s := &m.qps[i]
		s.rtoAt, s.ccAt = engine.Never, engine.Never
	}
	rf := cfg.HPCC.Formats.Rate
	rr := rateReg{f: rf.F(), max: uint64(1)<<uint(rf.W) - 1}
	// The line rate in bytes per ns, rounded up into the rate register:
	// gbps/8 * 2^F.
	rr.line = min(rr.max, (uint64(cfg.HPCC.NICSpeedGbps)<<uint(rr.f)+7)/8)
	m.winMax = uint64(1)<<uint(cfg.HPCC.Formats.W.W) - 1
	port := &ccPort{kind: cfg.CC, freq: cfg.ClockHz, tab: n.table, rawRx: a.rawRx, rxOut: n.rxMAC, cnps: a.cnps,
		repIn: a.repRaw, repOut: n.replies, rs: make([]portQP, cfg.QPs), fbMax: f.Replies, txIn: n.txMAC, txOut: a.txPort,
		ect: a.ect, releaseRx: !n.keepInput, cnt: &a.cnt}
	rxCfg := ldcp.DefaultConfig()
	if cfg.CC == CCLDCP {
		lc := cfg.LDCPResolved()
		if m.algo, err = newLDCPCC(lc, cfg.Model, cfg.ClockHz, cfg.QPs, rr, m.mtu, &a.cnt); err != nil {
			return nil, fmt.Errorf("nicmodel: ldcp: %w", err)
		}
		rxCfg = lc
		cfg.LDCP = &LDCPConfig{lc}
	} else {
		dc := cfg.DCQCNResolved()
		if m.algo, err = newDCQCNCC(dc, cfg.ClockHz, cfg.QPs, rr, &a.cnt); err != nil {
			return nil, fmt.Errorf("nicmodel: dcqcn: %w", err)
		}
		if port.np, err = dcqcn.NewNP(dc); err != nil {
			return nil, fmt.Errorf("nicmodel: dcqcn: %w", err)
		}
		rxCfg.DelayedAckPkts = uint32(min(cfg.Tx.AckEvery, int(rxCfg.NMax())))
		cfg.DCQCN = &DCQCNConfig{dc}
	}
	// The receiver's go-back-N acceptance (and, under LDCP, its m).
	if port.recv, err = ldcp.NewReceiver(rxCfg); err != nil {
		return nil, fmt.Errorf("nicmodel: receiver: %w", err)
	}
	a.mod, a.port = m, port
	return a, nil
}

// attach connects the MACs to the port once they exist (end of New).
func (a *ccWiring) attach(n *NIC) {
	if a.rawRx != nil {
		n.macRx.out = a.rawRx
	}
	n.macTx.in = a.txPort
	a.mod.hooks = n.hooks
}

// register adds the NIC's components in the cc=ldcp/dcqcn wiring (MAC Rx,
// CC port, Rx, CC module, host, scheduler, Tx, MAC Tx) and connects the
// queues; it is Register's second half.
func (a *ccWiring) register(n *NIC, e *engine.Engine) error {
	var err error
	add := func(name string, c engine.Component) engine.ID {
		if err != nil {
			return engine.NoID
		}
		var id engine.ID
		id, err = e.Add(n.name+"."+name, c)
		return id
	}
	n.tx.UseBuffers(e.Buffers())
	a.port.bufs = e.Buffers()
	if !n.keepInput {
		n.rx.ReleaseTo(e.Buffers())
		n.macRx.bufs = e.Buffers()
	}
	n.macRxID = add("mac_rx", n.macRx)
	a.portID = add("cc_port", a.port)
	n.rxID = add("rx", n.rx)
	a.modID = add("cc", a.mod)
	n.modID = a.modID
	n.hostID = add("host", n.host)
	n.schedID = add("scheduler", n.sched)
	n.txID = add("tx", n.tx)
	n.macTxID = add("mac_tx", n.macTx)
	if err != nil {
		return fmt.Errorf("nicmodel: %s: %w", n.name, err)
	}
	type conn struct {
		q          engine.Queue
		prod, cons engine.ID
	}
	cs := []conn{
		{n.in, engine.NoID, n.macRxID}, {a.repRaw, n.rxID, a.portID}, {n.replies, a.portID, n.txID},
		{n.events, n.rxID, a.modID}, {n.posts, n.hostID, a.modID}, {n.bells, a.modID, n.schedID},
		{n.updates, a.modID, n.schedID}, {n.acks, a.modID, n.schedID}, {n.sends, n.schedID, a.modID},
		{n.pkts, a.modID, n.txID}, {n.txMAC, n.txID, a.portID}, {a.txPort, a.portID, n.macTxID},
	}
	if a.rawRx != nil {
		cs = append(cs, conn{a.rawRx, n.macRxID, a.portID}, conn{n.rxMAC, a.portID, n.rxID}, conn{a.cnps, a.portID, a.modID})
	} else {
		cs = append(cs, conn{n.rxMAC, n.macRxID, n.rxID})
	}
	if a.ect != nil {
		cs = append(cs, conn{a.ect, a.modID, a.portID})
	}
	for _, c := range cs {
		if err := e.Connect(c.q, c.prod, c.cons); err != nil {
			return fmt.Errorf("nicmodel: %s: %w", n.name, err)
		}
	}
	n.eng = e
	return nil
}

// counters adds a copy of the CC module's and port's registers and the
// FIFOs the wiring adds to c (ccBlock).
func (a *ccWiring) counters(c *Counters) {
	cc := a.cnt
	c.CC = &cc
	c.FIFOs = append(c.FIFOs, a.fifos()...)
}

// inflight is 0: the CC module has no update pipeline (ccBlock).
func (a *ccWiring) inflight() uint64 { return 0 }

// fifos returns the status of the FIFOs the CC module and port add.
func (a *ccWiring) fifos() []FIFOStatus {
	out := []FIFOStatus{fifoStatus("replies_raw", a.repRaw), fifoStatus("tx_port", a.txPort)}
	if a.ect != nil {
		out = append(out, fifoStatus("ecn", a.ect))
	}
	if a.rawRx != nil {
		out = append(out, fifoStatus("rx_raw", a.rawRx), fifoStatus("cnps", a.cnps))
	}
	return out
}

// qpStatus is NIC.QP for cc=ldcp/dcqcn: the scheduler's entry, the CC
// module's view, W = cw x mtu bytes (LDCP; NaN under DCQCN, which has no
// window) and R = the pacing rate in Gbit/s (the line rate under LDCP, RC
// under DCQCN).
func (a *ccWiring) qpStatus(n *NIC, q wire.QPN) (QPStatus, error) {
	fs, err := n.sched.Flow(scheduler.FlowID(q))
	if err != nil {
		return QPStatus{}, err
	}
	cc, w, r := a.mod.status(q)
	s := &a.mod.qps[q]
	st := QPStatus{Scheduler: fs, Messages: s.msgs.len(), WBytes: w, RateGbps: r, CC: &cc}
	if s.active {
		g := s.msgs.front()
		una, nxt := a.mod.algo.seq(q, s.base)
		st.Una, st.SndNxt = una, nxt
		st.Acked = min(una*a.mod.mtu, g.bytes)
		st.Posted = g.bytes
	}
	return st, nil
}
