package hpccrtl

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/fieldtable"
	"github.com/hpccgold/hpccgold/telemetry"
)

// scheduleRef is Schedule as first written (a cycle-by-cycle loop over the
// handshake, kept as the oracle of Scheduler): each cycle the offered
// event is taken unless an event of its flow was taken 1..Stages cycles
// earlier, and the next is offered in the same cycle, or after an idle
// cycle every gap events.
func scheduleRef(o ModuleOptions, flows []uint32, gap int) (stalls int) {
	last := map[uint32]int{}
	L := o.Stages
	cycle := 0
	sent, sinceGap := 0, 0
	curValid := false
	var cur uint32
	for sent < len(flows) || curValid {
		if curValid {
			t, seen := last[cur]
			if seen && cycle-t >= 1 && cycle-t <= L {
				stalls++
				cycle++
				continue
			}
			last[cur] = cycle
			curValid = false
		}
		if sent < len(flows) && !(gap > 0 && sinceGap == gap) {
			cur, curValid = flows[sent], true
			sent++
			sinceGap++
		} else {
			sinceGap = 0
		}
		cycle++
	}
	return stalls
}

// TestSchedulerMatchesReference checks Scheduler (through Schedule, and
// event by event) against the cycle-by-cycle loop scheduleRef on random
// flow sequences: few flows (many hazards) to many, flows above 2^16 (the
// map path), stages 0..5, gaps 0..4. Oracle: scheduleRef.
func TestSchedulerMatchesReference(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	for trial := 0; trial < 400; trial++ {
		o := ModuleOptions{Stages: r.Intn(6), FlowBits: 4}
		gap := r.Intn(5)
		nflows := []int{1, 2, 3, 5, 16, 1 << 17}[r.Intn(6)]
		flows := make([]uint32, r.Intn(300))
		for i := range flows {
			flows[i] = uint32(r.Intn(nflows))
			if nflows > 1<<16 && r.Intn(2) == 0 {
				flows[i] = uint32(r.Intn(4)) // mix near and far flows
			}
		}
		want := scheduleRef(o, flows, gap)
		if got := o.Schedule(flows, gap); got != want {
			t.Fatalf("trial %d: Schedule(stages %d, gap %d, %v) = %d, want %d", trial, o.Stages, gap, flows, got, want)
		}
		s := o.NewScheduler(gap)
		for i, f := range flows {
			s.Offer(f)
			if got, w := s.Stalls(), scheduleRef(o, flows[:i+1], gap); got != w {
				t.Fatalf("trial %d: after event %d: Stalls() = %d, want %d", trial, i, got, w)
			}
		}
	}
}

// packEventRef and packUpdateRef are PackEvent and PackUpdate as first
// written, field by field by name (the oracle of the bit-run copies).
func packEventRef(mm *ModuleModel, ev Event, word []uint64) error {
	uw := make([]uint64, mm.d.InputTable().Words())
	if err := mm.d.PackInput(hpcc.State{}, ev.In, uw); err != nil {
		return err
	}
	clear(word)
	ut := mm.d.InputTable()
	for _, f := range mm.in.Fields {
		var v uint64
		switch f.Name {
		case "ev_flow":
			v = uint64(ev.Flow)
		case "ev_init":
			if ev.Init {
				v = 1
			}
		default:
			v = fieldtable.Get(uw, ut.Fields[ut.Index(f.Name)])
		}
		if err := fieldtable.Put(word, f, v); err != nil {
			return err
		}
	}
	return nil
}

func packUpdateRef(mm *ModuleModel, flow uint32, next hpcc.State, out hpcc.Output, word []uint64) error {
	uw := make([]uint64, mm.d.OutputTable().Words())
	if err := mm.d.PackOutput(next, out, uw); err != nil {
		return err
	}
	ot := mm.d.OutputTable()
	clear(word)
	if err := fieldtable.Put(word, mm.out.Fields[0], uint64(flow)); err != nil {
		return err
	}
	for _, n := range outNames {
		v := fieldtable.Get(uw, ot.Fields[ot.Index(n.upd)])
		if err := fieldtable.Put(word, mm.out.Fields[mm.out.Index(n.mod)], v); err != nil {
			return err
		}
	}
	return nil
}

// TestStepMatchesFieldByField runs every stream kind through Step and
// through the field-by-field packers (packEventRef, packUpdateRef, with
// Apply), for the IFA and Compact encodings and flow tables of 2 to 2^16
// flows: the lines must be equal. Oracle: the field-by-field packers.
func TestStepMatchesFieldByField(t *testing.T) {
	compact := hpcc.DefaultConfigFor(telemetry.Compact)
	for _, c := range []struct {
		name string
		cfg  hpcc.Config
		bits int
	}{{"ifa", hpcc.DefaultConfig(), 10}, {"ifa_1bit", hpcc.DefaultConfig(), 1}, {"compact", compact, 4}, {"ifa_16bit", hpcc.DefaultConfig(), 16}} {
		for _, kind := range []StreamKind{SameFlow, Interleaved, Mixed} {
			t.Run(fmt.Sprintf("%s_%s", c.name, kind), func(t *testing.T) {
				opts := ModuleOptions{Stages: 2, FlowBits: c.bits}
				fast, err := NewModuleModel(c.cfg, opts)
				if err != nil {
					t.Fatal(err)
				}
				ref, err := NewModuleModel(c.cfg, opts)
				if err != nil {
					t.Fatal(err)
				}
				g, err := NewStreamGen(c.cfg, opts, kind, 5)
				if err != nil {
					t.Fatal(err)
				}
				in, out := fast.Tables()
				s, e := make([]uint64, in.Words()), make([]uint64, out.Words())
				rs, re := make([]uint64, in.Words()), make([]uint64, out.Words())
				for i := 0; i < 2000; i++ {
					ev := g.Next()
					if err := fast.Step(ev, s, e); err != nil {
						t.Fatal(err)
					}
					if err := packEventRef(ref, ev, rs); err != nil {
						t.Fatal(err)
					}
					next, o, err := ref.Apply(ev)
					if err != nil {
						t.Fatal(err)
					}
					if err := packUpdateRef(ref, ev.Flow, next, o, re); err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(s, rs) || !slices.Equal(e, re) {
						t.Fatalf("event %d: Step lines\n%s\n%s\nwant\n%s\n%s", i, in.AppendHex(nil, s), out.AppendHex(nil, e), in.AppendHex(nil, rs), out.AppendHex(nil, re))
					}
				}
			})
		}
	}
}

// TestStreamGenIsStream checks that Stream is NewStreamGen's first n
// events for every kind (the generator Stream and the stream sets use),
// and that an unknown kind and invalid options are errors naming them.
func TestStreamGenIsStream(t *testing.T) {
	cfg := hpcc.DefaultConfig()
	opts := ModuleOptions{Stages: 1, FlowBits: 3}
	for _, kind := range []StreamKind{SameFlow, Interleaved, Mixed} {
		evs, err := Stream(cfg, opts, kind, 700, 11)
		if err != nil {
			t.Fatal(err)
		}
		g, err := NewStreamGen(cfg, opts, kind, 11)
		if err != nil {
			t.Fatal(err)
		}
		inits := 0
		for i, want := range evs {
			if got := g.Next(); got != want {
				t.Fatalf("%s event %d: %+v, want %+v", kind, i, got, want)
			}
			if want.Init {
				inits++
			}
		}
		if inits < 1<<opts.FlowBits && kind != SameFlow {
			t.Errorf("%s: %d events with Init, want every flow's first at least", kind, inits)
		}
	}
	if _, err := NewStreamGen(cfg, opts, "bursty", 1); err == nil || !strings.Contains(err.Error(), `stream kind "bursty"`) {
		t.Errorf("unknown kind: %v", err)
	}
	if _, err := NewStreamGen(cfg, ModuleOptions{FlowBits: 0}, SameFlow, 1); err == nil || !strings.Contains(err.Error(), "FlowBits=0") {
		t.Errorf("FlowBits 0: %v", err)
	}
}
