package nicmodel

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/fixedpoint"
	"github.com/hpccgold/hpccgold/telemetry"
)

// TestRateMatchesDatapath checks the module's R = W/T multiplier (used for
// Rx-HPCC notifications) against the golden datapath's own line 27: over
// every output of a 2000-event trace with varied telemetry, rate(W) must
// equal the datapath's Rate for that W, for both encodings and two T.
func TestRateMatchesDatapath(t *testing.T) {
	for _, enc := range telemetry.Encodings() {
		for _, rtt := range []uint32{5000, 8700} {
			cfg := hpcc.DefaultConfigFor(enc)
			cfg.BaseRTTNs = rtt
			core := must(newCCCore(Fixed, cfg, nil))(t)
			var st hpcc.State
			for k := 0; k < 2000; k++ {
				h := must(telemetry.FromPhysical(enc, telemetry.Physical{SwitchID: 1, PortID: 1, SpeedGbps: 100,
					TsNs: uint64(1000 + 500*k), TxBytes: uint64(3000 * k * (1 + k%3)), QlenBytes: uint64(k*7919) % 200000}))(t)
				in := hpcc.Input{Seq: uint64(k), SndNxt: uint64(k + k%5), NHops: 1}
				in.Hops[0] = h
				next, out := core.d.Update(st, in)
				st = next
				if r := core.rate(out.W); r != out.Rate {
					t.Fatalf("%v T=%d event %d: rate(W=%d) = %d, datapath R = %d", enc, rtt, k, out.W, r, out.Rate)
				}
			}
		}
	}
}

// TestRateMatchesMulCast checks the module's R = W/T multiplier on W
// registers Update never produces (notifications carry any W): for W = 0,
// 1, powers of two and their neighbours, the format's maximum and 2000
// random registers, rate(W) must equal fixedpoint.MulCast(W, inv_t,
// Formats.Rate, Rnd, Sat) (the oracle) with inv_t from the datapath's
// table, for both encodings and two T.
func TestRateMatchesMulCast(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for _, enc := range telemetry.Encodings() {
		for _, rtt := range []uint32{5000, 8700} {
			cfg := hpcc.DefaultConfigFor(enc)
			cfg.BaseRTTNs = rtt
			core := must(newCCCore(Fixed, cfg, nil))(t)
			var invT fixedpoint.Value
			for _, tb := range core.d.Tables() {
				if tb.Name == "inv_t" {
					invT = must(fixedpoint.FromUint(tb.Format, tb.Entries[0]))(t)
				}
			}
			if invT == (fixedpoint.Value{}) {
				t.Fatal("no inv_t table")
			}
			ws := []uint64{0, 1, core.wMax, core.wMax - 1}
			for b := 0; b < core.fW.W; b++ {
				ws = append(ws, 1<<uint(b), 1<<uint(b)-1, 1<<uint(b)+1)
			}
			for k := 0; k < 2000; k++ {
				ws = append(ws, rng.Uint64()>>uint(rng.IntN(64)))
			}
			for _, w := range ws {
				w &= core.wMax
				wv := must(fixedpoint.FromUint(core.fW, w))(t)
				want := must(fixedpoint.MulCast(wv, invT, core.fR, fixedpoint.Rnd, fixedpoint.Sat))(t)
				if got := core.rate(w); got != want.RawUint() {
					t.Fatalf("%v T=%d: rate(W=%#x) = %#x, want %#x", enc, rtt, w, got, want.RawUint())
				}
			}
		}
	}
}

// TestWindowBytes checks the notification's W conversions: whole bytes to
// the u32.24 register (x 2^8, saturating at the format's maximum) and
// back (floor, saturating at 2^32-1), and quantize's rounding.
func TestWindowBytes(t *testing.T) {
	core := must(newCCCore(Fixed, hpcc.DefaultConfig(), nil))(t) // W u32.24: 8 fraction bits
	for _, tc := range []struct {
		b    uint32
		want uint64
	}{{0, 0}, {1, 256}, {62500, 62500 * 256}, {1<<24 - 1, (1<<24 - 1) * 256}, {1 << 24, 1<<32 - 1}, {math.MaxUint32, 1<<32 - 1}} {
		if got := core.windowFromBytes(tc.b); got != tc.want {
			t.Errorf("windowFromBytes(%d) = %d, want %d", tc.b, got, tc.want)
		}
	}
	for _, tc := range []struct {
		w    uint64
		want uint32
	}{{0, 0}, {255, 0}, {256, 1}, {62500*256 + 255, 62500}, {1<<32 - 1, 1<<24 - 1}} {
		if got := core.windowBytes(tc.w); got != tc.want {
			t.Errorf("windowBytes(%d) = %d, want %d", tc.w, got, tc.want)
		}
	}
	for _, tc := range []struct {
		x    float64
		f    int
		max  uint64
		want uint64
	}{{0, 8, 1000, 0}, {-1, 8, 1000, 0}, {math.NaN(), 8, 1000, 0}, {1.5 / 256, 8, 1000, 2}, {1.49 / 256, 8, 1000, 1},
		{3.9, 8, 1000, 998}, {4, 8, 1000, 1000}, {math.Inf(1), 8, 1000, 1000}, {1e30, 24, math.MaxUint64, math.MaxUint64}} {
		if got := quantize(tc.x, tc.f, tc.max); got != tc.want {
			t.Errorf("quantize(%g, %d, %d) = %d, want %d", tc.x, tc.f, tc.max, got, tc.want)
		}
	}
}
