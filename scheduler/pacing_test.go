package scheduler

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/fixedpoint"
)

// gapOracle computes G = ceil(f * 2^(RF+GF) / (1e9 * r)) (bytes per ns) or
// ceil(2^(RF+GF) / r) (bytes per cycle) with math/big, independently of the
// 128-bit code path, clamped to 2^GapBits-1.
func gapOracle(cfg Config, r uint64) (uint64, bool) {
	num := new(big.Int).Lsh(big.NewInt(1), uint(cfg.RateFormat.F()+cfg.GapFracBits))
	den := new(big.Int).SetUint64(r)
	if cfg.RateUnit == BytesPerNs {
		num.Mul(num, new(big.Int).SetUint64(uint64(cfg.ClockHz)))
		den.Mul(den, big.NewInt(1_000_000_000))
	}
	q, m := new(big.Int).QuoRem(num, den, new(big.Int))
	if m.Sign() != 0 {
		q.Add(q, big.NewInt(1))
	}
	max := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), uint(cfg.GapBits)), big.NewInt(1))
	if q.Cmp(max) > 0 {
		return max.Uint64(), true
	}
	return q.Uint64(), false
}

// TestGapPerByte checks the rate-to-gap conversion against the math/big
// oracle for hand-picked and random rates, several clocks, both units and
// several formats, including saturation.
func TestGapPerByte(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	cases := []struct {
		name string
		mod  func(*Config)
	}{
		{"default 1GHz u32.8 B/ns", func(*Config) {}},
		{"312.5MHz", func(c *Config) { c.ClockHz = 312_500_000 }},
		{"3GHz GF=24", func(c *Config) { c.ClockHz = 3 * engine.GHz; c.GapFracBits = 24 }},
		{"B/cycle u16.8 GF=8 GapBits=16", func(c *Config) {
			c.RateUnit = BytesPerCycle
			c.RateFormat = fixedpoint.MustFormat("u16.8")
			c.GapFracBits, c.GapBits = 8, 16
		}},
		{"u48.16 GF=32 GapBits=64", func(c *Config) {
			c.RateFormat = fixedpoint.MustFormat("u48.16")
			c.GapFracBits, c.GapBits = 32, 64
		}},
	}
	for _, tc := range cases {
		cfg := DefaultConfig()
		tc.mod(&cfg)
		s, err := New(cfg, Ports{Sends: mustFIFO[PktSend](t, 1)})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		maxRaw, _ := cfg.RateFormat.MaxRawUint()
		rates := []uint64{1, 2, 3, 7, 1 << 20, 52428800, 15309210, maxRaw, maxRaw - 1}
		for i := 0; i < 2000; i++ {
			rates = append(rates, 1+r.Uint64N(maxRaw))
		}
		for _, rr := range rates {
			g, clamped := s.GapPerByte(rr)
			wg, wc := gapOracle(cfg, rr)
			if g != wg || clamped != wc {
				t.Errorf("%s: GapPerByte(%d) = %d, %v; want %d, %v", tc.name, rr, g, clamped, wg, wc)
			}
		}
		if g, c := s.GapPerByte(0); g != 0 || c {
			t.Errorf("%s: GapPerByte(0) = %d, %v; want 0 (paused), false", tc.name, g, c)
		}
	}
}

func mustFIFO[T any](t testing.TB, n int) *engine.FIFO[T] {
	t.Helper()
	f, err := engine.NewFIFO[T]("f", n)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// rawRate returns the raw u32.8 bytes/ns value of gbps (exact when
// representable, else rounded to nearest): gbps/8 * 2^24.
func rawRate(gbps float64) uint64 { return uint64(gbps/8*(1<<24) + 0.5) }

// TestPacingGaps is the pacing-limited test: one flow, an unlimited window,
// rate R. The expected send cycles come from the documented pacer: with G
// from the math/big oracle and w wire bytes per packet, packet k leaves at
// t0 + ceil(k*w*G / 2^GF). It also checks the measured average rate against
// R within the documented granularity: it never exceeds R, and falls short by
// less than one LSB of G per byte plus one cycle over the whole run.
func TestPacingGaps(t *testing.T) {
	type tc struct {
		name string
		gbps float64 // rate (converted to raw u32.8 bytes/ns)
		mod  func(*Config)
	}
	cases := []tc{
		{"25G exact", 25, nil},
		{"10G", 10, nil},
		{"7.3G inexact", 7.3, nil},
		{"1G", 1, nil},
		{"92G near line", 92, nil},
		{"40G at 312.5MHz", 40, func(c *Config) { c.ClockHz = 312_500_000 }},
		{"13G GF=4 coarse", 13, func(c *Config) { c.GapFracBits = 4 }},
		{"13G GF=0 whole cycles", 13, func(c *Config) { c.GapFracBits = 0 }},
	}
	for _, c := range cases {
		cfg := DefaultConfig()
		cfg.InitWindowBytes = 1 << 24
		cfg.WindowFormat = fixedpoint.MustFormat("u40.32")
		if c.mod != nil {
			c.mod(&cfg)
		}
		r := rawRate(c.gbps)
		const packets = 300
		script := []cmd{rate(0, 0, r), db(0, 0, packets*uint64(cfg.MTU))}
		b := newTestBench(t, cfg, script, benchOpts{})
		b.run(t, 100_000_000)
		log := b.sendsOf(0)
		if len(log) != packets {
			t.Fatalf("%s: %d packets sent, want %d", c.name, len(log), packets)
		}
		g, _ := gapOracle(cfg, r)
		w := cfg.maxWire()
		gf := uint(cfg.GapFracBits)
		t0 := log[0].at
		// Doorbell pushed in 0, popped in 1, effective in 2: the scheduler
		// pushes the first PktSend in 2 and the sink pops it in 3. The sink
		// pops every command the cycle after its push, so the gaps it sees
		// are the scheduler's.
		if t0 != 3 {
			t.Errorf("%s: first send seen at %d, want 3", c.name, t0)
		}
		for k, x := range log {
			num := new(big.Int).Mul(big.NewInt(int64(k)), new(big.Int).SetUint64(w*g))
			want := ceilShift(num, gf) + uint64(t0)
			if uint64(x.at) != want {
				t.Fatalf("%s: packet %d at cycle %d, want %d (G=%d)", c.name, k, x.at, want, g)
			}
		}
		// Average rate over the run, bytes per cycle, against R in bytes per
		// cycle (R_ns * 1e9 / f).
		span := int64(log[packets-1].at - t0)
		bytes := int64((packets - 1) * w)
		got := big.NewRat(bytes, span)
		rPerCycle := new(big.Rat).SetFrac(new(big.Int).Mul(new(big.Int).SetUint64(r), big.NewInt(1_000_000_000)),
			new(big.Int).Mul(new(big.Int).Lsh(big.NewInt(1), uint(cfg.RateFormat.F())), new(big.Int).SetUint64(uint64(cfg.ClockHz))))
		if got.Cmp(rPerCycle) > 0 {
			t.Errorf("%s: paced rate %s B/cycle exceeds R %s", c.name, got.FloatString(6), rPerCycle.FloatString(6))
		}
		// Lower bound: bytes / (bytes*(1/R + 2^-GF) + 1).
		inv := new(big.Rat).Inv(rPerCycle)
		inv.Add(inv, new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Lsh(big.NewInt(1), gf)))
		denom := new(big.Rat).Mul(big.NewRat(bytes, 1), inv)
		denom.Add(denom, big.NewRat(1, 1))
		low := new(big.Rat).Quo(big.NewRat(bytes, 1), denom)
		if got.Cmp(low) < 0 {
			t.Errorf("%s: paced rate %s B/cycle below the granularity bound %s", c.name, got.FloatString(6), low.FloatString(6))
		}
	}
}

// ceilShift returns ceil(x / 2^s).
func ceilShift(x *big.Int, s uint) uint64 {
	q := new(big.Int).Rsh(x, s)
	if new(big.Int).Lsh(q, s).Cmp(x) != 0 {
		q.Add(q, big.NewInt(1))
	}
	return q.Uint64()
}

// TestLineRateLimit: eight flows at the initial rate (the line rate) share
// the port. The line-rate limiter alone spaces the packets: packet k of the
// port leaves at t0 + ceil(k*w*Gline / 2^GF) with Gline = ceil(f*8*2^GF/bps)
// (computed here with math/big), so the port never exceeds the line rate.
func TestLineRateLimit(t *testing.T) {
	for _, bps := range []uint64{100_000_000_000, 25_000_000_000, 400_000_000_000, 37_000_000_000} {
		cfg := DefaultConfig()
		cfg.LineRateBps = bps
		cfg.InitWindowBytes = 1 << 20
		cfg.WindowFormat = fixedpoint.MustFormat("u40.32")
		var script []cmd
		for f := FlowID(0); f < 8; f++ {
			script = append(script, db(0, f, 50_000))
		}
		b := newTestBench(t, cfg, script, benchOpts{})
		b.run(t, 100_000_000)
		log := b.tx.log
		if len(log) != 400 {
			t.Fatalf("%d bps: %d packets, want 400", bps, len(log))
		}
		num := new(big.Int).Lsh(new(big.Int).SetUint64(uint64(cfg.ClockHz)*8), uint(cfg.GapFracBits))
		gl, m := new(big.Int).QuoRem(num, new(big.Int).SetUint64(bps), new(big.Int))
		if m.Sign() != 0 {
			gl.Add(gl, big.NewInt(1))
		}
		if b.s.LineGap() != gl.Uint64() {
			t.Errorf("%d bps: LineGap = %d, want %d", bps, b.s.LineGap(), gl)
		}
		t0 := log[0].at
		for k, x := range log {
			want := uint64(t0) + ceilShift(new(big.Int).Mul(big.NewInt(int64(k)*int64(cfg.maxWire())), gl), uint(cfg.GapFracBits))
			if uint64(x.at) != want {
				t.Fatalf("%d bps: packet %d at %d, want %d", bps, k, x.at, want)
			}
		}
		if b.s.Counters().LineRateStalls == 0 {
			t.Errorf("%d bps: LineRateStalls = 0, want > 0", bps)
		}
	}
}
