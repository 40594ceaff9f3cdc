package scenario

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/nicmodel"
	"github.com/hpccgold/hpccgold/nicmodel/network"
	"github.com/hpccgold/hpccgold/pipeline"
	"github.com/hpccgold/hpccgold/pipeline/wire"
	"github.com/hpccgold/hpccgold/scheduler"
)

// ErrInterrupted is returned (wrapped) when the context is cancelled
// during a run or while its files are written.
var ErrInterrupted = errors.New("scenario: interrupted")

// Options are a run's choices that are not scenario parameters.
type Options struct {
	// Progress, if set, is called from the run's goroutine about every
	// 200 ms of wall time and once at the end.
	Progress func(Progress)
	// TraceHosts lists hosts whose NIC records its boundary and
	// inter-block traces (pcap, hex, vector files; nicmodel.TraceOptions);
	// Result.Write puts them under <dir>/traces.
	TraceHosts []int
	// OnHPCCUpdate, if set, receives every HPCC++ datapath update of every
	// host's NIC (nicmodel.Options.OnHPCCUpdate: fixed model only; the
	// *HPCCUpdate is valid only during the call), with the host's index,
	// from inside the engine's cycle. It does not change the run. Package
	// vectors captures vector sets from scenarios with it.
	OnHPCCUpdate func(host int, u *nicmodel.HPCCUpdate)
	// NoSkip ticks every component in every cycle (engine.Config.NoSkip):
	// results must not change; it exists to prove that.
	NoSkip bool
}

// The NIC is the network's endpoint.
var _ network.Endpoint = (*nicmodel.NIC)(nil)

// Progress reports how far a run is.
type Progress struct {
	SimNs, EndNs     uint64 // simulated time reached and the run's end (duration or limit)
	FlowsDone, Flows int
	Wall             time.Duration
}

// FlowResult is one flow of the workload and its completion.
type FlowResult struct {
	Index   int
	Group   string
	Src     int
	Dst     int
	Bytes   uint64
	StartNs uint64
	// Done reports completion; DoneNs is when the sender's HPCC++ module
	// processed the ACK of its last byte, FCTNs = DoneNs - StartNs.
	Done    bool
	DoneNs  uint64
	FCTNs   uint64
	IdealNs uint64  // completion time alone in the empty network (see docs/scenarios.md)
	Slow    float64 // FCTNs / IdealNs (0 if not done)
	// Bottleneck reports whether the flow's path crosses the measured port.
	Bottleneck bool
	class      int // traffic class (network.Flow.Class)
	sport      uint16
	srcQP      wire.QPN
}

// FlowSeries is one sampled flow: per sample, its sending rate (payload
// bits/s over the interval, Gbit/s), its wire rate (payload plus every
// header byte the NIC puts on the wire), its window W (bytes) and its
// pacing rate R (Gbit/s); NaN while the flow is not active.
type FlowSeries struct {
	Flow     int
	Rate     []float64
	WireRate []float64
	Window   []float64
	Pacing   []float64
}

// Series are the run's time series, one entry per sample (TimeNs).
type Series struct {
	TimeNs []uint64
	// QueueBytes is the bottleneck queue at the sample instant, QueueMax
	// its maximum since the previous sample (exact, from the queue log).
	QueueBytes, QueueMax []uint64
	// Util is the bottleneck's wire utilization over the interval.
	Util []float64
	// SumRate is the sum of the sampled flows' wire rates through the
	// bottleneck, Gbit/s; Capacity the bottleneck's line rate.
	SumRate []float64
	// Jain is Jain's fairness index of the sampled bottleneck flows active
	// over the whole interval (NaN with fewer than two).
	Jain   []float64
	Active []int
	Flows  []FlowSeries
	// Classes are the bottleneck port's traffic classes (only with two
	// or more: network.QoSConfig).
	Classes []ClassSeries
}

// Result is a finished run.
type Result struct {
	Config    Config
	NICConfig nicmodel.Config // the first sender's NIC configuration
	BaseRTTNs uint32          // T used
	PathRTTNs uint64          // the largest base RTT of the workload's paths
	Flows     []FlowResult
	Series    Series
	// Bottleneck: switch, port, name, rate and exact queue log.
	BottleneckSwitch, BottleneckPort int
	BottleneckName                   string
	BottleneckGbps                   uint32
	BottleneckHost                   int
	Summary                          Summary
	Stats                            RunStats
	nics                             []*nicmodel.NIC
	traceHosts                       []int
	queueLog                         *network.QueueLog
	classLogs                        []*network.QueueLog
	port                             network.PortCounters
}

// RunStats describe the run's cost (not written into files: they vary with
// the machine).
type RunStats struct {
	// Wall is the whole run; Setup the part before the first cycle
	// (building the network and the NICs, generating the workload).
	Wall, Setup        time.Duration
	SimNs              uint64
	Cycles, BusyCycles uint64
	Ticks              uint64
	// UnexpectedProgress is engine.Stats.UnexpectedProgress (NoSkip runs):
	// 0 unless a component breaks the idle-skipping contract.
	UnexpectedProgress  uint64
	DataPackets, Frames uint64
	Flows               int
	// FlowsDone is the number of flows that completed; EndNs the run's
	// horizon (run.duration_ns, else run.limit_ns). Stalled is true when
	// the run stopped before its horizon with flows left because nothing
	// in the network or the NICs could move any more.
	FlowsDone int
	EndNs     uint64
	Stalled   bool
}

// ErrIncomplete is the verdict of a run that did not do what it was
// asked (Result.Verdict): flows left incomplete by a run that was to run
// until every flow completed, or a run that stalled.
var ErrIncomplete = errors.New("scenario: the run did not complete its flows")

// Verdict returns nil when the run did what it was asked, else an error
// wrapping ErrIncomplete that says why: a run with run.duration_ns = 0
// runs until every flow completes, so flows left at run.limit_ns are a
// failure; any run that stalled (nothing could move any more) with flows
// left is a failure. A fixed-duration run (run.duration_ns > 0) that
// reached its end with long flows still running is not.
func (r *Result) Verdict() error {
	s := r.Stats
	left := s.Flows - s.FlowsDone
	switch {
	case left == 0:
		return nil
	case s.Stalled:
		return fmt.Errorf("%w: %d of %d flows incomplete when the network went idle at %d ns (nothing could move any more; the horizon was %d ns)",
			ErrIncomplete, left, s.Flows, s.SimNs, s.EndNs)
	case r.Config.Run.DurationNs == 0:
		return fmt.Errorf("%w: %d of %d flows incomplete at run.limit_ns=%d", ErrIncomplete, left, s.Flows, r.Config.Run.LimitNs)
	}
	return nil
}

// PacketsPerSecond is data packets simulated per wall-clock second.
func (s RunStats) PacketsPerSecond() float64 {
	if s.Wall <= 0 {
		return 0
	}
	return float64(s.DataPackets) / s.Wall.Seconds()
}

// sim is a run in progress.
type sim struct {
	cfg      Config
	e        *engine.Engine // the engine (one partition's with run.workers > 1)
	par      *parRun        // run.workers > 1: the partitions, else nil
	net      *network.Network
	nics     []*nicmodel.NIC
	flows    []FlowResult
	byID     [][]int // host -> nicmodel.FlowID -> flow index
	done     int
	bSw, bPt int
	qlog     *network.QueueLog
	rateF    float64      // 2^-F of the rate register (bytes/ns per LSB)
	ovh      uint64       // NIC wire bytes per data packet besides payload
	series   []int        // flow indices sampled
	last     []flowSample // per QP slot (slot): the QP's counters at the previous sample
	slot     []int        // per sampled flow: its QP's slot in last (flows sharing a QP, nic.share_qp, share one)
	served   []bool       // per slot, during one sample: a running flow of the QP took the interval's bytes
	lastTx   uint64
	lastT    engine.Cycle
	out      Series
	cls      *classSampler // two or more traffic classes, else nil
}

type flowSample struct {
	sent, pkts uint64
}

// Run runs a scenario to its end (duration, completion of every flow, the
// limit, or nothing left to move) and returns its results. Cancelling ctx
// stops it and returns an error wrapping ErrInterrupted.
func Run(ctx context.Context, cfg Config, opts Options) (*Result, error) {
	wall := time.Now()
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Network.Encoding != cfg.HPCC.Encoding {
		return nil, cerr("network.encoding", cfg.Network.Encoding, fmt.Sprintf("must equal hpcc.encoding=%v (switches stamp what NICs request)", cfg.HPCC.Encoding))
	}
	net, err := cfg.Topology.Build(cfg.networkConfig())
	if err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	nh := net.Hosts()
	gbps := make([]uint32, nh)
	for i := range gbps {
		_, _, l := net.HostLink(i)
		gbps[i] = l.Gbps
	}
	gen, err := cfg.Traffic.Generate(gbps)
	if err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	if len(gen) == 0 {
		return nil, fmt.Errorf("scenario: traffic: no flows")
	}
	if len(gen) > maxFlowCount {
		return nil, fmt.Errorf("scenario: traffic: %d flows: at most %d", len(gen), maxFlowCount)
	}
	for i, h := range opts.TraceHosts {
		if h < 0 || h >= nh {
			return nil, fmt.Errorf("scenario: trace host %d: must be in [0,%d)", h, nh)
		}
		if slices.Contains(opts.TraceHosts[:i], h) {
			return nil, fmt.Errorf("scenario: trace host %d: listed twice", h)
		}
	}
	s := &sim{cfg: cfg, net: net}
	// QPs: flow k uses QP qs on its sender and qr on its receiver.
	qps := make([]int, nh)
	ctxs := make([][]pipeline.FlowContext, nh)
	s.flows = make([]FlowResult, len(gen))
	type pair struct{ src, dst, class int }
	shared := map[pair]int{} // nic.share_qp: the first flow of each pair
	for k, f := range gen {
		if cfg.NIC.ShareQP {
			if j, ok := shared[pair{f.Src, f.Dst, f.Class}]; ok {
				s.flows[k] = s.flows[j]
				s.flows[k].Index, s.flows[k].Group, s.flows[k].Bytes, s.flows[k].StartNs = k, f.Group, f.Bytes, f.StartNs
				continue
			}
			shared[pair{f.Src, f.Dst, f.Class}] = k
		}
		sport := uint16(49152 + mixIndex(uint64(k))%16384)
		qs, qr := wire.QPN(qps[f.Src]), wire.QPN(qps[f.Dst])
		qps[f.Src]++
		qps[f.Dst]++
		a, b := network.HostAddr(f.Src), network.HostAddr(f.Dst)
		dscp := uint8(26)
		if cl := cfg.Network.Switch.QoS.Classes; len(cl) > 0 {
			dscp = cl[f.Class].DSCP
		}
		path := wire.Path{SrcMAC: a.MAC, DstMAC: b.MAC, SrcIP: a.IP, DstIP: b.IP, DSCP: dscp, ECN: wire.ECT0, TTL: 64, UDPSrcPort: sport}
		ctxs[f.Src] = append(ctxs[f.Src], pipeline.FlowContext{QPN: qs, RemoteQPN: qr, Path: path, PKey: 0xFFFF})
		ctxs[f.Dst] = append(ctxs[f.Dst], pipeline.FlowContext{QPN: qr, RemoteQPN: qs, Path: path.Reverse(), PKey: 0xFFFF})
		s.flows[k] = FlowResult{Index: k, Group: f.Group, Src: f.Src, Dst: f.Dst, Bytes: f.Bytes, StartNs: f.StartNs, class: f.Class, sport: sport, srcQP: qs}
	}
	// T: the configured one, or the largest path RTT rounded up to 100 ns.
	probe, err := cfg.nicConfig(5000, gbps[0], 1)
	if err != nil {
		return nil, err
	}
	pathRTT, err := s.pathTimes(&probe)
	if err != nil {
		return nil, err
	}
	T := cfg.HPCC.BaseRTTNs
	if T == 0 {
		T = uint32((pathRTT + 99) / 100 * 100)
	}
	if cfg.CC == nicmodel.CCHPCCRx && cfg.HPCC.RxBaseRTTNs != 0 {
		T = cfg.HPCC.RxBaseRTTNs
	}
	if cfg.Run.Workers > 1 && opts.OnHPCCUpdate != nil {
		return nil, cerr("run.workers", cfg.Run.Workers, "the HPCC++ update capture (Options.OnHPCCUpdate, scenario/simvec) receives updates in the one-engine order across hosts, which partitions do not keep; use 0 or 1")
	}
	e, err := engine.New(engine.Config{Freq: cfg.Run.ClockHz, NoSkip: opts.NoSkip})
	if err != nil {
		return nil, err
	}
	s.e = e
	s.byID = make([][]int, nh)
	traced := map[int]bool{}
	for _, h := range opts.TraceHosts {
		traced[h] = true
	}
	var first nicmodel.Config
	dps := nicmodel.NewDatapaths() // NICs of equal HPCC++ configuration share one golden datapath
	for h := 0; h < nh; h++ {
		nc, err := cfg.nicConfig(T, gbps[h], qps[h])
		if err != nil {
			return nil, err
		}
		if err := cfg.windowHoldsPacket(&nc, h, T, gbps[h]); err != nil {
			return nil, err
		}
		if cfg.HPCC.MultiQ {
			if err := cfg.setMultiQ(&nc, h); err != nil {
				return nil, err
			}
		}
		if h == gen[0].Src {
			first = nc
		}
		host := h
		o := nicmodel.Options{Name: net.HostName(h), DiscardRecords: true, Datapaths: dps,
			OnComplete: func(r nicmodel.FlowRecord) { s.complete(host, r) }}
		if traced[h] {
			o.Trace = nicmodel.TraceOptions{Packets: true, Vectors: true}
		}
		if f := opts.OnHPCCUpdate; f != nil {
			o.OnHPCCUpdate = func(u *nicmodel.HPCCUpdate) { f(host, u) }
		}
		nic, err := nicmodel.New(nc, ctxs[h], o)
		if err != nil {
			return nil, fmt.Errorf("scenario: host %d: %w", h, err)
		}
		s.nics = append(s.nics, nic)
		if err := net.Attach(h, nic); err != nil {
			return nil, err
		}
	}
	if cfg.Run.Workers > 1 {
		if s.par, err = newParRun(net, e, cfg.Run.Workers, opts.NoSkip); err != nil {
			return nil, fmt.Errorf("scenario: %w", err)
		}
	} else if err := net.Register(e); err != nil {
		return nil, err
	}
	// The bottleneck: the switch port delivering to the chosen host.
	bh := cfg.Run.BottleneckHost
	if bh < 0 {
		cnt := make([]int, nh)
		for _, f := range gen {
			cnt[f.Dst]++
		}
		bh = 0
		for h := range cnt {
			if cnt[h] > cnt[bh] {
				bh = h
			}
		}
	}
	var bl network.LinkSpec
	s.bSw, s.bPt, bl = net.HostLink(bh)
	if s.qlog, err = net.Watch(s.bSw, s.bPt); err != nil {
		return nil, err
	}
	if err := s.watchClasses(); err != nil {
		return nil, err
	}
	for k := range s.flows {
		f := &s.flows[k]
		p, _ := net.Path(f.Src, f.Dst, f.sport)
		for _, hop := range p {
			if hop.Switch == s.bSw && hop.Port == s.bPt {
				f.Bottleneck = true
			}
		}
	}
	// Open every flow.
	for k := range s.flows {
		f := &s.flows[k]
		fs := nicmodel.FlowSpec{QPN: f.srcQP, Bytes: f.Bytes, Start: cfg.Run.ClockHz.CycleAtNS(f.StartNs)}
		if len(s.nics[f.Src].Config().MultiQClassWeights) > 0 {
			fs.Class = f.class
		}
		id, err := s.nics[f.Src].OpenFlow(fs)
		if err != nil {
			return nil, fmt.Errorf("scenario: flow %d: %w", k, err)
		}
		if uint64(id) != uint64(len(s.byID[f.Src])) {
			return nil, fmt.Errorf("scenario: flow %d: NIC flow id %d out of order", k, id)
		}
		s.byID[f.Src] = append(s.byID[f.Src], k)
		if s.par != nil {
			s.par.left[s.par.parts.HostPart(f.Src)]++
		}
	}
	s.rateF = math.Ldexp(1, -first.HPCC.Formats.Rate.F())
	s.ovh = uint64(first.OverheadBytes())
	for k := 0; k < len(s.flows) && len(s.series) < cfg.Run.FlowSeriesMax; k++ {
		s.series = append(s.series, k)
	}
	type qpKey struct {
		host int
		qp   wire.QPN
	}
	slots := map[qpKey]int{}
	s.slot = make([]int, len(s.series))
	for i, k := range s.series {
		key := qpKey{s.flows[k].Src, s.flows[k].srcQP}
		j, ok := slots[key]
		if !ok {
			j = len(slots)
			slots[key] = j
		}
		s.slot[i] = j
	}
	s.last = make([]flowSample, len(slots))
	s.served = make([]bool, len(slots))
	s.out.Flows = make([]FlowSeries, len(s.series))
	for i, k := range s.series {
		s.out.Flows[i].Flow = k
	}

	setup := time.Since(wall)
	// Run in sample-sized steps.
	end := cfg.Run.DurationNs
	if end == 0 {
		end = cfg.Run.LimitNs
	}
	endC := cfg.Run.ClockHz.CycleAtNS(end)
	step := cfg.Run.ClockHz.CyclesNS(cfg.Run.SampleNs)
	lastReport := time.Now()
	report := func() {
		if opts.Progress != nil {
			opts.Progress(Progress{SimNs: cfg.Run.ClockHz.NS(e.Now()), EndNs: end, FlowsDone: s.done, Flows: len(s.flows), Wall: time.Since(wall)})
		}
	}
	idle := false
	for {
		t := min(e.Now()+step, endC)
		if s.par != nil {
			if err := s.par.runTo(t); err != nil {
				return nil, fmt.Errorf("scenario: %w", err)
			}
			s.done = len(s.flows) - s.par.remaining()
		} else {
			e.Run(t)
		}
		s.sample()
		if s.done == len(s.flows) || e.Now() >= endC {
			break
		}
		if s.idle() {
			idle = true
			break
		}
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("%w at %d ns of %d: %v", ErrInterrupted, cfg.Run.ClockHz.NS(e.Now()), end, err)
		}
		if time.Since(lastReport) >= 200*time.Millisecond {
			lastReport = time.Now()
			report()
		}
	}
	report()
	rc := cfg
	rc.Run.Workers = 0 // how it ran, not what: the results are the same
	r := &Result{Config: rc, NICConfig: first, BaseRTTNs: T, PathRTTNs: pathRTT, Flows: s.flows, Series: s.out,
		BottleneckSwitch: s.bSw, BottleneckPort: s.bPt, BottleneckName: net.Switch(s.bSw).PortName(s.bPt),
		BottleneckGbps: bl.Gbps, BottleneckHost: bh, nics: s.nics, traceHosts: append([]int(nil), opts.TraceHosts...), queueLog: s.qlog}
	r.port, _ = net.Switch(s.bSw).Port(s.bPt)
	if s.cls != nil {
		r.classLogs = s.cls.logs
	}
	st := e.Stats()
	if s.par != nil {
		st = s.par.stats()
	}
	r.Stats = RunStats{SimNs: cfg.Run.ClockHz.NS(e.Now()), Cycles: st.Cycles, BusyCycles: st.BusyCycles, Ticks: st.Ticks,
		UnexpectedProgress: st.UnexpectedProgress, Flows: len(s.flows), FlowsDone: s.done, EndNs: end, Stalled: idle}
	r.summarize(net)
	r.summarizeClasses(net)
	r.Stats.Wall, r.Stats.Setup = time.Since(wall), setup
	return r, nil
}

// windowHoldsPacket refuses a run under HPCC++ whose initial window
// (W_init = NIC speed x T, bytes) holds no full packet of nic.mtu payload
// bytes: the strict window test (inflight + packet <= W) never sends a
// partial packet, so no flow could ever start. It names the parameter that
// set T and the smallest T that works.
func (c *Config) windowHoldsPacket(n *nicmodel.Config, host int, T, gbps uint32) error {
	if c.CC != nicmodel.CCHPCC && c.CC != nicmodel.CCHPCCRx || n.Scheduler.WindowMode != scheduler.WindowStrict ||
		n.HPCC.WInitBytes >= float64(n.Scheduler.MTU) {
		return nil
	}
	field := "hpcc.base_rtt_ns"
	switch {
	case c.CC == nicmodel.CCHPCCRx && c.HPCC.RxBaseRTTNs != 0:
		field = "hpcc.rx_base_rtt_ns"
	case c.HPCC.BaseRTTNs == 0:
		field = "T (hpcc.base_rtt_ns 0: derived from the paths)"
	}
	minT := (uint64(n.Scheduler.MTU)*8 + uint64(gbps) - 1) / uint64(gbps)
	return cerr(field, T, fmt.Sprintf("host %d's initial window W_init = %d Gbps x %d ns = %g bytes holds no full packet (nic.mtu=%d payload bytes) and the strict window never sends part of one: no flow could start; T must be at least %d ns",
		host, gbps, T, n.HPCC.WInitBytes, n.Scheduler.MTU, minT))
}

// complete records a flow's completion (called inside the engine's cycle).
func (s *sim) complete(host int, rec nicmodel.FlowRecord) {
	ids := s.byID[host]
	if int(rec.ID) >= len(ids) {
		return
	}
	f := &s.flows[ids[rec.ID]]
	if f.Done {
		return
	}
	fq := s.cfg.Run.ClockHz
	f.Done = true
	f.DoneNs = fq.NS(rec.Done)
	f.FCTNs = f.DoneNs - min(f.DoneNs, f.StartNs)
	if f.IdealNs > 0 {
		f.Slow = float64(f.FCTNs) / float64(f.IdealNs)
	}
	if p := s.par; p != nil {
		// A partition's goroutine: count in the partition only
		// (parRun.runTo finds the cycle the last flow completed in).
		p.completed(host)
		return
	}
	s.done++
	if s.done == len(s.flows) {
		s.e.Stop()
	}
}

// idle reports whether nothing in the network or the NICs can move any
// more (engine.Engine.Idle of every partition, between windows: no frame
// is held between partitions then).
func (s *sim) idle() bool {
	if s.par != nil {
		return s.par.idle()
	}
	return s.e.Idle()
}

// sample records one sample at the current cycle.
func (s *sim) sample() {
	now := s.e.Now()
	fq := s.cfg.Run.ClockHz
	dtC := now - s.lastT
	if dtC == 0 {
		return
	}
	dtNs := float64(fq.NS(now)) - float64(fq.NS(s.lastT))
	tNs := fq.NS(now)
	pc, q := s.net.Switch(s.bSw).Port(s.bPt)
	qmax, _ := s.qlog.Max(s.lastT, now)
	o := &s.out
	o.TimeNs = append(o.TimeNs, tNs)
	o.QueueBytes = append(o.QueueBytes, q)
	o.QueueMax = append(o.QueueMax, max(qmax, q))
	g := float64(s.net.Switch(s.bSw).PortGbps(s.bPt))
	o.Util = append(o.Util, float64(pc.TxWireBytes-s.lastTx)*8/(g*dtNs))
	s.lastTx = pc.TxWireBytes
	var sum, sx, sx2 float64
	active := 0
	t0 := fq.NS(s.lastT)
	nan := math.NaN()
	clear(s.served)
	for i, k := range s.series {
		f := &s.flows[k]
		fs := &o.Flows[i]
		started := f.StartNs < tNs
		running := started && (!f.Done || f.DoneNs > t0)
		if !running {
			// Not started, or done before this interval: nothing to read.
			fs.Rate = append(fs.Rate, nan)
			fs.WireRate = append(fs.WireRate, nan)
			fs.Window = append(fs.Window, nan)
			fs.Pacing = append(fs.Pacing, nan)
			continue
		}
		st, err := s.nics[f.Src].QP(f.srcQP)
		if err != nil {
			continue
		}
		sc := st.Scheduler
		// The QP's bytes of the interval go to its first running flow (a
		// QP serves its messages in order; nic.share_qp puts several flows
		// on one QP); a later one queued behind it sent nothing. A QP
		// restarted by a new connection counts from zero.
		j := s.slot[i]
		last := s.last[j]
		if sc.Sent < last.sent || sc.Packets < last.pkts {
			last = flowSample{}
		}
		d, dp := sc.Sent-last.sent, sc.Packets-last.pkts
		if s.served[j] {
			d, dp = 0, 0
		}
		s.served[j] = true
		s.last[j] = flowSample{sc.Sent, sc.Packets}
		rate := float64(d) * 8 / dtNs
		wrate := float64(d+dp*s.ovh) * 8 / dtNs
		fs.Rate = append(fs.Rate, rate)
		fs.WireRate = append(fs.WireRate, wrate)
		if st.CC != nil {
			// LDCP: cw x mtu (DCQCN: NaN, no window); the pacing rate.
			fs.Window = append(fs.Window, st.WBytes)
			fs.Pacing = append(fs.Pacing, st.RateGbps)
		} else {
			fs.Window = append(fs.Window, float64(sc.WindowBytes))
			fs.Pacing = append(fs.Pacing, float64(sc.Rate)*s.rateF*8)
		}
		if f.Bottleneck {
			sum += wrate
			// Active over the whole interval: started by its start, not
			// done before its end.
			if f.StartNs <= t0 && (!f.Done || f.DoneNs >= tNs) {
				active++
				sx += rate
				sx2 += rate * rate
			}
		}
	}
	o.SumRate = append(o.SumRate, sum)
	o.Active = append(o.Active, active)
	j := math.NaN()
	if active >= 2 && sx2 > 0 {
		j = sx * sx / (float64(active) * sx2)
	}
	o.Jain = append(o.Jain, j)
	s.sampleClasses(dtNs)
	s.lastT = now
}

// mixIndex spreads flow indices over the UDP source-port space (SplitMix64
// finalizer), so ECMP sees independent-looking entropy.
func mixIndex(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}
