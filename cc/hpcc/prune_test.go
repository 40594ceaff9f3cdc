package hpcc

import (
	"math/big"
	"math/bits"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"

	"github.com/hpccgold/hpccgold/fixedpoint"
	"github.com/hpccgold/hpccgold/telemetry"
)

// pruneConfigs are the configurations whose max select is pruned
// (prune.go): both encodings and modes, dynamic W_ai, sojourn, and format
// sets that move every shift of the bound (four of the five of
// TestFastMatchesSpecFormats; the fifth is off: TestHopBoundCoverage),
// saturate u' (a narrow U), coarsen the 1/dts
// unit (a 3-bit table of 8-bit entries) or refine it (three
// Newton-Raphson steps), and widen the slack (a narrow RecipDts).
func pruneConfigs() []namedConfig {
	cs := append(testConfigs(), sojournConfigs()...)
	for _, m := range []struct {
		label string
		mod   func(*Config)
	}{
		{"eta-u28.0", func(c *Config) { c.Formats.Eta = fixedpoint.MustFormat("u28.0") }},
		{"u36.8-eta-u20.0", func(c *Config) {
			c.Formats.U = fixedpoint.MustFormat("u36.8")
			c.Formats.Eta = fixedpoint.MustFormat("u20.0")
		}},
		{"entry40", func(c *Config) { c.RecipDts.EntryBits = 40; c.RecipU.EntryBits = 40; c.Mode = Receiver }},
		{"nr2", func(c *Config) { c.RecipDts.NRSteps = 2; c.RecipU.NRSteps = 2 }},
		{"nr3", func(c *Config) { c.RecipDts = RecipParams{TableBits: 6, EntryBits: 12, NRSteps: 3} }},
		{"coarse-recip", func(c *Config) { c.RecipDts = RecipParams{TableBits: 3, EntryBits: 8, NRSteps: 1} }},
		{"u-u28.4", func(c *Config) { c.Formats.U = fixedpoint.MustFormat("u28.4") }},
		{"recip-dts-u40.1", func(c *Config) { c.Formats.RecipDts = fixedpoint.MustFormat("u40.1") }},
	} {
		for _, e := range telemetry.Encodings() {
			c := DefaultConfigFor(e)
			m.mod(&c)
			cs = append(cs, namedConfig{c, e.String() + "/" + m.label})
		}
	}
	return cs
}

// TestHopBoundCoverage: the bound is on for every configuration of
// pruneConfigs, and off (every hop computed) for MultiQ, whose above-wB
// cases take other formulas, for a 1/dts unit without Newton-Raphson
// steps, which the bound's reciprocal lemma does not cover, and for 48-bit
// table entries, whose product with a 32-bit dB exceeds 64 bits.
func TestHopBoundCoverage(t *testing.T) {
	for _, nc := range pruneConfigs() {
		if d := mustDP(t, nc.Config); !d.fast.hb.on {
			t.Errorf("%s: hop bound off, want on", nc.name())
		}
	}
	off := multiQConfigs()
	for _, e := range telemetry.Encodings() {
		c := DefaultConfigFor(e)
		c.RecipDts.NRSteps = 0
		off = append(off, namedConfig{c, e.String() + "/nr0"})
		if e == telemetry.IFA {
			c = DefaultConfigFor(e)
			c.Formats.Term, c.TableEntryBits = fixedpoint.MustFormat("u48.28"), 48
			off = append(off, namedConfig{c, e.String() + "/term-u48.28"})
		}
	}
	for _, nc := range off {
		if d := mustDP(t, nc.Config); d.fast.hb.on {
			t.Errorf("%s: hop bound on, want off", nc.name())
		}
	}
}

// hopOperands are a valid hop's operands of the max select: dts in [1,
// MaxDeltaTsNs], the txBytes difference, the queue sample and a speed code
// whose tables are defined.
type hopOperands struct {
	Dts, DB, Q uint64
	Code       uint8
}

// checkHopBound checks, for one hop of datapath d, what prune.go proves:
// the reciprocal lemma rd <= g[idx]*2^(E-p-z) + 1/2 (exact integers), the
// r_term bound rT <= rTermUpper, u' <= upper, and that the pruned path's
// exact u' (hopU) is the specification's (specHopU). It returns a
// description of the first violation, "" if none.
func checkHopBound(d *Datapath, h hopOperands) string {
	p := &d.fast
	hb := &p.hb
	code := h.Code & 15
	rd := p.rDts.Recip(h.Dts)
	pos := bits.Len64(h.Dts) - 1
	idx := h.Dts << uint(int(hb.mShift)-pos) >> hb.iShift & hb.gMask
	e := d.fRD.F() + d.recipDts.Config().In.F()
	// 2*rd*2^(z+pos) <= 2*g*2^e + 2^(z+pos)
	lhs := new(big.Int).Lsh(new(big.Int).SetUint64(rd), uint(1+hb.z+pos))
	rhs := new(big.Int).Lsh(new(big.Int).SetUint64(hb.g[idx]), uint(1+e))
	rhs.Add(rhs, new(big.Int).Lsh(big.NewInt(1), uint(hb.z+pos)))
	if lhs.Cmp(rhs) > 0 {
		return "reciprocal lemma: rd above g[idx]*2^(E-p-z) + 1/2"
	}
	x := p.cTx.MulCast(h.DB, rd)
	rT := p.cR.MulCast(x, p.kr[code])
	if up := hb.rTermUpper(h.Dts, h.DB, p.kr[code], hb.c[code]); rT > up {
		return "r_term above rTermUpper"
	}
	u := p.hopU(h.Dts, h.DB, h.Q, code)
	if want := d.specHopU(h.Dts, h.DB, h.Q, code); u != want {
		return "hopU differs from specHopU"
	}
	if hi := p.upper(h.Dts, h.DB, h.Q, code); u > hi {
		return "u' above upper"
	}
	return ""
}

// edgeValues returns 0, 1, 2, every 2^k-1, 2^k, 2^k+1 below 2^w, and
// 2^w-2, 2^w-1, clipped to [lo, hi].
func edgeValues(w int, lo, hi uint64) []uint64 {
	vs := []uint64{0, 1, 2}
	for k := 1; k < w; k++ {
		vs = append(vs, 1<<uint(k)-1, 1<<uint(k), 1<<uint(k)+1)
	}
	vs = append(vs, 1<<uint(w)-2, 1<<uint(w)-1, hi, hi-1)
	var out []uint64
	for _, v := range vs {
		if v >= lo && v <= hi {
			out = append(out, v)
		}
	}
	return out
}

// validCodes returns the speed codes whose tables are defined.
func validCodes(d *Datapath) []uint8 {
	var cs []uint8
	for c := 0; c < 16; c++ {
		if d.speedOK[c] {
			cs = append(cs, uint8(c))
		}
	}
	return cs
}

// TestHopBoundContains: for every configuration of pruneConfigs, the
// bound of prune.go holds (checkHopBound: the reciprocal lemma, r_term,
// u', and hopU equal to the specification's op-by-op u') on (1) every
// combination of edge operands: dts at 1, 2, every power of two and its
// neighbours, MaxDeltaTsNs; dB and q at 0, 1, powers of two and their
// neighbours, their maxima; every defined speed code, and (2) gopter-drawn
// operands, uniform over each field's range or near its edges. The oracle
// of u' is specHopU (fixedpoint Values); the bounds are checked against the
// exact integers.
func TestHopBoundContains(t *testing.T) {
	n := 4000
	if testing.Short() {
		n = 500
	}
	for _, nc := range pruneConfigs() {
		d := mustDP(t, nc.Config)
		c := d.cfg
		maxDB, maxQ := uint64(d.txMask), uint64(d.qMask)
		codes := validCodes(d)
		bad := 0
		check := func(h hopOperands) bool {
			if msg := checkHopBound(d, h); msg != "" {
				if bad++; bad <= 3 {
					t.Errorf("%s: %+v: %s", nc.name(), h, msg)
				}
				return false
			}
			return true
		}
		// Edge combinations (dB and q thinned to every fifth edge value
		// to keep the product small; both ends are kept).
		thin := func(vs []uint64) []uint64 {
			var out []uint64
			for i, v := range vs {
				if i%5 == 0 || i == len(vs)-1 {
					out = append(out, v)
				}
			}
			return out
		}
		dtsE := edgeValues(bits.Len64(c.MaxDeltaTsNs), 1, c.MaxDeltaTsNs)
		dbE := thin(edgeValues(d.fDB.W, 0, maxDB))
		qE := thin(edgeValues(d.fQ.W, 0, maxQ))
		for _, dts := range dtsE {
			for _, db := range dbE {
				for _, q := range qE {
					for _, code := range codes {
						check(hopOperands{dts, db, q, code})
					}
				}
			}
		}
		edgeOr := func(lo, hi uint64) gopter.Gen {
			return gen.Frequency(map[int]gopter.Gen{
				3: gen.UInt64Range(lo, hi),
				1: gen.UInt64Range(lo, min(lo+16, hi)),
				2: gen.UInt64Range(hi-min(16, hi-lo), hi),
			})
		}
		props := gopter.NewProperties(params(n))
		props.Property("u' <= upper, r_term <= rTermUpper, rd <= lemma, hopU = specHopU", prop.ForAll(
			func(h hopOperands) bool { return check(h) },
			gen.Struct(reflect.TypeOf(hopOperands{}), map[string]gopter.Gen{
				"Dts":  gen.OneGenOf(edgeOr(1, c.MaxDeltaTsNs), gen.UInt64Range(1, min(20000, c.MaxDeltaTsNs))),
				"DB":   edgeOr(0, maxDB),
				"Q":    edgeOr(0, maxQ),
				"Code": gen.IntRange(0, len(codes)-1).Map(func(i int) uint8 { return codes[i] }),
			})))
		props.TestingRun(t)
	}
}

// TestPrunedMatchesFullTies: the pruned max select (Update) gives the
// next state and outputs of the full one (every hop computed: the same
// datapath with the bound off) and of UpdateSpec, on events built to tie
// or nearly tie: every slot of the path carries the same telemetry as
// slot 0, or the same but for a queue or txBytes difference of a few
// units, so that several hops' bounds reach the maximum and the lowest
// slot among equal u' must win, or (one slot in six) a queue or txBytes
// difference far from slot 0's, so that some hops are skipped; half the
// events have physical queue and rate magnitudes, so that u' does not
// saturate. The test counts both branches (two or more hops computed, a
// hop skipped) and wants each in at least 5% of the events. Random bits elsewhere (randomStateInput),
// the path and identities made to match so that the slots are valid.
func TestPrunedMatchesFullTies(t *testing.T) {
	n := 20000
	if testing.Short() {
		n = 3000
	}
	for _, nc := range pruneConfigs() {
		d := mustDP(t, nc.Config)
		full := *d
		full.fast.hb.on = false
		rng := rand.New(rand.NewPCG(16, 2))
		base := nc.BaseRTTNs
		multi, skipped := 0, 0
		for k := 0; k < n; k++ {
			st, in := randomStateInput(d, rng)
			st.Valid = true
			in.NHops = uint8(1 + rng.IntN(d.maxHops))
			st.NHops = in.NHops
			h0 := in.Hops[0]
			h0.SpeedCode = validCodes(d)[rng.IntN(len(validCodes(d)))]
			if k%2 == 0 {
				h0.Qlen = uint32(rng.IntN(1<<14)) & d.qMask
				h0.ResidenceNs = uint32(rng.IntN(1 << 14)) // the sojourn queue sample
			}
			s0 := st.Hops[0]
			r0 := d.record(&h0)
			s0.ID = r0.ID
			s0.Ts = r0.Ts - 1 - uint64(rng.IntN(3*int(base)))
			if d.enc == telemetry.Compact {
				s0.Ts &= 1<<telemetry.CompactTsBits - 1
			}
			if k%2 == 0 { // physical magnitudes, so that u' does not saturate
				s0.TxBytes = (h0.TxBytes - uint32(rng.IntN(1<<15))) & d.txMask
			}
			for i := 0; i < int(in.NHops); i++ {
				h, s := h0, s0
				switch rng.IntN(6) {
				case 4: // a hop far from the others
					h.Qlen = uint32(rng.IntN(1<<14)) & d.qMask
				case 5:
					s.TxBytes = (h.TxBytes - uint32(rng.IntN(1<<15))) & d.txMask
				case 1:
					h.Qlen = (h.Qlen + uint32(rng.IntN(5))) & d.qMask
				case 2:
					s.TxBytes = (s.TxBytes - uint32(rng.IntN(5))) & d.txMask
				case 3:
					s.Qlen = (s.Qlen + uint32(rng.IntN(5))) & d.qMask
				}
				in.Hops[i], st.Hops[i] = h, s
			}
			// Count the events that take both branches of the pruned
			// select: a hop skipped, and two or more hops computed.
			var dtsOf, dBOf, qOf [MaxHopsLimit]uint64
			var codeOf [MaxHopsLimit]uint8
			if valid := validHops(d, &st, &in, &dtsOf, &dBOf, &qOf, &codeOf); bits.OnesCount8(valid) >= 2 {
				var maxU uint64
				for v := valid; v != 0; v &= v - 1 {
					i := bits.TrailingZeros8(v)
					maxU = max(maxU, d.fast.hopU(dtsOf[i], dBOf[i], qOf[i], codeOf[i]))
				}
				cand := 0
				for v := valid; v != 0; v &= v - 1 {
					i := bits.TrailingZeros8(v)
					if d.fast.upper(dtsOf[i], dBOf[i], qOf[i], codeOf[i]) >= maxU {
						cand++
					}
				}
				if cand >= 2 {
					multi++
				}
				if cand < bits.OnesCount8(valid) {
					skipped++
				}
			}
			n1, o1 := d.Update(st, in)
			n2, o2 := full.Update(st, in)
			n3, o3 := d.UpdateSpec(st, in)
			if n1 != n2 || o1 != o2 || n1 != n3 || o1 != o3 {
				t.Fatalf("%s case %d: pruned and full differ\nstate %+v\ninput %+v\npruned %+v %+v\nfull   %+v %+v\nspec   %+v %+v", nc.name(), k, st, in, n1, o1, n2, o2, n3, o3)
			}
		}
		if multi < n/20 || skipped < n/20 {
			t.Errorf("%s: of %d events, %d computed two or more hops and %d skipped one: want at least %d of each", nc.name(), n, multi, skipped, n/20)
		}
	}
}

// validHops runs step's slot loop (lines 2-3) on copies: it returns the
// valid-slot mask and each valid slot's operands, as step computes them.
func validHops(d *Datapath, st *State, in *Input, dtsOf, dBOf, qOf *[MaxHopsLimit]uint64, codeOf *[MaxHopsLimit]uint8) uint8 {
	nh := uint64(in.NHops) & d.nhMask
	if nh != uint64(st.NHops)&d.nhMask || nh > uint64(d.maxHops) {
		return 0
	}
	var valid uint8
	for i := 0; i < int(nh); i++ {
		h, hs := &in.Hops[i], &st.Hops[i]
		r := d.record(h)
		code := h.SpeedCode & d.codeMask & 15
		dts := d.deltaTs(r.Ts, hs.Ts)
		if !d.speedOK[code] || r.ID != hs.ID&d.idMask || dts-1 >= d.cfg.MaxDeltaTsNs {
			continue
		}
		valid |= 1 << uint(i)
		dtsOf[i], codeOf[i] = dts, code
		dBOf[i] = (uint64(r.TxBytes) - uint64(hs.TxBytes)) & uint64(d.txMask)
		qOf[i] = uint64(min(r.Qlen, hs.Qlen&d.qMask))
	}
	return valid
}
