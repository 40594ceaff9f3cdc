package rtl

import "fmt"

// Flatten returns a copy of m with every instance inlined (recursively), so
// the result has no Insts: the form the evaluator runs and the form a printer
// that does not support hierarchy can lower. Inlined node, register and RAM
// names are prefixed with the instance name ("u_upd_n12"). m is not changed.
func Flatten(m *Module) (*Module, error) {
	if err := m.Check(); err != nil {
		return nil, err
	}
	f := NewModule(m.Name, m.Doc)
	f.Params = append([]Param(nil), m.Params...)
	ins := make([]*Node, len(m.Inputs))
	for i, in := range m.Inputs {
		ins[i] = f.In(in.Name, in.Width, in.Signed)
		ins[i].Doc = in.Doc
	}
	outs := inline(f, m, "", ins)
	for i, p := range m.Outputs {
		f.Out(p.Name, outs[i], p.Doc)
	}
	if err := f.Err(); err != nil {
		return nil, fmt.Errorf("flatten %s: %w", m.Name, err)
	}
	return f, nil
}

// inline copies src's nodes into f, with src's inputs bound to ins, and
// returns the nodes driving src's outputs.
func inline(f, src *Module, prefix string, ins []*Node) []*Node {
	mp := make(map[*Node]*Node, len(src.Nodes))
	for i, in := range src.Inputs {
		mp[in] = ins[i]
	}
	mems := make(map[*Mem]*Mem, len(src.Mems))
	for _, mem := range src.Mems {
		mems[mem] = f.NewMem(prefix+mem.Name, mem.Width, mem.AddrWidth, mem.Doc)
	}
	done := map[*Inst]bool{}
	for _, n := range src.Nodes {
		switch n.Op {
		case OpInput:
			continue
		case OpInstOut:
			in := n.Inst
			if done[in] {
				continue
			}
			done[in] = true
			args := make([]*Node, len(in.Args))
			for i, a := range in.Args {
				args[i] = mp[a]
			}
			outs := inline(f, in.Mod, prefix+in.Name+"_", args)
			for k, o := range in.Outs {
				mp[o] = outs[k]
			}
			continue
		}
		c := &Node{ID: len(f.Nodes), Op: n.Op, Width: n.Width, Signed: n.Signed, K: n.K, Value: n.Value,
			ROM: n.ROM, HasReset: n.HasReset, Doc: n.Doc, owner: f, named: n.named}
		c.Name = f.claim(prefix+n.Name, c.ID)
		if n.Op != OpReg {
			for _, a := range n.Args {
				c.Args = append(c.Args, mp[a])
			}
		}
		switch n.Op {
		case OpReg:
			f.Regs = append(f.Regs, c)
		case OpMemRead:
			c.Mem = mems[n.Mem]
			c.Mem.Reads = append(c.Mem.Reads, c)
		}
		f.Nodes = append(f.Nodes, c)
		mp[n] = c
	}
	for _, r := range src.Regs {
		var en *Node
		if r.En != nil {
			en = mp[r.En]
		}
		f.SetNext(mp[r], mp[r.D], en)
	}
	for _, mem := range src.Mems {
		f.MemWrite(mems[mem], mp[mem.WE], mp[mem.WAddr], mp[mem.WData])
	}
	outs := make([]*Node, len(src.Outputs))
	for i, p := range src.Outputs {
		outs[i] = mp[p.Node]
	}
	return outs
}

// Check reports the first construction error, or a structural one: an
// unconnected register, a RAM without a write port, an instance of an
// invalid module, or a module without outputs.
func (m *Module) Check() error {
	if m.err != nil {
		return m.err
	}
	if err := m.checkIDs(); err != nil {
		return err
	}
	for _, r := range m.Regs {
		if r.D == nil {
			return fmt.Errorf("%w: module %s: register %s has no next-state input (SetNext)", ErrBuild, m.Name, r.Name)
		}
	}
	for _, mem := range m.Mems {
		if mem.WE == nil {
			return fmt.Errorf("%w: module %s: RAM %s has no write port (MemWrite)", ErrBuild, m.Name, mem.Name)
		}
	}
	for _, in := range m.Insts {
		if err := in.Mod.Check(); err != nil {
			return fmt.Errorf("%w: module %s: instance %s: %v", ErrBuild, m.Name, in.Name, err)
		}
	}
	if len(m.Outputs) == 0 {
		return fmt.Errorf("%w: module %s: no outputs", ErrBuild, m.Name)
	}
	return nil
}

// Submodules returns m's instantiated modules, recursively, each once,
// callees before callers (the order in which to print them), m last.
func Submodules(m *Module) []*Module {
	var out []*Module
	seen := map[*Module]bool{}
	var walk func(x *Module)
	walk = func(x *Module) {
		if seen[x] {
			return
		}
		seen[x] = true
		for _, in := range x.Insts {
			walk(in.Mod)
		}
		out = append(out, x)
	}
	walk(m)
	return out
}

// Live reports, per node ID, whether the node can affect an output: it is
// reachable backwards from an output port, a register's inputs, a RAM port
// or an instance input. Printers skip dead nodes; input ports are always
// kept.
func (m *Module) Live() []bool {
	live := make([]bool, len(m.Nodes))
	var stack []*Node
	mark := func(n *Node) {
		if n != nil && n.ID >= 0 && n.ID < len(live) && !live[n.ID] {
			live[n.ID] = true
			stack = append(stack, n)
		}
	}
	for _, p := range m.Outputs {
		mark(p.Node)
	}
	for _, in := range m.Inputs {
		live[in.ID] = true
	}
	for len(stack) > 0 {
		n := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		for _, a := range n.Args {
			mark(a)
		}
		switch n.Op {
		case OpMemRead:
			mark(n.Mem.WE)
			mark(n.Mem.WAddr)
			mark(n.Mem.WData)
		case OpInstOut:
			for _, a := range n.Inst.Args {
				mark(a)
			}
			for _, o := range n.Inst.Outs { // an instance is kept whole
				mark(o)
			}
		}
	}
	return live
}

// checkIDs verifies that every node's ID is its index (an internal
// invariant the evaluator and printers rely on).
func (m *Module) checkIDs() error {
	for i, n := range m.Nodes {
		if n.ID != i {
			return fmt.Errorf("%w: module %s: node %s has ID %d at index %d", ErrBuild, m.Name, n.Name, n.ID, i)
		}
	}
	return nil
}
