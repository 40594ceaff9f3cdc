package ldcpvec

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/fieldtable"
	"github.com/hpccgold/hpccgold/rtl"
	"github.com/hpccgold/hpccgold/rtl/ldcprtl"
)

// TestRecipSeeded: the integer 1/cw unit with its own table (recipSeeded
// with no entry replaced) equals the datapath's unit
// (fixedpoint.Reciprocal) on every cw register below 2^20, at every power
// of two and one either side, and on 200 000 random registers, for each
// configuration. Oracle: fixedpoint.Reciprocal.
func TestRecipSeeded(t *testing.T) {
	for name, cfg := range configs() {
		m, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		check := func(x uint64) {
			x &= m.cwMask
			if got, want := m.recipSeeded(x, -1, 0), m.recipOf(x); got != want {
				t.Fatalf("%s: cw %#x: recipSeeded %#x, unit %#x", name, x, got, want)
			}
		}
		for x := uint64(0); x < 1<<20; x++ {
			check(x)
		}
		for b := 0; b < cfg.Formats.Cw.W; b++ {
			check(uint64(1)<<b - 1)
			check(uint64(1) << b)
			check(uint64(1)<<b + 1)
		}
		r := rand.New(rand.NewPCG(1, 2))
		for range 200000 {
			check(r.Uint64())
		}
	}
}

// TestSeedEdgesKillEveryEntry: for every entry of the 1/cw table, the
// description ldcp_update (ldcprtl.UpdateComb, flattened, evaluated by
// rtl.Sim) with that entry one higher, and with it one lower, gives an
// output different from the unchanged description's on some vector of
// rom_seed_edges: the ROM mutants grade draws (rom+1, rom-1) are killed
// whichever entries its seed picks. The unchanged description's outputs
// equal the golden datapath's on those vectors. Oracle: the description
// and its mutants, evaluated by rtl.Sim.
func TestSeedEdgesKillEveryEntry(t *testing.T) {
	for name, cfg := range configs() {
		m, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		rm, err := ldcprtl.UpdateComb(cfg)
		if err != nil {
			t.Fatal(err)
		}
		f, err := rtl.Flatten(rm)
		if err != nil {
			t.Fatal(err)
		}
		var rom *rtl.Node
		for _, n := range f.Nodes {
			if n.Op == rtl.OpROM && strings.HasPrefix(n.Name, "recip_rom") {
				rom = n
			}
		}
		if rom == nil || len(rom.ROM) != len(m.recipTable) {
			t.Fatalf("%s: no 1/cw ROM of %d entries in the description", name, len(m.recipTable))
		}
		sim, err := rtl.NewSim(f)
		if err != nil {
			t.Fatal(err)
		}
		in, out := m.Input(), m.Output()
		word := make([]uint64, in.Words())
		ow := make([]uint64, out.Words())
		// run evaluates the probe's vector and returns every output port.
		run := func(p seedProbe) []rtl.Bits {
			a := m.stable(p.cw, 400, uint32(p.n))
			if err := m.d.PackInput(a, ackEv(a, uint32(p.n), false, false), word); err != nil {
				t.Fatal(err)
			}
			for _, fd := range in.Fields {
				if err := sim.SetInput(fd.Name, rtl.BitsOf(fieldtable.GetBits(word, fd.Offset, fd.Width))); err != nil {
					t.Fatal(err)
				}
			}
			sim.Eval()
			var vs []rtl.Bits
			for _, fd := range out.Fields {
				v, err := sim.Output(fd.Name)
				if err != nil {
					t.Fatal(err)
				}
				vs = append(vs, v)
			}
			return vs
		}
		probes := map[int][]seedProbe{}
		for _, p := range m.edge.seeds {
			probes[p.idx] = append(probes[p.idx], p)
		}
		emax := uint64(1)<<uint(m.recip.Config().Entry.W) - 1
		killed := 0
		for idx := range m.recipTable {
			ps := probes[idx]
			if len(ps) == 0 {
				t.Errorf("%s: entry %d has no probe", name, idx)
				continue
			}
			want := make([][]rtl.Bits, len(ps))
			for j, p := range ps {
				want[j] = run(p)
				st := m.stable(p.cw, 400, uint32(p.n))
				next, o := m.d.Update(st, ackEv(st, uint32(p.n), false, false))
				if err := m.d.PackOutput(next, o, ow); err != nil {
					t.Fatal(err)
				}
				for k, fd := range out.Fields {
					if g := fieldtable.GetBits(ow, fd.Offset, fd.Width); want[j][k] != rtl.BitsOf(g) {
						t.Fatalf("%s: probe %+v: %s description %v, datapath %#x", name, p, fd.Name, want[j][k], g)
					}
				}
			}
			orig := rom.ROM[idx]
			for _, d := range []int{+1, -1} {
				v := orig.Uint64()
				if d > 0 && v == emax || d < 0 && v == 0 {
					continue
				}
				rom.ROM[idx] = rtl.BitsOf(uint64(int64(v) + int64(d)))
				shown := false
				for j, p := range ps {
					if !slices.Equal(run(p), want[j]) {
						shown = true
					}
				}
				rom.ROM[idx] = orig
				if !shown {
					t.Errorf("%s: entry %d %+d: no output of rom_seed_edges changes", name, idx, d)
				} else {
					killed++
				}
			}
		}
		t.Logf("%s: %d entry mutants (+1, -1) shown by %d vectors", name, killed, len(m.edge.seeds))
	}
}
