package hpcc

import (
	"math/rand/v2"
	"testing"

	"github.com/hpccgold/hpccgold/fixedpoint"
	"github.com/hpccgold/hpccgold/telemetry"
)

// TestRawRecipMatchesUnit: the compiled reciprocal units (fixedpoint
// raw plans built from the datapath's units) equal
// fixedpoint.Reciprocal.Recip bit for bit on every input of the small units
// and on 200k random inputs plus all powers of two and their neighbours of
// the wide ones. Oracle: package fixedpoint.
func TestRawRecipMatchesUnit(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for _, nc := range testConfigs() {
		d := mustDP(t, nc.Config)
		for _, u := range []struct {
			name string
			r    *fixedpoint.Reciprocal
			raw  *fixedpoint.RawReciprocal
		}{{"recip_dts", d.recipDts, &d.fast.rDts}, {"recip_u", d.recipU, &d.fast.rU}, {"recip_n", d.recipN, &d.fast.rN}} {
			if u.r == nil {
				continue
			}
			in := u.r.Config().In
			check := func(x uint64) {
				v, _ := fixedpoint.FromBits64(in, x)
				want, err := u.r.Recip(v)
				if err != nil {
					t.Fatal(err)
				}
				if got := u.raw.Recip(x & mask64(in.W)); got != want.RawUint() {
					t.Fatalf("%s %s: recip(%d) = %d, want %d", nc.name(), u.name, x, got, want.RawUint())
				}
			}
			if in.W <= 16 {
				for x := uint64(0); x < 1<<uint(in.W); x++ {
					check(x)
				}
				continue
			}
			for b := 0; b < in.W; b++ {
				for _, x := range []uint64{1 << uint(b), 1<<uint(b) - 1, 1<<uint(b) + 1} {
					check(x & mask64(in.W))
				}
			}
			for k := 0; k < 200000; k++ {
				check(rng.Uint64() >> uint(rng.IntN(64)) & mask64(in.W))
			}
		}
	}
}

// TestFastMatchesSpec: Update (compiled integer operations) and UpdateSpec
// (fixedpoint Values, the documented op sequence) give identical next states
// and outputs for every mode and encoding, with and without MultiQ, on random bit patterns of every
// field (the vectors' random level), on physical step cases and along long
// traces. Oracle: UpdateSpec.
func TestFastMatchesSpec(t *testing.T) {
	n := 30000
	if testing.Short() {
		n = 5000
	}
	for _, nc := range append(append(testConfigs(), multiQConfigs()...), sojournConfigs()...) {
		d := mustDP(t, nc.Config)
		rng := rand.New(rand.NewPCG(3, 4))
		for k := 0; k < n; k++ {
			st, in := randomStateInput(d, rng)
			if k%2 == 0 { // half with a matching hop count and identities, so slots are valid
				st.NHops = in.NHops
				for i := range in.Hops {
					r := d.record(&in.Hops[i])
					st.Hops[i].ID = r.ID
					st.Hops[i].Ts = r.Ts - uint64(rng.IntN(3*int(nc.BaseRTTNs)))
				}
			}
			n1, o1 := d.Update(st, in)
			n2, o2 := d.UpdateSpec(st, in)
			if n1 != n2 || o1 != o2 {
				t.Fatalf("%s case %d: Update and UpdateSpec differ\nstate %+v\ninput %+v\nfast %+v %+v\nspec %+v %+v", nc.name(), k, st, in, n1, o1, n2, o2)
			}
		}
		g := newTraceGen(nc.Config, 9)
		st := d.InitialState()
		for k := 0; k < n/3; k++ {
			in := g.next()
			n1, o1 := d.Update(st, in)
			n2, o2 := d.UpdateSpec(st, in)
			if n1 != n2 || o1 != o2 {
				t.Fatalf("%s trace ack %d: Update and UpdateSpec differ\nfast %+v %+v\nspec %+v %+v", nc.name(), k, n1, o1, n2, o2)
			}
			st = n1
		}
	}
}

// TestFastMatchesSpecFormats: Update equals UpdateSpec (the oracle) for
// format sets other than the defaults, which move every cast shift and take
// the other branches of the compiled datapath: eta with more fraction bits
// than U (the U >= eta threshold rounds up), U with more than eta, a
// left-shifted u' (Term with fewer fraction bits than U) with wide table
// entries (q*kq not narrow), wide reciprocal entries (no narrow products),
// and two Newton-Raphson steps.
func TestFastMatchesSpecFormats(t *testing.T) {
	n := 6000
	if testing.Short() {
		n = 1500
	}
	for ci, mod := range []func(*Config){
		func(c *Config) { c.Formats.Eta = fixedpoint.MustFormat("u28.0") },
		func(c *Config) {
			c.Formats.U = fixedpoint.MustFormat("u36.8")
			c.Formats.Eta = fixedpoint.MustFormat("u20.0")
		},
		func(c *Config) { c.Formats.Term = fixedpoint.MustFormat("u48.28"); c.TableEntryBits = 48 },
		func(c *Config) { c.RecipDts.EntryBits = 40; c.RecipU.EntryBits = 40; c.Mode = Receiver },
		func(c *Config) { c.RecipDts.NRSteps = 2; c.RecipU.NRSteps = 2 },
	} {
		for _, e := range telemetry.Encodings() {
			c := DefaultConfigFor(e)
			mod(&c)
			d, err := NewDatapath(c)
			if err != nil {
				t.Fatalf("config %d %s: %v", ci, e, err)
			}
			rng := rand.New(rand.NewPCG(uint64(ci), 11))
			for k := 0; k < n; k++ {
				st, in := randomStateInput(d, rng)
				if k%2 == 0 {
					st.NHops = in.NHops
					for i := range in.Hops {
						r := d.record(&in.Hops[i])
						st.Hops[i].ID = r.ID
						st.Hops[i].Ts = r.Ts - uint64(rng.IntN(3*int(c.BaseRTTNs)))
					}
				}
				n1, o1 := d.Update(st, in)
				n2, o2 := d.UpdateSpec(st, in)
				if n1 != n2 || o1 != o2 {
					t.Fatalf("config %d %s case %d: Update and UpdateSpec differ\nstate %+v\ninput %+v\nfast %+v %+v\nspec %+v %+v", ci, e, k, st, in, n1, o1, n2, o2)
				}
			}
		}
	}
}

// TestUEtaThreshold: the compiled U >= eta test (a raw threshold on U)
// agrees with the exact comparison fixedpoint.Cmp (the oracle) for raw U
// values around the threshold, with eta having fewer, as many and more
// fraction bits than U.
func TestUEtaThreshold(t *testing.T) {
	for _, fm := range [][2]string{{"u32.8", "u24.0"}, {"u32.8", "u28.0"}, {"u36.8", "u20.0"}, {"u32.8", "u31.0"}} {
		c := DefaultConfigFor(telemetry.IFA)
		c.Formats.U, c.Formats.Eta = fixedpoint.MustFormat(fm[0]), fixedpoint.MustFormat(fm[1])
		d := mustDP(t, c)
		th := d.fast.uEta
		for u := th - min(th, 3); u <= th+3; u++ {
			v, err := fixedpoint.FromBits64(d.fU, u)
			if err != nil {
				t.Fatal(err)
			}
			if got, want := u >= th, fixedpoint.Cmp(v, d.eta) >= 0; got != want {
				t.Errorf("U=%s eta=%s: raw U %#x >= threshold %#x is %v; Cmp(U, eta) >= 0 is %v", fm[0], fm[1], u, th, got, want)
			}
		}
	}
}
