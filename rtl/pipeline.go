package rtl

import (
	"fmt"
	"math"
)

// EstDelay is the pipeliner's delay model: an estimate, in levels of
// two-input gates, of the combinational delay of one node. Wiring (slices,
// extensions, concatenations, constant shifts, sign reinterpretation) is
// free; adders and comparators are logarithmic (parallel-prefix); a product
// is a carry-save tree plus a final adder; a variable shift is one mux level
// per amount bit; a ROM is a mux tree over its address.
func EstDelay(n *Node) float64 {
	lg := func(w int) float64 { return math.Ceil(math.Log2(float64(max(w, 2)))) }
	switch n.Op {
	case OpAnd, OpOr, OpXor, OpNot, OpMux:
		return 1
	case OpAdd, OpSub:
		return lg(n.Width) + 2
	case OpLt, OpLe, OpGt, OpGe:
		return lg(n.Args[0].Width) + 2
	case OpEq, OpNe:
		return lg(n.Args[0].Width) + 1
	case OpMul:
		return 2*lg(min(n.Args[0].Width, n.Args[1].Width)) + lg(n.Width) + 3
	case OpShl, OpLShr, OpAShr:
		return float64(min(n.Args[1].Width, int(lg(n.Width))+1))
	case OpROM:
		return float64(n.Args[0].Width) + 1
	}
	return 0
}

// PipelineOptions configures Pipeline.
type PipelineOptions struct {
	Name     string // name of the pipelined module
	Doc      string
	Stages   int    // latency in clock cycles = register ranks (0: combinational)
	ValidIn  string // name of the added input-valid port (1 bit)
	ValidOut string // name of the added output-valid port
}

// StageReport describes one pipeline stage: the estimated delay of its
// longest combinational path (EstDelay units) and the register bits that
// close it.
type StageReport struct {
	Stage   int
	Delay   float64
	RegBits int
	Ops     int
}

// Pipeline retimes the combinational module comb into opts.Stages register
// ranks with initiation interval 1: every node gets the stage in which its
// estimated arrival time ends (stage k covers arrival times in
// (k*T/S, (k+1)*T/S] of the total depth T); each value crossing into a later
// stage passes through one pipeline register (no reset, always enabled) per
// stage crossed; every output is registered at the last rank. A valid bit
// (ValidIn -> ValidOut, with reset to 0) travels alongside, so outputs of
// the input applied in cycle n appear, with ValidOut high, in cycle
// n+Stages. With Stages == 0 the result is combinational and ValidOut equals
// ValidIn. Constants are never registered; zero-delay widening ops
// (extensions, concatenations, reinterpretations) are placed as late as
// their consumers allow and slices as early as possible, so registers hold
// narrow values.
func Pipeline(comb *Module, opts PipelineOptions) (*Module, []StageReport, error) {
	if err := comb.Check(); err != nil {
		return nil, nil, err
	}
	if len(comb.Regs) > 0 || len(comb.Mems) > 0 || len(comb.Insts) > 0 {
		return nil, nil, fmt.Errorf("rtl: pipeline %s: module must be flat and combinational", comb.Name)
	}
	S := opts.Stages
	if S < 0 || S > 64 {
		return nil, nil, fmt.Errorf("rtl: pipeline %s: Stages=%d: must be in [0,64]", comb.Name, S)
	}
	n := len(comb.Nodes)
	arr := make([]float64, n)
	T := 0.0
	for _, v := range comb.Nodes {
		t := 0.0
		for _, a := range v.Args {
			t = math.Max(t, arr[a.ID])
		}
		arr[v.ID] = t + EstDelay(v)
		T = math.Max(T, arr[v.ID])
	}
	seg := make([]int, n)
	for _, v := range comb.Nodes {
		if S > 0 && T > 0 {
			s := int(math.Ceil(arr[v.ID]*float64(S)/T-1e-9)) - 1
			seg[v.ID] = min(max(s, 0), S-1)
		}
		for _, a := range v.Args { // keep monotone (rounding)
			if a.Op != OpConst {
				seg[v.ID] = max(seg[v.ID], seg[a.ID])
			}
		}
	}
	// Widening wiring (extensions, concatenations, reinterpretations) moves
	// as late as its consumers allow, so a value crossing a stage boundary is
	// registered before it is widened. Reverse topological order: every
	// consumer's stage is final when its operands are visited.
	users := make([][]*Node, n)
	for _, v := range comb.Nodes {
		for _, a := range v.Args {
			users[a.ID] = append(users[a.ID], v)
		}
	}
	isOut := make([]bool, n)
	for _, p := range comb.Outputs {
		isOut[p.Node.ID] = true
	}
	for i := n - 1; i >= 0 && S > 0; i-- {
		v := comb.Nodes[i]
		if !widening(v) {
			continue
		}
		late := S - 1
		if !isOut[v.ID] {
			late = math.MaxInt
		}
		for _, u := range users[v.ID] {
			late = min(late, seg[u.ID])
		}
		if late != math.MaxInt {
			seg[v.ID] = max(seg[v.ID], late)
		}
	}

	name := opts.Name
	if name == "" {
		name = comb.Name
	}
	p := NewModule(name, opts.Doc)
	p.Params = append(p.Params, comb.Params...)
	reports := make([]StageReport, max(S, 1))
	for k := range reports {
		reports[k].Stage = k
	}
	cp := make([]*Node, n)
	// delayed[u][k] = u's value as seen in stage k.
	delayed := make([]map[int]*Node, n)
	var at func(u *Node, k int) *Node
	at = func(u *Node, k int) *Node {
		c := cp[u.ID]
		if u.Op == OpConst || k <= seg[u.ID] {
			return c
		}
		if delayed[u.ID] == nil {
			delayed[u.ID] = map[int]*Node{}
		}
		if r, ok := delayed[u.ID][k]; ok {
			return r
		}
		prev := at(u, k-1)
		r := p.Reg(fmt.Sprintf("%s_s%d", c.Name, k), c.Width, c.Signed, false, Bits{})
		p.SetNext(r, prev, nil)
		reports[k-1].RegBits += c.Width
		delayed[u.ID][k] = r
		return r
	}
	for _, v := range comb.Nodes {
		var c *Node
		switch v.Op {
		case OpInput:
			c = p.In(v.Name, v.Width, v.Signed)
		default:
			var args []*Node // first: this may create registers
			for _, a := range v.Args {
				args = append(args, at(a, seg[v.ID]))
			}
			c = &Node{ID: len(p.Nodes), Op: v.Op, Width: v.Width, Signed: v.Signed, K: v.K, Value: v.Value,
				ROM: v.ROM, Doc: v.Doc, owner: p, named: v.named, Args: args}
			c.Name = p.claim(v.Name, c.ID)
			p.Nodes = append(p.Nodes, c)
			reports[seg[v.ID]].Ops++
		}
		c.Doc = v.Doc
		cp[v.ID] = c
	}
	// Per-stage delay: longest path restarting at each stage boundary.
	if S > 0 {
		local := make([]float64, n)
		for _, v := range comb.Nodes {
			t := 0.0
			for _, a := range v.Args {
				if a.Op != OpConst && seg[a.ID] == seg[v.ID] {
					t = math.Max(t, local[a.ID])
				}
			}
			local[v.ID] = t + EstDelay(v)
			r := &reports[seg[v.ID]]
			r.Delay = math.Max(r.Delay, local[v.ID])
		}
	} else {
		reports[0].Delay = T
	}
	vin := p.In(opts.ValidIn, 1, false)
	valid := vin
	for k := 1; k <= S; k++ {
		r := p.Reg(fmt.Sprintf("valid_s%d", k), 1, false, true, Bits{})
		p.SetNext(r, valid, nil)
		reports[k-1].RegBits++
		valid = r
	}
	for _, o := range comb.Outputs {
		p.Out(o.Name, at(o.Node, S), o.Doc)
	}
	p.Out(opts.ValidOut, valid, "output valid: the input of cycle n-Stages")
	if err := p.Check(); err != nil {
		return nil, nil, err
	}
	return p, reports, nil
}

// widening reports whether v is free wiring that makes its operand wider
// (or only reinterprets it): better registered before than after.
func widening(v *Node) bool {
	if EstDelay(v) != 0 || len(v.Args) == 0 {
		return false
	}
	switch v.Op {
	case OpAs:
		return true
	case OpZExt, OpSExt, OpConcat:
		return true
	}
	return false
}
