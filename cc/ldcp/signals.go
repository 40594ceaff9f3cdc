package ldcp

import (
	"fmt"
	"math"
	"strings"

	"github.com/hpccgold/hpccgold/cc/ccutil"
	"github.com/hpccgold/hpccgold/fieldtable"
	"github.com/hpccgold/hpccgold/fixedpoint"
)

// Signal is one row of the datapath's signal table: what an RTL engineer
// needs to size and round the wire or register.
type Signal struct {
	Name     string // as in docs/ldcp.md and the field tables
	Width    int    // bits
	Format   string // fixedpoint notation, or "uint"/"bool"
	Range    string // values the signal can take on reachable states
	Quant    string // how it is produced: exact, or the quantization mode of its cast
	Overflow string // wrap/saturate behaviour, or "none" when the range analysis proves it fits
	Doc      string
}

func sigFmt(name string, f fixedpoint.Format, rng, q, o, doc string) Signal {
	return Signal{Name: name, Width: f.W, Format: f.String(), Range: rng, Quant: q, Overflow: o, Doc: doc}
}

// Signals returns the signal table of this datapath in dataflow order.
func (d *Datapath) Signals() []Signal {
	c := d.cfg
	sb := c.SeqBits
	fd, _ := fixedpoint.SubFormat(d.fCw, d.fNP)
	g := d.gamma.Float64()
	return []Signal{
		{"inflight", sb, "uint", fmt.Sprintf("[0, 2^%d)", sb), "exact", "wrap mod 2^SeqBits", "snd_nxt - snd_una"},
		{"ack_delta", sb, "uint", fmt.Sprintf("[0, 2^%d)", sb), "exact", "wrap mod 2^SeqBits", "ack_seq - snd_una; valid when <= inflight, stale when >= 2^(SeqBits-1)"},
		sigFmt("n", d.fN, fmt.Sprintf("[0, %d]", c.NMax()), "exact (clamp)", "saturate at 2^AckPktsBits-1", "packets acknowledged, min(ack_delta, NMax)"),
		{"acked", sb, "uint", fmt.Sprintf("[0, 2^%d)", sb), "exact", "wrap mod 2^SeqBits", "fast start: ack_seq - start (packets acknowledged)"},
		{"sub", 1, "bool", "", "exact", "none", "cw < 1 (the regime)"},
		{"win_ok", 1, "bool", "", "exact", "none", "inflight <= cw - 1 (a whole packet fits)"},
		{"timer_ok", 1, "bool", "", "exact", "none", "(now - next_send) mod 2^TimeBits < 2^(TimeBits-1)"},
		sigFmt("recip_cw", d.fRecip, fmt.Sprintf("[1/%v, 1/%v]", c.CwMaxPkts, g), "Rnd (unit output)", "Sat (cw = 0 only, unreachable)", "1/cw from the reciprocal unit"),
		sigFmt("n_alpha", d.fNP, fmt.Sprintf("[0, %v]", float64(c.NMax())*d.alpha.Float64()), "exact", "none", "n * alpha"),
		sigFmt("inc", d.fCw, "[0, NMax*alpha]", "Rnd", "Sat (by design)", "n_alpha * recip_cw, the Eq. (2) increment"),
		sigFmt("cw_ai", d.fCw, fmt.Sprintf("[1, %v]", c.CwMaxPkts), "exact sum, clamp", "Sat then min CwMax", "min(cw + inc, CwMax)"),
		sigFmt("n_beta", d.fNP, fmt.Sprintf("[0, %v]", float64(c.NMax())*d.beta.Float64()), "exact", "none", "n * beta"),
		sigFmt("cw_md_diff", fd, "signed", "exact", "none", "cw - n_beta"),
		sigFmt("cw_md", d.fCw, fmt.Sprintf("[%v, %v]", g, c.CwMaxPkts), "exact (max)", "none", "max(cw_md_diff, gamma)"),
		sigFmt("n_gamma", d.fNP, fmt.Sprintf("[0, %v]", float64(c.NMax())*g), "exact", "none", "n * gamma"),
		sigFmt("cw_sub_ai", d.fCw, fmt.Sprintf("[%v, %v]", g, c.CwMaxPkts), "exact sum, clamp", "Sat then min CwMax", "min(cw + n_gamma, CwMax)"),
		sigFmt("cw_sub_md", d.fCw, fmt.Sprintf("[%v, 1)", g), "Rnd", "none", "max(cw * eta, gamma)"),
		sigFmt("cw_loss", d.fCw, fmt.Sprintf("[1, %v]", c.CwMaxPkts), "exact", "Sat then min CwMax", "fast-start loss: min(max(acked, 1), CwMax)"),
		sigFmt("cw_next", d.fCw, fmt.Sprintf("[%v, %v]", g, c.CwMaxPkts), "exact (mux)", "none", "selected by event, stage, sub and ECE"),
		sigFmt("interval", d.fIv, fmt.Sprintf("[T, T/gamma] = [%d, %v]", c.BaseRTTNs, float64(c.BaseRTTNs)/g), "Rnd", "Sat (range analysis: below 2^(TimeBits-1))", "T * recip_cw(cw_next), ns"),
		{"next_send", c.TimeBits, "uint", fmt.Sprintf("[0, 2^%d)", c.TimeBits), "exact", "wrap mod 2^TimeBits", "now + interval when the timer is armed"},
		{"ect", 1, "bool", "", "exact", "none", "stable, or (psn - start) mod 2^SeqBits >= IW - 1, or psn + 1 = end"},
	}
}

// SignalTableMarkdown renders Signals as a Markdown table (docs/ldcp.md).
func (d *Datapath) SignalTableMarkdown() string {
	var b strings.Builder
	b.WriteString("| signal | width | format | range | quantization | overflow | meaning |\n|---|---|---|---|---|---|---|\n")
	for _, s := range d.Signals() {
		fmt.Fprintf(&b, "| `%s` | %d | %s | %s | %s | %s | %s |\n", s.Name, s.Width, s.Format, ccutil.MDEscape(s.Range), s.Quant, s.Overflow, ccutil.MDEscape(s.Doc))
	}
	return b.String()
}

// FlowStateMarkdown renders the flow-table fields with their widths and the
// total bits per flow.
func (d *Datapath) FlowStateMarkdown() string {
	var b strings.Builder
	b.WriteString("| field | width | format | meaning |\n|---|---|---|---|\n")
	for _, f := range d.stateBindings("", "") {
		fmt.Fprintf(&b, "| `%s` | %d | %s | %s |\n", f.Spec.Name, f.Spec.Width, f.Spec.Format, ccutil.MDEscape(f.Spec.Doc))
	}
	fmt.Fprintf(&b, "\n**Total: %d bits per flow.**\n", d.FlowStateBits())
	return b.String()
}

// TransactionMarkdown renders both field tables (name, width, offset,
// format, meaning).
func (d *Datapath) TransactionMarkdown() string {
	var b strings.Builder
	for _, tab := range []fieldtable.Table{d.inTx.Table, d.outTx.Table} {
		fmt.Fprintf(&b, "`%s` (%d bits):\n\n| field | width | offset | format | meaning |\n|---|---|---|---|---|\n", tab.Name, tab.Width)
		for _, f := range tab.Fields {
			fmt.Fprintf(&b, "| `%s` | %d | %d | %s | %s |\n", f.Name, f.Width, f.Offset, f.Format, ccutil.MDEscape(f.Doc))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// Constant is one parameter quantized into its datapath format.
type Constant struct {
	Name   string
	Format fixedpoint.Format
	Raw    uint64
	Value  string // exact decimal value of Raw
}

// Constants returns the quantized parameters: alpha, beta, gamma, eta
// (Formats.Param), one, cw_max, iw (Formats.Cw) and T.
func (d *Datapath) Constants() []Constant {
	var cs []Constant
	for _, k := range []struct {
		n string
		v fixedpoint.Value
	}{{"alpha", d.alpha}, {"beta", d.beta}, {"gamma", d.gamma}, {"eta", d.eta}, {"one", d.one}, {"cw_max", d.cwMax}, {"iw", d.iw}, {"t", d.rtt}} {
		cs = append(cs, Constant{Name: k.n, Format: k.v.Format(), Raw: k.v.RawUint(), Value: k.v.String()})
	}
	return cs
}

// RecipUnit describes the 1/cw unit so that the RTL generator can build the
// same hardware and ROM.
type RecipUnit struct {
	Config      fixedpoint.ReciprocalConfig // In, TableBits, Entry, NRSteps, Work (filled in), Out, Q, O
	Table       []uint64                    // raw ROM entries (format Config.Entry)
	MaxRelError float64                     // worst relative error of the mantissa path
	Exact       bool                        // MaxRelError found exhaustively
}

// RecipUnit returns the 1/cw unit (a copy of its table).
func (d *Datapath) RecipUnit() RecipUnit {
	eps, exact := d.recip.MaxRelError()
	return RecipUnit{Config: d.recip.Config(), Table: d.recip.Table(), MaxRelError: eps, Exact: exact}
}

// ConstantsMarkdown renders the constants and the reciprocal unit.
func (d *Datapath) ConstantsMarkdown() string {
	var b strings.Builder
	b.WriteString("| constant | format | raw | value |\n|---|---|---|---|\n")
	for _, k := range d.Constants() {
		fmt.Fprintf(&b, "| `%s` | %s | %#x | %s |\n", k.Name, k.Format, k.Raw, k.Value)
	}
	u := d.RecipUnit()
	rc := u.Config
	how := "analytic bound"
	if u.Exact {
		how = "exhaustive"
	}
	fmt.Fprintf(&b, "\n| unit | In | TableBits | Entry | NRSteps | Work | Out | Q, O | max relative error |\n|---|---|---|---|---|---|---|---|---|\n")
	fmt.Fprintf(&b, "| `recip_cw` | %s | %d | %s | %d | %s | %s | %s, %s | %.3g (2^%.1f, %s) |\n",
		rc.In, rc.TableBits, rc.Entry, rc.NRSteps, rc.Work, rc.Out, rc.Q, rc.O, u.MaxRelError, math.Log2(u.MaxRelError), how)
	return b.String()
}

// CwPackets returns a raw Formats.Cw register in packets.
func (d *Datapath) CwPackets(raw uint64) float64 { return math.Ldexp(float64(raw), -d.fCw.F()) }

// CwRaw quantizes a window in packets into Formats.Cw (round half up,
// saturating).
func (d *Datapath) CwRaw(pkts float64) uint64 {
	v, err := fixedpoint.FromFloat(d.fCw, pkts, fixedpoint.Rnd, fixedpoint.Sat)
	if err != nil {
		return 0
	}
	return v.RawUint()
}

// RefState converts a flow-table entry to the float reference's state with
// the same real values (exact: cw has at most 53 significant bits in any
// format Validate accepts below 54 bits; the defaults have 32).
func (d *Datapath) RefState(st State) RefState {
	return RefState{Stage: st.Stage, Cw: d.CwPackets(st.Cw), Start: st.Start, Una: st.Una, Nxt: st.Nxt, End: st.End, NextSendNs: float64(st.NextSend)}
}

// FixedState converts a float reference state to a flow-table entry,
// quantizing cw (CwRaw) and the timer deadline (round to nearest ns).
func (d *Datapath) FixedState(rs RefState) State {
	return State{Stage: rs.Stage, Cw: d.CwRaw(rs.Cw), Start: rs.Start, Una: rs.Una, Nxt: rs.Nxt, End: rs.End,
		NextSend: uint64(math.Floor(rs.NextSendNs+0.5)) & d.timeMask}
}
