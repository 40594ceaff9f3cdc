package scenario

import (
	"context"
	"flag"
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/cc/intguard"
	"github.com/hpccgold/hpccgold/nicmodel"
)

var forgeOut = flag.String("forge-out", "", "write the forged-INT study (table and plots) into this directory")

// TestForgeStudy runs the forged-INT study (docs/scenarios.md, "Forged
// telemetry") and checks what the guard must do in each row: nothing on
// honest telemetry (identical to the unguarded run); a forged speed on a
// single-speed fabric is clamped back to the true speed, so the run is
// identical to the honest guarded run (the guard's exact neutralization);
// a replay is dropped event by event (and the victims do better than
// without the guard); a forged queue is clamped on every record.
func TestForgeStudy(t *testing.T) {
	if testing.Short() {
		t.Skip("10 runs of 3 ms")
	}
	s, err := ForgeStudy(context.Background(), ParallelOptions{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("\n%s", s.Markdown())
	if *forgeOut != "" {
		if err := s.Write(context.Background(), *forgeOut); err != nil {
			t.Fatal(err)
		}
	}
	row := func(f string, g bool) ForgeRow {
		for _, r := range s.Rows {
			if r.Forgery == f && r.Guard == g {
				return r
			}
		}
		t.Fatalf("no row %s/%v", f, g)
		return ForgeRow{}
	}
	same := func(a, b ForgeRow) bool {
		return a.Completed == b.Completed && a.MeanFCTUs == b.MeanFCTUs && a.RateGbps == b.RateGbps &&
			a.PeakQueue == b.PeakQueue && a.P99Queue == b.P99Queue
	}
	if !same(row("none", false), row("none", true)) {
		t.Errorf("the guard changed the honest run: %+v vs %+v", row("none", false), row("none", true))
	}
	if c := row("none", true).Counters; *c != (nicmodel.GuardCounters{Events: c.Events}) {
		t.Errorf("a check fired on honest telemetry: %+v", c)
	}
	if sp := row("speed", true); !same(sp, row("none", true)) || sp.Counters.SpeedClamped == 0 {
		t.Errorf("forged speed with the guard: %+v, want the honest guarded run %+v", sp, row("none", true))
	}
	if same(row("speed", false), row("none", false)) {
		t.Errorf("the forged speed did nothing without the guard: the study does not exercise it")
	}
	rp, rpOff := row("replay", true), row("replay", false)
	if rp.Counters.EventsDropped == 0 || rp.MeanFCTUs >= rpOff.MeanFCTUs || rp.RateGbps <= rpOff.RateGbps {
		t.Errorf("replay: guard on %+v, off %+v: the guard dropped nothing or did not help", rp, rpOff)
	}
	if q := row("qlen", true); q.Counters.QlenClamped == 0 {
		t.Errorf("forged qlen: nothing clamped")
	}
}

// TestForgedQlenBound: under the forged queue, with the guard every
// HPCC++ update of every victim keeps U <= Buf/(B*T) + 1 + tol (the
// guard's bound, docs/guard.md: the queue term is at most the buffer's,
// the rate term at most 1 + tol), up to 1% for the datapath's
// approximation (docs/datapath.md error bounds are far below); without
// the guard U exceeds it (the check can fail).
func TestForgedQlenBound(t *testing.T) {
	for _, guard := range []bool{false, true} {
		c, err := ForgeStudyConfig("qlen", guard)
		if err != nil {
			t.Fatal(err)
		}
		c.Run.DurationNs = 500_000
		var maxU uint64
		var f hpcc.Config
		res, err := Run(context.Background(), c, Options{OnHPCCUpdate: func(_ int, u *nicmodel.HPCCUpdate) {
			maxU = max(maxU, u.Next.U)
			f = u.Datapath.Config()
		}})
		if err != nil {
			t.Fatal(err)
		}
		tol := float64(intguard.DefaultTolQ8) / 256
		bound := float64(forgeBufferBytes)/(12.5*float64(res.BaseRTTNs)) + 1 + tol
		u := hpcc.Real(f.Formats.U, maxU)
		t.Logf("guard %v: max U %.3f, bound %.3f (T = %d ns)", guard, u, bound, res.BaseRTTNs)
		if guard && u > bound*1.01 {
			t.Errorf("with the guard U reached %.3f > bound %.3f", u, bound)
		}
		if !guard && u <= bound {
			t.Errorf("without the guard U stayed at %.3f <= bound %.3f: the forgery is not exercised", u, bound)
		}
	}
}

// TestReplayNeverReachesUpdate: under the replaying switch (one hop), the
// update without the guard sees events whose only hop repeats the stored
// timestamp (dts = 0: no measurement, but ComputeWind still runs, an
// additive increase per replayed ACK); with the guard no update ever
// sees one: every replayed stack is dropped before the update, so a
// replay cannot move any flow register.
func TestReplayNeverReachesUpdate(t *testing.T) {
	for _, guard := range []bool{false, true} {
		c, err := ForgeStudyConfig("replay", guard)
		if err != nil {
			t.Fatal(err)
		}
		c.Run.DurationNs = 500_000
		stale := 0
		_, err = Run(context.Background(), c, Options{OnHPCCUpdate: func(_ int, u *nicmodel.HPCCUpdate) {
			if u.State.Valid && u.Input.NHops == 1 && uint64(u.Input.Hops[0].Ts) == u.State.Hops[0].Ts && u.Output.HopValid == 0 {
				stale++
			}
		}})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("guard %v: %d updates on a replayed record", guard, stale)
		if guard && stale != 0 || !guard && stale == 0 {
			t.Errorf("guard %v: %d updates on a replayed record", guard, stale)
		}
	}
}
