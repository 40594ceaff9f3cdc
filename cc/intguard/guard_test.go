package intguard

import (
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/telemetry"
)

// testGuard is the default guard of encoding e with the deployed speeds
// restricted to 100 Gbps (the forged-INT scenario's network).
func testGuard(t *testing.T, e telemetry.Encoding, edit func(c *Config)) *Guard {
	t.Helper()
	c := DefaultConfig(hpcc.DefaultConfigFor(e))
	c.Speed.AllowedGbps = []uint32{100}
	if edit != nil {
		edit(&c)
	}
	g, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// flow is one hop at 100 Gbps: stored record (ts0, tx0) and an event dts
// ns later with txBytes delta db units and queue q units.
func flow(g *Guard, ts0, dts, tx0, db uint64, q uint32) (hpcc.State, hpcc.Input) {
	e := g.enc
	code, _ := e.SpeedCode(100)
	txm := uint64(1)<<e.TxBytesBits() - 1
	st := hpcc.State{Valid: true, NHops: 1}
	st.Hops[0] = hpcc.HopState{Ts: ts0, TxBytes: uint32(tx0 & txm)}
	in := hpcc.Input{NHops: 1}
	h := &in.Hops[0]
	h.SpeedCode, h.TxBytes, h.Qlen = code, uint32((tx0+db)&txm), q
	if e == telemetry.Compact {
		h.Ts = uint32((ts0 + dts) & (1<<24 - 1))
	} else {
		// ts0 and ts0+dts within one second: rx_sec 0.
		h.RxNs = uint32(ts0 + dts)
		if g.ids {
			h.DeviceID, h.EgressPort = 7, 3
			st.Hops[0].ID = 7<<16 | 3
		}
	}
	return st, in
}

// TestChecksBoundaries checks each check at its boundary, in both
// encodings. Expected values are worked by hand from docs/guard.md:
// 100 Gbps = 12.5 bytes/ns, tol 64/256 = 25%, so over dts = 1000 ns the
// bound is 15625 bytes (IFA units) or floor(15625/128) = 122 units
// (Compact); the buffer of 4 MiB is 4194304 IFA units or
// floor(4194304/80) = 52428 Compact units.
func TestChecksBoundaries(t *testing.T) {
	for _, tc := range []struct {
		e           telemetry.Encoding
		dbMax, qmax uint64
		wrap        uint64
	}{
		{telemetry.IFA, 15625, 4194304, 0},
		{telemetry.Compact, 122, 52428, 1 << 24},
	} {
		g := testGuard(t, tc.e, nil)
		if got := g.DBMax(1000, mustCode(t, tc.e, 100)); got != tc.dbMax {
			t.Fatalf("%s: DBMax(1000 ns, 100G) = %d, want %d", tc.e, got, tc.dbMax)
		}
		if g.qmax != tc.qmax {
			t.Fatalf("%s: qmax = %d, want %d", tc.e, g.qmax, tc.qmax)
		}
		rows := []struct {
			name    string
			dts, db uint64
			q       uint32
			fired   Check
			none    bool
			dropEv  bool
		}{
			{"clean", 1000, 100, 10, 0, true, false},
			{"rate at bound", 1000, tc.dbMax, 10, 0, true, false},
			{"rate above bound", 1000, tc.dbMax + 1, 10, CheckRate, false, false},
			{"qlen at buffer", 1000, 100, uint32(tc.qmax), 0, true, false},
			{"qlen above buffer", 1000, 100, uint32(tc.qmax) + 1, CheckQlen, false, false},
			{"dts zero (only hop: event dropped)", 0, 0, 10, CheckTime, false, true},
		}
		for _, r := range rows {
			st, in := flow(g, 1000, r.dts, 5000, r.db, r.q)
			v := g.Check(st, in)
			any := false
			for k, f := range v.Fired {
				if f != 0 {
					any = true
					if r.none || Check(k) != r.fired {
						t.Errorf("%s %s: check %s fired (mask %b)", tc.e, r.name, Check(k), f)
					}
				}
			}
			if !r.none && !any {
				t.Errorf("%s %s: check %s did not fire", tc.e, r.name, r.fired)
			}
			if v.DropEvent != r.dropEv {
				t.Errorf("%s %s: DropEvent = %v, want %v", tc.e, r.name, v.DropEvent, r.dropEv)
			}
			// Outcomes: the clamps.
			st2, in2, _ := g.Apply(st, in)
			if r.none {
				continue
			}
			switch r.fired {
			case CheckQlen:
				if uint64(in2.Hops[0].Qlen) != tc.qmax {
					t.Errorf("%s %s: qlen after = %d, want %d", tc.e, r.name, in2.Hops[0].Qlen, tc.qmax)
				}
			case CheckRate:
				txm := uint64(1)<<tc.e.TxBytesBits() - 1
				if d := (uint64(in2.Hops[0].TxBytes) - uint64(st2.Hops[0].TxBytes)) & txm; d != tc.dbMax {
					t.Errorf("%s %s: delta after = %d, want the bound %d", tc.e, r.name, d, tc.dbMax)
				}
			case CheckTime:
				if st2.Hops[0].Ts != g.recordTs(&in.Hops[0]) {
					t.Errorf("%s %s: stored ts not re-baselined", tc.e, r.name)
				}
			}
		}
	}
}

func mustCode(t *testing.T, e telemetry.Encoding, gbps uint32) uint8 {
	t.Helper()
	c, err := e.SpeedCode(gbps)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestTimeNegativeWindow: Compact, the back window's two edges. A delta
// of wrap - BackWindowNs is negative (dropped); wrap - BackWindowNs - 1 is
// a long forward delta (kept).
func TestTimeNegativeWindow(t *testing.T) {
	g := testGuard(t, telemetry.Compact, nil)
	w := uint64(1 << 24)
	for _, r := range []struct {
		dts  uint64
		want bool
	}{{w - 1, true}, {w - DefaultBackWindowNs, true}, {w - DefaultBackWindowNs - 1, false}, {1, false}} {
		st, in := flow(g, 100, r.dts, 0, 0, 0)
		v := g.Check(st, in)
		if got := v.Fired[CheckTime] != 0; got != r.want {
			t.Errorf("dts = %d: time fired %v, want %v", r.dts, got, r.want)
		}
	}
}

// TestPathChange: a hop-count change drops every hop record (and never the
// event); an identity change drops that hop only; U, W, Wc, IncStage and
// LastUpdate are never touched by the guard.
func TestPathChange(t *testing.T) {
	g := testGuard(t, telemetry.IFA, nil)
	st, in := flow(g, 1000, 1000, 0, 100, 10)
	st.W, st.Wc, st.U, st.IncStage, st.LastUpdate = 11, 22, 33, 4, 55
	in.NHops, in.Hops[1] = 2, in.Hops[0]
	v := g.Check(st, in)
	if v.Fired[CheckPath] != 0b11 || v.Drop != 0b11 || v.DropEvent {
		t.Fatalf("count change: path %b drop %b event %v, want 11 11 false", v.Fired[CheckPath], v.Drop, v.DropEvent)
	}
	st, in = flow(g, 1000, 1000, 0, 100, 10)
	st.W, st.Wc, st.U, st.IncStage, st.LastUpdate = 11, 22, 33, 4, 55
	in.Hops[0].EgressPort = 9
	st2, _, v := g.Apply(st, in)
	if v.Fired[CheckPath] != 1 || v.DropEvent {
		t.Fatalf("identity change: path %b event %v", v.Fired[CheckPath], v.DropEvent)
	}
	if st2.W != 11 || st2.Wc != 22 || st2.U != 33 || st2.IncStage != 4 || st2.LastUpdate != 55 {
		t.Fatalf("flow registers changed by the guard: %+v", st2)
	}
}

// TestSpeedClamp: an undeployed and a reserved code are clamped to the
// slowest deployed speed; the rate check then uses that speed.
func TestSpeedClamp(t *testing.T) {
	g := testGuard(t, telemetry.IFA, func(c *Config) { c.Speed.AllowedGbps = []uint32{100, 25} })
	for _, code := range []uint8{6 /* 400G */, 12 /* reserved */} {
		st, in := flow(g, 1000, 1000, 0, 100, 10)
		in.Hops[0].SpeedCode = code
		_, in2, v := g.Apply(st, in)
		if v.Fired[CheckSpeed] != 1 || in2.Hops[0].SpeedCode != mustCode(t, telemetry.IFA, 25) {
			t.Errorf("code %d: fired %b, code after %d", code, v.Fired[CheckSpeed], in2.Hops[0].SpeedCode)
		}
	}
	// 4000 bytes in 1000 ns is 32 Gbps: plausible at 100G, above 25G*1.25.
	st, in := flow(g, 1000, 1000, 0, 4000, 10)
	in.Hops[0].SpeedCode = 6
	if v := g.Check(st, in); v.Fired[CheckRate] != 1 {
		t.Errorf("rate at the clamped speed: fired %b, want 1", v.Fired[CheckRate])
	}
}

// TestDisabled: with every check disabled nothing fires and Apply is the
// identity on valid-width inputs.
func TestDisabled(t *testing.T) {
	g := testGuard(t, telemetry.IFA, func(c *Config) {
		c.Qlen.Enable, c.Rate.Enable, c.Speed.Enable, c.Path.Enable, c.Time.Enable = false, false, false, false, false
	})
	st, in := flow(g, 1000, 0, 0, 1<<31, 1<<23)
	in.Hops[0].SpeedCode = 12
	st2, in2, v := g.Apply(st, in)
	if v.Fired != [NumChecks]uint8{} || v.DropEvent || st2 != st || in2 != in {
		t.Fatalf("disabled guard changed something: %+v", v)
	}
}

// TestConfigErrors: each invalid field is named.
func TestConfigErrors(t *testing.T) {
	for _, r := range []struct {
		edit func(c *Config)
		want string
	}{
		{func(c *Config) { c.Qlen.BufferBytes = 0 }, "qlen.buffer_bytes=0"},
		{func(c *Config) { c.Qlen.BufferBytes = 1 << 30 }, "qlen.buffer_bytes=1073741824"},
		{func(c *Config) { c.Rate.TolQ8 = 1024 }, "rate.tolerance_q8=1024"},
		{func(c *Config) { c.Speed.AllowedGbps = nil }, "speed.allowed_gbps"},
		{func(c *Config) { c.Speed.AllowedGbps = []uint32{33} }, "speed_gbps=33"},
		{func(c *Config) { c.Speed.AllowedGbps = []uint32{100, 100} }, "listed twice"},
		{func(c *Config) { c.Time.BackWindowNs = 1 << 60 }, "time.back_window_ns"},
	} {
		c := DefaultConfig(hpcc.DefaultConfig())
		r.edit(&c)
		if _, err := New(c); err == nil || !strings.Contains(err.Error(), r.want) {
			t.Errorf("want error containing %q, got %v", r.want, err)
		}
	}
}

// TestConfigJSONRoundTrip: LoadConfig(JSON(c)) == c.
func TestConfigJSONRoundTrip(t *testing.T) {
	c := DefaultConfig(hpcc.DefaultConfigFor(telemetry.Compact))
	c.Speed.AllowedGbps = []uint32{100, 25}
	c.Rate.TolQ8 = 3
	b, err := c.JSON()
	if err != nil {
		t.Fatal(err)
	}
	got, err := LoadConfig(strings.NewReader(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	b2, _ := got.JSON()
	if string(b) != string(b2) {
		t.Fatalf("round trip differs:\n%s\n%s", b, b2)
	}
	if _, err := LoadConfig(strings.NewReader(`{"qlen": {"bufer_bytes": 1}}`)); err == nil {
		t.Fatal("unknown key accepted")
	}
}
