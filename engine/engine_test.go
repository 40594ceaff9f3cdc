package engine

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// The components below form a small model used to test the engine: sources
// with random gaps (including long idle stretches), a pipeline stage with
// latency and finite depth, a round-robin merge, a link with serialization
// and propagation delay feeding a TimedQueue, a sink with a cooldown (so back-
// pressure propagates upstream), and a periodic timer. Each logs what it does
// with the cycle; the logs are the results compared across engine modes.

type item struct {
	src, seq, size int
}

type source struct {
	name   string
	out    *FIFO[item]
	rng    uint64 // LCG state, advanced only when an item is sent
	next   Cycle
	n, max int
	log    []string
}

func (s *source) gap() Cycle {
	s.rng = s.rng*6364136223846793005 + 1442695040888963407
	r := s.rng >> 33
	if r%10 == 0 {
		return Cycle(500 + r%3000) // a long idle stretch
	}
	return Cycle(1 + r%4)
}

func (s *source) Tick(now Cycle) bool {
	if s.n >= s.max || now < s.next || !s.out.CanPush(now) {
		return false
	}
	it := item{src: len(s.name), seq: s.n, size: 1 + int(s.rng>>40)%7}
	s.out.Push(now, it)
	s.log = append(s.log, fmt.Sprintf("%d %s send %d", now, s.name, s.n))
	s.n++
	s.next = now + s.gap()
	return true
}

func (s *source) NextWake(now Cycle) (Cycle, bool) {
	if s.n < s.max && s.next > now {
		return s.next, true
	}
	return 0, false
}

type held struct {
	it    item
	ready Cycle
}

type stage struct {
	name    string
	in, out *FIFO[item]
	lat     Cycle
	depth   int
	pipe    []held
	log     []string
}

func (s *stage) Tick(now Cycle) bool {
	progress := false
	if len(s.pipe) > 0 && s.pipe[0].ready <= now && s.out.CanPush(now) {
		s.out.Push(now, s.pipe[0].it)
		s.log = append(s.log, fmt.Sprintf("%d %s out %v", now, s.name, s.pipe[0].it))
		s.pipe = s.pipe[1:]
		progress = true
	}
	if len(s.pipe) < s.depth {
		if it, ok := s.in.Pop(now); ok {
			s.pipe = append(s.pipe, held{it, now + s.lat})
			progress = true
		}
	}
	return progress
}

func (s *stage) NextWake(now Cycle) (Cycle, bool) {
	if len(s.pipe) > 0 && s.pipe[0].ready > now {
		return s.pipe[0].ready, true
	}
	return 0, false
}

type merge struct {
	in   [2]*FIFO[item]
	out  *FIFO[item]
	turn int
	log  []string
}

func (m *merge) Tick(now Cycle) bool {
	if !m.out.CanPush(now) {
		return false
	}
	for k := 0; k < 2; k++ {
		i := (m.turn + k) % 2
		if it, ok := m.in[i].Pop(now); ok {
			m.out.Push(now, it)
			m.turn = (i + 1) % 2
			m.log = append(m.log, fmt.Sprintf("%d merge %d %v", now, i, it))
			return true
		}
	}
	return false
}

func (m *merge) NextWake(Cycle) (Cycle, bool) { return 0, false }

type link struct {
	in        *FIFO[item]
	out       *TimedQueue[item]
	delay     Cycle
	busyUntil Cycle
	log       []string
}

func (l *link) Tick(now Cycle) bool {
	if now < l.busyUntil {
		return false
	}
	it, ok := l.in.Pop(now)
	if !ok {
		return false
	}
	l.busyUntil = now + Cycle(it.size)
	l.out.Push(now, l.busyUntil+l.delay, it)
	l.log = append(l.log, fmt.Sprintf("%d link %v arrives %d", now, it, l.busyUntil+l.delay))
	return true
}

func (l *link) NextWake(now Cycle) (Cycle, bool) {
	if l.busyUntil > now && l.in.Visible(now) > 0 {
		return l.busyUntil, true
	}
	return 0, false
}

type sink struct {
	in    *TimedQueue[item]
	cool  Cycle
	ready Cycle
	got   int
	log   []string
}

func (s *sink) Tick(now Cycle) bool {
	if now < s.ready {
		return false
	}
	it, ok := s.in.Pop(now)
	if !ok {
		return false
	}
	s.got++
	s.ready = now + s.cool*Cycle(it.size%2+1)
	s.log = append(s.log, fmt.Sprintf("%d sink %v", now, it))
	return true
}

func (s *sink) NextWake(now Cycle) (Cycle, bool) {
	if s.ready > now && s.in.CanPop(s.ready) {
		return s.ready, true
	}
	return 0, false
}

type periodic struct {
	period Cycle
	next   Cycle
	count  int
	stopAt int
	log    []string
}

func (p *periodic) Tick(now Cycle) bool {
	if p.count >= p.stopAt || now < p.next {
		return false
	}
	p.count++
	p.next = now + p.period
	p.log = append(p.log, fmt.Sprintf("%d tick %d", now, p.count))
	return true
}

func (p *periodic) NextWake(now Cycle) (Cycle, bool) {
	if p.count < p.stopAt && p.next > now {
		return p.next, true
	}
	return 0, false
}

type modelParams struct {
	capA, capB, capM, capL int
	lat                    Cycle
	depth                  int
	delay, cool            Cycle
	items                  int
	period                 Cycle
	seedA, seedB           uint64
}

func randomParams(r *rand.Rand) modelParams {
	return modelParams{
		capA: 1 + r.IntN(4), capB: 1 + r.IntN(4), capM: 1 + r.IntN(3), capL: 1 + r.IntN(3),
		lat: Cycle(1 + r.IntN(6)), depth: 1 + r.IntN(4),
		delay: Cycle(1 + r.IntN(200)), cool: Cycle(r.IntN(6)),
		items: 20 + r.IntN(60), period: Cycle(1 + r.IntN(2000)),
		seedA: r.Uint64(), seedB: r.Uint64(),
	}
}

type result struct {
	logs  [][]string
	end   Cycle
	idle  bool
	stats Stats
	got   int
}

// runModel builds the model, registers it in the given order (a permutation
// of the component indices), runs it until idle and returns the per-component
// logs.
func runModel(t testing.TB, p modelParams, noSkip bool, order []int) result {
	return runModelSleepers(t, p, noSkip, order, false)
}

// runModelSleepers is runModel; with sleepers, every component is
// registered wrapped in its Sleeper variant (below).
func runModelSleepers(t testing.TB, p modelParams, noSkip bool, order []int, sleepers bool) result {
	t.Helper()
	e, err := New(Config{Freq: GHz, NoSkip: noSkip})
	if err != nil {
		t.Fatal(err)
	}
	mk := func(name string, c int) *FIFO[item] {
		f, err := NewFIFO[item](name, c)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	fa, fb := mk("a", p.capA), mk("b", p.capB)
	fs, fm := mk("s", p.capM), mk("m", p.capL)
	tq := NewTimedQueue[item]("wire")
	srcA := &source{name: "A", out: fa, rng: p.seedA, max: p.items}
	srcB := &source{name: "BB", out: fb, rng: p.seedB, max: p.items}
	st := &stage{name: "st", in: fa, out: fs, lat: p.lat, depth: p.depth}
	mg := &merge{in: [2]*FIFO[item]{fs, fb}, out: fm}
	ln := &link{in: fm, out: tq, delay: p.delay}
	sk := &sink{in: tq, cool: p.cool}
	pe := &periodic{period: p.period, stopAt: 7}
	comps := []Component{srcA, srcB, st, mg, ln, sk, pe}
	if sleepers {
		comps = []Component{sleepySource{srcA}, sleepySource{srcB}, sleepyStage{st}, sleepyMerge{mg}, sleepyLink{ln},
			sleepySink{sk}, sleepyPeriodic{pe}}
	}
	ids := make([]ID, len(comps))
	for _, i := range order {
		id, err := e.Add(fmt.Sprint(i), comps[i])
		if err != nil {
			t.Fatal(err)
		}
		ids[i] = id
	}
	for _, c := range []struct {
		q          Queue
		prod, cons int
	}{{fa, 0, 2}, {fb, 1, 3}, {fs, 2, 3}, {fm, 3, 4}, {tq, 4, 5}} {
		if err := e.Connect(c.q, ids[c.prod], ids[c.cons]); err != nil {
			t.Fatal(err)
		}
	}
	idle := e.RunUntilIdle(10_000_000)
	return result{
		logs:  [][]string{srcA.log, srcB.log, st.log, mg.log, ln.log, sk.log, pe.log},
		end:   e.Now(),
		idle:  idle,
		stats: e.Stats(),
		got:   sk.got,
	}
}

// TestSkipEquivalence is the engine's central property: for random models
// (capacities, latencies, delays, bursty sources with long idle gaps,
// back-pressure), skipping idle cycles and ticking only due components gives
// logs identical cycle for cycle to ticking every component in every cycle,
// and to skipping with the components registered in reverse order. Oracle:
// the NoSkip run. It also checks that NoSkip saw no unexpected progress (the
// test components keep the contract), that every item reached the sink, and
// that skipping executed fewer cycles than NoSkip.
func TestSkipEquivalence(t *testing.T) {
	seeds := 60
	if testing.Short() {
		seeds = 15
	}
	fwd := []int{0, 1, 2, 3, 4, 5, 6}
	rev := []int{6, 5, 4, 3, 2, 1, 0}
	var busySkip, busyAll uint64
	for seed := 1; seed <= seeds; seed++ {
		p := randomParams(rand.New(rand.NewPCG(uint64(seed), 7)))
		ref := runModel(t, p, true, fwd)
		if !ref.idle {
			t.Fatalf("seed %d: NoSkip run did not reach idle", seed)
		}
		if ref.got != 2*p.items {
			t.Errorf("seed %d: sink got %d items, want %d", seed, ref.got, 2*p.items)
		}
		if ref.stats.UnexpectedProgress != 0 {
			t.Errorf("seed %d: UnexpectedProgress = %d, want 0", seed, ref.stats.UnexpectedProgress)
		}
		for _, v := range []struct {
			name  string
			order []int
		}{{"skip", fwd}, {"skip reversed", rev}} {
			got := runModel(t, p, false, v.order)
			if got.end != ref.end || got.idle != ref.idle {
				t.Errorf("seed %d %s: ended at %d idle=%v, NoSkip at %d idle=%v", seed, v.name, got.end, got.idle, ref.end, ref.idle)
			}
			for i := range ref.logs {
				if !slices.Equal(got.logs[i], ref.logs[i]) {
					t.Errorf("seed %d %s: component %d log differs:\n got %q\nwant %q", seed, v.name, i, head(got.logs[i]), head(ref.logs[i]))
				}
			}
			if got.stats.Cycles != ref.stats.Cycles {
				t.Errorf("seed %d %s: Stats.Cycles = %d, NoSkip %d", seed, v.name, got.stats.Cycles, ref.stats.Cycles)
			}
			if v.name == "skip" {
				busySkip += got.stats.BusyCycles
				busyAll += ref.stats.BusyCycles
			}
		}
	}
	// The sources idle for 500-3500 cycles one time in ten: most cycles are
	// idle, so skipping must execute well under half of them.
	if busySkip*2 > busyAll {
		t.Errorf("skipping executed %d of %d cycles; want under half", busySkip, busyAll)
	}
}

// The Sleeper variants of the test components: SleepUntil says when each
// needs its next tick after one that made progress, following the rule in
// the Sleeper doc (the next cycle when input is left or a stage head is
// ready, a timer otherwise, nothing when only input can wake it).
type (
	sleepySource   struct{ *source }
	sleepyStage    struct{ *stage }
	sleepyMerge    struct{ *merge }
	sleepyLink     struct{ *link }
	sleepySink     struct{ *sink }
	sleepyPeriodic struct{ *periodic }
)

func (s sleepySource) SleepUntil(now Cycle) (Cycle, bool) {
	if s.n < s.max {
		return max(s.next, now+1), true
	}
	return 0, false
}

func (s sleepyStage) SleepUntil(now Cycle) (Cycle, bool) {
	if len(s.pipe) < s.depth && s.in.Len() > 0 {
		return now + 1, true
	}
	if len(s.pipe) > 0 {
		return max(s.pipe[0].ready, now+1), true
	}
	return 0, false
}

func (m sleepyMerge) SleepUntil(now Cycle) (Cycle, bool) {
	if m.in[0].Len() > 0 || m.in[1].Len() > 0 {
		return now + 1, true
	}
	return 0, false
}

func (l sleepyLink) SleepUntil(now Cycle) (Cycle, bool) {
	if l.in.Len() > 0 {
		return max(l.busyUntil, now+1), true
	}
	return 0, false
}

func (s sleepySink) SleepUntil(now Cycle) (Cycle, bool) {
	if h, ok := s.in.HeadAt(); ok {
		return max(s.ready, h, now+1), true
	}
	return 0, false
}

func (p sleepyPeriodic) SleepUntil(now Cycle) (Cycle, bool) { return p.NextWake(now) }

// TestSleeperEquivalence runs the random models of TestSkipEquivalence with
// every component a Sleeper: the logs must be identical cycle for cycle to
// those of the plain components ticked in every cycle (the oracle), with
// skipping in both registration orders and with NoSkip (which must see no
// unexpected progress, so no SleepUntil was too late), and the Sleepers
// must need fewer ticks than the plain components.
func TestSleeperEquivalence(t *testing.T) {
	seeds := 60
	if testing.Short() {
		seeds = 15
	}
	fwd := []int{0, 1, 2, 3, 4, 5, 6}
	rev := []int{6, 5, 4, 3, 2, 1, 0}
	var plainTicks, sleepyTicks uint64
	for seed := 1; seed <= seeds; seed++ {
		p := randomParams(rand.New(rand.NewPCG(uint64(seed), 7)))
		ref := runModel(t, p, true, fwd)
		plain := runModel(t, p, false, fwd)
		plainTicks += plain.stats.Ticks
		for _, v := range []struct {
			name   string
			noSkip bool
			order  []int
		}{{"skip", false, fwd}, {"skip reversed", false, rev}, {"noskip", true, fwd}} {
			got := runModelSleepers(t, p, v.noSkip, v.order, true)
			if got.end != ref.end || got.idle != ref.idle || got.stats.Cycles != ref.stats.Cycles {
				t.Errorf("seed %d %s: ended at %d idle=%v, NoSkip at %d idle=%v", seed, v.name, got.end, got.idle, ref.end, ref.idle)
			}
			for i := range ref.logs {
				if !slices.Equal(got.logs[i], ref.logs[i]) {
					t.Errorf("seed %d %s: component %d log differs:\n got %q\nwant %q", seed, v.name, i, head(got.logs[i]), head(ref.logs[i]))
				}
			}
			if got.stats.UnexpectedProgress != 0 || got.stats.Progress != ref.stats.Progress {
				t.Errorf("seed %d %s: UnexpectedProgress %d, progress %d (want 0, %d)", seed, v.name,
					got.stats.UnexpectedProgress, got.stats.Progress, ref.stats.Progress)
			}
			if v.name == "skip" {
				sleepyTicks += got.stats.Ticks
			}
		}
	}
	if sleepyTicks >= plainTicks {
		t.Errorf("Sleepers ticked %d times, plain components %d; want fewer", sleepyTicks, plainTicks)
	}
	t.Logf("ticks: plain %d, Sleepers %d", plainTicks, sleepyTicks)
}

// lateSleeper breaks the Sleeper contract: after each progress it asks to
// sleep 5 cycles past its real deadline (its NextWake is correct).
type lateSleeper struct{ *liar }

func (l lateSleeper) SleepUntil(now Cycle) (Cycle, bool) { return l.next + 5, l.count < 3 }
func (l lateSleeper) NextWake(now Cycle) (Cycle, bool) {
	if l.count < 3 && l.next > now {
		return l.next, true
	}
	return 0, false
}

// TestSleeperViolationDetected checks that NoSkip mode flags a Sleeper
// whose SleepUntil is too late and that the two modes then differ.
// Expected cycles: NoSkip progresses at 0, 10, 20, the one at 10 unexpected
// (SleepUntil asked for 15; the spurious wake at 15 makes no progress and
// its correct NextWake makes 20 due); skipping wakes at 15 and 30.
func TestSleeperViolationDetected(t *testing.T) {
	run := func(noSkip bool) ([]string, Stats) {
		e, _ := New(Config{Freq: GHz, NoSkip: noSkip})
		l := lateSleeper{&liar{}}
		if _, err := e.Add("late", l); err != nil {
			t.Fatal(err)
		}
		e.RunUntilIdle(1000)
		return l.log, e.Stats()
	}
	all, st := run(true)
	skip, _ := run(false)
	if !slices.Equal(all, []string{"0", "10", "20"}) || !slices.Equal(skip, []string{"0", "15", "30"}) {
		t.Errorf("NoSkip log %q, skip log %q; want [0 10 20], [0 15 30]", all, skip)
	}
	if st.UnexpectedProgress != 1 {
		t.Errorf("UnexpectedProgress = %d, want 1", st.UnexpectedProgress)
	}
}

func head(s []string) []string {
	if len(s) > 8 {
		return s[:8]
	}
	return s
}

// liar breaks the Component contract: its NextWake reports a wake 5 cycles
// later than its real deadline.
type liar struct {
	next  Cycle
	count int
	log   []string
}

func (l *liar) Tick(now Cycle) bool {
	if l.count >= 3 || now < l.next {
		return false
	}
	l.count++
	l.next = now + 10
	l.log = append(l.log, fmt.Sprint(now))
	return true
}

func (l *liar) NextWake(now Cycle) (Cycle, bool) {
	if l.count < 3 {
		return l.next + 5, true
	}
	return 0, false
}

// TestContractViolationDetected checks that NoSkip mode flags a component
// whose NextWake is too late (UnexpectedProgress > 0) and that the two modes
// then differ, i.e. the cross-check of TestSkipEquivalence can fail. Expected
// cycles: NoSkip ticks at 0, 10, 20; skipping wakes at 15 and 30.
func TestContractViolationDetected(t *testing.T) {
	run := func(noSkip bool) ([]string, Stats) {
		e, err := New(Config{Freq: GHz, NoSkip: noSkip})
		if err != nil {
			t.Fatal(err)
		}
		l := &liar{}
		if _, err := e.Add("liar", l); err != nil {
			t.Fatal(err)
		}
		e.RunUntilIdle(1000)
		return l.log, e.Stats()
	}
	all, st := run(true)
	skip, _ := run(false)
	if !slices.Equal(all, []string{"0", "10", "20"}) || !slices.Equal(skip, []string{"0", "15", "30"}) {
		t.Errorf("NoSkip log %q, skip log %q; want [0 10 20], [0 15 30]", all, skip)
	}
	if st.UnexpectedProgress != 2 {
		t.Errorf("UnexpectedProgress = %d, want 2", st.UnexpectedProgress)
	}
}

// counter makes progress for n cycles after each wake and records the cycles
// it ran in.
type counter struct {
	left int
	ran  []Cycle
}

func (c *counter) Tick(now Cycle) bool {
	if c.left == 0 {
		return false
	}
	c.left--
	c.ran = append(c.ran, now)
	return true
}

func (c *counter) NextWake(Cycle) (Cycle, bool) { return 0, false }

// TestRunWakeStopHook checks Run's end cycle, the jump over idle cycles,
// Engine.Wake from outside, Stop from inside a tick, and that the cycle hook
// sees exactly the executed cycles. Expected cycles are worked out from the
// calls below.
func TestRunWakeStopHook(t *testing.T) {
	e, err := New(Config{Freq: GHz})
	if err != nil {
		t.Fatal(err)
	}
	c := &counter{left: 2}
	id, err := e.Add("c", c)
	if err != nil {
		t.Fatal(err)
	}
	var hooked []Cycle
	e.SetCycleHook(func(now Cycle) { hooked = append(hooked, now) })
	if got := e.Run(100); got != 100 {
		t.Fatalf("Run(100) = %d", got)
	}
	// Ticked at 0 and 1 (progress), 2 (no progress, idle), then jump to 100.
	if !slices.Equal(c.ran, []Cycle{0, 1}) || !slices.Equal(hooked, []Cycle{0, 1, 2}) {
		t.Errorf("ran %v hooked %v; want [0 1], [0 1 2]", c.ran, hooked)
	}
	if s := e.Stats(); s.Cycles != 100 || s.BusyCycles != 3 || s.Ticks != 3 || s.Progress != 2 {
		t.Errorf("Stats = %+v", s)
	}
	c.left = 1
	if err := e.Wake(id, 250); err != nil {
		t.Fatal(err)
	}
	if idle := e.RunUntilIdle(1000); !idle || e.Now() != 252 {
		t.Errorf("RunUntilIdle = %v at %d; want true at 252", idle, e.Now())
	}
	if !slices.Equal(c.ran, []Cycle{0, 1, 250}) {
		t.Errorf("ran %v; want [0 1 250]", c.ran)
	}
	if err := e.Wake(99, 0); err == nil {
		t.Error("Wake(99) on an unknown id: no error")
	}
	// Stop from a component.
	e2, _ := New(Config{Freq: GHz})
	st := &stopper{e: e2, at: 5}
	if _, err := e2.Add("s", st); err != nil {
		t.Fatal(err)
	}
	if idle := e2.RunUntilIdle(1000); idle || e2.Now() != 6 {
		t.Errorf("stopped run: idle=%v now=%d; want false, 6", idle, e2.Now())
	}
}

type stopper struct {
	e  *Engine
	at Cycle
}

func (s *stopper) Tick(now Cycle) bool {
	if now == s.at {
		s.e.Stop()
	}
	return true
}

func (s *stopper) NextWake(Cycle) (Cycle, bool) { return 0, false }

// TestConnectErrors checks that bad IDs and double connection are reported.
func TestConnectErrors(t *testing.T) {
	e, _ := New(Config{Freq: GHz})
	f, _ := NewFIFO[int]("f", 1)
	if err := e.Connect(f, 0, NoID); err == nil || err.Error() != `engine: Connect "f": producer=0: not a registered component` {
		t.Errorf("Connect bad producer: %v", err)
	}
	if err := e.Connect(f, NoID, NoID); err != nil {
		t.Errorf("Connect NoID ends: %v", err)
	}
	if err := e.Connect(f, NoID, NoID); err == nil {
		t.Error("second Connect: no error")
	}
	if _, err := e.Add("nil", nil); err == nil {
		t.Error("Add(nil): no error")
	}
}
