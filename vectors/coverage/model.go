package coverage

import (
	"fmt"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/hpccgold/hpccgold/grade"
	"github.com/hpccgold/hpccgold/rtl"
)

// Kind classifies a cover point.
type Kind string

// Cover point kinds. Structural kinds are derived from the flattened
// hardware description node by node; field and cross points are the
// datapath's functional bins, declared per design (hpcc.go).
const (
	KindField   Kind = "field"   // value ranges of one datapath field or signal
	KindCross   Kind = "cross"   // cross of two or three functional points
	KindCompare Kind = "compare" // a compare: its operands below, at and above each other (every carry, wrap and saturation threshold)
	KindRound   Kind = "round"   // a rounding cast: rounded down, up, at the tie, one LSB below it
	KindROM     Kind = "rom"     // every entry of a table (ROM) read
	KindROMx    Kind = "rom_x"   // every table entry crossed with the magnitude of the operand it multiplies
	KindCLZ     Kind = "clz"     // every leading-zero count of a normalizer
	KindMux     Kind = "mux"     // both arms of a mux taken while they differ (the select is observable)
)

// Bin is one coverage bin. A bin is reachable unless Unreachable holds the
// proof that no input can hit it; a reachable bin that no vector hits is a
// hole ("not generated").
type Bin struct {
	Name        string `json:"name"`
	Unreachable string `json:"unreachable,omitempty"`
}

// Point is a named group of bins with the rule that samples them.
type Point struct {
	Name string `json:"name"`
	Doc  string `json:"doc"`
	Kind Kind   `json:"kind"`
	// Node is the description node the point samples (structural kinds), or
	// the fields it reads (functional kinds), for reports and the
	// SystemVerilog export.
	Node string `json:"node"`
	Bins []Bin  `json:"bins"`
	// sample returns the bin one evaluation hits, or -1 for none.
	sample func(v valueSource) int
	// src are the nodes sample reads (their input cone is what closure
	// biases toward).
	src []*rtl.Node
	// sv is the point as a SystemVerilog coverpoint: an expression, an
	// optional iff guard, and per bin its value set.
	sv svPoint
}

// valueSource reads node values of the evaluated description.
type valueSource interface {
	node(id int) rtl.Bits
}

// Model is a functional coverage model of one combinational datapath
// description: its points and bins with their reachability, and the
// flattened module whose evaluation samples them.
type Model struct {
	Design string  `json:"design"`
	Points []Point `json:"points"`
	f      *rtl.Module
	rng    []grade.Range        // grade.SplitValueRanges: the reachability proofs
	plain  []grade.Range        // grade.ValueRanges, to name the analysis a proof needs
	runs   [][]grade.LengthRun  // grade.NormalizerRuns, computed when a proof needs them
	lz     lowZeroCache         // grade.LowZeros, computed when a proof needs them (ldcp_lowzeros.go)
	ports  map[string]*rtl.Node // input and output ports by name
	// outName names the output port a node drives (the SystemVerilog
	// export reads ports by their names).
	outName map[int]string
	// speedWhy is, per speed code, why the configuration rejects it ("" for
	// an accepted code; nil when the design has no speed codes). Set by the
	// design's functional points (hpcc.go) before the structural ones.
	speedWhy []string
	// split is rng before addRelations sharpened it, relations what did
	// (hpcc_relations.go; nil when no relation applies).
	split     []grade.Range
	relations []grade.Relation
	bisector  *grade.Bisector // made when a proof needs it (hpcc_bisect.go)

	// splitter is made when a proof needs it (hpcc_thresholds.go).
	splitter *grade.ThresholdSplitter
	// arcs are grade.ModularArcs, computed when a proof needs them
	// (ldcp_arcs.go).
	arcs []grade.Arc
}

// Flat returns the flattened module the model samples.
func (m *Model) Flat() *rtl.Module { return m.f }

// Bins returns the number of bins, reachable bins and bins proved unreachable.
func (m *Model) Bins() (total, reachable, unreachable int) {
	for _, p := range m.Points {
		for _, b := range p.Bins {
			total++
			if b.Unreachable != "" {
				unreachable++
			} else {
				reachable++
			}
		}
	}
	return total, reachable, unreachable
}

// newModel flattens m (combinational only) and runs the value analysis.
func newModel(m *rtl.Module) (*Model, error) {
	f, err := rtl.Flatten(m)
	if err != nil {
		return nil, fmt.Errorf("coverage: %w", err)
	}
	if len(f.Regs) > 0 || len(f.Mems) > 0 {
		return nil, fmt.Errorf("coverage: module %s has registers or RAMs: the model samples the combinational update", m.Name)
	}
	cm := &Model{Design: f.Name, f: f, rng: grade.SplitValueRanges(f), plain: grade.ValueRanges(f), ports: map[string]*rtl.Node{}, outName: map[int]string{}}
	for _, n := range f.Inputs {
		cm.ports[n.Name] = n
	}
	for _, p := range f.Outputs {
		cm.ports[p.Name] = p.Node
		if _, ok := cm.outName[p.Node.ID]; !ok && p.Node.Op != rtl.OpInput {
			cm.outName[p.Node.ID] = p.Name
		}
	}
	return cm, nil
}

// port returns the node of port name.
func (m *Model) port(name string) (*rtl.Node, error) {
	n, ok := m.ports[name]
	if !ok {
		return nil, fmt.Errorf("coverage: %s has no port %q", m.Design, name)
	}
	return n, nil
}

// add appends a point after checking its name is unique.
func (m *Model) add(p Point) {
	m.Points = append(m.Points, p)
}

// validate checks names are unique identifiers and every point has bins.
func (m *Model) validate() error {
	seen := map[string]bool{}
	for _, p := range m.Points {
		if seen[p.Name] || p.Name == "" {
			return fmt.Errorf("coverage: %s: cover point %q: empty or given twice", m.Design, p.Name)
		}
		seen[p.Name] = true
		if len(p.Bins) == 0 {
			return fmt.Errorf("coverage: %s: cover point %s has no bin", m.Design, p.Name)
		}
		bs := map[string]bool{}
		for _, b := range p.Bins {
			if bs[b.Name] {
				return fmt.Errorf("coverage: %s: cover point %s: bin %s given twice", m.Design, p.Name, b.Name)
			}
			bs[b.Name] = true
		}
	}
	return nil
}

// ---- structural points ----

// cmp3 compares a and b, w-bit values read signed or unsigned: -1, 0, 1.
func cmp3(a, b rtl.Bits, w int, signed bool) int {
	if signed {
		s := rtl.BitsOf(1).Shl(uint(w - 1))
		a, b = a.Xor(s), b.Xor(s)
	}
	return a.Cmp(b)
}

// peel follows reinterpretations and extensions back to their source.
func peel(n *rtl.Node) *rtl.Node {
	for n.Op == rtl.OpAs || n.Op == rtl.OpZExt || n.Op == rtl.OpSExt {
		n = n.Args[0]
	}
	return n
}

// live returns, per node, whether it reaches an output.
func live(f *rtl.Module) []bool {
	l := make([]bool, len(f.Nodes))
	for _, p := range f.Outputs {
		l[p.Node.ID] = true
	}
	for i := len(f.Nodes) - 1; i >= 0; i-- {
		if !l[i] {
			continue
		}
		for _, a := range f.Nodes[i].Args {
			l[a.ID] = true
		}
	}
	return l
}

// nodeLabel is a node's name, or its op and ID when anonymous.
func nodeLabel(n *rtl.Node) string { return n.Name }

// addStructural derives the structural points of every live node: compares,
// rounding increments, tables, table-times-operand products, normalizers
// and observable mux selects. Reachability comes from the value analysis
// (grade.SplitValueRanges): a bin is unreachable when the node's known bits or
// interval exclude it.
func (m *Model) addStructural() {
	f := m.f
	lv := live(f)
	isConst := func(n *rtl.Node) bool { return peel(n).Op == rtl.OpConst }
	for _, n := range f.Nodes {
		if !lv[n.ID] {
			continue
		}
		switch n.Op {
		case rtl.OpLt, rtl.OpLe, rtl.OpGt, rtl.OpGe, rtl.OpEq, rtl.OpNe:
			a, b := n.Args[0], n.Args[1]
			if a.Width == 1 && (n.Op == rtl.OpEq || n.Op == rtl.OpNe) {
				continue // a 1-bit equality is a logic gate, covered by its operands
			}
			m.addCompare(n, a, b, isConst(a) || isConst(b))
		case rtl.OpROM:
			m.addROM(n)
		case rtl.OpMux:
			m.addMux(n)
		}
		m.addOperandBits(n) // operand_bits.go: signedness and slice-edge bins
		if strings.HasPrefix(n.Name, "rnd_inc") && n.Op == rtl.OpSlice && n.Width == 1 {
			m.addRound(n)
		}
		if (n.Name == "clz" || strings.HasPrefix(n.Name, "clz_")) && n.Width <= 16 {
			m.addCLZ(n)
		}
		if n.Op == rtl.OpMul {
			for j := 0; j < 2; j++ {
				if r := peel(n.Args[j]); r.Op == rtl.OpROM && !strings.HasPrefix(r.Name, "recip_rom") {
					m.addROMx(n, r, n.Args[1-j])
				}
			}
		}
	}
	m.declareSplitBounds()  // multiq_split.go
	m.declareTxRateAlike()  // multiq_txrate.go
	m.declareWideLowZeros() // multiq_wide.go
	m.declareUnblBound()    // multiq_unbl.go
	m.declareUnblBits()     // multiq_unbl_bits.go
	m.declareMQYShort()     // multiq_ylen.go
	m.declareLeafResidues() // multiq_residue.go
	m.declareROMSign()      // sojourn_romsign.go
}

// interval returns the node's value interval (full width when unknown).
func (m *Model) interval(n *rtl.Node) (lo, hi uint64, ok bool) {
	r := m.rng[n.ID]
	if n.Width > 64 || !r.HasRange {
		return 0, 0, false
	}
	return r.Lo, r.Hi, true
}

func (m *Model) rangeText(n *rtl.Node) string {
	lo, hi, _ := m.interval(n)
	return fmt.Sprintf("%s: %s in [%d, %d]", m.analysis(n), nodeLabel(n), lo, hi)
}

// analysis names the value analysis that bounds n: "value analysis", or,
// where the split by bit length is sharper than one pass
// (grade.SplitValueRanges), that one.
func (m *Model) analysis(n *rtl.Node) string {
	if t := m.relationalText(n); t != "" {
		return t
	}
	if r, p := m.rng[n.ID], m.plain[n.ID]; r.Lo != p.Lo || r.Hi != p.Hi || r.Zero != p.Zero || r.One != p.One {
		return "value analysis per bit length of each normalizer's input (valid hop: each mux arm under its select's guards)"
	}
	return "value analysis"
}

// addCompare adds below/at/above bins for compare n of a and b. With a
// constant operand the bins are the variable operand against the
// threshold (at: exactly at it, where an off-by-one or a changed constant
// shows); otherwise a<b, a==b, a>b.
func (m *Model) addCompare(n, a, b *rtl.Node, withConst bool) {
	w, signed := a.Width, a.Signed
	names := []string{"lt", "eq", "gt"}
	doc := fmt.Sprintf("%s %s %s: operands below, equal, above", nodeLabel(a), n.Op, nodeLabel(b))
	if withConst {
		v, c := a, b
		if peel(a).Op == rtl.OpConst {
			v, c = b, a
		}
		cv := peel(c).Value
		cs := cv.Hex(w)
		if w <= 64 {
			cs = strconv.FormatUint(cv.Trunc(w).Uint64(), 10)
		}
		names = []string{"below", "at", "above"}
		doc = fmt.Sprintf("%s (%s) against the threshold %s of %s", nodeLabel(v), n.Op, cs, nodeLabel(n))
		bins := []Bin{{Name: "below"}, {Name: "at"}, {Name: "above"}}
		if lo, hi, ok := m.ordInterval(v, signed); ok {
			c64 := ordKey(cv.Trunc(w).Uint64(), w, signed)
			if lo >= c64 {
				bins[0].Unreachable = m.ordText(v, signed)
			}
			if c64 < lo || c64 > hi {
				bins[1].Unreachable = m.ordText(v, signed)
			}
			if hi <= c64 {
				bins[2].Unreachable = m.ordText(v, signed)
			}
		}
		if !signed && cv.Trunc(w).IsZero() {
			bins[0].Unreachable = "an unsigned value is never below 0"
		}
		if !signed && w <= 64 && cv.Trunc(w).Uint64() == maxOf(w) {
			bins[2].Unreachable = fmt.Sprintf("a %d-bit unsigned value is never above its all-ones", w)
		}
		if signed && w <= 64 && cv.Trunc(w).Uint64() == uint64(1)<<uint(w-1) {
			bins[0].Unreachable = fmt.Sprintf("a %d-bit signed value is never below its minimum", w)
		}
		if signed && w <= 64 && cv.Trunc(w).Uint64() == maxOf(w-1) {
			bins[2].Unreachable = fmt.Sprintf("a %d-bit signed value is never above its maximum", w)
		}
		if bins[1].Unreachable == "" && !signed && w <= 64 {
			bins[1].Unreachable = m.excludedPerLength(v, cv.Trunc(w).Uint64())
		}
		if bins[1].Unreachable == "" && !signed && w <= 64 {
			bins[1].Unreachable = m.excludedByBisection(v, cv.Trunc(w).Uint64())
		}
		vid, cid := v.ID, c.ID
		m.add(Point{Name: "cmp_" + nodeLabel(n), Doc: doc, Kind: KindCompare, Node: nodeLabel(n), Bins: bins, src: []*rtl.Node{v},
			sample: func(s valueSource) int {
				return cmp3(s.node(vid), s.node(cid), w, signed) + 1
			},
			sv: m.svCompareConst(v, w, signed, cv.Trunc(w))})
		return
	}
	bins := []Bin{{Name: names[0]}, {Name: names[1]}, {Name: names[2]}}
	if la, ha, ok1 := m.ordInterval(a, signed); ok1 {
		if lb, hb, ok2 := m.ordInterval(b, signed); ok2 {
			why := m.ordText(a, signed) + ", " + m.ordText(b, signed)
			if la >= hb {
				bins[0].Unreachable = why
			}
			if ha < lb || hb < la {
				bins[1].Unreachable = why
			}
			if ha <= lb {
				bins[2].Unreachable = why
			}
		}
	}
	aid, bid := a.ID, b.ID
	m.add(Point{Name: "cmp_" + nodeLabel(n), Doc: doc, Kind: KindCompare, Node: nodeLabel(n), Bins: bins, src: []*rtl.Node{a, b},
		sample: func(s valueSource) int { return cmp3(s.node(aid), s.node(bid), w, signed) + 1 },
		sv:     m.svCompare2(a, b, w, signed)})
}

func maxOf(w int) uint64 { return ^uint64(0) >> uint(64-w) }

// excludedPerLength proves that node v (at most 64 bits) never equals c
// when, for some normalizer input x, every run of the value analysis per
// bit length of x (grade.NormalizerRuns; the runs cover every input)
// excludes c from v's interval or contradicts its known bits: the union
// of the runs, which SplitValueRanges keeps as one interval, can hold c
// while no run does (1/U at its maximum: only U = 1 comes near it). It
// returns the proof, or "".
func (m *Model) excludedPerLength(v *rtl.Node, c uint64) string {
	if lo, hi, ok := m.interval(v); ok && (c < lo || c > hi) {
		return "" // the plain interval rules apply
	}
	if m.runs == nil {
		m.runs = grade.NormalizerRuns(m.f)
	}
	cb := rtl.BitsOf(c)
	for i, runs := range m.runs {
		excluded, lowZ := true, false
		for j, r := range runs {
			rv := r.Ranges[v.ID]
			out := rv.HasRange && (c < rv.Lo || c > rv.Hi) || !cb.And(rv.Zero).IsZero() || cb.And(rv.One) != rv.One
			if !out && m.runLowZeroExcludes(i, j, v, c) {
				out, lowZ = true, true
			}
			if !out {
				excluded = false
				break
			}
		}
		if excluded {
			x := m.f.Nodes[runs[0].X]
			var parts []string
			for _, r := range runs {
				rv := r.Ranges[v.ID]
				parts = append(parts, fmt.Sprintf("L=%d: [%d, %d]", r.L, rv.Lo, rv.Hi))
			}
			kb := "known bits included"
			if lowZ {
				kb = "known bits and low zeros (grade.LowZeros) included"
			}
			return fmt.Sprintf("value analysis per bit length L of %s (every length some input gives): %s never equals %d in any run (%s; %s)", nodeLabel(x), nodeLabel(v), c, strings.Join(parts, ", "), kb)
		}
	}
	return ""
}

// ordKey maps a w-bit value v (w <= 64) to a key whose unsigned order is
// the compare's order: v itself when unsigned; read as signed (two's
// complement), v with its sign bit flipped, so that the most negative value
// maps to 0 and the largest positive one to all-ones.
func ordKey(v uint64, w int, signed bool) uint64 {
	if !signed {
		return v
	}
	return v ^ uint64(1)<<uint(w-1)
}

// ordInterval returns the interval of n's value in the compare's order
// (ordKey), from the value analysis' unsigned interval [lo, hi]. Signed: the
// map is monotone, hence the keys an interval, only when [lo, hi] lies on
// one side of the sign boundary (all of it below 2^(w-1), non-negative, or
// all at or above it, negative); an interval that straddles it gives none
// (ok false), since the signed values it holds need not be contiguous.
func (m *Model) ordInterval(n *rtl.Node, signed bool) (lo, hi uint64, ok bool) {
	lo, hi, ok = m.interval(n)
	if !ok || !signed {
		return lo, hi, ok
	}
	w := n.Width
	half := uint64(1) << uint(w-1)
	if (lo < half) != (hi < half) {
		return 0, 0, false
	}
	return ordKey(lo, w, true), ordKey(hi, w, true), true
}

// ordText is rangeText with the interval read as the compare reads it:
// for a signed compare the signed values and the sign the interval fixes.
func (m *Model) ordText(n *rtl.Node, signed bool) string {
	if !signed {
		return m.rangeText(n)
	}
	lo, hi, _ := m.interval(n)
	w := n.Width
	sext := func(v uint64) int64 { return int64(v<<uint(64-w)) >> uint(64-w) }
	sign := "non-negative"
	if sext(lo) < 0 {
		sign = "negative"
	}
	return fmt.Sprintf("%s: %s in [%d, %d] (signed %d-bit: %s throughout)", m.analysis(n), nodeLabel(n), sext(lo), sext(hi), w, sign)
}

// addROM adds one bin per table entry; entries outside the address's
// interval are unreachable.
func (m *Model) addROM(n *rtl.Node) {
	addr := n.Args[0]
	lo, hi, ok := m.interval(addr)
	bins := make([]Bin, len(n.ROM))
	for e := range bins {
		bins[e].Name = "e" + strconv.Itoa(e)
		if ok && (uint64(e) < lo || uint64(e) > hi) {
			bins[e].Unreachable = m.rangeText(addr)
		}
	}
	aid, size := addr.ID, len(n.ROM)
	m.add(Point{Name: "rom_" + nodeLabel(n), Doc: fmt.Sprintf("entry of table %s read (%d entries)", nodeLabel(n), size), Kind: KindROM, Node: nodeLabel(n), Bins: bins, src: []*rtl.Node{addr},
		sample: func(s valueSource) int {
			a := s.node(aid)
			if a.Uint64() >= uint64(size) || a.Shr(64).IsZero() == false {
				return -1
			}
			return int(a.Uint64())
		},
		sv: svIndex(m.svRef(addr), "", size)})
}

// magBuckets are the magnitude classes of an operand: zero, then its bit
// length in quarters of its width.
var magBuckets = []string{"zero", "q1", "q2", "q3", "q4"}

// magBucket returns the bucket of a w-bit value.
func magBucket(v rtl.Bits, w int) int {
	l := w - v.Trunc(w).LeadingZeros(w)
	if l == 0 {
		return 0
	}
	return (4*l + w - 1) / w
}

// bucketRange returns the smallest and largest value of bucket q of a w-bit operand.
func bucketRange(q, w int) (lo, hi uint64) {
	if q == 0 {
		return 0, 0
	}
	lenLo := (q-1)*w/4 + 1 // smallest bit length with bucket q
	for (4*lenLo+w-1)/w < q {
		lenLo++
	}
	lenHi := q * w / 4
	for lenHi > lenLo && (4*lenHi+w-1)/w > q {
		lenHi--
	}
	return uint64(1) << uint(lenLo-1), maxOf(lenHi)
}

// addROMx crosses every entry of table r with the magnitude bucket of the
// operand x it multiplies in product n.
//
// A table addressed by a hop's speed code (kq, kr) is sampled only when the
// hop is valid (h<i>_ok): on an invalid hop u' is replaced by 0, so the
// product is not observable and its reads are not coverage. The entries of
// the speed codes the configuration rejects are then unreachable, with the
// proof that h<i>_ok is an and over h<i>_speed_ok = speed_ok[code], a table
// that holds 0 exactly at the rejected codes (speedGate).
func (m *Model) addROMx(n, r, x *rtl.Node) {
	addr := r.Args[0]
	alo, ahi, aok := m.interval(addr)
	xlo, xhi, xok := m.interval(x)
	w := x.Width
	okNode, speedProof := m.speedGate(addr)
	var bins []Bin
	for e := range r.ROM {
		for q, qn := range magBuckets {
			b := Bin{Name: fmt.Sprintf("e%d_%s", e, qn)}
			blo, bhi := bucketRange(q, w)
			switch {
			case aok && (uint64(e) < alo || uint64(e) > ahi):
				b.Unreachable = m.rangeText(addr)
			case e < len(speedProof) && speedProof[e] != "":
				b.Unreachable = speedProof[e]
			case w <= 64 && xok && (bhi < xlo || blo > xhi):
				b.Unreachable = m.rangeText(x)
			}
			bins = append(bins, b)
		}
	}
	aid, xid, size := addr.ID, x.ID, len(r.ROM)
	doc := fmt.Sprintf("entry of %s crossed with the magnitude of %s (zero, bit length in quarters of %d bits) in product %s", nodeLabel(r), nodeLabel(x), w, nodeLabel(n))
	okID, iff := -1, ""
	if okNode != nil {
		okID, iff = okNode.ID, m.svRef(okNode)
		doc += ", on a valid hop (" + nodeLabel(okNode) + ")"
	}
	m.add(Point{Name: "romx_" + nodeLabel(n), Doc: doc,
		Kind: KindROMx, Node: nodeLabel(n), Bins: bins, src: []*rtl.Node{addr, x},
		sample: func(s valueSource) int {
			if okID >= 0 && !s.node(okID).Bit(0) {
				return -1
			}
			a := s.node(aid).Uint64()
			if a >= uint64(size) {
				return -1
			}
			return int(a)*len(magBuckets) + magBucket(s.node(xid), w)
		},
		sv: svIndex(fmt.Sprintf("(%s) * %d + %s", m.svRef(addr), len(magBuckets), m.svBucket(x)), iff, size*len(magBuckets))})
}

// guardedNonZero returns the proof that x is never 0 when x is a mux whose
// else arm is a non-zero constant and whose then arm is d (or its low bits)
// under a select that is an and over d != 0 (and, for low bits, over
// d <= C with C below 2^width): the 1/dts unit's input, mux(h_ok, dts, 1).
// It returns "" when that structure is not found.
func guardedNonZero(x *rtl.Node) string {
	xp := peel(x)
	if xp.Op != rtl.OpMux {
		return ""
	}
	sel, t, f := xp.Args[0], peel(xp.Args[1]), peel(xp.Args[2])
	if f.Op != rtl.OpConst || f.Value.IsZero() {
		return ""
	}
	d, w := t, t.Width
	if t.Op == rtl.OpSlice && t.K == 0 {
		d = peel(t.Args[0])
	}
	var leaves []*rtl.Node
	var walk func(n *rtl.Node)
	walk = func(n *rtl.Node) {
		if n.Op == rtl.OpAnd {
			for _, a := range n.Args {
				walk(a)
			}
			return
		}
		leaves = append(leaves, n)
	}
	walk(sel)
	isConst := func(n *rtl.Node) bool { return peel(n).Op == rtl.OpConst }
	nonZero, bounded := false, d == t
	bound := fmt.Sprintf("%s is %d bits", nodeLabel(d), w)
	for _, l := range leaves {
		if len(l.Args) != 2 || peel(l.Args[0]) != d || !isConst(l.Args[1]) {
			continue
		}
		k := peel(l.Args[1]).Value
		switch {
		case l.Op == rtl.OpNe && k.IsZero():
			nonZero = true
		case l.Op == rtl.OpLe && w < 64 && k.Shr(64).IsZero() && k.Uint64() < uint64(1)<<uint(w):
			bounded = true
			bound = fmt.Sprintf("%s <= %d < 2^%d", nodeLabel(d), k.Uint64(), w)
		}
	}
	if !nonZero || !bounded {
		return ""
	}
	return fmt.Sprintf("description: %s = mux(%s, %s, %s): the select is an and over %s != 0 and %s (the low %d bits keep it non-zero), the else arm a non-zero constant: never 0", nodeLabel(xp), nodeLabel(sel), nodeLabel(t), svLit(f.Width, f.Value), nodeLabel(d), bound, w)
}

// speedGate returns, for a table address that is hop i's speed-code port
// in_hop<i>_speed, the hop's validity node h<i>_ok and, per code, the proof
// that the configuration rejects it ("" for an accepted code). It requires
// the description to say so: h<i>_ok is an and over h<i>_speed_ok, a table
// read at the same code whose entries are 0 exactly at the codes the
// configuration rejects (m.speedWhy). Otherwise (another address, or a
// description that disagrees with the configuration) it returns nil, nil:
// the point is sampled on every evaluation and no bin is declared
// unreachable by speed.
func (m *Model) speedGate(addr *rtl.Node) (*rtl.Node, []string) {
	a := peel(addr)
	if m.speedWhy == nil || a.Op != rtl.OpInput || !strings.HasPrefix(a.Name, "in_hop") || !strings.HasSuffix(a.Name, "_speed") {
		return nil, nil
	}
	hop := strings.TrimSuffix(strings.TrimPrefix(a.Name, "in_hop"), "_speed")
	var ok, sok *rtl.Node
	for _, n := range m.f.Nodes {
		switch n.Name {
		case "h" + hop + "_ok":
			ok = n
		case "h" + hop + "_speed_ok":
			sok = n
		}
	}
	if ok == nil || sok == nil || sok.Op != rtl.OpROM || peel(sok.Args[0]) != a || !andTreeHas(ok, sok) || len(sok.ROM) != len(m.speedWhy) {
		return nil, nil
	}
	proof := make([]string, len(sok.ROM))
	for c, v := range sok.ROM {
		if v.IsZero() != (m.speedWhy[c] != "") {
			return nil, nil // the description's speed_ok disagrees with the configuration
		}
		if m.speedWhy[c] != "" {
			proof[c] = fmt.Sprintf("configuration: speed code %d is rejected (%s); description: h%s_ok is an and over h%s_speed_ok = speed_ok[in_hop%s_speed], 0 at code %d, so no valid hop reads it", c, m.speedWhy[c], hop, hop, hop, c)
		}
	}
	return ok, proof
}

// addRound adds the rounding bins of a round-half-up increment (the half
// bit d-1 of operand xn): down, up, exactly at the tie (half bit set, bits
// below zero) and one LSB of the operand below the tie.
func (m *Model) addRound(n *rtl.Node) {
	xn, d := n.Args[0], n.K+1
	bins := []Bin{{Name: "down"}, {Name: "up"}, {Name: "tie"}, {Name: "below_tie"}}
	r := m.rng[xn.ID]
	if d == 1 {
		why := "a 1-bit remainder is 0 (down) or exactly the tie"
		bins[1].Unreachable, bins[3].Unreachable = why, why
	}
	if known, v := bitKnown(r, d-1); known {
		if v {
			bins[0].Unreachable = fmt.Sprintf("value analysis: the half bit %d of %s is always 1", d-1, nodeLabel(xn))
			bins[3].Unreachable = bins[0].Unreachable
		} else {
			bins[1].Unreachable = fmt.Sprintf("value analysis: the half bit %d of %s is always 0", d-1, nodeLabel(xn))
			bins[2].Unreachable = bins[1].Unreachable
		}
	}
	for i := 0; i < d-1; i++ {
		if known, v := bitKnown(r, i); known {
			if v && bins[2].Unreachable == "" {
				bins[2].Unreachable = fmt.Sprintf("value analysis: bit %d of %s is always 1", i, nodeLabel(xn))
			}
			if !v && bins[3].Unreachable == "" {
				bins[3].Unreachable = fmt.Sprintf("value analysis: bit %d of %s is always 0", i, nodeLabel(xn))
			}
		}
	}
	for b, r := range map[int]uint64{2: 1 << uint(d-1), 3: 1<<uint(d-1) - 1} {
		if bins[b].Unreachable == "" && d <= 64 && (b == 2 || d >= 2) {
			bins[b].Unreachable = m.productResidue(xn, d, r)
		}
	}
	m.roundLowZeros(xn, d, bins)
	xid := xn.ID
	m.add(Point{Name: "round_" + nodeLabel(n), Doc: fmt.Sprintf("round half up of %s at bit %d: down, up, exact tie, one LSB below the tie", nodeLabel(xn), d-1), Kind: KindRound, Node: nodeLabel(n), Bins: bins, src: []*rtl.Node{xn},
		sample: func(s valueSource) int {
			v := s.node(xid)
			low := v.Trunc(d)
			half := rtl.BitsOf(1).Shl(uint(d - 1))
			switch {
			case low == half:
				return 2
			case low == half.Sub(rtl.BitsOf(1)) && d >= 2:
				return 3
			case v.Bit(d - 1):
				return 1
			}
			return 0
		},
		sv: m.svRound(xn, d)})
}

// productResidue proves that the low d bits (d <= 64) of xn never equal r,
// for xn an unsigned product x * k of a signal x and a constant k (the
// product is full width, so its low d bits are x*k mod 2^d): with z the
// trailing zeros of k, x*k = r (mod 2^d) has no solution when r is not a
// multiple of 2^z, and otherwise exactly x = x0 (mod 2^(d-z)), x0 =
// (r >> z) * (k >> z)^-1; the proof holds when no such x lies in x's
// interval (value analysis). A rounding tie of the rate W * inv_t is such a
// residue. It returns the proof, or "" when there is none.
func (m *Model) productResidue(xn *rtl.Node, d int, r uint64) string {
	if xn.Op != rtl.OpMul || xn.Signed {
		return ""
	}
	xa, ka := xn.Args[0], xn.Args[1]
	if peel(xa).Op == rtl.OpConst {
		xa, ka = ka, xa
	}
	kc := peel(ka)
	if kc.Op != rtl.OpConst || ka.Width > 64 || peel(xa).Op == rtl.OpConst {
		return ""
	}
	k := kc.Value.Trunc(ka.Width).Uint64()
	lo, hi, ok := m.interval(xa)
	if k == 0 || !ok {
		return ""
	}
	mask := maxOf(d)
	z := bits.TrailingZeros64(k)
	if r == 0 || r > mask {
		return ""
	}
	if r&(uint64(1)<<uint(z)-1) != 0 { // also every r when z >= d
		return fmt.Sprintf("description: %s = %s * %d, a multiple of 2^%d, so its low %d bits are never %d", nodeLabel(xn), nodeLabel(xa), k, z, d, r)
	}
	period := d - z // solutions x = x0 (mod 2^period)
	odd := k >> uint(z)
	inv := odd // Newton's iteration for the inverse of an odd number mod 2^64
	for i := 0; i < 6; i++ {
		inv *= 2 - odd*inv
	}
	pm := maxOf(period)
	x0 := ((r >> uint(z)) * inv) & pm
	// the first solution at or above lo
	first := lo&^pm | x0
	if first < lo {
		first += pm + 1
		if first < lo { // wrapped past 2^64
			return fmt.Sprintf("value analysis: %s in [%d, %d]; %s = %s * %d has low %d bits %d only for %s = %d (mod 2^%d), none in that interval", nodeLabel(xa), lo, hi, nodeLabel(xn), nodeLabel(xa), k, d, r, nodeLabel(xa), x0, period)
		}
	}
	if first <= hi {
		return ""
	}
	return fmt.Sprintf("value analysis: %s in [%d, %d]; %s = %s * %d has low %d bits %d only for %s = %d (mod 2^%d), none in that interval", nodeLabel(xa), lo, hi, nodeLabel(xn), nodeLabel(xa), k, d, r, nodeLabel(xa), x0, period)
}

// shlOf returns the shift node that normalizes by the count n (nil if none).
func (m *Model) shlOf(n *rtl.Node) *rtl.Node {
	for _, s := range m.f.Nodes {
		if s.Op == rtl.OpShl && len(s.Args) == 2 && s.Args[1] == n {
			return s
		}
	}
	return nil
}

func bitKnown(r grade.Range, i int) (bool, bool) {
	switch {
	case r.Zero.Bit(i):
		return true, false
	case r.One.Bit(i):
		return true, true
	}
	return false, false
}

// addCLZ adds one bin per count value of a leading-zero counter; counts
// outside its interval are unreachable.
func (m *Model) addCLZ(n *rtl.Node) {
	lo, hi, ok := m.interval(n)
	top := int(maxOf(n.Width))
	if ok {
		top = int(min(hi+1, uint64(maxOf(n.Width)))) // show one bin past the reachable range at most
		top = max(top, int(lo))
	}
	// The operand whose leading zeros n counts is the one the unit's shift
	// normalizes by n (recip_mant = x << clz): a count above its width, or a
	// leading one outside its interval, is unreachable.
	var x *rtl.Node
	for _, s := range m.f.Nodes {
		if s.Op == rtl.OpShl && len(s.Args) == 2 && s.Args[1] == n {
			x = s.Args[0]
			break
		}
	}
	var bins []Bin
	for c := 0; c <= top; c++ {
		b := Bin{Name: "z" + strconv.Itoa(c)}
		if ok && (uint64(c) < lo || uint64(c) > hi) {
			b.Unreachable = m.rangeText(n)
		}
		if x != nil && b.Unreachable == "" {
			wx := x.Width
			xlo, xhi, xok := m.interval(x)
			switch {
			case c > wx:
				b.Unreachable = fmt.Sprintf("description: %s counts the leading zeros of the %d-bit %s (shifted by it in %s): at most %d", nodeLabel(n), wx, nodeLabel(x), nodeLabel(m.shlOf(n)), wx)
			case c == wx && xok && xlo >= 1:
				b.Unreachable = m.rangeText(x) + ": never 0"
			case c == wx && guardedNonZero(x) != "":
				b.Unreachable = guardedNonZero(x)
			case c < wx && xok && wx <= 64:
				if blo, bhi := uint64(1)<<uint(wx-1-c), maxOf(wx-c); bhi < xlo || blo > xhi {
					b.Unreachable = m.rangeText(x)
				}
			}
		}
		bins = append(bins, b)
	}
	id, nb := n.ID, len(bins)
	m.add(Point{Name: "clz_" + strings.TrimPrefix(strings.TrimPrefix(nodeLabel(n), "clz"), "_") + "count", Doc: fmt.Sprintf("leading-zero count %s of a reciprocal unit's normalizer", nodeLabel(n)), Kind: KindCLZ, Node: nodeLabel(n), Bins: bins, src: []*rtl.Node{n},
		sample: func(s valueSource) int {
			v := s.node(id).Uint64()
			if v >= uint64(nb) {
				return -1
			}
			return int(v)
		},
		sv: svIndex(m.svRef(n), "", nb)})
}

// addMux adds the observable-select bins of mux n: false arm taken while
// the arms differ, true arm taken while they differ. A select the value
// analysis fixes makes the other arm unreachable; arms that are the same
// node add no point.
func (m *Model) addMux(n *rtl.Node) {
	sel, t, e := n.Args[0], n.Args[1], n.Args[2]
	if t == e {
		return
	}
	bins := []Bin{{Name: "else_differs"}, {Name: "then_differs"}}
	if known, v := bitKnown(m.rng[sel.ID], 0); known {
		why := fmt.Sprintf("%s: select %s is always %d", m.analysis(sel), nodeLabel(sel), b2i(v))
		bins[b2i(!v)].Unreachable = why
	}
	if rt, re := m.rng[t.ID], m.rng[e.ID]; rt.HasRange && re.HasRange && rt.Lo == rt.Hi && re.Lo == re.Hi && rt.Lo == re.Lo && n.Width <= 64 {
		bins[0].Unreachable = fmt.Sprintf("value analysis: both arms are the constant %d", rt.Lo)
		bins[1].Unreachable = bins[0].Unreachable
	}
	if why := m.gatedElse(sel, t, e); why != "" && bins[0].Unreachable == "" {
		bins[0].Unreachable = why
	}
	for b, v := range []bool{false, true} {
		if bins[b].Unreachable != "" || n.Width > 64 {
			continue
		}
		if rs, ok := grade.ValueRangesWhere(m.f, sel, v); ok {
			rt, re := rs[t.ID], rs[e.ID]
			if rt.HasRange && re.HasRange && rt.Lo == rt.Hi && re.Lo == re.Hi && rt.Lo == re.Lo {
				bins[b].Unreachable = fmt.Sprintf("value analysis where %s = %d (its compares bound their operands): both arms are the constant %d", nodeLabel(sel), b2i(v), rt.Lo)
			}
		}
	}
	m.armsEqualWhere(n, bins)
	sid, tid, eid := sel.ID, t.ID, e.ID
	m.add(Point{Name: "mux_" + nodeLabel(n), Doc: fmt.Sprintf("mux %s: select %s at 0 and at 1 while %s and %s differ", nodeLabel(n), nodeLabel(sel), nodeLabel(t), nodeLabel(e)), Kind: KindMux, Node: nodeLabel(n), Bins: bins, src: []*rtl.Node{sel, t, e},
		sample: func(s valueSource) int {
			if s.node(tid) == s.node(eid) {
				return -1
			}
			if s.node(sid).Bit(0) {
				return 1
			}
			return 0
		},
		sv: svIndex(m.svRef(sel), m.svRef(t)+" != "+m.svRef(e), 2)})
}

// gatedElse proves a mux's else_differs bin unreachable for the shape
// mux(sel, mux(g, x, k), e) where the inner mux's else arm k and e are the
// same constant and g implies sel (sel is g, or an and over g and terms the
// value analysis fixes at 1, nested ands included): at sel = 0, g is 0, so
// the then arm is k, equal to e. Hop 0's candidate of the u' max-select is
// this shape: mux(h0_take, h0_u, 0), h0_take = and(h0_ok, 1 | ...) and
// h0_u = mux(h0_ok, u', 0). It returns the proof, or "" when the shape or
// the implication does not hold.
func (m *Model) gatedElse(sel, t, e *rtl.Node) string {
	if t.Op != rtl.OpMux || sel.Width != 1 || t.Width > 64 {
		return ""
	}
	g, k := t.Args[0], t.Args[2]
	rk, re := m.rng[k.ID], m.rng[e.ID]
	if k != e && !(rk.HasRange && re.HasRange && rk.Lo == rk.Hi && re.Lo == re.Hi && rk.Lo == re.Lo) {
		return ""
	}
	var ones []string
	var implied func(x *rtl.Node) bool // every input with g = 1 has x = 1
	implied = func(x *rtl.Node) bool {
		if x == g {
			return true
		}
		if known, v := bitKnown(m.rng[x.ID], 0); known && v {
			ones = append(ones, nodeLabel(x))
			return true
		}
		if x.Op == rtl.OpAnd && x.Width == 1 {
			for _, a := range x.Args {
				if !implied(a) {
					return false
				}
			}
			return true
		}
		return false
	}
	if !implied(sel) {
		return ""
	}
	if len(ones) == 0 && sel != g {
		return "" // an and over g alone: still sound, but not a shape the design has
	}
	why := fmt.Sprintf("description: %s is 1 whenever %s is", nodeLabel(sel), nodeLabel(g))
	if len(ones) > 0 {
		why = fmt.Sprintf("description: %s is an and over %s and terms the value analysis fixes at 1 (%s)", nodeLabel(sel), nodeLabel(g), strings.Join(ones, ", "))
	}
	return why + fmt.Sprintf(", so at select 0 %s is 0 and the then arm %s = mux(%s, %s, %s) equals the else arm %s", nodeLabel(g), nodeLabel(t), nodeLabel(g), nodeLabel(t.Args[1]), nodeLabel(k), nodeLabel(e))
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// sortedIDs returns the IDs of nodes whose name has prefix p, ascending.
func (m *Model) named(p string, op rtl.Op) []*rtl.Node {
	var out []*rtl.Node
	for _, n := range m.f.Nodes {
		if n.Op == op && (n.Name == p || strings.HasPrefix(n.Name, p+"_")) {
			out = append(out, n)
		}
	}
	slices.SortFunc(out, func(a, b *rtl.Node) int { return a.ID - b.ID })
	return out
}

// bitLen is the bit length of v.
func bitLen(v uint64) int { return bits.Len64(v) }
