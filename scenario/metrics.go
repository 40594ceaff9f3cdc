package scenario

import (
	"math"
	"sort"

	"github.com/hpccgold/hpccgold/nicmodel"
	"github.com/hpccgold/hpccgold/nicmodel/network"
	"github.com/hpccgold/hpccgold/pipeline"
)

// Wire sizes used for the ideal times (docs/wire.md): a data frame is
// Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + INT shim 8 + payload (padded
// to 4 bytes) + ICRC 4 + the hop records pushed before it, at least 60
// bytes; an ACK is 14 + 20 + 8 + BTH 12 + AETH 4 + shim 8 + the echoed
// records + ICRC 4.
const (
	dataHdrBytes = 14 + 20 + 8 + 12 + 8 + 4
	ackHdrBytes  = 14 + 20 + 8 + 12 + 4 + 8 + 4
	intShimBytes = 8
)

func frameLen(n uint64) uint64 { return max(n, 60) }

// pathTimes computes every flow's ideal completion time and returns the
// largest base RTT of the workload's paths (ns): a full data packet out
// and its ACK back through empty queues.
//
// Ideal completion (the flow alone in the network, at line rate): the
// flow's packets leave the NIC back to back; each hop is store-and-forward
// with deterministic service, so with s_h the serialization of a full
// packet at hop h (including the hop records pushed before it and the MAC
// overhead) and d_h the delay after it, packet i of the full packets
// leaves hop h at A_h + i * M_h, A_h = sum_{g<=h} s_g + sum_{g<h} d_g, M_h
// = max_{g<=h} s_g (tandem deterministic queues); the shorter last packet
// is then carried through the hops exactly. The completion adds the last
// hop's delay and the ACK's way back. NIC pipeline latencies (tens of
// cycles) are not included, so a lone flow's slowdown is slightly above 1.
func (s *sim) pathTimes(nc *nicmodel.Config) (uint64, error) {
	hs := uint64(s.cfg.HPCC.Encoding.HopSize())
	dataHdr, ackHdr := uint64(dataHdrBytes), uint64(ackHdrBytes)
	if !nc.Tx.INTOnData {
		// cc=ldcp/dcqcn: no INT shim, no hop records, no echo.
		hs, dataHdr, ackHdr = 0, dataHdrBytes-intShimBytes, ackHdrBytes-intShimBytes
	}
	ovh := uint64(s.cfg.Network.MACOverheadBytes)
	mtu := uint64(s.cfg.NIC.MTU)
	ser := func(bytes uint64, gbps uint32) float64 { return float64(bytes) * 8 / float64(gbps) }
	pad4 := func(n uint64) uint64 { return (n + 3) &^ 3 }
	var worst float64
	for k := range s.flows {
		f := &s.flows[k]
		fwd, err := s.net.Path(f.Src, f.Dst, f.sport)
		if err != nil {
			return 0, err
		}
		rev, err := s.net.Path(f.Dst, f.Src, f.sport)
		if err != nil {
			return 0, err
		}
		nsw := uint64(len(fwd) - 1)
		ack := 0.0
		for _, h := range rev {
			ack += ser(frameLen(ackHdr+nsw*hs)+ovh, h.Gbps) + float64(h.DelayNs)
		}
		pkt := func(payload uint64, h int) float64 {
			return ser(frameLen(dataHdr+pad4(payload)+uint64(h)*hs)+ovh, fwd[h].Gbps)
		}
		rtt := ack
		for h := range fwd {
			rtt += pkt(mtu, h) + float64(fwd[h].DelayNs)
		}
		worst = math.Max(worst, rtt)
		if f.Bytes > 1<<32 {
			continue // a long flow: no ideal completion time
		}
		n := (f.Bytes + mtu - 1) / mtu
		last := f.Bytes - (n-1)*mtu
		// D[h]: departure of the last full packet (index n-2) from hop h.
		var A, M, prevLast float64
		for h := range fwd {
			sf := pkt(mtu, h)
			sl := pkt(last, h)
			if h > 0 {
				A += float64(fwd[h-1].DelayNs)
			}
			A += sf
			M = math.Max(M, sf)
			dFull := math.Inf(-1)
			if n >= 2 {
				dFull = A + float64(n-2)*M
			}
			arr := 0.0
			if h > 0 {
				arr = prevLast + float64(fwd[h-1].DelayNs)
			}
			prevLast = math.Max(dFull, arr) + sl
		}
		f.IdealNs = uint64(math.Ceil(prevLast + float64(fwd[len(fwd)-1].DelayNs) + ack))
	}
	return uint64(math.Ceil(worst)), nil
}

// Summary is the run's headline numbers.
type Summary struct {
	Flows, Completed int
	// Bottleneck queue: peak (exact, intra-cycle) and when; time-weighted
	// 99th percentile over the port's busy period; BDP = rate * T.
	PeakQueueBytes uint64
	PeakQueueAtNs  uint64
	P99QueueBytes  uint64
	BDPBytes       uint64
	// Settle times: from the first flow start until the queue stays below
	// one BDP / 10 KB to the end of the run; -1 if it never does.
	SettleBDPNs, Settle10KBNs int64
	// Busy period of the bottleneck port and its wire utilization there.
	BusyStartNs, BusyEndNs uint64
	UtilBusy               float64
	// OverCapacityNs is the time the sampled flows' summed wire rate into
	// the bottleneck, averaged over one base RTT, exceeded its capacity.
	OverCapacityNs uint64
	// Jain's index: mean over samples with at least two active flows, and
	// the last such sample.
	JainMean, JainLast float64
	// Slowdown (FCT / ideal) of completed flows with an ideal time.
	SlowMean, SlowP50, SlowP95, SlowP99, SlowMax float64
	Buckets                                      []SlowBucket
	// Feedback packets sent by receivers: ACKs, Rx-HPCC notifications,
	// probe replies, and under cc=ldcp/dcqcn NAKs and CNPs; Feedback is
	// their sum.
	ACKs, Notifies, ProbeReplies, NAKs, CNPs, Feedback uint64
	DataPackets                                        uint64
	// Drops: switch ports (buffer, Not-ECT) and NICs (MAC Rx FIFO, Rx and
	// Tx pipeline discards).
	SwitchDrops, NICDrops uint64
	// NotECTDrops are the switch drops of ECN-incapable packets at the
	// threshold K (LDCP's fast start), BufferDrops those of full buffers.
	NotECTDrops, BufferDrops uint64
	ECNMarks                 uint64
	// Retransmits are data packets sent again after go-back-N (cc=ldcp,
	// dcqcn), OutOfOrder the data packets receivers discarded after a gap,
	// Timeouts the retransmission timer expirations.
	Retransmits, OutOfOrder, Timeouts uint64
	// The deepest queue of any switch port in the run (workloads without
	// one bottleneck), its port and when.
	NetPeakQueueBytes uint64
	NetPeakQueuePort  string
	NetPeakQueueAtNs  uint64
	// Classes describe the bottleneck's traffic classes (two or more:
	// network.QoSConfig).
	Classes []ClassSummary `json:",omitempty"`
	// AcksNoTelemetry and DataNoTelemetry count the ACKs (sender HPCC++)
	// and data packets (Rx-HPCC) that reached the CC without hop records
	// and updated nothing; Unsampled the packets sampling switches left
	// unstamped (network.SampleConfig).
	AcksNoTelemetry uint64 `json:",omitempty"`
	DataNoTelemetry uint64 `json:",omitempty"`
	Unsampled       uint64 `json:",omitempty"`
}

// SlowBucket is the slowdown distribution of flows within a size range.
type SlowBucket struct {
	MaxBytes           uint64 // upper bound (inclusive); the range starts above the previous bucket's
	Count              int
	P50, P95, P99, Max float64
}

// slowBuckets are the size bucket upper bounds of the FCT table (bytes).
var slowBuckets = []uint64{10_000, 100_000, 1_000_000, 10_000_000, math.MaxUint64}

func quantile(v []float64, p float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	// Nearest rank on sorted v.
	i := int(math.Ceil(p*float64(len(v)))) - 1
	return v[max(0, min(i, len(v)-1))]
}

func (r *Result) summarize(net *network.Network) {
	s := &r.Summary
	c := &r.Config
	fq := c.Run.ClockHz
	s.Flows = len(r.Flows)
	var slows []float64
	firstStart := uint64(math.MaxUint64)
	for _, f := range r.Flows {
		firstStart = min(firstStart, f.StartNs)
		if f.Done {
			s.Completed++
			if f.IdealNs > 0 {
				slows = append(slows, f.Slow)
			}
		}
	}
	sort.Float64s(slows)
	nan := math.NaN()
	s.SlowMean, s.SlowP50, s.SlowP95, s.SlowP99, s.SlowMax = nan, nan, nan, nan, nan
	if len(slows) > 0 {
		var sum float64
		for _, x := range slows {
			sum += x
		}
		s.SlowMean = sum / float64(len(slows))
		s.SlowP50, s.SlowP95, s.SlowP99 = quantile(slows, 0.5), quantile(slows, 0.95), quantile(slows, 0.99)
		s.SlowMax = slows[len(slows)-1]
	}
	lo := uint64(0)
	for _, hi := range slowBuckets {
		var b []float64
		for _, f := range r.Flows {
			if f.Done && f.IdealNs > 0 && f.Bytes > lo && f.Bytes <= hi {
				b = append(b, f.Slow)
			}
		}
		sort.Float64s(b)
		sb := SlowBucket{MaxBytes: hi, Count: len(b)}
		if len(b) > 0 {
			sb.P50, sb.P95, sb.P99, sb.Max = quantile(b, 0.5), quantile(b, 0.95), quantile(b, 0.99), b[len(b)-1]
		}
		s.Buckets = append(s.Buckets, sb)
		lo = hi
	}
	// Bottleneck queue.
	p := r.port
	s.PeakQueueBytes, s.PeakQueueAtNs = p.MaxQBytes, fq.NS(p.MaxQAt)
	s.BDPBytes = uint64(r.BottleneckGbps) * uint64(r.BaseRTTNs) / 8
	endC := fq.CycleAtNS(r.Stats.SimNs)
	s.BusyStartNs, s.BusyEndNs = p.FirstTxNs, max(p.LastEndNs, p.FirstTxNs)
	if p.TxFrames > 0 && s.BusyEndNs > s.BusyStartNs {
		s.UtilBusy = float64(p.TxWireBytes) * 8 / (float64(r.BottleneckGbps) * float64(s.BusyEndNs-s.BusyStartNs))
		s.P99QueueBytes = r.queueLog.Percentile(0.99, fq.CycleAtNS(s.BusyStartNs), fq.CycleAtNS(s.BusyEndNs)+1)
	}
	from := fq.CycleAtNS(firstStart)
	settle := func(x uint64) int64 {
		if endC <= from {
			return -1
		}
		at, ok := r.queueLog.SettleCycle(x, from, endC)
		if !ok {
			return -1
		}
		return int64(fq.NS(at) - firstStart)
	}
	s.SettleBDPNs, s.Settle10KBNs = settle(s.BDPBytes), settle(10_000)
	// Rates and fairness from the samples. The summed rate is judged over
	// windows of one base RTT (a sample interval may hold a whole number of
	// packets more or less than the line rate allows).
	capG := float64(r.BottleneckGbps)
	w := max(1, int(math.Round(float64(r.BaseRTTNs)/float64(c.Run.SampleNs))))
	sum := smooth(r.Series.SumRate, w)
	var jn int
	s.JainLast = math.NaN()
	prev := uint64(0)
	for i, t := range r.Series.TimeNs {
		if sum[i] > capG {
			s.OverCapacityNs += t - prev
		}
		if j := r.Series.Jain[i]; !math.IsNaN(j) {
			s.JainMean += j
			s.JainLast = j
			jn++
		}
		prev = t
	}
	if jn > 0 {
		s.JainMean /= float64(jn)
	} else {
		s.JainMean = math.NaN()
	}
	// Counters.
	for _, n := range r.nics {
		k := n.Counters()
		s.ACKs += k.Tx.Frames[pipeline.FrameAck]
		s.Notifies += k.Tx.Frames[pipeline.FrameNotify]
		s.ProbeReplies += k.Tx.Frames[pipeline.FrameProbeReply]
		s.DataPackets += k.Tx.Frames[pipeline.FrameData]
		s.NICDrops += k.MAC.RxDrops
		for _, d := range k.Rx.Drops {
			s.NICDrops += d
		}
		for _, d := range k.Tx.Drops {
			s.NICDrops += d
		}
		r.Stats.Frames += k.MAC.TxFrames
		if cc := k.CC; cc != nil {
			s.NAKs += cc.NAKsSent
			s.CNPs += cc.CNPsSent
			s.Retransmits += cc.Retransmits
			s.OutOfOrder += cc.RxOutOfOrder
			s.Timeouts += cc.Timeouts
		}
	}
	s.Feedback = s.ACKs + s.Notifies + s.ProbeReplies + s.NAKs + s.CNPs
	r.Stats.DataPackets = s.DataPackets
	for _, sw := range net.Switches() {
		for pi := 0; pi < sw.Ports(); pi++ {
			pc, _ := sw.Port(pi)
			s.SwitchDrops += pc.Drops
			s.NotECTDrops += pc.NotECTDrops
			s.BufferDrops += pc.BufferDrops
			s.ECNMarks += pc.ECNMarks
			if pc.MaxQBytes > s.NetPeakQueueBytes {
				s.NetPeakQueueBytes, s.NetPeakQueuePort, s.NetPeakQueueAtNs = pc.MaxQBytes, sw.PortName(pi), fq.NS(pc.MaxQAt)
			}
		}
		sc := sw.Counters()
		s.SwitchDrops += sc.Malformed + sc.NoRoute
	}
}
