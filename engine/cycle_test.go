package engine

import (
	"math"
	"math/big"
	"testing"
)

// TestFreqConversions checks each conversion against values computed by hand
// (the arithmetic is stated in each row's name) for clocks whose period is
// exact (1 GHz, 312.5 MHz) and inexact (3 GHz, 7 Hz).
func TestFreqConversions(t *testing.T) {
	tests := []struct {
		name string
		got  uint64
		want uint64
	}{
		{"1GHz PS(1)=1000", GHz.PS(1), 1000},
		{"1GHz NS(1234)=1234", GHz.NS(1234), 1234},
		{"312.5MHz PS(1)=3200", Freq(312_500_000).PS(1), 3200},
		{"312.5MHz NS(1)=floor(3.2)=3", Freq(312_500_000).NS(1), 3},
		{"312.5MHz NS(5)=16", Freq(312_500_000).NS(5), 16},
		{"3GHz PS(1)=ceil(333.3)=334", (3 * GHz).PS(1), 334},
		{"3GHz PS(3)=1000", (3 * GHz).PS(3), 1000},
		{"3GHz CycleAtPS(999)=floor(2.997)=2", uint64((3 * GHz).CycleAtPS(999)), 2},
		{"3GHz CycleAtPS(1000)=3", uint64((3 * GHz).CycleAtPS(1000)), 3},
		{"3GHz CyclesPS(334)=ceil(1.002)=2", uint64((3 * GHz).CyclesPS(334)), 2},
		{"3GHz CyclesPS(333)=ceil(0.999)=1", uint64((3 * GHz).CyclesPS(333)), 1},
		{"1GHz CyclesNS(1000)=1000 (1 us link delay)", uint64(GHz.CyclesNS(1000)), 1000},
		{"1GHz CyclesPS(1)=1", uint64(GHz.CyclesPS(1)), 1},
		{"1GHz CyclesPS(0)=0", uint64(GHz.CyclesPS(0)), 0},
		{"1GHz CycleAtNS(5)=5", uint64(GHz.CycleAtNS(5)), 5},
		{"7Hz PS(1)=ceil(1e12/7)=142857142858", Freq(7).PS(1), 142857142858},
		{"7Hz CycleAtPS(PS(1))=1", uint64(Freq(7).CycleAtPS(Freq(7).PS(1))), 1},
		{"1GHz 8000 bits at 100G = 80 cycles", uint64(GHz.TransferCycles(8000, 100_000_000_000)), 80},
		{"1GHz 8384 bits at 100G = ceil(83.84) = 84", uint64(GHz.TransferCycles(8384, 100_000_000_000)), 84},
		{"1GHz 8000 bits at 25G = 320 cycles", uint64(GHz.TransferCycles(8000, 25_000_000_000)), 320},
		{"TransferCycles at 0 bit/s = 0", uint64(GHz.TransferCycles(8000, 0)), 0},
		{"zero Freq PS = 0", Freq(0).PS(5), 0},
		{"PS saturates", GHz.PS(Never), math.MaxUint64},
		{"MulDiv 128-bit: (2^63)*6/4", MulDiv(1<<63, 6, 4, false), 3 << 62},
		{"MulDiv ceil 7/2", MulDiv(7, 1, 2, true), 4},
		{"MulDiv floor 7/2", MulDiv(7, 1, 2, false), 3},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %d, want %d", tt.name, tt.got, tt.want)
		}
	}
}

// TestFreqExact checks PS (ceil), CycleAtPS and CyclesPS against exact rational
// arithmetic (math/big) on cycle counts near 2^40 and 2^50, where a float64
// computation would be off, and the inverse property CycleAtPS(PS(c)) == c.
func TestFreqExact(t *testing.T) {
	freqs := []Freq{GHz, 3 * GHz, 312_500_000, 7, 1_000_000_000_000, 156_250_000, 999_999_937}
	cycles := []Cycle{0, 1, 2, 999, 1 << 40, 1<<40 + 12345, 1<<50 - 1, 123456789012345}
	for _, f := range freqs {
		for _, c := range cycles {
			num := new(big.Int).Mul(new(big.Int).SetUint64(uint64(c)), big.NewInt(psPerSecond))
			// want = ceil(num / f)
			want := new(big.Int).Add(num, new(big.Int).SetUint64(uint64(f)-1))
			want.Quo(want, new(big.Int).SetUint64(uint64(f)))
			if !want.IsUint64() {
				continue
			}
			ps := f.PS(c)
			if ps != want.Uint64() {
				t.Errorf("%v PS(%d) = %d, want %s", f, c, ps, want)
			}
			if back := f.CycleAtPS(ps); back != c {
				t.Errorf("%v CycleAtPS(PS(%d)) = %d, want %d", f, c, back, c)
			}
			// CyclesPS(d) is the least k with k/f >= d: check k and k-1.
			d := uint64(c)*3 + 1
			k := f.CyclesPS(d)
			lhs := new(big.Int).Mul(new(big.Int).SetUint64(uint64(k)), big.NewInt(psPerSecond))
			rhs := new(big.Int).Mul(new(big.Int).SetUint64(d), new(big.Int).SetUint64(uint64(f)))
			if lhs.Cmp(rhs) < 0 {
				t.Errorf("%v CyclesPS(%d) = %d is too short", f, d, k)
			}
			lhs.Sub(lhs, big.NewInt(psPerSecond))
			if k > 0 && lhs.Cmp(rhs) >= 0 {
				t.Errorf("%v CyclesPS(%d) = %d is not the least", f, d, k)
			}
		}
	}
}

// TestFreqValidate checks the accepted range [1 Hz, 1 THz] and that the
// error names the field and value.
func TestFreqValidate(t *testing.T) {
	for _, tt := range []struct {
		f  Freq
		ok bool
	}{{0, false}, {1, true}, {GHz, true}, {1_000_000_000_000, true}, {1_000_000_000_001, false}} {
		err := tt.f.Validate()
		if (err == nil) != tt.ok {
			t.Errorf("Freq(%d).Validate() = %v, want ok=%v", uint64(tt.f), err, tt.ok)
		}
	}
	if err := Freq(0).Validate(); err == nil || err.Error() != "engine: Freq=0 Hz: must be in [1, 1000000000000]" {
		t.Errorf("Freq(0).Validate() = %v", err)
	}
	if _, err := New(Config{}); err == nil || err.Error() != "engine: Config.Freq: engine: Freq=0 Hz: must be in [1, 1000000000000]" {
		t.Errorf("New(Config{}) error = %v", err)
	}
	for _, tt := range []struct {
		f    Freq
		want string
	}{{GHz, "1GHz"}, {312_500_000, "312500kHz"}, {250 * MHz, "250MHz"}, {7, "7Hz"}, {0, "0Hz"}} {
		if got := tt.f.String(); got != tt.want {
			t.Errorf("Freq(%d).String() = %q, want %q", uint64(tt.f), got, tt.want)
		}
	}
	if p, exact := (3 * GHz).PeriodPS(); p != 333 || exact {
		t.Errorf("3GHz PeriodPS = %d, %v; want 333, false", p, exact)
	}
	if p, exact := GHz.PeriodPS(); p != 1000 || !exact {
		t.Errorf("1GHz PeriodPS = %d, %v; want 1000, true", p, exact)
	}
}
