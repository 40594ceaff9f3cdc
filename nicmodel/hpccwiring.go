package nicmodel

import (
	"fmt"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/cc/intguard"
	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/pipeline/wire"
	"github.com/hpccgold/hpccgold/scheduler"
)

// ccBlock is the NIC's congestion-control block: the components between
// the Rx pipeline's events, the host's posts, the scheduler and the Tx
// pipeline's PktSend port, behind one interface for every cc. Two kinds:
//
//   - hpccWiring (cc=hpcc, hpcc-rx, none): the timed HPCC++ module, whose
//     algorithm (hpcc.go, rxhpcc.go) computes window and rate updates, and
//     the PktSend register; the scheduler releases packets by window and
//     rate.
//   - ccWiring (cc=ldcp, dcqcn; ccwiring.go): the CC module, whose
//     algorithm (ldcp.go, dcqcn.go) releases each packet, and the CC port.
//
// New builds only the block cc names, and the block only its algorithm.
type ccBlock interface {
	// register adds the NIC's components to e in tick order and connects
	// its queues (the NIC's and the block's own).
	register(n *NIC, e *engine.Engine) error
	// qpStatus is NIC.QP for a valid QPN.
	qpStatus(n *NIC, q wire.QPN) (QPStatus, error)
	// counters adds the block's registers (and its own FIFOs) to c.
	counters(c *Counters)
	// inflight returns the updates in flight in an HPCC++ module's
	// pipeline (0 for a block without one).
	inflight() uint64
}

// hpccWiring is the ccBlock of cc=hpcc, hpcc-rx and none:
//
//	Rx --events--> HPCC++ module --updates, acks, doorbells--> scheduler --sends--> PktSend register --pkt_sends--> Tx
//	host --posts--> HPCC++ module <--sent_log-- PktSend register
type hpccWiring struct {
	mod  *module
	sreg *sendReg
	// guard is the sender HPCC++ algorithm when it runs a telemetry guard
	// (its counters), else nil.
	guard *hpccCC
}

// newHPCCWiring builds the HPCC++ module (with the algorithm cfg.CC names,
// on txCore) and the PktSend register of n; onUpdate observes the fixed
// model's datapath updates (nil: none).
func newHPCCWiring(n *NIC, cfg *Config, txCore *ccCore, onUpdate func(*HPCCUpdate), guard *intguard.Guard) *hpccWiring {
	w := &hpccWiring{sreg: &sendReg{in: n.sends, out: n.pkts, log: n.sentLog, ackReqLast: cfg.Tx.AckReqLast, hooks: n.hooks}}
	lat, space := cfg.moduleTiming()
	m := &module{lat: engine.Cycle(lat), space: engine.Cycle(space), ii: engine.Cycle(cfg.Module.IICycles),
		qps: make([]qpState, cfg.QPs), events: n.events, posts: n.posts, sent: n.sentLog, upd: n.updates, acks: n.acks,
		bells: n.bells, complete: n.complete, hooks: n.hooks}
	if cfg.Probe != nil {
		if cfg.Probe.Enable {
			w.sreg.probes = n.probeReqs
		}
		m.probe = newProber(cfg, n.probeReqs)
		w.sreg.probeCnt = &m.probe.cnt
	}
	switch cfg.CC {
	case CCHPCC:
		h := newHPCCCC(txCore, cfg.QPs, onUpdate, &m.cnt)
		h.guard = guard
		m.algo = h
		w.guard = h
	case CCHPCCRx:
		m.algo = &hpccRxCC{core: txCore, cnt: &m.cnt}
	default:
		m.algo = noCC{}
	}
	w.mod = m
	return w
}

// register adds the components in the order MAC Rx, Rx, module, host,
// scheduler, PktSend register, Tx, MAC Tx.
func (w *hpccWiring) register(n *NIC, e *engine.Engine) error {
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
	if !n.keepInput {
		n.rx.ReleaseTo(e.Buffers())
		n.macRx.bufs = e.Buffers()
	}
	n.macRxID = add("mac_rx", n.macRx)
	n.rxID = add("rx", n.rx)
	n.modID = add("hpcc", w.mod)
	n.hostID = add("host", n.host)
	n.schedID = add("scheduler", n.sched)
	n.sregID = add("pktsend", w.sreg)
	n.txID = add("tx", n.tx)
	n.macTxID = add("mac_tx", n.macTx)
	if err != nil {
		return fmt.Errorf("nicmodel: %s: %w", n.name, err)
	}
	type link struct {
		q          engine.Queue
		prod, cons engine.ID
	}
	links := []link{
		{n.in, engine.NoID, n.macRxID}, {n.rxMAC, n.macRxID, n.rxID}, {n.events, n.rxID, n.modID},
		{n.replies, n.rxID, n.txID}, {n.updates, n.modID, n.schedID}, {n.acks, n.modID, n.schedID},
		{n.bells, n.modID, n.schedID}, {n.posts, n.hostID, n.modID}, {n.sends, n.schedID, n.sregID},
		{n.pkts, n.sregID, n.txID}, {n.sentLog, n.sregID, n.modID}, {n.txMAC, n.txID, n.macTxID},
	}
	if n.probeReqs != nil {
		links = append(links, link{n.probeReqs, n.modID, n.sregID})
	}
	for _, c := range links {
		if err := e.Connect(c.q, c.prod, c.cons); err != nil {
			return fmt.Errorf("nicmodel: %s: %w", n.name, err)
		}
	}
	return nil
}

func (w *hpccWiring) qpStatus(n *NIC, q wire.QPN) (QPStatus, error) {
	fs, err := n.sched.Flow(scheduler.FlowID(q))
	if err != nil {
		return QPStatus{}, err
	}
	s := &w.mod.qps[q]
	st := QPStatus{Scheduler: fs, SndNxt: s.sndNxt, Una: s.una, Acked: s.acked, Posted: s.posted, Messages: s.msgs.len(),
		WBytes: hpcc.Real(n.cfg.HPCC.Formats.W, fs.Window), RateGbps: 8 * hpcc.Real(n.cfg.HPCC.Formats.Rate, fs.Rate)}
	if fs.Rate == 0 && fs.Gap != 0 {
		// No rate update since the reset: the pacer runs at the initial
		// rate, whose gap register is G = ceil(f*8*2^GF/bps).
		st.RateGbps = float64(n.cfg.ClockHz) * 8 * float64(uint64(1)<<uint(n.cfg.Scheduler.GapFracBits)) / float64(fs.Gap) / 1e9
	}
	st.HPCC, st.HPCCRef = w.mod.algo.state(q)
	return st, nil
}

func (w *hpccWiring) counters(c *Counters) {
	c.Module, c.PktSend = w.mod.cnt, w.sreg.cnt
	if w.guard != nil && w.guard.guard != nil {
		g := w.guard.gcnt
		c.Guard = &g
	}
	if w.mod.probe != nil {
		pc := w.mod.probe.cnt
		c.Probe = &pc
	}
}

func (w *hpccWiring) inflight() uint64 { return uint64(w.mod.pipe.len()) }
