package dcqcn

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func mustRP(t testing.TB, c Config) *RP {
	t.Helper()
	r, err := NewRP(c)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

const us = 1000 // ns

// call is one RP call of a scenario.
type call struct {
	kind  string // "cnp", "sent", "adv"
	at    uint64 // ns
	bytes uint64
}

func play(r *RP, calls []call) (RPState, RPUpdate) {
	st := r.InitialState()
	var up RPUpdate
	for _, c := range calls {
		switch c.kind {
		case "cnp":
			st, up = r.OnCNP(st, c.at)
		case "sent":
			st, up = r.OnSent(st, c.at, c.bytes)
		default:
			st, up = r.Advance(st, c.at)
		}
	}
	return st, up
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// TestPaperPhases: the paper variant's phases on a 40 Gbps NIC (the
// paper's setting), expected values worked by hand from the paper's rules
// (section 3): a CNP cuts RC = RC*(1 - alpha/2) with RT = RC (clamp) and
// then alpha = (1-g)*alpha + g; each timer (55 us) or byte counter (10 MB)
// expiration with both counts <= F = 5 is fast recovery RC = (RT + RC)/2;
// with one count above F additive increase RT += 40 Mbps; with both above
// F hyper increase RT += (min(T, BC) - F)*400 Mbps; alpha decays by (1-g)
// every 55 us without a CNP.
func TestPaperPhases(t *testing.T) {
	r := mustRP(t, PaperConfig(40))
	g := 1.0 / 256
	cases := []struct {
		name      string
		calls     []call
		rc, rt    float64 // Gbps
		alpha     float64
		phase     Phase
		cuts, inc int // of the last call
	}{
		{"initial", nil, 40, 40, 1, NoPhase, 0, 0},
		{"first cnp", []call{{"cnp", 0, 0}}, 20, 40, 1, NoPhase, 1, 0},
		{"byte counter fast recovery", []call{{"cnp", 0, 0}, {"sent", us, 10_000_000}}, 30, 40, 1, FastRecovery, 0, 1},
		{"two expirations in one send", []call{{"cnp", 0, 0}, {"sent", us, 10_000_000}, {"sent", 2 * us, 25_000_000}}, 37.5, 40, 1, FastRecovery, 0, 2},
		{"timer fast recovery and alpha decay", []call{{"cnp", 0, 0}, {"adv", 55 * us, 0}}, 30, 40, 1 - g, FastRecovery, 0, 1},
		// Second CNP 1 us later: RT = RC = 20, RC = 10 (alpha 1). Then six
		// timer ticks at 56..331 us: five fast recoveries 15, 17.5, 18.75,
		// 19.375, 19.6875, then T = 6 > F: RT = 20.04, RC = 19.86375.
		{"timer additive increase", []call{{"cnp", 0, 0}, {"cnp", us, 0}, {"adv", 331 * us, 0}}, 19.86375, 20.04, math.Pow(1-g, 6), AdditiveIncrease, 0, 6},
		// Then 60 MB: BC = 1..5 with T = 6: additive increases RT 20.08 ..
		// 20.24, RC 19.971875, 20.0459375, 20.10296875, 20.151484375,
		// 20.1957421875; BC = 6: both above F, i = 1: RT = 20.64, RC =
		// 20.41787109375.
		{"hyper increase", []call{{"cnp", 0, 0}, {"cnp", us, 0}, {"adv", 331 * us, 0}, {"sent", 331 * us, 60_000_000}}, 20.41787109375, 20.64, math.Pow(1-g, 6), HyperIncrease, 0, 6},
	}
	for _, tc := range cases {
		st, up := play(r, tc.calls)
		if !near(Gbps(st.RC), tc.rc) || !near(Gbps(st.RT), tc.rt) || !near(st.Alpha, tc.alpha) || up.Phase != tc.phase || up.Cuts != tc.cuts || up.Increases != tc.inc {
			t.Errorf("%s: RC %.12g RT %.12g alpha %.12g phase %s cuts %d inc %d; want %v %v %v %s %d %d",
				tc.name, Gbps(st.RC), Gbps(st.RT), st.Alpha, up.Phase, up.Cuts, up.Increases, tc.rc, tc.rt, tc.alpha, tc.phase, tc.cuts, tc.inc)
		}
		if len(tc.calls) > 0 && up.RateBytesPerNs != st.RC {
			t.Errorf("%s: update rate %v, state RC %v", tc.name, up.RateBytesPerNs, st.RC)
		}
	}
}

// TestMellanoxPhases: the Mellanox variant with DefaultConfig (100 Gbps,
// the HPCC artifact's profile), values from rdma-hw.cc's rules worked by
// hand: the first CNP sets alpha = 1 and arms alpha updates every 1 us and
// decrease checks every 4 us; at 4 us alpha = (1-g)^4 (no CNP since) and the
// cut gives RC = 100*(1 - alpha/2) with RT kept at 100 (no clamp, no
// increase yet); increase ticks every 300 us from the cut: stage 0 fast
// recovery, stage 1 = F additive increase (RT capped at line rate), stage
// 2 hyper increase; a CNP after increases clamps RT = RC at the next check.
func TestMellanoxPhases(t *testing.T) {
	c := DefaultConfig()
	r := mustRP(t, c)
	g := c.G
	a4 := math.Pow(1-g, 4)
	rc4 := 100 * (1 - a4/2)
	fr := (100 + rc4) / 2
	ai := (100 + fr) / 2
	hai := (100 + ai) / 2
	// CNP at 905 us: alpha ticks at 905 (decay), 906 (CNP seen), 907, 908;
	// cut at 908 us with clamp (3 increases since the last cut).
	a905 := math.Pow(1-g, 905)
	a908 := math.Pow(1-g, 2) * ((1-g)*a905 + g)
	cases := []struct {
		name   string
		calls  []call
		rc, rt float64
		phase  Phase
		cuts   int
		wake   uint64
	}{
		{"first cnp: no cut yet", []call{{"cnp", 0, 0}}, 100, 100, NoPhase, 0, 4 * us},
		{"cut at the first check", []call{{"cnp", 0, 0}, {"adv", 4 * us, 0}}, rc4, 100, NoPhase, 1, 304 * us},
		{"fast recovery", []call{{"cnp", 0, 0}, {"adv", 304 * us, 0}}, fr, 100, FastRecovery, 1, 604 * us},
		{"additive increase", []call{{"cnp", 0, 0}, {"adv", 304 * us, 0}, {"adv", 604 * us, 0}}, ai, 100, AdditiveIncrease, 0, 904 * us},
		{"hyper increase", []call{{"cnp", 0, 0}, {"adv", 904 * us, 0}}, hai, 100, HyperIncrease, 1, 1204 * us},
		{"clamped cut", []call{{"cnp", 0, 0}, {"adv", 904 * us, 0}, {"cnp", 905 * us, 0}, {"adv", 908 * us, 0}}, hai * (1 - a908/2), hai, NoPhase, 1, 1208 * us},
	}
	for _, tc := range cases {
		st, up := play(r, tc.calls)
		w, ok := r.NextWake(st)
		if !near(Gbps(st.RC), tc.rc) || !near(Gbps(st.RT), tc.rt) || up.Phase != tc.phase || up.Cuts != tc.cuts || !ok || w != tc.wake {
			t.Errorf("%s: RC %.12g RT %.12g phase %s cuts %d wake %d %v; want %.12g %.12g %s %d %d",
				tc.name, Gbps(st.RC), Gbps(st.RT), up.Phase, up.Cuts, w, ok, tc.rc, tc.rt, tc.phase, tc.cuts, tc.wake)
		}
	}
	// A CNP 1 ns before a check is cut at that check; alpha does not move
	// the rate: between 4 us and 304 us the rate is constant.
	st, _ := play(r, []call{{"cnp", 0, 0}, {"adv", 4 * us, 0}})
	rc := st.RC
	st, up := r.Advance(st, 303*us)
	if st.RC != rc || up.Changed || up.AlphaUpdates != 299 {
		t.Errorf("between cut and first increase: RC %v -> %v, alpha updates %d (want 299)", rc, st.RC, up.AlphaUpdates)
	}
}

// TestMinRate: repeated cuts stop at MinRateGbps (paper: 100 Mbps).
func TestMinRate(t *testing.T) {
	r := mustRP(t, PaperConfig(40))
	st := r.InitialState()
	for k := uint64(0); k < 40; k++ {
		st, _ = r.OnCNP(st, k*10)
	}
	if Gbps(st.RC) != 0.1 {
		t.Errorf("RC after 40 cuts = %v Gbps, want 0.1", Gbps(st.RC))
	}
}

// TestNotificationPoint: at most one CNP per N = 50 us per flow, only for
// CE-marked packets (paper NP algorithm); N = 0 sends one per marked packet.
func TestNotificationPoint(t *testing.T) {
	np, err := NewNP(PaperConfig(40))
	if err != nil {
		t.Fatal(err)
	}
	var st NPState
	for _, s := range []struct {
		at   uint64
		ce   bool
		want bool
	}{{0, false, false}, {1 * us, true, true}, {10 * us, true, false}, {50 * us, true, false}, {51 * us, false, false}, {51 * us, true, true}, {200 * us, true, true}} {
		var got bool
		st, got = np.OnPacket(st, s.at, s.ce)
		if got != s.want {
			t.Errorf("packet at %d ns ce=%v: CNP %v, want %v", s.at, s.ce, got, s.want)
		}
	}
	np0, _ := NewNP(DefaultConfig())
	st = NPState{}
	for k := uint64(0); k < 3; k++ {
		var got bool
		if st, got = np0.OnPacket(st, 5, true); !got {
			t.Errorf("interval 0: CE packet %d got no CNP", k)
		}
	}
}

// TestLazyTimers: the state after a schedule of CNPs and sends is the same
// whether the caller advances the model every 7 us or only at the
// events (and, between events, at NextWake) — the property the NIC engine's
// idle skipping relies on. The schedules include long idle gaps (alpha
// decays to exactly 0 after about 190k updates at 1 us in the Mellanox
// variant) so the arithmetic skips are exercised. Oracle: the
// tick-by-tick run.
func TestLazyTimers(t *testing.T) {
	for _, c := range []Config{DefaultConfig(), PaperConfig(100)} {
		r := mustRP(t, c)
		rng := rand.New(rand.NewPCG(5, uint64(c.Variant)))
		var calls []call
		at := uint64(0)
		for k := 0; k < 300; k++ {
			if k == 150 {
				at += 1_000_000 * us // one 1 s gap: alpha reaches its fixed point
			}
			switch rng.IntN(10) {
			case 0:
				at += uint64(rng.IntN(250_000)) * us // long idle
			default:
				at += uint64(rng.IntN(40_000)) + 1
			}
			if rng.IntN(3) == 0 {
				calls = append(calls, call{"cnp", at, 0})
			} else {
				calls = append(calls, call{"sent", at, uint64(rng.IntN(4_000_000))})
			}
		}
		lazy := r.InitialState()
		eager := r.InitialState()
		tick := uint64(0)
		for _, cl := range calls {
			// lazy: jump straight to the event, via NextWake when earlier
			for {
				w, ok := r.NextWake(lazy)
				if !ok || w >= cl.at {
					break
				}
				lazy, _ = r.Advance(lazy, w)
			}
			// eager: advance every 7 us up to the event
			for tick+7*us < cl.at {
				tick += 7 * us
				eager, _ = r.Advance(eager, tick)
			}
			if cl.kind == "cnp" {
				lazy, _ = r.OnCNP(lazy, cl.at)
				eager, _ = r.OnCNP(eager, cl.at)
			} else {
				lazy, _ = r.OnSent(lazy, cl.at, cl.bytes)
				eager, _ = r.OnSent(eager, cl.at, cl.bytes)
			}
			if lazy != eager {
				t.Fatalf("%s at %d ns: lazy %+v\neager %+v", c.Variant, cl.at, lazy, eager)
			}
			if lazy.RC < c.MinRateGbps/8 || lazy.RC > c.LineRateGbps/8 || lazy.RT > c.LineRateGbps/8 || lazy.Alpha < 0 || lazy.Alpha > 1 {
				t.Fatalf("%s: state out of bounds %+v", c.Variant, lazy)
			}
		}
	}
}

// TestNextWakeQuiet: between now and NextWake the rate does not change
// without a CNP or a send, and at NextWake it may. Oracle: Advance.
func TestNextWakeQuiet(t *testing.T) {
	for _, c := range []Config{DefaultConfig(), PaperConfig(100)} {
		r := mustRP(t, c)
		st := r.InitialState()
		if _, ok := r.NextWake(st); ok {
			t.Errorf("%s: a flow with no CNP has a wake-up", c.Variant)
		}
		st, _ = r.OnCNP(st, 1000)
		for k := 0; k < 50; k++ {
			w, ok := r.NextWake(st)
			if !ok {
				break
			}
			quiet, up := r.Advance(st, w-1)
			if up.Changed {
				t.Fatalf("%s: rate changed before NextWake %d", c.Variant, w)
			}
			st, _ = r.Advance(quiet, w)
		}
		if Gbps(st.RC) < c.LineRateGbps*0.999 {
			t.Errorf("%s: after 50 wake-ups RC = %v Gbps, expected recovery towards line rate", c.Variant, Gbps(st.RC))
		}
	}
}

// TestConfigValidate: the defaults validate; bad fields are errors naming
// the field and value; JSON round trip and variant-dependent defaults.
func TestConfigValidate(t *testing.T) {
	for _, c := range []Config{DefaultConfig(), PaperConfig(40), MellanoxConfig(25)} {
		if err := c.Validate(); err != nil {
			t.Errorf("%+v: %v", c, err)
		}
	}
	if c := MellanoxConfig(25); c.RAIMbps != 5 || c.RHAIMbps != 50 || c.ECN.KminBytes != 100_000 || c.ECN.KmaxBytes != 400_000 {
		t.Errorf("MellanoxConfig(25) = %+v, want the HPCC script's 25 Gbps values", c)
	}
	cases := []struct {
		mut  func(*Config)
		want string
	}{
		{func(c *Config) { c.Variant = 0 }, "Variant=0"},
		{func(c *Config) { c.LineRateGbps = 0 }, "LineRateGbps=0"},
		{func(c *Config) { c.MinRateGbps = 200 }, "MinRateGbps=200"},
		{func(c *Config) { c.G = 0 }, "G=0"},
		{func(c *Config) { c.AlphaTimerNs = 0 }, "AlphaTimerNs=0"},
		{func(c *Config) { c.IncreaseTimerNs = 0 }, "IncreaseTimerNs=0"},
		{func(c *Config) { c.RateDecreaseIntervalNs = 0 }, "RateDecreaseIntervalNs=0"},
		{func(c *Config) { c.ByteCounterBytes = 1 }, "ByteCounterBytes=1"},
		{func(c *Config) { c.F = -1 }, "F=-1"},
		{func(c *Config) { c.RAIMbps = math.Inf(1) }, "RAIMbps=+Inf"},
		{func(c *Config) { c.ECN.KmaxBytes = 1 }, "ECN.KmaxBytes=1"},
		{func(c *Config) { c.ECN.Pmax = 2 }, "ECN.Pmax=2"},
	}
	for _, tc := range cases {
		c := DefaultConfig()
		tc.mut(&c)
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Validate() = %v, want %q", err, tc.want)
		}
	}
	p := PaperConfig(100)
	p.RateDecreaseIntervalNs = 4
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "RateDecreaseIntervalNs=4") {
		t.Errorf("paper with a decrease interval: %v", err)
	}
	b, _ := PaperConfig(100).JSON()
	got, err := LoadConfig(strings.NewReader(string(b)))
	if err != nil || got != PaperConfig(100) {
		t.Errorf("round trip: %v %+v", err, got)
	}
	got, err = LoadConfig(strings.NewReader(`{"variant": "paper", "f": 3}`))
	if err != nil || got.F != 3 || got.ByteCounterBytes != 10_000_000 {
		t.Errorf("paper override: %v %+v", err, got)
	}
	if _, err := LoadConfig(strings.NewReader(`{"kmin": 1}`)); err == nil {
		t.Error("unknown key accepted")
	}
}
