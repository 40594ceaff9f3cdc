package rtl

import "fmt"

// Sim evaluates a Module cycle by cycle in Go: the third check next to the
// Verilog simulators and the golden model. Semantics are those documented on
// each Op. A clock edge is two-phase: every register's and RAM port's next
// value is computed from the settled combinational values, then all commit
// at once, so the result never depends on evaluation order.
//
// Typical use: SetInput..., Eval, read outputs, Step, repeat. Registers and
// RAM contents start at zero (the value Verilator gives uninitialised state
// by default); registers with a reset take their reset value on a Step with
// rst true.
type Sim struct {
	m      *Module // flattened
	vals   []Bits
	small  []bool // node and all its operands are <= 64 bits
	comb   []*Node
	mems   map[*Mem][]Bits
	nextR  []Bits
	nextM  []Bits
	writes []memWrite
	inIdx  map[string]int
	outIdx map[string]int
	stale  bool
}

// NewSim flattens m and prepares it for evaluation.
func NewSim(m *Module) (*Sim, error) {
	f, err := Flatten(m)
	if err != nil {
		return nil, err
	}
	s := &Sim{m: f, vals: make([]Bits, len(f.Nodes)), small: make([]bool, len(f.Nodes)),
		mems: map[*Mem][]Bits{}, inIdx: map[string]int{}, outIdx: map[string]int{}, stale: true}
	for _, n := range f.Nodes {
		sm := n.Width <= 64
		for _, a := range n.Args {
			sm = sm && a.Width <= 64
		}
		s.small[n.ID] = sm
		switch n.Op {
		case OpConst:
			s.vals[n.ID] = n.Value
		case OpInput, OpReg, OpMemRead:
		default:
			s.comb = append(s.comb, n)
		}
	}
	for _, mem := range f.Mems {
		s.mems[mem] = make([]Bits, mem.Depth())
	}
	for i, in := range f.Inputs {
		s.inIdx[in.Name] = i
	}
	for i, p := range f.Outputs {
		s.outIdx[p.Name] = i
	}
	return s, nil
}

// Module returns the flattened module the simulator runs.
func (s *Sim) Module() *Module { return s.m }

// SetInput sets input port name to v (truncated to the port's width).
func (s *Sim) SetInput(name string, v Bits) error {
	i, ok := s.inIdx[name]
	if !ok {
		return fmt.Errorf("rtl sim %s: no input %q", s.m.Name, name)
	}
	s.SetIn(i, v)
	return nil
}

// SetIn sets the i-th input port (Module.Inputs order).
func (s *Sim) SetIn(i int, v Bits) {
	n := s.m.Inputs[i]
	s.vals[n.ID] = v.Trunc(n.Width)
	s.stale = true
}

// SetInUint sets the i-th input port to the low bits of v.
func (s *Sim) SetInUint(i int, v uint64) { s.SetIn(i, BitsOf(v)) }

// Eval settles the combinational logic for the current inputs and state.
func (s *Sim) Eval() {
	var buf [8]Bits
	for _, n := range s.comb {
		if s.small[n.ID] {
			var a, b, c uint64
			switch len(n.Args) {
			default:
				c = s.vals[n.Args[2].ID][0]
				fallthrough
			case 2:
				b = s.vals[n.Args[1].ID][0]
				fallthrough
			case 1:
				a = s.vals[n.Args[0].ID][0]
			case 0:
			}
			if r, ok := evalOp64(n, a, b, c); ok {
				s.vals[n.ID] = Bits{r}
				continue
			}
		}
		args := buf[:0]
		for _, a := range n.Args {
			args = append(args, s.vals[a.ID])
		}
		s.vals[n.ID] = evalOp(n, args)
	}
	s.stale = false
}

// Out returns the i-th output port's value (Module.Outputs order), settling
// the logic first if inputs or state changed.
func (s *Sim) Out(i int) Bits {
	if s.stale {
		s.Eval()
	}
	return s.vals[s.m.Outputs[i].Node.ID]
}

// Output returns output port name's value.
func (s *Sim) Output(name string) (Bits, error) {
	i, ok := s.outIdx[name]
	if !ok {
		return Bits{}, fmt.Errorf("rtl sim %s: no output %q", s.m.Name, name)
	}
	return s.Out(i), nil
}

// Value returns any node's current value in the flattened module (by name).
func (s *Sim) Value(name string) (Bits, bool) {
	if s.stale {
		s.Eval()
	}
	for _, n := range s.m.Nodes {
		if n.Name == name {
			return s.vals[n.ID], true
		}
	}
	return Bits{}, false
}

// Step applies one rising clock edge with reset input rst.
func (s *Sim) Step(rst bool) {
	if s.stale {
		s.Eval()
	}
	// Phase 1: compute every next value from the settled current values.
	s.nextR = s.nextR[:0]
	for _, r := range s.m.Regs {
		v := s.vals[r.ID]
		switch {
		case rst && r.HasReset:
			v = r.Value
		case r.En == nil || s.vals[r.En.ID].Bit(0):
			v = s.vals[r.D.ID]
		}
		s.nextR = append(s.nextR, v)
	}
	s.nextM = s.nextM[:0]
	s.writes = s.writes[:0]
	for _, mem := range s.m.Mems {
		data := s.mems[mem]
		for _, rd := range mem.Reads {
			v := s.vals[rd.ID]
			if s.vals[rd.Args[1].ID].Bit(0) {
				v = data[s.vals[rd.Args[0].ID][0]]
			}
			s.nextM = append(s.nextM, v)
		}
		if s.vals[mem.WE.ID].Bit(0) {
			s.writes = append(s.writes, memWrite{mem, s.vals[mem.WAddr.ID][0], s.vals[mem.WData.ID]})
		}
	}
	// Phase 2: commit.
	for i, r := range s.m.Regs {
		s.vals[r.ID] = s.nextR[i]
	}
	k := 0
	for _, mem := range s.m.Mems {
		for _, rd := range mem.Reads {
			s.vals[rd.ID] = s.nextM[k]
			k++
		}
	}
	for _, w := range s.writes {
		s.mems[w.mem][w.addr] = w.data
	}
	s.Eval()
}

type memWrite struct {
	mem  *Mem
	addr uint64
	data Bits
}

// NodeValue returns the current value of node id of Module() (the
// flattened module), settling the logic first if inputs or state changed.
func (s *Sim) NodeValue(id int) Bits {
	if s.stale {
		s.Eval()
	}
	return s.vals[id]
}
