package llvmir

import (
	"github.com/llir/llvm/ir"

	"github.com/hpccgold/hpccgold/rtl"
)

// DefaultGuardMin is the default Options.GuardMin: the smallest guarded
// cone, in operations that cost an instruction.
const DefaultGuardMin = 16

// region identifies a guarded cone: arm k (1 = true, 2 = false) of mux
// node mux. The zero region (mux nil) is the function body.
type region struct {
	mux *rtl.Node
	k   int
}

// guards finds the guarded cones of f (see package doc): for each live mux
// arm, the maximal fanout-free cone of the arm's node, the nodes whose
// every use lies inside it, so that they are needed only when the mux
// selects that arm. Ports and sources stay outside. Cones with
// fewer than min costly operations are dropped. It returns, per node ID,
// the innermost region owning the node, and per mux the guarded arms.
func guards(f *rtl.Module, live []bool, min int) (owner []region, arms map[*rtl.Node][3]bool) {
	n := len(f.Nodes)
	owner = make([]region, n)
	arms = map[*rtl.Node][3]bool{}
	if min <= 0 {
		return owner, arms
	}
	users := make([][]*rtl.Node, n)
	for _, x := range f.Nodes {
		if !live[x.ID] {
			continue
		}
		for _, a := range x.Args {
			users[a.ID] = append(users[a.ID], x)
		}
	}
	port := make([]bool, n)
	for _, p := range f.Outputs {
		port[p.Node.ID] = true
	}
	movable := func(x *rtl.Node) bool {
		return live[x.ID] && !port[x.ID] && !x.Op.IsSource()
	}
	size := make([]int, n) // node count of the cone owning each node (nested cones are strictly smaller)
	in := make([]bool, n)
	for _, m := range f.Nodes {
		if m.Op != rtl.OpMux || !live[m.ID] {
			continue
		}
		for k := 1; k <= 2; k++ {
			a := m.Args[k]
			if !movable(a) || len(users[a.ID]) != 1 { // used by m once, as this arm only
				continue
			}
			// MFFC of a: walk down the IDs (a topological order); a node
			// joins when all its users have joined.
			var cone []*rtl.Node
			in[a.ID] = true
			cone = append(cone, a)
			cost := costly(a)
			for id := a.ID - 1; id >= 0; id-- {
				x := f.Nodes[id]
				if !movable(x) || len(users[id]) == 0 {
					continue
				}
				all := true
				for _, u := range users[id] {
					if !in[u.ID] {
						all = false
						break
					}
				}
				if all {
					in[id] = true
					cone = append(cone, x)
					cost += costly(x)
				}
			}
			for _, x := range cone {
				in[x.ID] = false
			}
			if cost < min {
				continue
			}
			g := arms[m]
			g[k] = true
			arms[m] = g
			for _, x := range cone { // cones nest or are disjoint: keep the innermost
				if owner[x.ID].mux == nil || len(cone) < size[x.ID] {
					owner[x.ID], size[x.ID] = region{m, k}, len(cone)
				}
			}
		}
	}
	return owner, arms
}

// costly returns 1 for an operation that costs at least one instruction
// after optimization, 0 for wiring (slices, extensions, reinterpretation,
// concatenation, constant shifts, constants).
func costly(x *rtl.Node) int {
	switch x.Op {
	case rtl.OpSlice, rtl.OpZExt, rtl.OpSExt, rtl.OpAs, rtl.OpConcat, rtl.OpShlC, rtl.OpLShrC, rtl.OpConst:
		return 0
	}
	return 1
}

// emitRegion lowers, in ID order, the live nodes owned by region r into
// the current block (guarded muxes open their own blocks).
func (l *lowerer) emitRegion(r region, from, to int) error {
	for id := from; id < to; id++ {
		x := l.f.Nodes[id]
		if !l.live[id] || x.Op == rtl.OpInput || l.owner[id] != r {
			continue
		}
		if g, ok := l.arms[x]; ok {
			if err := l.guardedMux(x, g); err != nil {
				return err
			}
		} else if err := l.node(x); err != nil {
			return err
		}
		l.ops++
	}
	return nil
}

// guardedMux lowers mux m whose arms g[1] (true) and/or g[2] (false) are
// guarded: a conditional branch on the select, each guarded arm's cone in
// its own block, and a phi in the join block.
func (l *lowerer) guardedMux(m *rtl.Node, g [3]bool) error {
	sel := l.vals[m.Args[0].ID]
	head := l.blk
	join := ir.NewBlock(m.Name + ".j")
	var inc [3]*ir.Block // block each arm's value arrives from
	var dst [3]*ir.Block // first block of each arm
	for k := 1; k <= 2; k++ {
		if !g[k] {
			inc[k], dst[k] = head, join
			continue
		}
		suffix := ".t"
		if k == 2 {
			suffix = ".f"
		}
		dst[k] = l.fn.NewBlock(m.Name + suffix)
		l.blk = dst[k]
		a := m.Args[k]
		// The cone's nodes all lie below its root.
		if err := l.emitRegion(region{m, k}, 0, a.ID+1); err != nil {
			return err
		}
		inc[k] = l.blk
		l.blk.NewBr(join)
	}
	head.NewCondBr(sel, dst[1], dst[2])
	join.Parent = l.fn
	l.fn.Blocks = append(l.fn.Blocks, join)
	l.blk = join
	l.vals[m.ID] = named(join.NewPhi(ir.NewIncoming(l.vals[m.Args[1].ID], inc[1]),
		ir.NewIncoming(l.vals[m.Args[2].ID], inc[2])), m.Name)
	return nil
}
