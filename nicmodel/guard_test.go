package nicmodel

import (
	"bytes"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/engine"
)

// guardRun runs one 400 KB flow from A to B through the bench's INT link
// (one hop, queue length from qlen) with or without the guard on A, and
// returns the link's frames, A's completion cycle and A's counters.
func guardRun(t *testing.T, guard bool, qlen func(engine.Cycle) uint64) ([]byte, engine.Cycle, guardResult) {
	t.Helper()
	cfg := testConfig(CCHPCC)
	if guard {
		cfg.Guard = DefaultGuardConfig(cfg.HPCC)
		cfg.Guard.Speed.AllowedGbps = []uint32{100}
	}
	b := newBench(t, benchOpts{cfgA: cfg, cfgB: testConfig(CCHPCC), flows: 1, delay: 1000, qlen: qlen})
	b.open(t, 1, 400_000, 0)
	b.runIdle(t, 50_000_000)
	var frames bytes.Buffer
	for _, f := range b.ab.got {
		frames.Write(f.v)
	}
	r := b.a.Completed()
	if len(r) != 1 {
		t.Fatalf("guard=%v: %d completions", guard, len(r))
	}
	st, err := b.a.QP(1)
	if err != nil {
		t.Fatal(err)
	}
	return frames.Bytes(), r[0].Done, guardResult{b.a.Counters(), hpcc.Real(cfg.HPCC.Formats.U, st.HPCC.U)}
}

// guardResult is a run's counters and the flow's final U.
type guardResult struct {
	Counters
	lastU float64
}

// TestGuardHonestIdentical: on honest telemetry (a queue that builds to
// 30 KB and drains) no check fires, and the NIC with the guard sends
// byte-identical frames at identical cycles to the NIC without it (oracle:
// the unguarded run). The guard's registers exist only when it is on.
func TestGuardHonestIdentical(t *testing.T) {
	q := func(now engine.Cycle) uint64 {
		if now > 20_000 && now < 60_000 {
			return uint64(now-20_000) * 3 / 4
		}
		return 0
	}
	off, doneOff, cOff := guardRun(t, false, q)
	on, doneOn, cOn := guardRun(t, true, q)
	if !bytes.Equal(off, on) || doneOff != doneOn {
		t.Fatalf("guard on honest telemetry changed the run: %d vs %d frame bytes, done %d vs %d", len(off), len(on), doneOff, doneOn)
	}
	if cOff.Guard != nil {
		t.Fatalf("counters of an unguarded NIC have a guard block")
	}
	g := cOn.Guard
	if g == nil || g.Events == 0 || g.Events != cOn.Module.CCIssued {
		t.Fatalf("guard counters %+v, module issued %d", g, cOn.Module.CCIssued)
	}
	if g.EventsDropped+g.HopsDropped+g.QlenClamped+g.RateClamped+g.SpeedClamped+g.PathChanged+g.TimeStale != 0 {
		t.Fatalf("a check fired on honest telemetry: %+v", g)
	}
	var names []string
	for _, r := range cOn.Registers() {
		if strings.HasPrefix(r.Name, "guard.") {
			names = append(names, r.Name)
		}
	}
	want := "guard.events guard.events_dropped guard.hops_dropped guard.qlen_clamped guard.rate_clamped guard.speed_clamped guard.path_changed guard.time_stale"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("guard registers %q, want %q", got, want)
	}
}

// TestGuardForgedQlen: the link reports a 16 MB queue (the IFA field's
// maximum) on every packet. With the guard every report is clamped to the
// 4 MiB buffer, so the flow's U (the EWMA of u' = qlen/(B*T) + txRate/B)
// stays within the guard's bound Buf/(B*T) + (1 + tol) = 4194304/(12.5 *
// 5000) + 1.25 = 68.36 (docs/guard.md; plus the U register's rounding,
// 2^-F per update at most, far below 0.01); without the guard it
// exceeds it (the test of the bound can fail). The flow completes no
// later with the guard.
func TestGuardForgedQlen(t *testing.T) {
	q := func(engine.Cycle) uint64 { return 1 << 24 }
	_, doneOff, cOff := guardRun(t, false, q)
	_, doneOn, c := guardRun(t, true, q)
	bound := 4194304.0/(12.5*5000) + 1.25
	if cOn, cOf := c.lastU, cOff.lastU; cOn > bound+0.01 || cOf <= bound {
		t.Fatalf("U after the run: %.3f with the guard, %.3f without; bound %.3f", cOn, cOf, bound)
	} else {
		t.Logf("U: %.3f with the guard (bound %.3f), %.3f without", cOn, bound, cOf)
	}
	if c.Guard.QlenClamped != c.Guard.Events {
		t.Fatalf("qlen clamped on %d of %d events, want every one", c.Guard.QlenClamped, c.Guard.Events)
	}
	if doneOn >= doneOff {
		t.Fatalf("forged qlen: done at %d with the guard, %d without: the guard did not help", doneOn, doneOff)
	}
	t.Logf("forged 16 MB queue: 400 KB done at cycle %d without the guard, %d with it", doneOff, doneOn)
}

// TestGuardConfigErrors: the guard needs cc=hpcc or cc=hpcc-rx and the
// fixed model.
func TestGuardConfigErrors(t *testing.T) {
	c := testConfig(CCHPCC)
	c.Guard = DefaultGuardConfig(c.HPCC)
	c.Model = Float
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "model=fixed") {
		t.Errorf("float model with a guard: %v", err)
	}
	c = testConfig(CCLDCP)
	c.Guard = DefaultGuardConfig(c.HPCC)
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "cc=hpcc or cc=hpcc-rx") {
		t.Errorf("ldcp with a guard: %v", err)
	}
	c = testConfig(CCHPCCRx)
	c.Guard = DefaultGuardConfig(c.HPCC)
	if err := c.Validate(); err != nil {
		t.Errorf("hpcc-rx with a guard: %v", err)
	}
	c = testConfig(CCHPCC)
	c.Guard = DefaultGuardConfig(c.HPCC)
	c.Guard.Qlen.BufferBytes = 0
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "guard: intguard: qlen.buffer_bytes=0") {
		t.Errorf("bad buffer: %v", err)
	}
}

// rxGuardRun runs one 400 KB flow from A to B under cc=hpcc-rx through
// the bench's INT link (one hop, queue length from qlen) with or without
// the guard on B, whose Rx-HPCC runs the update on the data packets'
// telemetry; it returns A's completion cycle, B's counters and the
// receiver's final U for the flow.
func rxGuardRun(t *testing.T, guard bool, qlen func(engine.Cycle) uint64) (engine.Cycle, guardResult) {
	t.Helper()
	cfgB := testConfig(CCHPCCRx)
	if guard {
		cfgB.Guard = DefaultGuardConfig(cfgB.HPCC)
		cfgB.Guard.Speed.AllowedGbps = []uint32{100}
	}
	b := newBench(t, benchOpts{cfgA: testConfig(CCHPCCRx), cfgB: cfgB, flows: 1, delay: 1000, qlen: qlen})
	b.open(t, 1, 400_000, 0)
	b.runIdle(t, 50_000_000)
	r := b.a.Completed()
	if len(r) != 1 {
		t.Fatalf("guard=%v: %d completions", guard, len(r))
	}
	return r[0].Done, guardResult{b.b.Counters(), hpcc.Real(cfgB.HPCC.Formats.U, b.b.rxcc.fx[1].U)}
}

// TestGuardRxHPCC: the guard on the receiver's Rx-HPCC path (cc=hpcc-rx).
// Honest telemetry (a queue that builds and drains): no check fires, every
// data packet with telemetry is checked (Events = RxHPCC.Calls), and the
// receiver's update sequence (its final U and the completion cycle) is the
// unguarded run's (oracle). Forged 16 MB queue on every packet: every
// report is clamped, the receiver's U stays within the guard's bound
// Buf/(B*T) + (1 + tol) (docs/guard.md, as TestGuardForgedQlen) while
// without the guard it exceeds it, and the flow completes earlier. Without
// the guard wired into Rx-HPCC the counters are absent and U unbounded, so
// this test fails.
func TestGuardRxHPCC(t *testing.T) {
	honest := func(now engine.Cycle) uint64 {
		if now > 20_000 && now < 60_000 {
			return uint64(now-20_000) * 3 / 4
		}
		return 0
	}
	doneOff, cOff := rxGuardRun(t, false, honest)
	doneOn, cOn := rxGuardRun(t, true, honest)
	if cOff.Guard != nil {
		t.Fatalf("counters of an unguarded receiver have a guard block")
	}
	g := cOn.Guard
	if g == nil || g.Events == 0 || g.Events != cOn.RxHPCC.Calls {
		t.Fatalf("guard counters %+v, Rx-HPCC calls %d", g, cOn.RxHPCC.Calls)
	}
	if g.EventsDropped+g.HopsDropped+g.QlenClamped+g.RateClamped+g.SpeedClamped+g.PathChanged+g.TimeStale != 0 {
		t.Fatalf("a check fired on honest telemetry: %+v", g)
	}
	if doneOn != doneOff || cOn.lastU != cOff.lastU || cOn.RxHPCC != cOff.RxHPCC {
		t.Fatalf("guard on honest telemetry changed the run: done %d vs %d, U %v vs %v, %+v vs %+v",
			doneOn, doneOff, cOn.lastU, cOff.lastU, cOn.RxHPCC, cOff.RxHPCC)
	}

	forged := func(engine.Cycle) uint64 { return 1 << 24 }
	fOff, rOff := rxGuardRun(t, false, forged)
	fOn, rOn := rxGuardRun(t, true, forged)
	bound := 4194304.0/(12.5*5000) + 1.25
	if rOn.lastU > bound+0.01 || rOff.lastU <= bound {
		t.Fatalf("receiver U after the run: %.3f with the guard, %.3f without; bound %.3f", rOn.lastU, rOff.lastU, bound)
	}
	if rOn.Guard.QlenClamped != rOn.Guard.Events || rOn.Guard.Events != rOn.RxHPCC.Calls {
		t.Fatalf("qlen clamped on %d of %d events (%d Rx-HPCC calls), want every one", rOn.Guard.QlenClamped, rOn.Guard.Events, rOn.RxHPCC.Calls)
	}
	if fOn >= fOff {
		t.Fatalf("forged qlen: done at %d with the guard, %d without: the guard did not help", fOn, fOff)
	}
	t.Logf("Rx-HPCC forged 16 MB queue: U %.3f with the guard (bound %.3f), %.3f without; 400 KB done at cycle %d without, %d with; %d events checked",
		rOn.lastU, bound, rOff.lastU, fOff, fOn, rOn.Guard.Events)
}
