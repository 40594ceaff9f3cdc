package ldcprtl

import (
	"fmt"

	"github.com/hpccgold/hpccgold/cc/ldcp"
	"github.com/hpccgold/hpccgold/fixedpoint"
	"github.com/hpccgold/hpccgold/rtl"
)

// Port names of the handshake added to ldcp_update by the pipeliner.
const (
	ValidIn  = "in_valid"
	ValidOut = "out_valid"
)

// UpdateName is the module name of the per-event update, ldcp.ModelName
// ("ldcp_update"): the same name as the vector model and its field tables.
const UpdateName = ldcp.ModelName

// Event-kind, stage, rule and block codes as the field tables document them
// (cc/ldcp types.go); the description compares the raw port bits with them.
const (
	kindStart   = uint64(ldcp.Start)
	kindSend    = uint64(ldcp.Send)
	kindAck     = uint64(ldcp.Ack)
	kindTimeout = uint64(ldcp.Timeout)
)

// UpdateComb returns the combinational ldcp_update (no clock, no
// handshake). Its ports are exactly the golden datapath's InputTable and
// OutputTable fields, in order.
func UpdateComb(cfg ldcp.Config) (*rtl.Module, error) {
	d, err := ldcp.NewDatapath(cfg)
	if err != nil {
		return nil, err
	}
	return rtl.CombUpdate(updateSpec(d, cfg))
}

// Update returns ldcp_update pipelined into stages register stages
// (latency = stages cycles, one event accepted per cycle) with the
// in_valid/out_valid handshake, and the pipeliner's per-stage report.
// stages = 0 gives a combinational module with out_valid = in_valid.
func Update(cfg ldcp.Config, stages int) (*rtl.Module, []rtl.StageReport, error) {
	d, err := ldcp.NewDatapath(cfg)
	if err != nil {
		return nil, nil, err
	}
	return rtl.PipelinedUpdate(updateSpec(d, cfg), stages)
}

// updateSpec describes ldcp_update of datapath d (built from cfg) to the
// shared rtl update wrapper, which also records the configuration (the
// pipeline depth and the full cc/ldcp Config as JSON lines) for
// generated-file headers.
func updateSpec(d *ldcp.Datapath, cfg ldcp.Config) rtl.UpdateSpec {
	return rtl.UpdateSpec{
		Comb:         func() (*rtl.Module, error) { return buildComb(d) },
		ValidIn:      ValidIn,
		ValidOut:     ValidOut,
		Pkg:          "ldcprtl",
		ConfigSource: "cc/ldcp",
		ConfigJSON:   cfg.JSON,
	}
}

func ufmt(w int) fixedpoint.Format { return fixedpoint.Format{W: w, I: w} }

// buildComb builds the combinational ldcp_update. Every width and format
// comes from the configuration through the datapath's exported tables
// (field tables, Constants, RecipUnit) and the rules of docs/ldcp.md,
// section 5; the operations are written here, independently of cc/ldcp's
// code.
func buildComb(d *ldcp.Datapath) (*rtl.Module, error) {
	c := d.Config()
	m := rtl.NewModule(UpdateName, "LDCP sender per-event update (draft-dai-tsvwg-pfc-free-congestion-control-01 sections 2.2, 2.3, 3.1; docs/ldcp.md)")
	in, err := bindPorts(d, m)
	if err != nil {
		return nil, err
	}
	konst := map[string]fixedpoint.Value{}
	for _, k := range d.Constants() {
		v, err := fixedpoint.FromUint(k.Format, k.Raw)
		if err != nil {
			return nil, fmt.Errorf("ldcprtl: constant %s: %w", k.Name, err)
		}
		konst[k.Name] = v
	}
	for _, n := range []string{"alpha", "beta", "gamma", "eta", "one", "cw_max", "iw", "t"} {
		if _, ok := konst[n]; !ok {
			return nil, fmt.Errorf("ldcprtl: the datapath has no constant %q", n)
		}
	}
	k := func(name string) rtl.Fx { return m.FxConst(konst[name]) }
	const (
		rnd  = fixedpoint.Rnd
		trn  = fixedpoint.Trn
		sat  = fixedpoint.Sat
		wrap = fixedpoint.Wrap
	)
	sb, tb, nb := c.SeqBits, c.TimeBits, c.AckPktsBits
	fCw := c.Formats.Cw
	fSeq, fN, fIv := ufmt(sb), ufmt(nb), ufmt(tb)
	cst := func(w int, v uint64) *rtl.Node { return m.Const(w, false, v) }

	// Decode the event kind and the stage (code 3 decodes as stable: bit 1).
	kind := in.evKind
	isStart := m.Eq(kind, cst(2, kindStart)).Named("is_start")
	isSend := m.Eq(kind, cst(2, kindSend)).Named("is_send")
	isAck := m.Eq(kind, cst(2, kindAck)).Named("is_ack")
	isTimeout := m.Eq(kind, cst(2, kindTimeout)).Named("is_timeout")
	stage := in.stStage
	idle := m.IsZero(stage).Named("idle")
	fast := m.Eq(stage, cst(2, uint64(ldcp.FastStart))).Named("fast_start")
	stable := m.Bit(stage, 1).Named("stable")
	stageN := m.Mux(stable, cst(2, uint64(ldcp.Stable)), stage).Named("stage_dec")

	cw := m.FxOf(in.stCw, fCw)
	one, cwMax, iw := k("one"), k("cw_max"), k("iw")
	gamma := k("gamma")
	gammaCw := m.FxCast(gamma, fCw, trn, sat) // exact: F(Param) <= F(Cw) (Validate)
	sub := m.FxLt(cw, one).Named("sub")
	start, una, nxt, end := in.stStart, in.stUna, in.stNxt, in.stEnd
	now, nextSend := in.evNow, in.stNextSend
	inflight := m.Sub(nxt, una).Named("inflight")

	// Send: window check inflight + 1 <= floor(cw), i.e. inflight <
	// floor(cw) on integers; the sub-packet timer as a serial compare.
	cwInt := m.FxCast(cw, ufmt(fCw.I), trn, wrap).N
	ww := max(sb, fCw.I)
	winOK := m.Lt(m.ZExt(inflight, ww), m.ZExt(cwInt, ww)).Named("win_ok")
	timerOK := m.Not(m.Bit(m.Sub(now, nextSend), tb-1)).Named("timer_ok")
	noData := m.Eq(nxt, end).Named("no_data")
	sendOK := m.AndAll(m.Not(idle), m.Not(noData), m.Mux(sub, timerOK, winOK))
	allowed := m.And(isSend, sendOK).Named("allowed")
	blockCode := m.Mux(idle, cst(3, uint64(ldcp.BlockIdle)),
		m.Mux(noData, cst(3, uint64(ldcp.BlockNoData)),
			m.Mux(m.And(m.Not(sub), m.Not(winOK)), cst(3, uint64(ldcp.BlockWindow)),
				m.Mux(m.And(sub, m.Not(timerOK)), cst(3, uint64(ldcp.BlockTimer)), cst(3, uint64(ldcp.NotBlocked))))))
	nxt1 := m.Add(nxt, cst(sb, 1)).Named("nxt_inc")
	last := m.Eq(nxt1, end).Named("last")
	pastIW := m.Ge(m.Sub(nxt, start), cst(sb, uint64(c.IWPkts)-1)).Named("ect_iw")
	ect := m.OrAll(stable, pastIW, last).Named("ect")

	// Ack: serial distances from snd_una; n clamped to NMax.
	ackSeq, ece, nak := in.evAckSeq, in.evECE, in.evNAK
	dlt := m.Sub(ackSeq, una).Named("ack_delta")
	beyond := m.Gt(dlt, inflight).Named("ack_beyond")
	staleBit := m.Bit(dlt, sb-1) // dlt >= 2^(SeqBits-1)
	ackOK := m.AndAll(isAck, m.Not(idle), m.Not(beyond)).Named("ack_ok")
	stale := m.AndAll(isAck, m.Not(idle), beyond, staleBit).Named("stale")
	ackInvalid := m.And(isAck, m.Or(idle, m.And(beyond, m.Not(staleBit))))
	nMax := c.NMax()
	var n *rtl.Node
	if sb <= nb {
		n = m.ZExt(dlt, nb)
	} else {
		n = m.Mux(m.Gt(dlt, cst(sb, nMax)), cst(nb, nMax), m.Slice(dlt, 0, nb))
	}
	n = n.Named("n")
	nFx := m.FxOf(n, fN)
	acked := m.Sub(ackSeq, start).Named("acked")

	// Window candidates (docs/ldcp.md section 5), all in parallel.
	ackMD := m.And(isAck, ece)
	nBeta := m.FxMul(nFx, k("beta"))
	mdDiff := m.FxSub(cw, nBeta) // exact, signed
	mdDiff.N.Named("cw_md_diff")
	// max(cw - n*beta, gamma): the selected difference lies in [gamma, cw],
	// so its low W(Cw) bits are exact (no overflow logic).
	cwMD := m.FxMux(m.FxLt(mdDiff, gamma).Named("md_floor"), gammaCw, m.FxCast(mdDiff, fCw, trn, wrap))
	cwMD.N.Named("cw_md")
	// The shared 1/cw unit: 1/cw before the ACK for the AI step, 1/cw after
	// the event for the timer (a send keeps cw; an ACK arms only after MD).
	recipIn := m.FxMux(ackMD, cwMD, cw)
	u := d.RecipUnit()
	recip := m.FxRecip(recipIn, u.Config, u.Table)
	recip.N.Named("recip_cw")
	nAlpha := m.FxMul(nFx, k("alpha"))
	inc := m.FxMulCast(nAlpha, recip, fCw, rnd, sat)
	inc.N.Named("inc")
	cwAI := m.FxMin(m.FxAddCast(cw, inc, fCw, trn, sat), cwMax)
	cwAI.N.Named("cw_ai")
	nGamma := m.FxMul(nFx, gamma)
	cwSubAI := m.FxMin(m.FxAddCast(cw, nGamma, fCw, trn, sat), cwMax)
	cwSubAI.N.Named("cw_sub_ai")
	cwSubMD := m.FxMax(m.FxMulCast(cw, k("eta"), fCw, rnd, sat), gammaCw)
	cwSubMD.N.Named("cw_sub_md")
	window := m.FxMux(sub, m.FxMux(ece, cwSubMD, cwSubAI), m.FxMux(ece, cwMD, cwAI))
	window.N.Named("cw_window")
	rule := m.Mux(sub, m.Mux(ece, cst(3, uint64(ldcp.RuleSubMD)), cst(3, uint64(ldcp.RuleSubAI))),
		m.Mux(ece, cst(3, uint64(ldcp.RuleMD)), cst(3, uint64(ldcp.RuleAI))))

	// Loss window min(max(acked, 1), CwMax): acked = ack - start for a
	// fast-start NAK, una - start for a fast-start timeout.
	lossArg := m.Mux(isAck, acked, m.Sub(una, start))
	lossArg = m.Mux(m.IsZero(lossArg), cst(sb, 1), lossArg)
	cwLoss := m.FxMin(m.FxCast(m.FxOf(lossArg, fSeq), fCw, trn, sat), cwMax)
	cwLoss.N.Named("cw_loss")

	// Which rule the event applies.
	startOK := m.And(isStart, m.Not(m.IsZero(in.evMsgPkts))).Named("start_ok")
	ackFast := m.And(ackOK, fast)
	ackLoss := m.And(ackFast, nak).Named("ack_loss")
	ackFull := m.AndAll(ackFast, m.Not(nak), m.Ge(acked, cst(sb, uint64(c.IWPkts)))).Named("full_ack")
	ackWin := m.AndAll(ackOK, stable, m.Not(m.IsZero(dlt))).Named("ack_window")
	toOK := m.And(isTimeout, m.Not(idle))
	toFast := m.And(toOK, fast).Named("timeout_loss")
	toStable := m.And(toOK, stable)

	cwNext := m.FxMux(startOK, iw,
		m.FxMux(m.Or(ackLoss, toFast), cwLoss,
			m.FxMux(ackFull, iw,
				m.FxMux(ackWin, window,
					m.FxMux(toStable, m.FxMin(cw, one), cw)))))
	cwNext.N.Named("cw_next")
	subNext := m.FxLt(cwNext, one).Named("sub_next")
	armed := m.Or(m.And(allowed, sub), m.AndAll(ackWin, m.Not(sub), subNext)).Named("armed")
	interval := m.FxMulCast(k("t"), recip, fIv, rnd, sat)
	interval.N.Named("interval")

	seq := in.evSeq
	msg := m.ZExt(in.evMsgPkts, sb)
	stageNext := m.Mux(startOK, cst(2, uint64(ldcp.FastStart)),
		m.Mux(m.OrAll(ackLoss, ackFull, toFast), cst(2, uint64(ldcp.Stable)), stageN))
	unaNext := m.Mux(startOK, seq, m.Mux(ackOK, ackSeq, una))
	nxtNext := m.Mux(startOK, seq, m.Mux(allowed, nxt1, m.Mux(m.And(ackOK, nak), ackSeq, m.Mux(toOK, una, nxt))))
	endNext := m.Mux(startOK, m.Add(seq, msg), end)
	nextSendNext := m.Mux(startOK, now, m.Mux(armed, m.Add(now, interval.N), nextSend))
	z := func(sel, v *rtl.Node) *rtl.Node { return m.Mux(sel, v, cst(v.Width, 0)) }

	outs := map[string]*rtl.Node{
		"ns_stage": stageNext, "ns_cw": cwNext.N, "ns_start": m.Mux(startOK, seq, start), "ns_una": unaNext,
		"ns_nxt": nxtNext, "ns_end": endNext, "ns_next_send": nextSendNext,
		"out_rule":        z(ackWin, rule),
		"out_n":           z(ackOK, n),
		"out_allowed":     allowed,
		"out_block":       z(isSend, blockCode),
		"out_psn":         z(allowed, nxt),
		"out_ect":         m.And(allowed, ect),
		"out_last":        m.And(allowed, last),
		"out_done":        m.And(m.Not(m.IsZero(stageNext)), m.Eq(unaNext, endNext)),
		"out_invalid":     m.OrAll(m.And(isStart, m.Not(startOK)), ackInvalid, m.And(isTimeout, idle)),
		"out_stale":       stale,
		"out_full_ack":    ackFull,
		"out_loss":        m.Or(ackLoss, toFast),
		"out_go_back_n":   m.Or(m.And(ackOK, nak), toOK),
		"out_sub":         subNext,
		"out_timer_armed": armed,
		"out_interval":    z(armed, interval.N),
	}
	for _, f := range d.OutputTable().Fields {
		o, ok := outs[f.Name]
		if !ok {
			return nil, fmt.Errorf("ldcprtl: output field %s: not produced by the description", f.Name)
		}
		if o.Width != f.Width {
			return nil, fmt.Errorf("ldcprtl: output field %s: %d bits, description has %d", f.Name, f.Width, o.Width)
		}
		m.Out(f.Name, m.AsUnsigned(o), f.Doc)
	}
	if len(outs) != len(d.OutputTable().Fields) {
		return nil, fmt.Errorf("ldcprtl: description produces %d outputs, the field table has %d", len(outs), len(d.OutputTable().Fields))
	}
	if err := m.Check(); err != nil {
		return nil, err
	}
	return m, nil
}
