package coverage

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/hpccgold/hpccgold/cc/ldcp"
	"github.com/hpccgold/hpccgold/grade"
	"github.com/hpccgold/hpccgold/rtl"
	"github.com/hpccgold/hpccgold/rtl/ldcprtl"
)

// TestLDCPCwZeroConstantsSurvive checks, on the description, the argument
// docs/grade.md gives for the four surviving mutants of the 1/cw unit's
// "x == 0" compares (x the unit's input: st_cw, or the MD result on an ECE
// ACK), whose constant 0 becomes 2^32 - 1 or 2^31 (grade #197, #198,
// #256, #257): such a mutant reads another 1/cw only at x = 0 and x = K
// (the new constant); at x = 0 both reach the saturated 1/cw (checked
// exactly), and at x = K >= 2^31 > CwMax the 1/cw reaches no output: the
// AI sum st_cw + inc >= K clamps to CwMax whatever inc is, and no timer
// arms (cw is not below 1 packet before or after). The check is
// differential, not a proof: 40 000 transactions for each of x = 2^32 - 1,
// 2^31 and 0 (st_cw = x, and half of them ECE ACKs whose MD result is x;
// about 72 000 reach x), every other field random (every event kind and
// stage, NAKs, PSN geometries), give the unchanged description's outputs
// under each mutant. Oracle: the description (rtl.Sim) against its
// mutants (grade.Apply).
func TestLDCPCwZeroConstantsSurvive(t *testing.T) {
	rm, err := ldcprtl.UpdateComb(ldcp.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	f, err := rtl.Flatten(rm)
	if err != nil {
		t.Fatal(err)
	}
	sites, err := grade.Sites(rm, 1)
	if err != nil {
		t.Fatal(err)
	}
	// The unit's input x: the operand of the "x == 0" compares, the input
	// of the leading-zero count.
	byName := map[string]*rtl.Node{}
	for _, n := range f.Nodes {
		byName[n.Name] = n
	}
	var muts []grade.Mutant
	var x *rtl.Node
	for _, mu := range sites {
		c := byName[mu.Node]
		if c == nil || c.Op != rtl.OpConst || c.Width != 32 || !c.Value.IsZero() || mu.Operator != grade.ConstDec && mu.Operator != grade.ConstMSB {
			continue
		}
		for _, n := range f.Nodes {
			if n.Op == rtl.OpEq && n.Args[1] == c && n.Args[0].Op == rtl.OpMux {
				x = n.Args[0]
				muts = append(muts, mu)
			}
		}
	}
	if len(muts) != 4 || x == nil {
		t.Fatalf("%d mutants of a 32-bit x == 0 compare's constant (const-1, const-msb), want 4", len(muts))
	}
	orig, err := rtl.NewSim(f)
	if err != nil {
		t.Fatal(err)
	}
	sims := make([]*rtl.Sim, len(muts))
	for i, mu := range muts {
		mm, err := grade.Apply(rm, mu)
		if err != nil {
			t.Fatal(err)
		}
		if sims[i], err = rtl.NewSim(mm); err != nil {
			t.Fatal(err)
		}
	}
	outs := func(s *rtl.Sim) []rtl.Bits {
		var vs []rtl.Bits
		for i := range f.Outputs {
			vs = append(vs, s.Out(i))
		}
		return vs
	}
	set := func(name string, v uint64) {
		for _, s := range append([]*rtl.Sim{orig}, sims...) {
			if err := s.SetInput(name, rtl.BitsOf(v)); err != nil {
				t.Fatal(err)
			}
		}
	}
	r := rand.New(rand.NewPCG(14, 242))
	hitK := 0
	for _, k := range []uint64{1<<32 - 1, 1 << 31, 0} {
		for it := 0; it < 40000; it++ {
			for _, in := range f.Inputs {
				set(in.Name, r.Uint64()&(uint64(1)<<uint(in.Width)-1))
			}
			set("st_cw", k)
			if it%2 == 1 { // an ECE ACK whose MD result st_cw - n*beta is k
				una, ack := r.Uint64()&0xffffff, r.Uint64()&0xffffff
				n := min((ack-una)&0xffffff, 255)
				set("ev_kind", 2)
				set("ev_ece", 1)
				set("st_una", una)
				set("ev_ack_seq", ack)
				set("st_cw", (k+n<<19)&(1<<32-1))
			}
			orig.Eval()
			if orig.NodeValue(x.ID).Uint64() != k {
				continue
			}
			hitK++
			want := outs(orig)
			for i, s := range sims {
				s.Eval()
				if got := outs(s); !slices.Equal(got, want) {
					t.Fatalf("mutant %s: x = %#x: outputs differ", muts[i], k)
				}
			}
		}
	}
	if hitK < 60000 {
		t.Fatalf("only %d transactions had x at 0 or a mutant's constant", hitK)
	}
}
