package telemetry

import (
	"bytes"
	"encoding/hex"
	"reflect"
	"strings"
	"testing"

	"github.com/leanovate/gopter"
	"github.com/leanovate/gopter/gen"
	"github.com/leanovate/gopter/prop"
)

// TestAppendHopKnownBytes checks the byte layout of both encodings against
// hand-assembled wire images (expected bytes written out from the field
// layout documented on Hop, not produced by the code under test).
func TestAppendHopKnownBytes(t *testing.T) {
	cases := []struct {
		name string
		e    Encoding
		h    Hop
		want string
	}{
		{
			name: "ifa",
			e:    IFA,
			h: Hop{SpeedCode: 4, Ins: 0xA, DeviceID: 0x12345, EgressPort: 0x0102, IngressPort: 0x0304,
				RxSec: 0xABCDE, RxNs: 999_999_999, ResidenceNs: 0x11223344, TxBytes: 0xDEADBEEF, Qlen: 0xFEDCBA},
			// w0 = A<<28 | 12345<<8 = a1234500; w1 = 4<<28 | abcde = 400abcde;
			// w2 = 01020304; w3 = 3b9ac9ff (999999999); w4 = 11223344;
			// w5 = deadbeef; w6 = 00fedcba; w7 = 0.
			want: "a1234500" + "400abcde" + "01020304" + "3b9ac9ff" + "11223344" + "deadbeef" + "00fedcba" + "00000000",
		},
		{
			name: "compact",
			e:    Compact,
			h:    Hop{SpeedCode: 2, Ts: 0xABCDEF, TxBytes: 0x12345, Qlen: 0x1FFFF},
			// w = 2 | abcdef<<3 | 12345<<27 | 1ffff<<47
			//   = 0x2 + 0x55e6f78 + 0x91a28000000 + 0xffff800000000000 = 0xffff891a2d5e6f7a
			want: "ffff891a2d5e6f7a",
		},
		{
			name: "compact zero",
			e:    Compact,
			h:    Hop{SpeedCode: 4},
			want: "0000000000000004",
		},
	}
	for _, c := range cases {
		b, err := AppendHop(nil, c.e, c.h)
		if err != nil {
			t.Fatalf("%s: AppendHop: %v", c.name, err)
		}
		if got := hex.EncodeToString(b); got != c.want {
			t.Errorf("%s: AppendHop = %s, want %s", c.name, got, c.want)
		}
		if len(b) != c.e.HopSize() {
			t.Errorf("%s: %d bytes, want HopSize %d", c.name, len(b), c.e.HopSize())
		}
		want, _ := hex.DecodeString(c.want)
		h, err := ParseHop(want, c.e)
		if err != nil || h != c.h {
			t.Errorf("%s: ParseHop = %+v, %v; want %+v", c.name, h, err, c.h)
		}
	}
}

// TestParseHopReservedIgnored: reserved bits set on the wire are ignored on
// receipt (IETF convention), so they do not change the decoded hop.
func TestParseHopReservedIgnored(t *testing.T) {
	h := Hop{SpeedCode: 6, DeviceID: 7, RxSec: 3, RxNs: 5, TxBytes: 9, Qlen: 11}
	b, err := AppendHop(nil, IFA, h)
	if err != nil {
		t.Fatal(err)
	}
	b[3] = 0xff                                  // word 0 rsvd byte
	b[4] |= 0x0f                                 // word 1: low nibble of first byte = rsvd bits
	b[5] |= 0xf0                                 // word 1: rsvd bits
	b[24] = 0xff                                 // word 6 rsvd byte
	copy(b[28:], []byte{0xff, 0xff, 0xff, 0xff}) // word 7
	got, err := ParseHop(b, IFA)
	if err != nil || got != h {
		t.Errorf("ParseHop with reserved bits = %+v, %v; want %+v", got, err, h)
	}
}

// TestParseHopErrors: short input, reserved speed codes, rxTimeStampNs >= 10^9
// and invalid encodings give errors naming the problem.
func TestParseHopErrors(t *testing.T) {
	ok, _ := AppendHop(nil, IFA, Hop{SpeedCode: 1})
	badNs := bytes.Clone(ok)
	copy(badNs[12:], []byte{0x3b, 0x9a, 0xca, 0x00}) // 10^9
	badSpeed := bytes.Clone(ok)
	badSpeed[4] = 0x70 // speed code 7: reserved in IFA
	cases := []struct {
		name string
		b    []byte
		e    Encoding
		want string
	}{
		{"empty", nil, IFA, "0 bytes: need 32"},
		{"short ifa", ok[:31], IFA, "31 bytes: need 32"},
		{"short compact", ok[:7], Compact, "7 bytes: need 8"},
		{"ns 1e9", badNs, IFA, "RxNs=1000000000"},
		{"speed 7", badSpeed, IFA, "SpeedCode=7"},
		{"compact speed 5", []byte{0, 0, 0, 0, 0, 0, 0, 5}, Compact, "SpeedCode=5"},
		{"bad encoding", ok, Encoding(0), "Encoding=0"},
	}
	for _, c := range cases {
		_, err := ParseHop(c.b, c.e)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: ParseHop error = %v, want containing %q", c.name, err, c.want)
		}
	}
}

// TestValidateRejectsForeignFields: a field the encoding does not carry, or
// one too wide for its width, is an error from AppendHop.
func TestValidateRejectsForeignFields(t *testing.T) {
	cases := []struct {
		e    Encoding
		h    Hop
		want string
	}{
		{Compact, Hop{DeviceID: 1}, "DeviceID=1: not carried"},
		{Compact, Hop{TxBytes: 1 << 20}, "TxBytes=1048576"},
		{Compact, Hop{Qlen: 1 << 17}, "Qlen=131072"},
		{Compact, Hop{Ts: 1 << 24}, "Ts=16777216"},
		{IFA, Hop{Ts: 1}, "Ts=1: not carried"},
		{IFA, Hop{DeviceID: 1 << 20}, "DeviceID=1048576"},
		{IFA, Hop{Qlen: 1 << 24}, "Qlen=16777216"},
		{IFA, Hop{RxSec: 1 << 20}, "RxSec=1048576"},
		{IFA, Hop{Ins: 16}, "Ins=16"},
	}
	for _, c := range cases {
		if _, err := AppendHop(nil, c.e, c.h); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("AppendHop(%s, %+v) error = %v, want containing %q", c.e, c.h, err, c.want)
		}
	}
}

// genHop generates valid hops of encoding e with fields spread over their
// whole ranges.
func genHop(e Encoding) gopter.Gen {
	codes := []uint8{}
	for c := 0; c < e.SpeedCodes(); c++ {
		if _, ok := e.SpeedGbps(uint8(c)); ok {
			codes = append(codes, uint8(c))
		}
	}
	return gopter.CombineGens(
		gen.IntRange(0, len(codes)-1), gen.UInt32(), gen.UInt32(), gen.UInt32(), gen.UInt32(), gen.UInt32(), gen.UInt32(),
	).Map(func(v []any) Hop {
		h := Hop{SpeedCode: codes[v[0].(int)]}
		a, b, c, d, f, g := v[1].(uint32), v[2].(uint32), v[3].(uint32), v[4].(uint32), v[5].(uint32), v[6].(uint32)
		if e == Compact {
			h.Ts = a & (1<<24 - 1)
			h.TxBytes = b & (1<<20 - 1)
			h.Qlen = c & (1<<17 - 1)
			return h
		}
		h.Ins = uint8(a >> 28)
		h.DeviceID = a & (1<<20 - 1)
		h.EgressPort = uint16(b >> 16)
		h.IngressPort = uint16(b)
		h.RxSec = c & (1<<20 - 1)
		h.RxNs = d % NsPerSecond
		h.ResidenceNs = f
		h.TxBytes = g
		h.Qlen = (a ^ g) & (1<<24 - 1)
		return h
	})
}

func params() *gopter.TestParameters {
	p := gopter.DefaultTestParameters()
	p.MinSuccessfulTests = 2000
	p.Rng.Seed(1) // deterministic; failures print the shrunk counterexample
	return p
}

// TestHopRoundTripProperty: for every valid hop, ParseHop(AppendHop(h)) == h
// and the byte image has HopSize bytes (oracle: the identity).
func TestHopRoundTripProperty(t *testing.T) {
	for _, e := range Encodings() {
		props := gopter.NewProperties(params())
		props.Property(e.String()+" round trip", prop.ForAll(func(h Hop) bool {
			b, err := AppendHop(nil, e, h)
			if err != nil || len(b) != e.HopSize() {
				return false
			}
			g, err := ParseHop(b, e)
			return err == nil && g == h
		}, genHop(e)))
		props.TestingRun(t)
	}
}

// TestStackOrderAndRoundTrip: IFA stacks put the last hop first on the wire,
// Compact stacks the first hop first; ParseStack restores path order and
// appends after existing elements of dst.
func TestStackOrderAndRoundTrip(t *testing.T) {
	for _, e := range Encodings() {
		hops := []Hop{{SpeedCode: 1, TxBytes: 1}, {SpeedCode: 2, TxBytes: 2}, {SpeedCode: 3, TxBytes: 3}}
		b, err := AppendStack(nil, e, hops)
		if err != nil {
			t.Fatal(err)
		}
		first, _ := ParseHop(b, e)
		wantFirst := hops[0]
		if e == IFA {
			wantFirst = hops[2]
		}
		if first != wantFirst {
			t.Errorf("%s: first record on the wire = %+v, want %+v", e, first, wantFirst)
		}
		pre := []Hop{{SpeedCode: 4}}
		got, err := ParseStack(b, e, pre)
		if err != nil || !reflect.DeepEqual(got, append([]Hop{{SpeedCode: 4}}, hops...)) {
			t.Errorf("%s: ParseStack = %+v, %v", e, got, err)
		}
		if _, err := ParseStack(b[:len(b)-1], e, nil); err == nil || !strings.Contains(err.Error(), "not a multiple") {
			t.Errorf("%s: ParseStack(truncated) error = %v", e, err)
		}
		bad := append([]Hop{}, hops...)
		bad[1].SpeedCode = 7
		if _, err := AppendStack(nil, e, bad); err == nil || !strings.Contains(err.Error(), "stack hop 1") {
			t.Errorf("%s: AppendStack(bad hop 1) error = %v", e, err)
		}
	}
}

// TestParseStackAllocFree: parsing into a slice with capacity allocates
// nothing (the Rx pipeline parses every packet).
func TestParseStackAllocFree(t *testing.T) {
	b, _ := AppendStack(nil, IFA, make([]Hop, 5))
	for i := range 5 {
		b[i*32+4] = 0x40 // speed code 4
	}
	dst := make([]Hop, 0, 8)
	allocs := testing.AllocsPerRun(100, func() {
		var err error
		if _, err = ParseStack(b, IFA, dst[:0]); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Errorf("ParseStack allocs = %v, want 0", allocs)
	}
}

// TestDeltaTsNs checks wrap-aware egress time differences against values
// worked out by hand.
func TestDeltaTsNs(t *testing.T) {
	cases := []struct {
		name      string
		e         Encoding
		cur, prev Hop
		want      uint64
	}{
		{"compact plain", Compact, Hop{Ts: 1500}, Hop{Ts: 1000}, 500},
		{"compact wrap", Compact, Hop{Ts: 10}, Hop{Ts: 1<<24 - 10}, 20},
		{"compact zero", Compact, Hop{Ts: 77}, Hop{Ts: 77}, 0},
		{"ifa ns borrow", IFA, Hop{RxSec: 5, RxNs: 100}, Hop{RxSec: 4, RxNs: 999_999_900}, 200},
		{"ifa residence carry", IFA, Hop{RxSec: 4, RxNs: 999_999_000, ResidenceNs: 2000}, Hop{RxSec: 5, RxNs: 0}, 1000},
		{"ifa sec wrap", IFA, Hop{RxSec: 0, RxNs: 5}, Hop{RxSec: 1<<20 - 1, RxNs: 999_999_995}, 10},
		{"ifa residence 4s", IFA, Hop{RxSec: 1, RxNs: 0, ResidenceNs: 4_000_000_001}, Hop{RxSec: 5, RxNs: 0}, 1},
	}
	for _, c := range cases {
		if got := DeltaTsNs(c.e, c.cur, c.prev); got != c.want {
			t.Errorf("%s: DeltaTsNs = %d, want %d", c.name, got, c.want)
		}
	}
}

// TestPhysicalDeltaProperty: quantizing two physical samples d ns and x bytes
// apart and differencing the wire fields recovers d exactly (both encodings,
// d below the wrap period) and recovers the byte difference of the
// unit-quantized counters (oracle: floor arithmetic on the physical values).
func TestPhysicalDeltaProperty(t *testing.T) {
	for _, e := range Encodings() {
		props := gopter.NewProperties(params())
		props.Property(e.String()+" delta", prop.ForAll(func(t0, d, b0, db uint64) bool {
			d %= e.TsWrapNs()
			db %= e.TxWrapBytes()
			p0 := Physical{SpeedGbps: 100, TsNs: t0, TxBytes: b0}
			p1 := Physical{SpeedGbps: 100, TsNs: t0 + d, TxBytes: b0 + db}
			h0, err0 := FromPhysical(e, p0)
			h1, err1 := FromPhysical(e, p1)
			if err0 != nil || err1 != nil {
				return false
			}
			u := e.TxBytesUnit()
			wantB := ((b0+db)/u - b0/u) * u % e.TxWrapBytes()
			return DeltaTsNs(e, h1, h0) == d && DeltaTxBytes(e, h1, h0) == wantB
		}, gen.UInt64Range(0, 1<<62), gen.UInt64(), gen.UInt64Range(0, 1<<62), gen.UInt64()))
		props.TestingRun(t)
	}
}

// TestFromPhysical checks quantization, saturation and identity rules.
func TestFromPhysical(t *testing.T) {
	h, err := FromPhysical(Compact, Physical{SwitchID: 9, SpeedGbps: 400, TsNs: 1<<24 + 5, TxBytes: 128*3 + 127, QlenBytes: 80*2 + 79})
	if err != nil || h != (Hop{SpeedCode: 4, Ts: 5, TxBytes: 3, Qlen: 2}) {
		t.Errorf("compact FromPhysical = %+v, %v", h, err)
	}
	h, err = FromPhysical(Compact, Physical{SpeedGbps: 25, QlenBytes: 1 << 40})
	if err != nil || h.Qlen != 1<<17-1 {
		t.Errorf("compact saturating qlen = %d, %v; want %d", h.Qlen, err, 1<<17-1)
	}
	h, err = FromPhysical(IFA, Physical{SwitchID: 0xFFFFF, PortID: 7, SpeedGbps: 10, TsNs: 3*NsPerSecond + 42, TxBytes: 1<<32 + 9, QlenBytes: 1 << 30})
	want := Hop{SpeedCode: 0, DeviceID: 0xFFFFF, EgressPort: 7, RxSec: 3, RxNs: 42, TxBytes: 9, Qlen: 1<<24 - 1}
	if err != nil || h != want {
		t.Errorf("ifa FromPhysical = %+v, %v; want %+v", h, err, want)
	}
	for _, c := range []struct {
		e    Encoding
		p    Physical
		want string
	}{
		{IFA, Physical{SpeedGbps: 30}, "speed_gbps=30"},
		{Compact, Physical{SpeedGbps: 10}, "speed_gbps=10"},
		{IFA, Physical{SpeedGbps: 10, SwitchID: 1 << 20}, "switch=1048576"},
		{IFA, Physical{SpeedGbps: 10, PortID: 1 << 16}, "port=65536"},
	} {
		if _, err := FromPhysical(c.e, c.p); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("FromPhysical(%s, %+v) error = %v, want containing %q", c.e, c.p, err, c.want)
		}
	}
	p, err := ToPhysical(IFA, Hop{SpeedCode: 6, RxSec: 2, RxNs: 999_999_999, ResidenceNs: 2, TxBytes: 5, Qlen: 6, DeviceID: 3, EgressPort: 4})
	wantP := Physical{SwitchID: 3, PortID: 4, SpeedGbps: 400, TsNs: 3*NsPerSecond + 1, TxBytes: 5, QlenBytes: 6}
	if err != nil || p != wantP {
		t.Errorf("ToPhysical = %+v, %v; want %+v", p, err, wantP)
	}
}

// TestSpeedTables pins the code tables (sources: IFA metadata speed field;
// ns-3 IntHop::lineRateValues) and their inverse.
func TestSpeedTables(t *testing.T) {
	want := map[Encoding][]uint32{
		IFA:     {10, 25, 40, 50, 100, 200, 400, 0, 0, 0, 0, 0, 0, 0, 0, 0},
		Compact: {25, 50, 100, 200, 400, 0, 0, 0},
	}
	for _, e := range Encodings() {
		if got := e.SpeedTable(); !reflect.DeepEqual(got, want[e]) {
			t.Errorf("%s SpeedTable = %v, want %v", e, got, want[e])
		}
		for c, g := range want[e] {
			if g == 0 {
				continue
			}
			if code, err := e.SpeedCode(g); err != nil || int(code) != c {
				t.Errorf("%s SpeedCode(%d) = %d, %v; want %d", e, g, code, err, c)
			}
		}
		if e.MaxSpeedGbps() != 400 {
			t.Errorf("%s MaxSpeedGbps = %d, want 400", e, e.MaxSpeedGbps())
		}
	}
}

// TestEncodingText: names round-trip through text marshalling; bad names fail.
func TestEncodingText(t *testing.T) {
	for _, e := range Encodings() {
		b, err := e.MarshalText()
		var back Encoding
		if err != nil || back.UnmarshalText(b) != nil || back != e {
			t.Errorf("text round trip of %v: %q, %v, %v", e, b, err, back)
		}
	}
	var e Encoding
	if err := e.UnmarshalText([]byte("int")); err == nil {
		t.Error("UnmarshalText(int) accepted")
	}
	if _, err := Encoding(3).MarshalText(); err == nil {
		t.Error("MarshalText(Encoding(3)) accepted")
	}
}

// FuzzParseStack: arbitrary bytes never panic, and whatever parses
// re-encodes to bytes that parse to the same hops.
func FuzzParseStack(f *testing.F) {
	b, _ := AppendStack(nil, IFA, []Hop{{SpeedCode: 4}, {SpeedCode: 2}})
	f.Add(b, true)
	c, _ := AppendStack(nil, Compact, []Hop{{SpeedCode: 4, Ts: 3}})
	f.Add(c, false)
	f.Fuzz(func(t *testing.T, b []byte, ifa bool) {
		e := Compact
		if ifa {
			e = IFA
		}
		hops, err := ParseStack(b, e, nil)
		if err != nil {
			return
		}
		again, err := AppendStack(nil, e, hops)
		if err != nil {
			t.Fatalf("re-encode: %v", err)
		}
		back, err := ParseStack(again, e, nil)
		if err != nil || !reflect.DeepEqual(back, hops) {
			t.Fatalf("round trip: %v, %+v vs %+v", err, back, hops)
		}
	})
}
