package ldcp

import (
	"fmt"
	"math/big"

	"github.com/hpccgold/hpccgold/fixedpoint"
)

// State is one flow's entry in the hardware flow table: raw bit patterns
// whose widths and formats the configuration fixes (FlowStateBits; the st_
// fields of InputTable). The zero State is a flow that has not started.
type State struct {
	Stage    Stage  // 2 bits
	Cw       uint64 // Formats.Cw: congestion window, packets
	Start    uint32 // SeqBits: PSN of the message's first packet
	Una      uint32 // SeqBits: snd_una
	Nxt      uint32 // SeqBits: snd_nxt
	End      uint32 // SeqBits: PSN after the message's last packet
	NextSend uint64 // TimeBits: sub-packet timer deadline, ns
}

// Output is what the datapath reports for one event besides the next state.
// Field meanings are those of RefOutput; Cw is the raw Formats.Cw register
// and IntervalNs the timer interval rounded to whole ns.
type Output struct {
	Cw    uint64
	Stage Stage
	Rule  Rule
	N     uint32

	Allowed bool
	Block   Block
	PSN     uint32
	ECT     bool
	Last    bool

	Done    bool
	Invalid bool
	Stale   bool
	FullAck bool
	Loss    bool
	GoBackN bool

	Sub        bool
	TimerArmed bool
	IntervalNs uint64
}

// Datapath is the golden fixed-point LDCP sender built from a Config: the
// bit-exact model the RTL must match. It is immutable and safe for
// concurrent use; Update allocates nothing.
type Datapath struct {
	cfg Config

	seqMask, msgMask uint32
	timeMask         uint64
	nMax             uint64
	half             uint32 // 2^(SeqBits-1): serial-number threshold

	fCw, fParam, fRecip, fN, fNP, fRTT, fIv, fSeq fixedpoint.Format

	// constants
	alpha, beta, gamma, eta fixedpoint.Value // Formats.Param
	one, cwMax, iw          fixedpoint.Value // Formats.Cw
	gammaCw                 fixedpoint.Value // gamma in Formats.Cw (exact: F(Param) <= F(Cw))
	rtt                     fixedpoint.Value // T in u(RTTBits).(RTTBits)

	recip *fixedpoint.Reciprocal

	inTx, outTx transaction
	spec        specPlans
	fast        fastPlan
}

// specPlans are the casts of the specification forms (WindowSpec,
// IntervalSpec, lossCwSpec, the window check) as fixedpoint plans: formats
// and modes validated once in NewDatapath, so the op-by-op specification
// has no per-operation error to check. Each field's comment is its
// operation.
type specPlans struct {
	inc    *fixedpoint.MulCaster // MulCast(n*alpha, recip_cw(cw), Cw, Rnd, Sat)
	cwAdd  *fixedpoint.AddCaster // AddCast(cw, inc, Cw, Trn, Sat) and SubCast(cw, 1, Cw, Trn, Sat)
	subAI  *fixedpoint.AddCaster // AddCast(cw, n*gamma, Cw, Trn, Sat)
	md     *fixedpoint.Caster    // Cast(max(cw - n*beta, gamma), Cw, Trn, Sat)
	subMD  *fixedpoint.MulCaster // MulCast(cw, eta, Cw, Rnd, Sat)
	iv     *fixedpoint.MulCaster // MulCast(T, recip_cw(cw), u(TimeBits).(TimeBits), Rnd, Sat)
	lossCw *fixedpoint.Caster    // Cast(max(acked, 1), Cw, Trn, Sat)
}

// buildSpecPlans builds d.spec from the datapath's formats.
func (d *Datapath) buildSpecPlans() error {
	const (
		rnd = fixedpoint.Rnd
		trn = fixedpoint.Trn
		sat = fixedpoint.Sat
	)
	var err error
	note := func(name string, e error) {
		if e != nil && err == nil {
			err = fmt.Errorf("ldcp: %s: %w", name, e)
		}
	}
	diff, e := fixedpoint.SubFormat(d.fCw, d.fNP) // cw - n*beta, exact
	note("cw - n*beta format", e)
	if err != nil {
		return err
	}
	sp := &d.spec
	sp.inc, e = fixedpoint.NewMulCaster(d.fNP, d.fRecip, d.fCw, rnd, sat)
	note("AI increment", e)
	sp.cwAdd, e = fixedpoint.NewAddCaster(d.fCw, d.fCw, d.fCw, trn, sat)
	note("cw adder", e)
	sp.subAI, e = fixedpoint.NewAddCaster(d.fCw, d.fNP, d.fCw, trn, sat)
	note("sub-packet AI adder", e)
	sp.md, e = fixedpoint.NewCaster(diff, d.fCw, trn, sat)
	note("MD register", e)
	sp.subMD, e = fixedpoint.NewMulCaster(d.fCw, d.fParam, d.fCw, rnd, sat)
	note("sub-packet MD multiplier", e)
	sp.iv, e = fixedpoint.NewMulCaster(d.fRTT, d.fRecip, d.fIv, rnd, sat)
	note("interval multiplier", e)
	sp.lossCw, e = fixedpoint.NewCaster(d.fSeq, d.fCw, trn, sat)
	note("loss window register", e)
	return err
}

// NewDatapath validates cfg and builds the datapath: formats, quantized
// constants and the 1/cw reciprocal unit.
func NewDatapath(cfg Config) (*Datapath, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	d := &Datapath{
		cfg:      cfg,
		seqMask:  uint32(mask64(cfg.SeqBits)),
		msgMask:  uint32(mask64(cfg.MsgPktsBits())),
		timeMask: mask64(cfg.TimeBits),
		nMax:     cfg.NMax(),
		half:     uint32(1) << uint(cfg.SeqBits-1),
		fCw:      cfg.Formats.Cw,
		fParam:   cfg.Formats.Param,
		fRecip:   cfg.Formats.RecipCw,
	}
	var err error
	mk := func(w, i int) fixedpoint.Format {
		f, e := fixedpoint.NewFormat(w, i, false)
		if e != nil && err == nil {
			err = e
		}
		return f
	}
	d.fN = mk(cfg.AckPktsBits, cfg.AckPktsBits)
	d.fRTT = mk(cfg.RTTBits(), cfg.RTTBits())
	d.fIv = mk(cfg.TimeBits, cfg.TimeBits)
	d.fSeq = mk(cfg.SeqBits, cfg.SeqBits)
	if err != nil {
		return nil, fmt.Errorf("ldcp: datapath formats: %w", err)
	}
	if d.fNP, err = fixedpoint.MulFormat(d.fN, d.fParam); err != nil {
		return nil, fmt.Errorf("ldcp: n*param format: %w", err)
	}
	konst := func(name string, f fixedpoint.Format, r *big.Rat) fixedpoint.Value {
		v, e := fixedpoint.FromRat(f, r, fixedpoint.Rnd, fixedpoint.Sat)
		if e != nil && err == nil {
			err = fmt.Errorf("ldcp: constant %s: %w", name, e)
		}
		return v
	}
	d.alpha = konst("alpha", d.fParam, ratOf(cfg.Alpha))
	d.beta = konst("beta", d.fParam, ratOf(cfg.Beta))
	d.gamma = konst("gamma", d.fParam, ratOf(cfg.Gamma))
	d.eta = konst("eta", d.fParam, ratOf(cfg.Eta))
	d.one = konst("one", d.fCw, big.NewRat(1, 1))
	d.cwMax = konst("cw_max", d.fCw, ratOf(cfg.CwMaxPkts))
	d.iw = konst("iw", d.fCw, big.NewRat(int64(cfg.IWPkts), 1))
	d.rtt = konst("t", d.fRTT, big.NewRat(int64(cfg.BaseRTTNs), 1))
	if err != nil {
		return nil, err
	}
	if d.gammaCw, err = fixedpoint.Cast(d.gamma, d.fCw, fixedpoint.Trn, fixedpoint.Sat); err != nil {
		return nil, fmt.Errorf("ldcp: constant gamma in Formats.Cw: %w", err)
	}
	d.recip, err = fixedpoint.NewReciprocal(fixedpoint.ReciprocalConfig{
		In: d.fCw, TableBits: min(cfg.RecipCw.TableBits, d.fCw.W-1), Entry: fixedpoint.Format{W: cfg.RecipCw.EntryBits, I: 0},
		NRSteps: cfg.RecipCw.NRSteps, Out: d.fRecip, Q: fixedpoint.Rnd, O: fixedpoint.Sat,
	})
	if err != nil {
		return nil, fmt.Errorf("ldcp: recip_cw unit: %w", err)
	}
	if err := d.buildTransactions(); err != nil {
		return nil, err
	}
	if err := d.buildSpecPlans(); err != nil {
		return nil, err
	}
	if err := d.compileFast(); err != nil {
		return nil, err
	}
	return d, nil
}

// ratOf returns the exact value of a float64 parameter.
func ratOf(x float64) *big.Rat { return new(big.Rat).SetFloat64(x) }

// Config returns the datapath's configuration.
func (d *Datapath) Config() Config { return d.cfg }

// InitialState returns the flow-table entry of a flow that has not started:
// the zero State.
func (d *Datapath) InitialState() State { return State{} }

// bits64 reads raw bits into a format, dropping bits above its width as a
// hardware port of that width would.
func bits64(f fixedpoint.Format, raw uint64) fixedpoint.Value {
	v, _ := fixedpoint.FromBits64(f, raw&mask64(f.W))
	return v
}

// recipCw is the 1/cw unit (cw = 0, unreachable, gives Formats.RecipCw's
// maximum).
func (d *Datapath) recipCw(cw fixedpoint.Value) fixedpoint.Value {
	r, _ := d.recip.Recip(cw)
	return r
}

// Window is the golden per-ACK window adjustment (the fixed-point form of
// Reference.Window) on a raw Formats.Cw register for an ACK acknowledging
// n >= 1 packets (n above NMax is applied as NMax): WindowSpec's bits,
// computed with compiled integer operations (about 10x faster).
func (d *Datapath) Window(cwRaw uint64, ece bool, n uint64) (uint64, Rule) {
	if d.fast.slow {
		return d.WindowSpec(cwRaw, ece, n)
	}
	return d.window(cwRaw, ece, n)
}

// Interval is the sub-packet timer interval RTT/cw in whole ns:
// IntervalSpec's bits, computed with compiled integer operations.
func (d *Datapath) Interval(cwRaw uint64) uint64 {
	if d.fast.slow {
		return d.IntervalSpec(cwRaw)
	}
	return d.interval(cwRaw)
}

// WindowSpec is the per-ACK window adjustment written op for op with
// fixedpoint Values, the readable specification Window is tested against.
// Operations, as listed in docs/ldcp.md:
//
//	sub    = cw < 1
//	ai     = min(Sat(cw + Rnd,Sat(n*alpha * recip_cw(cw))), CwMax)   (n*alpha exact)
//	md     = max(cw - n*beta, gamma)                                 (exact)
//	sub_ai = min(Sat(cw + n*gamma), CwMax)                           (exact sum)
//	sub_md = max(Rnd,Sat(cw * eta), gamma)
//	cw'    = sub ? (ece ? sub_md : sub_ai) : (ece ? md : ai)
//
// The hardware computes the four candidates in parallel and muxes; the
// model evaluates the selected one, which gives the same bits. Each cast
// runs through a plan built by NewDatapath (specPlans).
func (d *Datapath) WindowSpec(cwRaw uint64, ece bool, n uint64) (uint64, Rule) {
	sp := &d.spec
	cw := bits64(d.fCw, cwRaw)
	nv := bits64(d.fN, min(n, d.nMax))
	sub := fixedpoint.Cmp(cw, d.one) < 0
	var w fixedpoint.Value
	var rule Rule
	switch {
	case !sub && !ece:
		na, _ := fixedpoint.Mul(nv, d.alpha)                   // exact, fNP
		inc := sp.inc.MulCast(na, d.recipCw(cw))               // MulCast(na, recip_cw, Cw, Rnd, Sat)
		w = fixedpoint.Min(sp.cwAdd.AddCast(cw, inc), d.cwMax) // AddCast(cw, inc, Cw, Trn, Sat)
		rule = RuleAI
	case !sub:
		nb, _ := fixedpoint.Mul(nv, d.beta)
		diff, _ := fixedpoint.Sub(cw, nb)             // exact, signed
		w = sp.md.Cast(fixedpoint.Max(diff, d.gamma)) // Cast(.., Cw, Trn, Sat)
		rule = RuleMD
	case !ece:
		ng, _ := fixedpoint.Mul(nv, d.gamma)
		w = fixedpoint.Min(sp.subAI.AddCast(cw, ng), d.cwMax) // AddCast(cw, ng, Cw, Trn, Sat)
		rule = RuleSubAI
	default:
		h := sp.subMD.MulCast(cw, d.eta) // MulCast(cw, eta, Cw, Rnd, Sat)
		w = fixedpoint.Max(h, d.gammaCw)
		rule = RuleSubMD
	}
	return w.RawUint(), rule
}

// IntervalSpec is the sub-packet timer interval RTT/cw in whole ns:
// Rnd,Sat(T * recip_cw(cw)) into u(TimeBits).(TimeBits).
func (d *Datapath) IntervalSpec(cwRaw uint64) uint64 {
	cw := bits64(d.fCw, cwRaw)
	return d.spec.iv.MulCast(d.rtt, d.recipCw(cw)).RawUint() // MulCast(T, recip_cw, u(TimeBits).(TimeBits), Rnd, Sat)
}

// lossCwSpec is min(max(acked, 1), CwMax) in Formats.Cw (transition 1).
func (d *Datapath) lossCwSpec(acked uint32) uint64 {
	a := bits64(d.fSeq, uint64(acked))
	w := d.spec.lossCw.Cast(fixedpoint.Max(a, d.one)) // Cast(.., Cw, Trn, Sat)
	return fixedpoint.Min(w, d.cwMax).RawUint()
}

// isSub reports cw < 1.
func (d *Datapath) isSub(cwRaw uint64) bool { return cwRaw&mask64(d.fCw.W) < d.one.RawUint() }

// Update is the golden per-event update: the same state machine as
// Reference.Update (see its rules and docs/ldcp.md, section 1) on the raw
// flow-table registers, every input masked to its field width, so any bit
// pattern of state and event has a defined result. The arithmetic runs as
// compiled integer operations; UpdateSpec runs the same state machine with
// the fixedpoint specification of every operation and gives the same bits.
func (d *Datapath) Update(st State, ev Event) (State, Output) { return d.update(st, ev, d.fast.slow) }

// UpdateSpec is Update with every arithmetic operation written with
// fixedpoint Values (WindowSpec, IntervalSpec, the window check as an exact
// fixedpoint comparison): the readable specification.
func (d *Datapath) UpdateSpec(st State, ev Event) (State, Output) { return d.update(st, ev, true) }

func (d *Datapath) update(st State, ev Event, spec bool) (State, Output) {
	c := &d.cfg
	sm := d.seqMask
	now := ev.NowNs & d.timeMask
	if st.Stage&3 == 3 {
		st.Stage = Stable // the unused code 3 decodes as stable (bit 1 set)
	}
	st.Stage &= 3
	st.Cw &= mask64(d.fCw.W)
	st.Start, st.Una, st.Nxt, st.End = st.Start&sm, st.Una&sm, st.Nxt&sm, st.End&sm
	st.NextSend &= d.timeMask
	next := st
	var out Output
	switch ev.Kind & 3 {
	case Start:
		msg := ev.MsgPkts & d.msgMask
		if msg == 0 {
			out.Invalid = true
			break
		}
		seq := ev.Seq & sm
		next = State{Stage: FastStart, Cw: d.iw.RawUint(), Start: seq, Una: seq, Nxt: seq, End: (seq + msg) & sm, NextSend: now}
	case Send:
		inflight := (st.Nxt - st.Una) & sm
		sub := d.isSub(st.Cw)
		// Window check: inflight <= cw - 1, compared exactly.
		var fits bool
		if spec {
			// SubCast(cw, 1, Cw, Trn, Sat)
			fits = fixedpoint.Cmp(bits64(d.fSeq, uint64(inflight)), d.spec.cwAdd.SubCast(bits64(d.fCw, st.Cw), d.one)) <= 0
		} else {
			fits = d.windowFits(inflight, st.Cw)
		}
		switch {
		case st.Stage == Idle:
			out.Block = BlockIdle
		case st.Nxt == st.End:
			out.Block = BlockNoData
		case !sub && !fits:
			out.Block = BlockWindow
		case sub && fixedpoint.WrapDiffSigned(now, st.NextSend, uint(c.TimeBits)) < 0:
			out.Block = BlockTimer
		}
		if out.Block != NotBlocked {
			break
		}
		psn := st.Nxt
		out.Allowed, out.PSN = true, psn
		out.Last = (psn+1)&sm == st.End
		out.ECT = st.Stage == Stable || (psn-st.Start)&sm >= c.IWPkts-1 || out.Last
		next.Nxt = (psn + 1) & sm
		if sub {
			d.arm(&next, &out, now, spec)
		}
	case Ack:
		if st.Stage == Idle {
			out.Invalid = true
			break
		}
		ack := ev.AckSeq & sm
		dlt := (ack - st.Una) & sm
		inflight := (st.Nxt - st.Una) & sm
		if dlt > inflight {
			if dlt >= d.half {
				out.Stale = true
			} else {
				out.Invalid = true
			}
			break
		}
		next.Una = ack
		out.N = uint32(min(uint64(dlt), d.nMax))
		if st.Stage == FastStart {
			acked := (ack - st.Start) & sm
			switch {
			case ev.NAK:
				next.Stage, next.Cw, next.Nxt = Stable, d.lossCwSel(acked, spec), ack
				out.Loss, out.GoBackN = true, true
			case acked >= c.IWPkts:
				next.Stage, next.Cw = Stable, d.iw.RawUint()
				out.FullAck = true
			}
			break
		}
		if dlt > 0 {
			if spec {
				next.Cw, out.Rule = d.WindowSpec(st.Cw, ev.ECE, uint64(dlt))
			} else {
				next.Cw, out.Rule = d.window(st.Cw, ev.ECE, uint64(dlt))
			}
			if !d.isSub(st.Cw) && d.isSub(next.Cw) {
				d.arm(&next, &out, now, spec)
			}
		}
		if ev.NAK {
			next.Nxt = ack
			out.GoBackN = true
		}
	case Timeout:
		switch st.Stage {
		case Idle:
			out.Invalid = true
		case FastStart:
			next.Stage, next.Cw = Stable, d.lossCwSel((st.Una-st.Start)&sm, spec)
			out.Loss = true
		default:
			next.Cw = min(st.Cw, d.one.RawUint())
		}
		if st.Stage != Idle {
			next.Nxt = st.Una
			out.GoBackN = true
		}
	}
	out.Cw, out.Stage = next.Cw, next.Stage
	out.Sub = d.isSub(next.Cw)
	out.Done = next.Stage != Idle && next.Una == next.End
	return next, out
}

func (d *Datapath) lossCwSel(acked uint32, spec bool) uint64 {
	if spec {
		return d.lossCwSpec(acked)
	}
	return d.lossCw(acked)
}

// arm re-arms the sub-packet timer: deadline = (now + Interval(cw)) mod
// 2^TimeBits.
func (d *Datapath) arm(next *State, out *Output, now uint64, spec bool) {
	var iv uint64
	if spec {
		iv = d.IntervalSpec(next.Cw)
	} else {
		iv = d.interval(next.Cw)
	}
	out.TimerArmed, out.IntervalNs = true, iv
	next.NextSend = (now + iv) & d.timeMask
}
