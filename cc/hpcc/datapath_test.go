package hpcc

import (
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/fixedpoint"
	"github.com/hpccgold/hpccgold/telemetry"
)

func mustDP(t testing.TB, c Config) *Datapath {
	t.Helper()
	d, err := NewDatapath(c)
	if err != nil {
		t.Fatalf("NewDatapath: %v", err)
	}
	return d
}

func mustRef(t testing.TB, c Config) *Reference {
	t.Helper()
	r, err := NewReference(c)
	if err != nil {
		t.Fatalf("NewReference: %v", err)
	}
	return r
}

// hop builds a wire hop from physical values (telemetry.FromPhysical).
func hop(t testing.TB, e telemetry.Encoding, sw uint32, gbps uint32, ts, tx, q uint64) telemetry.Hop {
	t.Helper()
	h, err := telemetry.FromPhysical(e, telemetry.Physical{SwitchID: sw, PortID: 1, SpeedGbps: gbps, TsNs: ts, TxBytes: tx, QlenBytes: q})
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestFirstAck: the first event of a flow only records telemetry and opens
// the first round (HPCC authors' simulator): W = Wc = W_init, U = U_init,
// lastUpdateSeq = snd_nxt, and the stored hops equal the event's.
func TestFirstAck(t *testing.T) {
	for _, e := range telemetry.Encodings() {
		c := DefaultConfigFor(e)
		d := mustDP(t, c)
		in := Input{Seq: 7, SndNxt: 12345, NHops: 2}
		in.Hops[0] = hop(t, e, 1, 100, 1e9+5, 1<<33, 4000)
		in.Hops[1] = hop(t, e, 2, 25, 2e9, 77*128, 0)
		st, out := d.Update(d.InitialState(), in)
		if !out.First || out.MI || out.UpdateWc || out.SelHop != NoHop || out.HopValid != 0 {
			t.Errorf("%s: first-ACK flags = %+v", e, out)
		}
		if d.WBytes(st.W) != c.WInitBytes || d.WBytes(st.Wc) != c.WInitBytes || d.UValue(st.U) != c.UInit || st.IncStage != 0 {
			t.Errorf("%s: first-ACK registers W=%v Wc=%v U=%v inc=%d", e, d.WBytes(st.W), d.WBytes(st.Wc), d.UValue(st.U), st.IncStage)
		}
		if st.LastUpdate != 12345 || !st.Valid || st.NHops != 2 {
			t.Errorf("%s: LastUpdate=%d Valid=%v NHops=%d, want 12345 true 2", e, st.LastUpdate, st.Valid, st.NHops)
		}
		// R = W_init / T = 62500/5000 = 12.5 bytes/ns exactly.
		if got := d.RateBytesPerNs(out.Rate); got != 12.5 {
			t.Errorf("%s: first-ACK rate = %v bytes/ns, want 12.5", e, got)
		}
		rs := d.RefState(st)
		for i := 0; i < 2; i++ {
			if telemetry.DeltaTsNs(e, in.Hops[i], rs.Hops[i]) != 0 || telemetry.DeltaTxBytes(e, in.Hops[i], rs.Hops[i]) != 0 {
				t.Errorf("%s: stored hop %d differs from the event's", e, i)
			}
		}
	}
}

// TestPackRoundTrip: random states, events and outputs survive
// PackInput/UnpackInput and PackOutput/UnpackOutput for every mode and
// encoding (oracle: identity on the fields the tables carry).
func TestPackRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, c := range testConfigs() {
		d := mustDP(t, c.Config)
		win := make([]uint64, d.InputTable().Words())
		wout := make([]uint64, d.OutputTable().Words())
		for k := 0; k < 200; k++ {
			st, in := randomStateInput(d, rng)
			if err := d.PackInput(st, in, win); err != nil {
				t.Fatalf("%s: PackInput: %v", c.name(), err)
			}
			st2, in2, err := d.UnpackInput(win)
			if err != nil || st2 != st || in2 != in {
				t.Fatalf("%s: input round trip:\n got %+v %+v\nwant %+v %+v", c.name(), st2, in2, st, in)
			}
			next, out := d.Update(st, in)
			if err := d.PackOutput(next, out, wout); err != nil {
				t.Fatalf("%s: PackOutput: %v", c.name(), err)
			}
			n2, o2, err := d.UnpackOutput(wout)
			if err != nil || n2 != next || o2 != out {
				t.Fatalf("%s: output round trip:\n got %+v %+v\nwant %+v %+v", c.name(), n2, o2, next, out)
			}
		}
		st := d.InitialState()
		st.IncStage = 200 // does not fit IncStageBits
		if err := d.PackInput(st, Input{}, win); err == nil || !strings.Contains(err.Error(), "st_inc_stage") {
			t.Errorf("%s: PackInput with a too-wide incStage: err = %v", c.name(), err)
		}
	}
}

// TestFieldTablesIdentifiers: every field name is a Verilog-safe identifier
// (fieldtable.New enforces it) and the state fields of the input and output
// tables have the same widths, so ns_ can be written back as st_.
func TestFieldTablesIdentifiers(t *testing.T) {
	for _, c := range testConfigs() {
		d := mustDP(t, c.Config)
		in, out := d.InputTable(), d.OutputTable()
		for _, f := range in.Fields {
			if !strings.HasPrefix(f.Name, "st_") {
				continue
			}
			j := out.Index("ns_" + strings.TrimPrefix(f.Name, "st_"))
			if j < 0 || out.Fields[j].Width != f.Width {
				t.Errorf("%s: %s has no ns_ twin of width %d", c.name(), f.Name, f.Width)
			}
		}
		if got := d.FlowStateBits(); got <= 0 || got >= in.Width {
			t.Errorf("%s: FlowStateBits = %d", c.name(), got)
		}
	}
}

type namedConfig struct {
	Config
	label string
}

func (c namedConfig) name() string { return c.label }

// testConfigs covers both encodings, both modes and dynamic W_ai.
func testConfigs() []namedConfig {
	var cs []namedConfig
	for _, e := range telemetry.Encodings() {
		c := DefaultConfigFor(e)
		cs = append(cs, namedConfig{c, e.String() + "/sender"})
		r := c
		r.Mode = Receiver
		cs = append(cs, namedConfig{r, e.String() + "/receiver"})
		r.DynamicWAI = true
		cs = append(cs, namedConfig{r, e.String() + "/receiver-dynwai"})
	}
	return cs
}

// randomStateInput draws a raw state and event with every field uniformly
// random within its width (what the vector generator's random level does).
func randomStateInput(d *Datapath, rng *rand.Rand) (State, Input) {
	c := d.cfg
	e := c.Encoding
	r := func(bits int) uint64 { return rng.Uint64() & mask64(bits) }
	st := State{
		Valid: rng.IntN(2) == 1, NHops: uint8(r(c.NHopsBits())), W: r(c.Formats.W.W), Wc: r(c.Formats.W.W),
		U: r(c.Formats.U.W), IncStage: uint8(r(c.IncStageBits())), LastUpdate: r(c.LastUpdateBits()),
	}
	for i := 0; i < c.MaxHops; i++ {
		st.Hops[i] = HopState{Ts: r(c.HopTsBits()), TxBytes: uint32(r(e.TxBytesBits())), Qlen: uint32(r(e.QlenBits())), ID: r(c.HopIDBits())}
	}
	in := Input{NHops: uint8(r(c.NHopsBits()))}
	if c.Mode == Sender {
		in.Seq, in.SndNxt = r(c.SeqBits), r(c.SeqBits)
	} else {
		in.NowNs = r(c.TimeBits)
		if c.DynamicWAI {
			in.NFlows = uint32(r(c.FlowCountBits))
		}
	}
	for i := 0; i < c.MaxHops; i++ {
		h := telemetry.Hop{SpeedCode: uint8(r(e.SpeedBits())), TxBytes: uint32(r(e.TxBytesBits())), Qlen: uint32(r(e.QlenBits()))}
		if e == telemetry.Compact {
			h.Ts = uint32(r(telemetry.CompactTsBits))
		} else {
			h.RxSec, h.RxNs, h.ResidenceNs = uint32(r(20)), uint32(r(32)), uint32(r(32))
			if c.HopIDBits() > 0 {
				h.DeviceID, h.EgressPort = uint32(r(20)), uint16(r(16))
			}
		}
		in.Hops[i] = h
	}
	return st, in
}

// TestConfigValidateErrors: bad fields give errors naming field and value.
func TestConfigValidateErrors(t *testing.T) {
	cases := []struct {
		mod  func(*Config)
		want string
	}{
		{func(c *Config) { c.MaxHops = 0 }, "MaxHops=0"},
		{func(c *Config) { c.MaxHops = 9 }, "MaxHops=9"},
		{func(c *Config) { c.Eta = 1 }, "Eta=1"},
		{func(c *Config) { c.BaseRTTNs = 0 }, "BaseRTTNs=0"},
		{func(c *Config) { c.WMinBytes = 0 }, "WMinBytes=0"},
		{func(c *Config) { c.WMaxBytes = 10 }, "WMaxBytes=10"},
		{func(c *Config) { c.WInitBytes = 1e9 }, "WInitBytes=1e+09"},
		{func(c *Config) { c.MaxDeltaTsNs = 1 << 30 }, "MaxDeltaTsNs=1073741824"},
		{func(c *Config) { c.MaxLinkSpeedGbps = 30 }, "MaxLinkSpeedGbps=30"},
		{func(c *Config) { c.DynamicWAI = true }, "DynamicWAI=true"},
		{func(c *Config) { c.Formats.U = fixedpoint.MustFormat("s32.8") }, "Formats.U"},
		{func(c *Config) { c.Formats.Rate = fixedpoint.MustFormat("u8.4") }, "signal rate"},
		{func(c *Config) { c.WMaxBytes = 1 << 25; c.WInitBytes = 1 << 20 }, "w_max"},
		{func(c *Config) { c.RecipU.NRSteps = 4 }, "RecipU.NRSteps=4"},
		{func(c *Config) { c.Formats.RecipDts = fixedpoint.MustFormat("u30.1") }, "signal recip_dts"},
	}
	for _, cs := range cases {
		c := DefaultConfig()
		cs.mod(&c)
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), cs.want) {
			t.Errorf("Validate error = %v, want containing %q", err, cs.want)
		}
	}
	for _, c := range testConfigs() {
		if err := c.Validate(); err != nil {
			t.Errorf("%s: %v", c.name(), err)
		}
	}
}

// TestLoadConfig: JSON round trip, unknown keys rejected, encoding defaults.
func TestLoadConfig(t *testing.T) {
	c := DefaultConfigFor(telemetry.Compact)
	c.Eta = 0.9
	b, err := c.JSON()
	if err != nil {
		t.Fatal(err)
	}
	got, err := LoadConfig(strings.NewReader(string(b)))
	if err != nil || got != c {
		t.Errorf("LoadConfig(JSON(c)) = %+v, %v", got, err)
	}
	if _, err := LoadConfig(strings.NewReader(`{"etaa": 0.9}`)); err == nil || !strings.Contains(err.Error(), "etaa") {
		t.Errorf("unknown key: err = %v", err)
	}
	got, err = LoadConfig(strings.NewReader(`{"encoding": "compact", "eta": 0.9}`))
	if err != nil || got != c {
		t.Errorf("partial config = %+v, %v; want compact defaults with eta 0.9", got, err)
	}
	if _, err := LoadConfig(strings.NewReader(`{"formats": {"u": "x1"}}`)); err == nil {
		t.Error("bad format notation accepted")
	}
}

// TestSmokeAgainstReference: on a simple 2-hop trace (queue build-up then
// drain), fixed and float W stay within 2^-10 relative and U within 2^-16
// absolute at every step (a quick check; the properties do the real work).
func TestSmokeAgainstReference(t *testing.T) {
	for _, e := range telemetry.Encodings() {
		c := DefaultConfigFor(e)
		d, r := mustDP(t, c), mustRef(t, c)
		st, rs := d.InitialState(), r.InitialState()
		var ts, tx uint64 = 1000, 0
		for k := 0; k < 60; k++ {
			q := uint64(0)
			if k > 10 && k < 25 {
				q = uint64(k) * 5000
			}
			in := Input{Seq: uint64(k * 1000), SndNxt: uint64(k*1000 + 5000), NHops: 2}
			in.Hops[0] = hop(t, e, 1, 100, ts, tx, q)
			in.Hops[1] = hop(t, e, 2, 25, ts+700, tx/5, 0)
			var o Output
			var ro RefOutput
			st, o = d.Update(st, in)
			rs, ro = r.Update(rs, in)
			if w := d.WBytes(o.W); math.Abs(w-ro.W) > ro.W/1024 || math.Abs(d.UValue(o.U)-ro.U) > 1.0/65536 || o.MI != ro.MI {
				t.Fatalf("%s step %d: fixed W=%v U=%v mi=%v; float %v", e, k, w, d.UValue(o.U), o.MI, ro)
			}
			ts += 1000
			tx += 11000
		}
	}
}

// TestTablesGenerationRule checks every ROM entry against the generation
// rule computed independently with big integers: entry = floor(real*2^F +
// 1/2) (round half up), the format's I is the smallest with max entry <
// 2^I, reserved codes are 0. Oracle: exact rational arithmetic.
func TestTablesGenerationRule(t *testing.T) {
	for _, nc := range testConfigs() {
		d := mustDP(t, nc.Config)
		for _, tb := range d.Tables() {
			maxR := new(big.Rat)
			for _, r := range tb.Reals {
				if r.Cmp(maxR) > 0 {
					maxR = r
				}
			}
			if pow2Rat(tb.Format.I).Cmp(maxR) <= 0 || pow2Rat(tb.Format.I-1).Cmp(maxR) > 0 {
				t.Errorf("%s %s: format %s does not tightly hold max entry %s", nc.name(), tb.Name, tb.Format, maxR.FloatString(12))
			}
			for i, r := range tb.Reals {
				x := new(big.Rat).Mul(r, pow2Rat(tb.Format.F()))
				x.Add(x, big.NewRat(1, 2))
				want := new(big.Int).Quo(x.Num(), x.Denom()) // floor (x >= 0)
				if want.Cmp(new(big.Int).SetUint64(tb.Entries[i])) != 0 {
					t.Errorf("%s %s[%d] = %d, want %s", nc.name(), tb.Name, i, tb.Entries[i], want)
				}
			}
		}
		if len(d.RecipUnits()) < 2 {
			t.Errorf("%s: RecipUnits = %d units", nc.name(), len(d.RecipUnits()))
		}
	}
}
