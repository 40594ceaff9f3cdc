package nicmodel

import (
	"errors"
	"fmt"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/cc/intguard"
	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/fieldtable"
	"github.com/hpccgold/hpccgold/nicmodel/trace"
	"github.com/hpccgold/hpccgold/pipeline"
	"github.com/hpccgold/hpccgold/pipeline/wire"
	"github.com/hpccgold/hpccgold/scheduler"
)

// Options are a NIC instance's run-time choices (not hardware parameters).
type Options struct {
	// Name identifies the instance in component names, VCD scopes and trace
	// file names: [A-Za-z_][A-Za-z0-9_]*; default "nic".
	Name string
	// Trace selects the boundary and inter-block traces (off by default).
	Trace TraceOptions
	// OnComplete, if set, is called with each completed flow in the cycle
	// its last byte is acknowledged (from inside the engine's cycle). It
	// may call OpenFlow (closed-loop traffic); it must not run the engine.
	OnComplete func(FlowRecord)
	// DiscardRecords stops the NIC from keeping completed flows in memory
	// (Completed returns nothing); use with OnComplete for long runs.
	DiscardRecords bool
	// OnHPCCUpdate, if set, is called with every HPCC++ datapath update
	// of the fixed model (sender module and Rx-HPCC; the float reference
	// has no bit layout and is not reported), in the cycle it happens,
	// from inside the engine's cycle. The *HPCCUpdate is valid only during
	// the call (copy what you keep); the observer must not call into the
	// NIC. Unset, it costs one nil check per update; set or not, the NIC
	// behaves identically. Package vectors captures vector sets with it.
	OnHPCCUpdate func(*HPCCUpdate)
	// Datapaths, if set, shares the HPCC++ golden datapaths among the
	// NICs given the same set (one per distinct hpcc.Config); nil: the NIC
	// builds its own. Results are identical either way.
	Datapaths *Datapaths
	// KeepInputFrames stops the NIC from reusing the buffers of the frames
	// pushed into In (see NIC.In): for a network that keeps references to
	// the frames it delivered. The frames the NIC sends still come from the
	// engine's free list.
	KeepInputFrames bool
}

// FlowSpec opens a flow: Bytes payload bytes sent on QP QPN from cycle
// Start. A flow posted on an idle QP (every byte posted before
// acknowledged) starts a new connection: the QP's scheduler entry (window,
// rate, PSN) and HPCC++ state restart. A flow posted while the QP still has
// bytes outstanding queues behind them on the same connection.
type FlowSpec struct {
	QPN   wire.QPN
	Bytes uint64
	Start engine.Cycle
	// Class is the flow's traffic class: with Config.MultiQClassWeights
	// its MultiQ class weight (multiq.go); otherwise it must be 0. Every
	// flow open on a QP has the QP's class.
	Class int
}

// NIC is the NIC of Figure 4 of the HPCC++ draft (section 7.2): MAC Rx ->
// Rx pipeline -> HPCC++ module -> scheduler -> PktSend register -> Tx
// pipeline -> MAC Tx, as engine components, in both the sender and the
// receiver role (a QP's packets decide: ACKs and notifications go to the
// module, data and probes to the Tx pipeline for ACKs, probe replies and
// Rx-HPCC notifications).
//
// Port boundary: the network pushes each arriving frame into In() with the
// cycle its last bit arrives (TimedQueue.Push(now, arrival, frame)); frames
// leave through Out(), each visible at its departure cycle, after the
// NIC's MAC serialized it at the line rate (a link from a NIC therefore
// adds only its propagation delay). Connect Out's consumer with
// ConnectOut.
type NIC struct {
	name  string
	cfg   Config
	table *pipeline.FlowTable

	in      *engine.TimedQueue[pipeline.Frame]
	out     *engine.TimedQueue[pipeline.Frame]
	rxMAC   *engine.FIFO[pipeline.Frame]
	txMAC   *engine.FIFO[pipeline.Frame]
	events  *engine.FIFO[pipeline.Event]
	replies *engine.FIFO[pipeline.Reply]
	updates *engine.FIFO[scheduler.Update]
	acks    *engine.FIFO[scheduler.Ack]
	bells   *engine.FIFO[scheduler.Doorbell]
	posts   *engine.FIFO[post]
	sends   *engine.FIFO[scheduler.PktSend]
	pkts    *engine.FIFO[pipeline.PktSend]
	sentLog *engine.FIFO[sendRecord]
	// probeReqs carries the probe generator's requests to the PktSend
	// register (probe.go); nil unless probes are enabled.
	probeReqs *engine.FIFO[pipeline.PktSend]

	macRx *macRx
	rx    *pipeline.Rx
	host  *host
	sched *scheduler.Scheduler
	tx    *pipeline.Tx
	macTx *macTx
	rxcc  *rxHPCC
	// cc is the congestion-control block: hpccWiring (cc=hpcc, hpcc-rx,
	// none) or ccWiring (cc=ldcp, dcqcn).
	cc  ccBlock
	mac MACCounters
	// rec records the traces Options.Trace selects (nil: none); hooks is
	// what every block reports to: rec, or trace.Nop.
	rec   *trace.Recorder
	hooks trace.Hooks

	eng                            *engine.Engine
	macRxID, rxID, modID, hostID   engine.ID
	schedID, sregID, txID, macTxID engine.ID

	nextFlow   FlowID
	open       []int // per QP: flows opened and not completed
	records    []FlowRecord
	onComplete func(FlowRecord)
	keep       bool
	keepInput  bool
}

// New builds a NIC from a configuration (validated here) and its QP
// contexts (QPN < cfg.QPs each; addressing of the packets it sends on each
// QP; see pipeline.FlowContext). Register it with an engine before
// running.
func New(cfg Config, qps []pipeline.FlowContext, opts Options) (*NIC, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	name := opts.Name
	if name == "" {
		name = "nic"
	}
	if !fieldtable.IsIdent(name) {
		return nil, fmt.Errorf("nicmodel: Options.Name=%q: must be [A-Za-z_][A-Za-z0-9_]*", name)
	}
	table, err := pipeline.NewFlowTable(cfg.QPs, qps)
	if err != nil {
		return nil, fmt.Errorf("nicmodel: QPs: %w", err)
	}
	n := &NIC{name: name, cfg: cfg, table: table, onComplete: opts.OnComplete, keep: !opts.DiscardRecords,
		keepInput: opts.KeepInputFrames,
		open:      make([]int, cfg.QPs),
		macRxID:   engine.NoID, rxID: engine.NoID, modID: engine.NoID, hostID: engine.NoID, schedID: engine.NoID,
		sregID: engine.NoID, txID: engine.NoID, macTxID: engine.NoID}
	f := &cfg.FIFOs
	var ferr error
	fifo := func(name string, _ int) string { return n.name + "." + name }
	n.in = engine.NewTimedQueue[pipeline.Frame](n.name + ".port_in")
	n.out = engine.NewTimedQueue[pipeline.Frame](n.name + ".port_out")
	mk := func(err error) {
		if err != nil && ferr == nil {
			ferr = err
		}
	}
	var e error
	n.rxMAC, e = engine.NewFIFO[pipeline.Frame](fifo("rx_mac", f.RxMAC), f.RxMAC)
	mk(e)
	n.txMAC, e = engine.NewFIFO[pipeline.Frame](fifo("tx_mac", f.TxMAC), f.TxMAC)
	mk(e)
	n.events, e = engine.NewFIFO[pipeline.Event](fifo("events", f.Events), f.Events)
	mk(e)
	n.replies, e = engine.NewFIFO[pipeline.Reply](fifo("replies", f.Replies), f.Replies)
	mk(e)
	n.updates, e = engine.NewFIFO[scheduler.Update](fifo("updates", f.Updates), f.Updates)
	mk(e)
	n.acks, e = engine.NewFIFO[scheduler.Ack](fifo("acks", f.Acks), f.Acks)
	mk(e)
	n.bells, e = engine.NewFIFO[scheduler.Doorbell](fifo("doorbells", f.Doorbells), f.Doorbells)
	mk(e)
	n.posts, e = engine.NewFIFO[post](fifo("posts", f.Posts), f.Posts)
	mk(e)
	n.sends, e = engine.NewFIFO[scheduler.PktSend](fifo("sends", f.Sends), f.Sends)
	mk(e)
	n.pkts, e = engine.NewFIFO[pipeline.PktSend](fifo("pkt_sends", f.PktSends), f.PktSends)
	mk(e)
	n.sentLog, e = engine.NewFIFO[sendRecord](fifo("sent_log", f.SentLog), f.SentLog)
	mk(e)
	if cfg.Probe != nil && cfg.Probe.Enable {
		n.probeReqs, e = engine.NewFIFO[pipeline.PktSend](fifo("probe_reqs", probeFIFODepth), probeFIFODepth)
		mk(e)
	}
	if ferr != nil {
		return nil, fmt.Errorf("nicmodel: %w", ferr)
	}

	// HPCC++ arithmetic: the sender's module (cc=hpcc; cc=hpcc-rx applies
	// notified windows with the same R = W/T multiplier) and the
	// receiver's Rx-HPCC.
	var txCore, rxCore *ccCore
	var rxcc pipeline.RxCC
	// The telemetry guard (Config.Guard) checks the telemetry before the
	// sender's update (cc=hpcc) or the receiver's (cc=hpcc-rx).
	var guard *intguard.Guard
	if cfg.Guard != nil {
		if guard, err = intguard.New(cfg.Guard.Intguard(cfg.HPCC)); err != nil {
			return nil, fmt.Errorf("nicmodel: guard: %w", err)
		}
	}
	switch cfg.CC {
	case CCHPCC:
		if txCore, err = newCCCore(cfg.Model, cfg.HPCC, opts.Datapaths); err != nil {
			return nil, err
		}
	case CCHPCCRx:
		if rxCore, err = newCCCore(cfg.Model, cfg.HPCC, opts.Datapaths); err != nil {
			return nil, err
		}
		// The sender side applies W with R = W/T of the same formats; the
		// datapath it builds is a sender-mode copy of the configuration.
		sc := cfg.HPCC
		sc.Mode, sc.DynamicWAI, sc.NotifyPeriodNs = hpcc.Sender, false, 0
		if txCore, err = newCCCore(cfg.Model, sc, opts.Datapaths); err != nil {
			return nil, err
		}
		n.rxcc = newRxHPCC(rxCore, cfg.ClockHz, cfg.QPs, cfg.RxHPCC.FlowWindowNs)
		n.rxcc.guard, guard = guard, nil
		rxcc = n.rxcc
	}
	n.hooks = trace.Nop{}
	onUpdate := opts.OnHPCCUpdate
	if opts.Trace.Packets || opts.Trace.Vectors {
		l := trace.Layout{Freq: cfg.ClockHz, Encoding: cfg.HPCC.Encoding, MaxHops: cfg.HPCC.MaxHops,
			W: cfg.HPCC.Formats.W, Rate: cfg.HPCC.Formats.Rate}
		if cfg.CC == CCHPCC && txCore != nil {
			l.Sender = txCore.d
		}
		if rxCore != nil {
			l.Receiver = rxCore.d
		}
		if n.rec, err = trace.New(opts.Trace, l); err != nil {
			return nil, err
		}
		n.hooks = n.rec
		if opts.Trace.Vectors && (l.Sender != nil || l.Receiver != nil) {
			// The datapath transactions reach the recorder through the
			// update observer, ahead of the caller's.
			rec, user := n.rec, onUpdate
			onUpdate = func(u *HPCCUpdate) {
				rec.Txn(u.Cycle, u.QPN, u.Receiver, u.Datapath, &u.State, &u.Input, &u.Next, &u.Output)
				if user != nil {
					user(u)
				}
			}
		}
	}
	if n.rxcc != nil && cfg.Model == Fixed {
		n.rxcc.onUpdate = onUpdate
	}

	rxReplies := n.replies
	var ccw *ccWiring
	if cfg.CC.usesCCModule() {
		if ccw, err = newCCWiring(n, &cfg); err != nil {
			return nil, err
		}
		rxReplies = ccw.repRaw
		n.cfg = cfg // with the resolved ldcp/dcqcn section
	}
	if n.rx, err = pipeline.NewRx(cfg.Rx, table, n.rxMAC, n.events, rxReplies, rxcc); err != nil {
		return nil, fmt.Errorf("nicmodel: rx: %w", err)
	}
	if n.tx, err = pipeline.NewTx(cfg.pipelineTx(), table, n.pkts, n.replies, n.txMAC); err != nil {
		return nil, fmt.Errorf("nicmodel: tx: %w", err)
	}
	if n.sched, err = scheduler.New(cfg.schedulerConfig(), scheduler.Ports{Updates: n.updates, Acks: n.acks,
		Doorbells: n.bells, Sends: n.sends}); err != nil {
		return nil, fmt.Errorf("nicmodel: scheduler: %w", err)
	}
	n.macRx = &macRx{in: n.in, out: n.rxMAC, cnt: &n.mac, hooks: n.hooks}
	n.macTx = &macTx{in: n.txMAC, out: n.out, freq: cfg.ClockHz, bps: cfg.LineRateBps(), overhead: uint64(cfg.MACOverheadBytes),
		cnt: &n.mac, hooks: n.hooks}
	n.host = &host{posts: n.posts}
	if ccw != nil {
		// cc=ldcp/dcqcn: the CC module replaces the HPCC++ module and the
		// PktSend register, which are not built.
		ccw.attach(n)
		n.cc = ccw
		return n, nil
	}
	n.cc = newHPCCWiring(n, &cfg, txCore, onUpdate, guard)
	if err := n.buildClassCores(&cfg, opts.Datapaths); err != nil {
		return nil, err
	}
	return n, nil
}

// Name returns the instance name.
func (n *NIC) Name() string { return n.name }

// Config returns the configuration.
func (n *NIC) Config() Config { return n.cfg }

// In returns the port's input: push each arriving frame with the cycle its
// last bit arrives (Push(now, arrival, frame), now the engine's current
// cycle). The NIC takes it in that cycle. Push only after Register (the
// queue wakes the MAC only once it is connected).
//
// The push hands the frame's Data to the NIC: once the Rx pipeline has
// parsed the frame (or the MAC dropped it), the NIC releases the buffer to
// the engine's free list (engine.Buffers), from which the Tx pipelines of
// the engine's NICs take the buffers of the frames they build. So the
// pusher must neither keep nor read nor modify Data after the push; a
// network that must keep references to the frames it delivered sets
// Options.KeepInputFrames.
func (n *NIC) In() *engine.TimedQueue[pipeline.Frame] { return n.in }

// Out returns the port's output: each frame becomes visible at its
// departure cycle (the cycle after its last bit left the NIC). The consumer
// owns the popped frame's Data: it passes it on (to another NIC's In, which
// then owns it), or may release it to the engine's free list
// (engine.Buffers().Put) when it is done with it, or leaves it to the
// garbage collector.
func (n *NIC) Out() *engine.TimedQueue[pipeline.Frame] { return n.out }

// OutProducer returns the engine ID of the MAC transmitter that pushes into
// Out (engine.NoID before Register).
func (n *NIC) OutProducer() engine.ID { return n.macTxID }

// ConnectOut connects Out to its consumer (the link or switch component
// that takes the NIC's frames), so that each departure wakes it. Call it
// once, after Register.
func (n *NIC) ConnectOut(consumer engine.ID) error {
	if n.eng == nil {
		return errors.New("nicmodel: ConnectOut before Register")
	}
	return n.eng.Connect(n.out, n.macTxID, consumer)
}

// Register adds the NIC's components to e, in the order its
// congestion-control block gives (cc=hpcc, hpcc-rx, none: MAC Rx, Rx,
// module, host, scheduler, PktSend register, Tx, MAC Tx; cc=ldcp, dcqcn:
// see ccwiring.go), and connects its internal queues and In. The engine's
// clock must be the configuration's clock_hz.
func (n *NIC) Register(e *engine.Engine) error {
	if n.eng != nil {
		return fmt.Errorf("nicmodel: %s: registered twice", n.name)
	}
	if e.Freq() != n.cfg.ClockHz {
		return fmt.Errorf("nicmodel: %s: engine clock %v differs from clock_hz=%d", n.name, e.Freq(), uint64(n.cfg.ClockHz))
	}
	if err := n.cc.register(n, e); err != nil {
		return err
	}
	n.eng = e
	return nil
}

// OpenFlow opens a flow and returns its ID. Its message is posted in cycle
// max(f.Start, Now()+1) once the NIC is registered (f.Start before), so
// that a flow opened during a cycle (from OnComplete, or from another
// component's Tick) never depends on the order in which components tick.
// Errors: a QPN that is not one of the NIC's QPs, Bytes = 0, a QP that
// already has scheduler.max_messages flows open (the scheduler's message
// queue would drop the message).
func (n *NIC) OpenFlow(f FlowSpec) (FlowID, error) {
	if _, ok := n.table.Lookup(f.QPN); !ok {
		return 0, fmt.Errorf("nicmodel: %s: OpenFlow: QPN=%d: not a QP of this NIC", n.name, f.QPN)
	}
	if f.Bytes == 0 {
		return 0, fmt.Errorf("nicmodel: %s: OpenFlow: Bytes=0: must be positive", n.name)
	}
	if err := n.checkFlowClass(f); err != nil {
		return 0, err
	}
	if n.open[f.QPN] >= n.cfg.Scheduler.MaxMessages {
		return 0, fmt.Errorf("nicmodel: %s: OpenFlow: QPN=%d: %d flows already open (scheduler.max_messages=%d)",
			n.name, f.QPN, n.open[f.QPN], n.cfg.Scheduler.MaxMessages)
	}
	n.open[f.QPN]++
	n.setFlowClass(f)
	start := f.Start
	if n.eng != nil {
		start = max(start, n.eng.Now()+1)
	}
	id := n.nextFlow
	n.nextFlow++
	n.host.open(start, post{flow: id, qpn: f.QPN, bytes: f.Bytes, start: start})
	n.host.cnt.Opened++
	if n.eng != nil {
		if err := n.eng.Wake(n.hostID, start); err != nil {
			return 0, fmt.Errorf("nicmodel: %s: %w", n.name, err)
		}
	}
	return id, nil
}

func (n *NIC) complete(r FlowRecord) {
	n.open[r.QPN]--
	if n.keep {
		n.records = append(n.records, r)
	}
	if n.onComplete != nil {
		n.onComplete(r)
	}
}

// Completed returns the completed flows in completion order (a copy).
func (n *NIC) Completed() []FlowRecord { return append([]FlowRecord(nil), n.records...) }

// Counters is every status register of the NIC, by block.
type Counters struct {
	MAC MACCounters
	Rx  pipeline.RxCounters
	// Module and PktSend are the HPCC++ module's and the PktSend
	// register's (zero under cc=ldcp/dcqcn, which builds neither).
	Module    ModuleCounters
	RxHPCC    RxHPCCCounters
	Scheduler scheduler.Counters
	PktSend   SendRegCounters
	Tx        pipeline.TxCounters
	Host      HostCounters
	FIFOs     []FIFOStatus
	// CC is the CC module's and port's registers under cc=ldcp/dcqcn (nil
	// otherwise).
	CC *CCCounters
	// Guard is the telemetry guard's registers (nil without a guard).
	Guard *GuardCounters
	// Probe is the probe generator's registers (nil without a probe
	// section).
	Probe *ProbeCounters
}

// FIFOStatus is one internal FIFO's counters and high-water mark.
type FIFOStatus struct {
	Name                   string
	Capacity, Level, Max   int
	Pushes, Pops, Rejected uint64
}

// hpccInflight returns the updates in the HPCC++ module's pipeline (0
// under cc=ldcp/dcqcn, which has none).
func (n *NIC) hpccInflight() uint64 { return n.cc.inflight() }

// Counters returns a snapshot of every status register.
func (n *NIC) Counters() Counters {
	c := Counters{MAC: n.mac, Rx: n.rx.Counters(), Scheduler: n.sched.Counters(), Tx: n.tx.Counters(), Host: n.host.cnt}
	if n.rxcc != nil {
		c.RxHPCC = n.rxcc.cnt
		if n.rxcc.guard != nil {
			g := n.rxcc.gcnt
			c.Guard = &g
		}
	}
	for _, f := range n.fifos() {
		c.FIFOs = append(c.FIFOs, f)
	}
	n.cc.counters(&c)
	return c
}

func fifoStatus[T any](name string, f *engine.FIFO[T]) FIFOStatus {
	p, q, r := f.Counts()
	return FIFOStatus{Name: name, Capacity: f.Cap(), Level: f.Len(), Max: f.MaxLevel(), Pushes: p, Pops: q, Rejected: r}
}

func (n *NIC) fifos() []FIFOStatus {
	fs := []FIFOStatus{fifoStatus("rx_mac", n.rxMAC), fifoStatus("events", n.events), fifoStatus("replies", n.replies),
		fifoStatus("updates", n.updates), fifoStatus("acks", n.acks), fifoStatus("doorbells", n.bells),
		fifoStatus("posts", n.posts), fifoStatus("sends", n.sends), fifoStatus("pkt_sends", n.pkts),
		fifoStatus("sent_log", n.sentLog), fifoStatus("tx_mac", n.txMAC)}
	if n.probeReqs != nil {
		fs = append(fs, fifoStatus("probe_reqs", n.probeReqs))
	}
	return fs
}

// QPStatus is the sender-side state of one QP.
type QPStatus struct {
	Scheduler scheduler.FlowStatus // W, R, G, backlog, inflight, pacer state (raw registers; see scheduler)
	SndNxt    uint64               // data packets sent since the QP's reset
	Una       uint64               // data packets acknowledged
	Acked     uint64               // payload bytes acknowledged
	Posted    uint64               // payload bytes posted
	Messages  int                  // posted messages not yet complete
	// WBytes and RateGbps are the scheduler's W and R registers as real
	// numbers (bytes; Gbit/s = bytes per ns x 8), for plots and CSV.
	WBytes, RateGbps float64
	// HPCC is the module's flow state (cc=hpcc, fixed model; zero
	// otherwise) and HPCCRef the float reference's (cc=hpcc, float model;
	// zero otherwise: under hpcc-rx and none the sender keeps no flow
	// state).
	HPCC    hpcc.State
	HPCCRef hpcc.RefState
	// CC is the CC module's view under cc=ldcp/dcqcn (nil otherwise); W
	// and R are then its window (cw x mtu bytes; NaN under DCQCN) and
	// pacing rate.
	CC *CCQPStatus
}

// QP returns QP q's sender-side state.
func (n *NIC) QP(q wire.QPN) (QPStatus, error) {
	if int(q) >= n.cfg.QPs {
		return QPStatus{}, fmt.Errorf("nicmodel: %s: QP(%d): must be < qps=%d", n.name, q, n.cfg.QPs)
	}
	return n.cc.qpStatus(n, q)
}

// WriteTraces writes the recorded traces into dir as <name>.<stream>.<ext>
// files and <name>.manifest.json (written last; it lists every file with
// its SHA-256, the tool version and the configuration). Every file is
// written atomically. It returns the files written.
func (n *NIC) WriteTraces(dir string) ([]TraceFile, error) {
	if n.rec == nil {
		return nil, fmt.Errorf("nicmodel: %s: no traces recorded (Options.Trace)", n.name)
	}
	cfgJSON, err := n.cfg.JSON() // here, not in New: only the manifest needs it
	if err != nil {
		return nil, err
	}
	return n.rec.Write(dir, n.name, n.name, cfgJSON)
}

// Watch adds the NIC's waveform signals to v under scope <name>: FIFO
// levels and pipeline stage occupancies, the module's updates in flight,
// the scheduler's eligible and pacing flow counts and, for each QP in qps,
// W (whole bytes), R (raw, hpcc formats.rate, bytes per ns), the pacer
// state (scheduler.FlowState: 0 idle, 1 paused, 2 window, 3 pacing, 4
// ready), bytes in flight and the next send cycle.
func (n *NIC) Watch(v *VCD, qps []wire.QPN) error {
	s := n.name
	type sig struct {
		scope, name string
		width       int
		get         func() uint64
	}
	lvl := func(f interface{ Len() int }) func() uint64 { return func() uint64 { return uint64(f.Len()) } }
	sigs := []sig{
		{s + ".mac", "rx_fifo", 16, lvl(n.rxMAC)},
		{s + ".mac", "tx_fifo", 16, lvl(n.txMAC)},
		{s + ".rx", "parse", 16, func() uint64 { p, _ := n.rx.Levels(); return uint64(p) }},
		{s + ".rx", "dispatch", 16, func() uint64 { _, d := n.rx.Levels(); return uint64(d) }},
		{s + ".rx", "event_fifo", 16, lvl(n.events)},
		{s + ".rx", "reply_fifo", 16, lvl(n.replies)},
		{s + ".hpcc", "inflight", 8, n.hpccInflight},
		{s + ".hpcc", "update_fifo", 16, lvl(n.updates)},
		{s + ".hpcc", "ack_fifo", 16, lvl(n.acks)},
		{s + ".sched", "eligible", 20, func() uint64 { return uint64(n.sched.Eligible()) }},
		{s + ".sched", "pacing", 20, func() uint64 { return uint64(n.sched.Pacing()) }},
		{s + ".sched", "send_fifo", 16, lvl(n.sends)},
		{s + ".tx", "pktsend_fifo", 16, lvl(n.pkts)},
		{s + ".tx", "build", 16, func() uint64 { b, _ := n.tx.Levels(); return uint64(b) }},
		{s + ".tx", "egress", 16, func() uint64 { _, e := n.tx.Levels(); return uint64(e) }},
	}
	rw := n.cfg.HPCC.Formats.Rate.W
	for _, q := range qps {
		if _, ok := n.table.Lookup(q); !ok {
			return fmt.Errorf("nicmodel: %s: Watch: QPN=%d: not a QP of this NIC", n.name, q)
		}
		id := scheduler.FlowID(q)
		flow := func() scheduler.FlowStatus { f, _ := n.sched.Flow(id); return f }
		sc := fmt.Sprintf("%s.qp%d", s, q)
		sigs = append(sigs,
			sig{sc, "W", 32, func() uint64 { return min(flow().WindowBytes, 1<<32-1) }},
			sig{sc, "R", rw, func() uint64 { return flow().Rate }},
			sig{sc, "pacer_state", 3, func() uint64 { return uint64(flow().State) }},
			sig{sc, "inflight", 32, func() uint64 { return min(flow().Inflight, 1<<32-1) }},
			sig{sc, "next_send", 64, func() uint64 { return flow().NextSend }},
		)
	}
	for _, g := range sigs {
		if err := v.Add(g.scope, g.name, g.width, g.get); err != nil {
			return err
		}
	}
	return nil
}

// TraceOptions selects the traces a NIC records (package trace).
type TraceOptions = trace.Options

// TraceFile describes one file NIC.WriteTraces wrote.
type TraceFile = trace.File

// PcapSnapLen is the snapshot length written in the pcap headers: the
// largest frame the NIC can see (4096-byte payload, headers, 8 IFA hops).
const PcapSnapLen = trace.PcapSnapLen

// VCD is a waveform writer (package trace); NIC.Watch adds a NIC's signals.
type VCD = trace.VCD

// NewVCD returns a waveform writer at clock freq (trace.NewVCD).
func NewVCD(freq engine.Freq, comment string) (*VCD, error) { return trace.NewVCD(freq, comment) }
