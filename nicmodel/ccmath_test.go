package nicmodel

import (
	"math"
	"math/big"
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
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
			core := must(newCCCore(Fixed, cfg))(t)
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

// TestCastRnd checks castRnd against exact rational arithmetic (math/big):
// round half up of x * 2^-s, saturated at max, for shifts on both sides of
// 0 and 64.
func TestCastRnd(t *testing.T) {
	vals := [][2]uint64{{0, 0}, {0, 1}, {0, 3}, {0, 1 << 63}, {1, 0}, {5, 12345}, {1 << 62, ^uint64(0)}, {0, ^uint64(0)}}
	maxes := []uint64{^uint64(0), 1<<40 - 1, 1000}
	for _, v := range vals {
		for _, s := range []int{-70, -64, -3, 0, 1, 7, 63, 64, 65, 100, 127} {
			for _, mx := range maxes {
				x := new(big.Int).Lsh(new(big.Int).SetUint64(v[0]), 64)
				x.Or(x, new(big.Int).SetUint64(v[1]))
				var want *big.Int
				if s <= 0 {
					want = new(big.Int).Lsh(x, uint(-s))
				} else {
					half := new(big.Int).Lsh(big.NewInt(1), uint(s-1))
					want = new(big.Int).Rsh(new(big.Int).Add(x, half), uint(s))
				}
				if want.Cmp(new(big.Int).SetUint64(mx)) > 0 {
					want.SetUint64(mx)
				}
				if got := castRnd(v[0], v[1], s, mx); got != want.Uint64() {
					t.Errorf("castRnd(%#x:%#x, %d, %d) = %d, want %s", v[0], v[1], s, mx, got, want)
				}
			}
		}
	}
}

// TestWindowBytes checks the notification's W conversions: whole bytes to
// the u32.24 register (x 2^8, saturating at the format's maximum) and
// back (floor, saturating at 2^32-1), and quantize's rounding.
func TestWindowBytes(t *testing.T) {
	core := must(newCCCore(Fixed, hpcc.DefaultConfig()))(t) // W u32.24: 8 fraction bits
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
