package rtl

import "testing"

// TestRegisterTwoPhase checks clock-edge semantics: a two-register swap
// (a <= b, b <= a) must exchange values on every edge, which only holds if all
// next values are computed before any commits; plus reset and enable.
func TestRegisterTwoPhase(t *testing.T) {
	m := NewModule("t", "")
	en := m.In("en", 1, false)
	a := m.Reg("a", 8, false, true, BitsOf(0x11))
	b := m.Reg("b", 8, false, true, BitsOf(0x22))
	m.SetNext(a, b, nil)
	m.SetNext(b, a, en)
	m.Out("qa", a, "")
	m.Out("qb", b, "")
	sim, err := NewSim(m)
	if err != nil {
		t.Fatal(err)
	}
	sim.SetInUint(0, 1)
	sim.Step(true) // reset
	steps := []struct {
		en     uint64
		qa, qb uint64 // after the edge, hand-computed
	}{
		{1, 0x22, 0x11},
		{1, 0x11, 0x22},
		{0, 0x22, 0x22}, // b holds, a takes b
		{1, 0x22, 0x22},
	}
	for i, s := range steps {
		sim.SetInUint(0, s.en)
		sim.Step(false)
		if qa, qb := sim.Out(0).Uint64(), sim.Out(1).Uint64(); qa != s.qa || qb != s.qb {
			t.Fatalf("edge %d: a=%#x b=%#x, want %#x %#x", i, qa, qb, s.qa, s.qb)
		}
	}
}

// TestMemReadFirst checks the RAM: registered read, read-first when reading
// and writing one address at the same edge, writes visible to later reads.
func TestMemReadFirst(t *testing.T) {
	m := NewModule("t", "")
	we := m.In("we", 1, false)
	wa := m.In("wa", 4, false)
	wd := m.In("wd", 16, false)
	ra := m.In("ra", 4, false)
	mem := m.NewMem("tab", 16, 4, "")
	rd := m.MemRead(mem, ra, m.Const(1, false, 1), "rd")
	m.MemWrite(mem, we, wa, wd)
	m.Out("q", rd, "")
	sim, err := NewSim(m)
	if err != nil {
		t.Fatal(err)
	}
	set := func(w, a, d, r uint64) {
		sim.SetInUint(0, w)
		sim.SetInUint(1, a)
		sim.SetInUint(2, d)
		sim.SetInUint(3, r)
	}
	set(1, 3, 0xbeef, 3)
	sim.Step(false)
	if q := sim.Out(0).Uint64(); q != 0 {
		t.Fatalf("read of address 3 at the writing edge = %#x, want old contents 0", q)
	}
	set(0, 0, 0, 3)
	sim.Step(false)
	if q := sim.Out(0).Uint64(); q != 0xbeef {
		t.Fatalf("read of address 3 after the write = %#x, want 0xbeef", q)
	}
}

// TestFlattenInstance checks that a module instantiated twice (a pipelined
// adder) behaves inside its parent as the parent wired by hand would.
func TestFlattenInstance(t *testing.T) {
	sub := NewModule("addreg", "")
	x := sub.In("x", 8, false)
	y := sub.In("y", 8, false)
	sub.Out("s", sub.Delay(sub.Add(x, y), "s_q"), "")

	top := NewModule("top", "")
	a := top.In("a", 8, false)
	b := top.In("b", 8, false)
	u0 := top.Instance(sub, "u0", []*Node{a, b})
	u1 := top.Instance(sub, "u1", []*Node{u0.Out("s"), b})
	top.Out("z", u1.Out("s"), "")
	sim, err := NewSim(top)
	if err != nil {
		t.Fatal(err)
	}
	if len(sim.Module().Insts) != 0 || len(sim.Module().Regs) != 2 {
		t.Fatalf("flattened: %d instances, %d registers; want 0 and 2", len(sim.Module().Insts), len(sim.Module().Regs))
	}
	// z(n) = a(n-2) + b(n-2) + b(n-1) mod 256.
	as := []uint64{1, 2, 3, 250, 7}
	bs := []uint64{10, 20, 30, 40, 50}
	for i := range as {
		sim.SetInUint(0, as[i])
		sim.SetInUint(1, bs[i])
		if i >= 2 {
			want := (as[i-2] + bs[i-2] + bs[i-1]) & 0xff
			if got := sim.Out(0).Uint64(); got != want {
				t.Fatalf("cycle %d: z=%d, want %d", i, got, want)
			}
		}
		sim.Step(false)
	}
}

// TestPipelineEquivalence checks that pipelining a datapath (a widest-operand
// multiply-round-saturate chain) with 0..6 stages keeps every output equal to
// the combinational module's, delayed by exactly Stages cycles with
// out_valid marking it, while a new input enters every cycle (II = 1).
func TestPipelineEquivalence(t *testing.T) {
	comb := NewModule("mrs", "")
	a := comb.In("a", 64, true)
	b := comb.In("b", 64, false)
	c := comb.In("c", 16, false)
	p := comb.Mul(comb.AsSigned(comb.ZExt(b, 65)), a)
	s := comb.Add(comb.Trunc(p, 80), comb.Ext(comb.AsSigned(comb.ZExt(c, 80)), 80))
	comb.Out("y", comb.Slice(s, 20, 40), "")
	comb.Out("z", comb.CLZ(comb.Slice(p, 64, 64)), "")
	for stages := 0; stages <= 6; stages++ {
		pm, rep, err := Pipeline(comb, PipelineOptions{Name: "mrs_p", Stages: stages, ValidIn: "in_valid", ValidOut: "out_valid"})
		if err != nil {
			t.Fatal(err)
		}
		if stages > 0 && len(rep) != stages {
			t.Fatalf("stages=%d: %d stage reports", stages, len(rep))
		}
		ref, _ := NewSim(comb)
		sim, err := NewSim(pm)
		if err != nil {
			t.Fatal(err)
		}
		sim.SetIn(3, BitsOf(0))
		sim.Step(true)
		var want [][2]Bits
		r := uint64(12345)
		for cyc := 0; cyc < 40; cyc++ {
			r = r*6364136223846793005 + 1442695040888963407
			in := []uint64{r, r * 31, r >> 48}
			if cyc%7 == 0 {
				in = []uint64{1 << 63, ^uint64(0), 0xffff} // widest operands
			}
			for i, v := range in {
				ref.SetInUint(i, v)
				sim.SetInUint(i, v)
			}
			sim.SetInUint(3, 1)
			want = append(want, [2]Bits{ref.Out(0), ref.Out(1)})
			if k := cyc - stages; k >= 0 {
				if sim.Out(2).Uint64() != 1 {
					t.Fatalf("stages=%d cycle %d: out_valid low", stages, cyc)
				}
				if sim.Out(0) != want[k][0] || sim.Out(1) != want[k][1] {
					t.Fatalf("stages=%d cycle %d: y=%s z=%s, want %s %s", stages, cyc, sim.Out(0), sim.Out(1), want[k][0], want[k][1])
				}
			} else if sim.Out(2).Uint64() != 0 {
				t.Fatalf("stages=%d cycle %d: out_valid high before the pipeline filled", stages, cyc)
			}
			sim.Step(false)
		}
	}
}
