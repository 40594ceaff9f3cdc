package coverage

import (
	"fmt"
	"io"
	"math/big"
	"strings"

	"github.com/hpccgold/hpccgold/rtl"
)

// SVDutMacro is the macro the emitted covergroup reads the design's signals
// through: define it to the hierarchical path of the hpcc_update (or
// ldcp_update) instance, printed flat (every node of the description is a
// wire of that name), before including the file. Default: dut.
const SVDutMacro = "HPCCGOLD_COV_DUT"

// svPoint is a cover point as a SystemVerilog coverpoint: an expression,
// an optional iff guard and, per bin, its value set ("{[0:5]}").
type svPoint struct {
	expr string
	iff  string
	vals []string
}

// svRef is the hierarchical reference to node n of the DUT.
func (m *Model) svRef(n *rtl.Node) string {
	if n.Op == rtl.OpConst { // the printer inlines constants
		return svLit(n.Width, n.Value)
	}
	if p, ok := m.outName[n.ID]; ok {
		return "`" + SVDutMacro + "." + p
	}
	return "`" + SVDutMacro + "." + n.Name
}

// svLit is a w-bit unsigned literal.
func svLit(w int, v rtl.Bits) string {
	return fmt.Sprintf("%d'h%s", w, strings.TrimLeft(v.Trunc(w).Hex(w), "0")+zeroIfEmpty(v.Trunc(w)))
}

func zeroIfEmpty(v rtl.Bits) string {
	if v.IsZero() {
		return "0"
	}
	return ""
}

func svU(w int, v uint64) string { return svLit(w, rtl.BitsOf(v)) }

// svSigned returns the expression and literal transform reading a w-bit
// value as an order-preserving unsigned one (the sign bit inverted).
func svOrdered(expr string, w int, signed bool) string {
	if !signed {
		return expr
	}
	return fmt.Sprintf("(%s ^ %s)", expr, svLit(w, rtl.BitsOf(1).Shl(uint(w-1))))
}

func orderedConst(v rtl.Bits, w int, signed bool) rtl.Bits {
	if signed {
		return v.Xor(rtl.BitsOf(1).Shl(uint(w - 1))).Trunc(w)
	}
	return v.Trunc(w)
}

// svCompareConst: below / at / above the constant c of a w-bit operand.
func (m *Model) svCompareConst(v *rtl.Node, w int, signed bool, c rtl.Bits) svPoint {
	oc := orderedConst(c, w, signed)
	top := rtl.Bits{}.Not().Trunc(w)
	one := rtl.BitsOf(1)
	p := svPoint{expr: svOrdered(m.svRef(v), w, signed)}
	below, above := "{}", "{}"
	if !oc.IsZero() {
		below = fmt.Sprintf("{[%s:%s]}", svLit(w, rtl.Bits{}), svLit(w, oc.Sub(one)))
	}
	if oc != top {
		above = fmt.Sprintf("{[%s:%s]}", svLit(w, oc.Add(one)), svLit(w, top))
	}
	p.vals = []string{below, "{" + svLit(w, oc) + "}", above}
	return p
}

// svCompare2: a < b, a == b, a > b as 0, 1, 2.
func (m *Model) svCompare2(a, b *rtl.Node, w int, signed bool) svPoint {
	x, y := svOrdered(m.svRef(a), w, signed), svOrdered(m.svRef(b), w, signed)
	return svPoint{expr: fmt.Sprintf("((%s < %s) ? 2'd0 : (%s == %s) ? 2'd1 : 2'd2)", x, y, x, y), vals: []string{"{0}", "{1}", "{2}"}}
}

// svIndex: bin i is the expression's value i.
func svIndex(expr, iff string, n int) svPoint {
	p := svPoint{expr: expr, iff: iff}
	for i := 0; i < n; i++ {
		p.vals = append(p.vals, fmt.Sprintf("{%d}", i))
	}
	return p
}

// svBucket is the magnitude bucket (0 zero, 1..4 quarters of bit length)
// of node x as an expression.
func (m *Model) svBucket(x *rtl.Node) string {
	w := x.Width
	var b strings.Builder
	fmt.Fprintf(&b, "((%s == 0) ? 0", m.svRef(x))
	for q := 1; q < 4; q++ {
		_, hi := bucketRange(q, w)
		fmt.Fprintf(&b, " : (%s <= %s) ? %d", m.svRef(x), svU(w, hi), q)
	}
	b.WriteString(" : 4)")
	return b.String()
}

// svRound: the d low bits of xn, down / up / tie / below the tie.
func (m *Model) svRound(xn *rtl.Node, d int) svPoint {
	half := rtl.BitsOf(1).Shl(uint(d - 1))
	one := rtl.BitsOf(1)
	top := rtl.Bits{}.Not().Trunc(d)
	p := svPoint{expr: fmt.Sprintf("%s[%d:0]", m.svRef(xn), d-1)}
	down, up, below := "{}", "{}", "{}"
	if d >= 2 {
		down = fmt.Sprintf("{[%s:%s]}", svLit(d, rtl.Bits{}), svLit(d, half.Sub(one).Sub(one)))
	} else {
		down = "{" + svLit(d, rtl.Bits{}) + "}"
	}
	if d >= 2 {
		below = "{" + svLit(d, half.Sub(one)) + "}"
		if half != top {
			up = fmt.Sprintf("{[%s:%s]}", svLit(d, half.Add(one)), svLit(d, top))
		}
	}
	p.vals = []string{down, up, "{" + svLit(d, half) + "}", below}
	return p
}

// svRanges: bin i holds [lo_i, hi_i].
func svRanges(expr string, w int, g *gate, rs []rangeBin) svPoint {
	p := svPoint{expr: expr}
	if g != nil {
		p.iff = g.sv
	}
	for _, r := range rs {
		if r.lo > r.hi {
			p.vals = append(p.vals, "{}")
			continue
		}
		p.vals = append(p.vals, fmt.Sprintf("{[%s:%s]}", svU(w, r.lo), svU(w, r.hi)))
	}
	return p
}

// svTxRate: the txRate bucket of a valid hop as an expression.
func (m *Model) svTxRate(tx, stTx, sp, dts *rtl.Node, unit uint64, speeds []uint32, valid string) svPoint {
	var g strings.Builder
	g.WriteString("(")
	for c, s := range speeds {
		fmt.Fprintf(&g, "(%s == %d) ? 64'd%d : ", m.svRef(sp), c, s)
	}
	g.WriteString("64'd0)")
	dtx := fmt.Sprintf("((%s - %s) & 64'h%x)", "64'("+m.svRef(tx)+")", "64'("+m.svRef(stTx)+")", maxOf(tx.Width))
	bits := fmt.Sprintf("(%s * 64'd%d)", dtx, unit*8)
	line := fmt.Sprintf("(%s * 64'(%s))", g.String(), m.svRef(dts))
	expr := fmt.Sprintf("((%s == 0) ? 0 : (4 * %s <= %s) ? 1 : (%s <= %s) ? 2 : (%s <= 2 * %s) ? 3 : 4)", dtx, bits, line, bits, line, bits, line)
	return svIndex(expr, valid, 5)
}

// svIdent turns a name into an SV identifier.
func svIdent(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// WriteSV writes the model as a SystemVerilog covergroup file: one
// covergroup <design>_cg sampled on the rising edge of clk, one coverpoint
// per point with one named bin per bin, in the same order and with the
// same names as the model's JSON and CSV; unreachable bins are
// ignore_bins, with their proof as a comment. The signals are read
// through the macro SVDutMacro (default "dut").
func (m *Model) WriteSV(w io.Writer) error {
	var b strings.Builder
	total, reach, unreach := m.Bins()
	fmt.Fprintf(&b, "// %s functional coverage: %d cover points, %d bins (%d reachable, %d proved unreachable).\n", m.Design, len(m.Points), total, reach, unreach)
	b.WriteString("// Generated by hpccgold (vectors cover --format sv). DO NOT EDIT.\n")
	fmt.Fprintf(&b, "// Include inside a testbench module after `define %s <path of the flat %s instance>;\n", SVDutMacro, m.Design)
	fmt.Fprintf(&b, "// instantiate %s_cov with the testbench clock; sample on each accepted transaction.\n", m.Design)
	fmt.Fprintf(&b, "`ifndef %s\n`define %s dut\n`endif\n\n", SVDutMacro, SVDutMacro)
	fmt.Fprintf(&b, "covergroup %s_cg @(posedge clk);\n  option.per_instance = 1;\n", m.Design)
	for _, p := range m.Points {
		fmt.Fprintf(&b, "  // %s (%s): %s\n", p.Name, p.Kind, strings.ReplaceAll(p.Doc, "\n", " "))
		fmt.Fprintf(&b, "  %s: coverpoint %s", svIdent(p.Name), p.sv.expr)
		if p.sv.iff != "" {
			fmt.Fprintf(&b, " iff (%s)", p.sv.iff)
		}
		b.WriteString(" {\n")
		for i, bin := range p.Bins {
			vals := p.sv.vals[i]
			if vals == "{}" {
				fmt.Fprintf(&b, "    // bin %s: no value (%s)\n", bin.Name, bin.Unreachable)
				continue
			}
			if bin.Unreachable != "" {
				fmt.Fprintf(&b, "    ignore_bins %s = %s; // unreachable: %s\n", svIdent(bin.Name), vals, strings.ReplaceAll(bin.Unreachable, "\n", " "))
				continue
			}
			fmt.Fprintf(&b, "    bins %s = %s;\n", svIdent(bin.Name), vals)
		}
		b.WriteString("  }\n")
	}
	b.WriteString("endgroup\n")
	_, err := io.WriteString(w, b.String())
	return err
}

var _ = big.NewInt

// svCond renders one bin's value set (as the covergroup prints it: "{v}",
// "{[lo:hi]}" or "{}") as a condition on expr.
func svCond(expr, vals string) string {
	v := strings.TrimSuffix(strings.TrimPrefix(vals, "{"), "}")
	switch {
	case v == "":
		return "1'b0"
	case strings.HasPrefix(v, "["):
		lo, hi, _ := strings.Cut(strings.TrimSuffix(strings.TrimPrefix(v, "["), "]"), ":")
		return fmt.Sprintf("((%s) >= %s && (%s) <= %s)", expr, lo, expr, hi)
	}
	return fmt.Sprintf("((%s) == %s)", expr, v)
}

// WriteSVCounters writes the model as a plain Verilog-2005 module
// <design>_cov_count (clk, sample) with one 32-bit counter per bin, cnt[i]
// for the i-th bin in model order (point by point), incremented on a
// rising clk edge with sample high when the point's guard holds and the
// value is in the bin's set: the covergroup's bins as logic every
// simulator compiles (Icarus and Verilator do not take covergroups), from
// the same expressions and value sets. It reads the design through
// SVDutMacro like the covergroup.
func (m *Model) WriteSVCounters(w io.Writer) error {
	var b strings.Builder
	total, _, _ := m.Bins()
	fmt.Fprintf(&b, "// %s functional coverage as counters: cnt[i] counts bin i (model order), %d bins.\n", m.Design, total)
	b.WriteString("// Generated by hpccgold. DO NOT EDIT.\n")
	fmt.Fprintf(&b, "`ifndef %s\n`define %s dut\n`endif\n", SVDutMacro, SVDutMacro)
	fmt.Fprintf(&b, "module %s_cov_count (input wire clk, input wire sample);\n", m.Design)
	fmt.Fprintf(&b, "  reg [31:0] cnt [0:%d];\n  integer i;\n  initial for (i = 0; i < %d; i = i + 1) cnt[i] = 0;\n", total-1, total)
	b.WriteString("  always @(posedge clk) if (sample) begin\n")
	k := 0
	for _, p := range m.Points {
		fmt.Fprintf(&b, "    // %s\n", p.Name)
		guard := "1'b1"
		if p.sv.iff != "" {
			guard = "(" + p.sv.iff + ")"
		}
		for i, bin := range p.Bins {
			fmt.Fprintf(&b, "    if (%s && %s) cnt[%d] <= cnt[%d] + 1; // %s\n", guard, svCond(p.sv.expr, p.sv.vals[i]), k, k, bin.Name)
			k++
		}
	}
	b.WriteString("  end\nendmodule\n")
	_, err := io.WriteString(w, b.String())
	return err
}
