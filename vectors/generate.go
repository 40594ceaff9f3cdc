package vectors

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math/bits"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/hpccgold/hpccgold/buildinfo"
	"github.com/hpccgold/hpccgold/fieldtable"
)

// Shard selects part i of n (0 <= i < n) of a vector set. The zero Shard is
// the whole set.
type Shard struct {
	Index int // i, 0-based
	Count int // n; 0 or 1 means unsharded
}

// ParseShard parses "i/n" with 0 <= i < n.
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 {
		return Shard{}, fmt.Errorf("vectors: shard %q: want i/n with 0 <= i < n (for example 0/4)", s)
	}
	sh := Shard{Index: i, Count: n}
	return sh, sh.validate()
}

func (s Shard) validate() error {
	n := max(s.Count, 1)
	if s.Count < 0 || s.Index < 0 || s.Index >= n {
		return fmt.Errorf("vectors: shard %d/%d: need 0 <= i < n", s.Index, s.Count)
	}
	return nil
}

// nonEmpty returns an error when shard s of a set of total vectors holds
// none (n > total leaves some shards empty): a set of no vectors is not a
// result, and a check against it would pass vacuously.
func (s Shard) nonEmpty(total int64) error {
	if total == 0 {
		return errors.New("vectors: the set holds no vector (nothing was generated or captured)")
	}
	if first, last := s.Range(total); first == last {
		return fmt.Errorf("vectors: shard %d/%d of a set of %d vectors holds no vector: want n <= %d", s.Index, max(s.Count, 1), total, total)
	}
	return nil
}

// Range returns the global indices [first, last) shard s holds of a set of
// total vectors: first = total*i/n, last = total*(i+1)/n.
func (s Shard) Range(total int64) (first, last int64) {
	n := int64(max(s.Count, 1))
	i := int64(s.Index)
	return total * i / n, total * (i + 1) / n
}

// MaxWorkers bounds Options.Workers: 4 per CPU. Workers beyond the CPUs
// cannot speed generation up (it is CPU-bound; 4x leaves room to overlap
// the writer), and each costs memory (its blocks in flight and its model
// state, tens of MB for the HPCC++ model): 128 workers took 6.2 GB.
func MaxWorkers() int { return 4 * runtime.NumCPU() }

// MaxCount bounds Options.Count (2^40 vectors), so index arithmetic never
// overflows.
const MaxCount = 1 << 40

// Options selects which vectors to generate.
type Options struct {
	// Level is 1 (every level-1 directed class) or 2 (adds the level-2
	// bit-pattern classes); 0 means 1.
	Level int
	// Classes restricts the directed classes to these names (each must exist
	// and be at most Level); empty means every class up to Level.
	Classes []string
	// Seed seeds the constrained-random vectors.
	Seed uint64
	// Count is the number of constrained-random vectors after the directed
	// ones, 0..MaxCount.
	Count int64
	// Shard selects part of the set.
	Shard Shard
	// Workers is the number of goroutines evaluating vectors, 0..MaxWorkers();
	// 0 means runtime.GOMAXPROCS(0). The output does not depend on it.
	Workers int
	// NoJSONL skips vectors.jsonl (it dominates write time for wide tables).
	NoJSONL bool
	// Binary writes stimulus.bin and expected.bin (binary records, see
	// StimulusBinFile) in place of stimulus.hex and expected.hex.
	Binary bool
	// Compress, if CompressZstd, writes the stimulus and expected files as
	// zstd streams (stimulus.hex.zst, ...) in the same single pass; empty
	// writes them plain. The compressed bytes depend only on the vectors.
	Compress string
	// Preflight, if not nil, is called by GenerateDir with the request's
	// SizeEstimate (EstimateDir's answer) once the request is validated
	// and before anything is written; an error it returns stops GenerateDir
	// with the directory untouched (vectors gen checks free disk space
	// here, without building the request's plan twice).
	Preflight func(SizeEstimate) error
	// Progress, if not nil, is called from the calling goroutine after each
	// block with the vectors done and the vectors to do in this shard.
	Progress func(done, total int64)
	// Bias biases the constrained-random vectors (vectors gen
	// --until-covered): each step applies from its random index on, until
	// the next step. Recorded in the manifest, so Verify regenerates the
	// same draws.
	Bias []BiasStep
}

// BiasStep biases the constrained-random draws from random index From
// (0-based within the random vectors) on: after Model.Random draws a
// transaction, with probability 1/2 (so the draws keep their spread over
// the other bins) input field Field is overwritten with one of its level-2
// boundary patterns (Patterns(width, all ones): zero, single bits, runs of
// ones, all ones but one bit, 1, 2, max-1, max, max/2, max/2+1), chosen by
// the same random stream. Field "" means no bias (plain draws).
type BiasStep struct {
	From  int64  `json:"from"`
	Field string `json:"field"`
}

// biasPlan is a validated bias schedule: per step its first random index,
// field (-1: none) and pattern table.
type biasPlan struct {
	from  []int64
	field []int
	pats  [][]uint64
}

// newBiasPlan validates steps against the input table and count.
func newBiasPlan(t fieldtable.Table, steps []BiasStep, count int64) (*biasPlan, error) {
	if len(steps) == 0 {
		return nil, nil
	}
	b := &biasPlan{}
	for i, st := range steps {
		if st.From < 0 || st.From >= max(count, 1) || i > 0 && st.From <= steps[i-1].From {
			return nil, fmt.Errorf("vectors: Bias[%d].From=%d: must be increasing and in [0,%d)", i, st.From, count)
		}
		f := -1
		var pats []uint64
		if st.Field != "" {
			if f = t.Index(st.Field); f < 0 {
				return nil, fmt.Errorf("vectors: Bias[%d].Field=%q: no such input field", i, st.Field)
			}
			w := t.Fields[f].Width
			pats = Patterns(w, fieldtable.Mask(w))
		}
		b.from, b.field, b.pats = append(b.from, st.From), append(b.field, f), append(b.pats, pats)
	}
	return b, nil
}

// apply biases random vector j (in drawn from r).
func (b *biasPlan) apply(t fieldtable.Table, r *Rand, j int64, in []uint64) {
	k, _ := slices.BinarySearch(b.from, j+1)
	k-- // last step with From <= j
	if k < 0 || b.field[k] < 0 {
		return
	}
	if r.Below(2) == 0 {
		return
	}
	f := t.Fields[b.field[k]]
	pats := b.pats[k]
	fieldtable.PutBits(in, f.Offset, f.Width, pats[r.Below(uint64(len(pats)))])
}

// RandomInputs returns random vectors first..first+n-1 of the set m makes
// with seed and bias (each a packed input), exactly as Generate draws them.
func RandomInputs(m Model, seed uint64, bias []BiasStep, count, first, n int64) ([][]uint64, error) {
	t := m.Input()
	b, err := newBiasPlan(t, bias, count)
	if err != nil {
		return nil, err
	}
	var r Rand
	out := make([][]uint64, n)
	for k := range out {
		in := make([]uint64, t.Words())
		j := first + int64(k)
		r.Reset(seed, uint64(j))
		if err := m.Random(&r, in); err != nil {
			return nil, err
		}
		if b != nil {
			b.apply(t, &r, j, in)
		}
		out[k] = in
	}
	return out, nil
}

// blockSize is the number of vectors one worker evaluates at a time. At
// 256 a hex block's lines (about 170 KB) stay in the caches between the
// worker that formats them and the writer that hashes them, and the blocks
// in flight take 4 MB less than at 1,024 (max RSS 42 -> 38 MB).
const blockSize = 256

// dirChunk is the number of directed inputs stored per chunk: the
// directed vectors are kept in fixed-size chunks rather than one slice
// grown by append, so building the plan never copies them or touches
// freshly doubled memory (page faults cost a visible share of a run's
// setup on a paravirtualized guest).
const dirChunk = 1024

// plan is a validated generation request with its directed vectors enumerated.
type plan struct {
	m          Model
	opts       Options
	lay        *layout
	classes    []Class
	points     []CoverPoint
	nbins      int
	configJSON []byte
	iw, ow     int // words per input, output

	dirIn    [][]uint64 // directed inputs in chunks of dirChunk vectors (chunk k holds vectors k*dirChunk..., iw words each)
	dirLabel []int32    // class of each directed input
	// tail is the class of the vectors after the directed ones: "random"
	// for generated sets, the capture's class for captured sets.
	tail Class
	// Captured sets (capture.go): capIn holds the captured inputs (the
	// tail, in global index order; nil while verifying), capture the
	// manifest's capture section, origins each vector's origin.
	capIn   []uint64
	capture *CaptureInfo
	bias    *biasPlan // nil: plain random draws
	origins []Origin
	classN  []int64 // per class (and random last): vectors in the unsharded set
	classAt []int64 // per class (and random last): first global index
	total   int64
	first   int64
	last    int64
}

func newPlan(m Model, opts Options) (*plan, error) {
	if opts.Level == 0 {
		opts.Level = 1
	}
	if opts.Level != 1 && opts.Level != 2 {
		return nil, fmt.Errorf("vectors: Level=%d: must be 1 or 2", opts.Level)
	}
	if opts.Count < 0 || opts.Count > MaxCount {
		return nil, fmt.Errorf("vectors: Count=%d: must be in [0,%d]", opts.Count, int64(MaxCount))
	}
	p, err := basePlan(m, opts)
	if err != nil {
		return nil, err
	}
	p.tail = Class{Name: RandomClass, Doc: "constrained-random vectors from the seed"}
	lay := p.lay
	if p.bias, err = newBiasPlan(lay.in, opts.Bias, opts.Count); err != nil {
		return nil, err
	}
	if p.bias != nil {
		p.tail.Doc = "constrained-random vectors from the seed, biased toward unhit coverage bins (manifest bias)"
	}

	// Which classes are requested.
	want := make([]bool, len(p.classes))
	if len(opts.Classes) == 0 {
		for c, cl := range p.classes {
			want[c] = cl.Level <= opts.Level && cl.Unreachable == ""
		}
	} else {
		for _, name := range opts.Classes {
			c := classIndex(p.classes, name)
			if c < 0 {
				return nil, fmt.Errorf("vectors: model %s: requested class %q does not exist", m.Name(), name)
			}
			if p.classes[c].Level > opts.Level {
				return nil, fmt.Errorf("vectors: model %s: requested class %s is level %d; generate with level %d", m.Name(), name, p.classes[c].Level, p.classes[c].Level)
			}
			if why := p.classes[c].Unreachable; why != "" {
				return nil, fmt.Errorf("vectors: model %s: requested class %s is unreachable for this configuration: %s", m.Name(), name, why)
			}
			want[c] = true
		}
	}

	// Enumerate the directed vectors.
	p.classN = make([]int64, len(p.classes)+1)
	last := -1
	err = m.Directed(opts.Level, func(c int, in []uint64) error {
		if c < 0 || c >= len(p.classes) {
			return fmt.Errorf("vectors: model %s: Directed emitted class index %d of %d", m.Name(), c, len(p.classes))
		}
		if why := p.classes[c].Unreachable; why != "" {
			return fmt.Errorf("vectors: model %s: Directed emitted a vector for class %s, declared unreachable (%s)", m.Name(), p.classes[c].Name, why)
		}
		if c < last {
			return fmt.Errorf("vectors: model %s: Directed emitted class %s after %s: classes must come in order", m.Name(), p.classes[c].Name, p.classes[last].Name)
		}
		last = c
		if p.classes[c].Level > opts.Level {
			return fmt.Errorf("vectors: model %s: Directed emitted level-%d class %s at level %d", m.Name(), p.classes[c].Level, p.classes[c].Name, opts.Level)
		}
		if len(in) != p.iw {
			return fmt.Errorf("vectors: model %s: class %s: input has %d words, want %d", m.Name(), p.classes[c].Name, len(in), p.iw)
		}
		if !want[c] {
			return nil
		}
		if err := checkTop(lay.in, in); err != nil {
			return fmt.Errorf("vectors: model %s: class %s: %w", m.Name(), p.classes[c].Name, err)
		}
		if len(p.dirLabel)%dirChunk == 0 {
			p.dirIn = append(p.dirIn, make([]uint64, 0, dirChunk*p.iw))
		}
		ck := len(p.dirIn) - 1
		p.dirIn[ck] = append(p.dirIn[ck], in...)
		p.dirLabel = append(p.dirLabel, int32(c))
		p.classN[c]++
		return nil
	})
	if err != nil {
		return nil, err
	}
	for c, cl := range p.classes {
		if want[c] && p.classN[c] == 0 {
			return nil, fmt.Errorf("vectors: model %s: class %s (level %d) cannot be produced: the generator made no vector for it", m.Name(), cl.Name, cl.Level)
		}
	}
	p.classN[len(p.classes)] = opts.Count
	p.classAt = make([]int64, len(p.classN))
	var at int64
	for c, n := range p.classN {
		p.classAt[c] = at
		at += n
	}
	p.total = at
	p.first, p.last = opts.Shard.Range(p.total)
	if err := opts.Shard.nonEmpty(p.total); err != nil {
		return nil, err
	}
	return p, nil
}

// basePlan validates the model and the options every set shares (shard,
// workers) and lays out the plan's tables, classes and cover points.
func basePlan(m Model, opts Options) (*plan, error) {
	if err := validateModel(m); err != nil {
		return nil, err
	}
	if err := opts.Shard.validate(); err != nil {
		return nil, err
	}
	if err := checkCompress(opts.Compress); err != nil {
		return nil, err
	}
	if opts.Workers < 0 || opts.Workers > MaxWorkers() {
		return nil, fmt.Errorf("vectors: Workers=%d: must be in [0,%d] (0: one per CPU; at most 4 per CPU)", opts.Workers, MaxWorkers())
	}
	if opts.Workers == 0 {
		opts.Workers = runtime.GOMAXPROCS(0)
	}
	lay, err := newLayout(m.Input(), m.Output())
	if err != nil {
		return nil, fmt.Errorf("vectors: model %s: %w", m.Name(), err)
	}
	cfg, err := json.Marshal(m.Config())
	if err != nil {
		return nil, fmt.Errorf("vectors: model %s: marshal config: %w", m.Name(), err)
	}
	p := &plan{m: m, opts: opts, lay: lay, classes: m.Classes(), points: m.CoverPoints(), configJSON: cfg,
		iw: lay.in.Words(), ow: lay.out.Words()}
	_, p.nbins = PointOffsets(p.points)
	return p, nil
}

func classIndex(cs []Class, name string) int {
	for i, c := range cs {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// checkTop reports bits set above a table's width in a packed word.
func checkTop(t fieldtable.Table, w []uint64) error {
	if r := t.Width % 64; r != 0 && w[len(w)-1]>>uint(r) != 0 {
		return fmt.Errorf("table %s: bits set above its %d-bit width", t.Name, t.Width)
	}
	return nil
}

func (p *plan) className(c int) string {
	if c == len(p.classes) {
		return p.tail.Name
	}
	return p.classes[c].Name
}

// worker is one goroutine's evaluator and coverage accumulators.
type worker struct {
	ev            Evaluator
	hits          *Hits
	rng           Rand
	classHits     []int64
	inOr, inAnd   []uint64
	outOr, outAnd []uint64
}

func (p *plan) newWorker() (*worker, error) {
	ev, err := p.m.NewEvaluator()
	if err != nil {
		return nil, fmt.Errorf("vectors: model %s: %w", p.m.Name(), err)
	}
	w := &worker{ev: ev, hits: NewHits(len(p.classes), p.nbins), classHits: make([]int64, len(p.classes)),
		inOr: make([]uint64, p.iw), inAnd: make([]uint64, p.iw), outOr: make([]uint64, p.ow), outAnd: make([]uint64, p.ow)}
	for i := range w.inAnd {
		w.inAnd[i] = ^uint64(0)
	}
	for i := range w.outAnd {
		w.outAnd[i] = ^uint64(0)
	}
	return w, nil
}

// block is a run of consecutive vectors processed by one worker.
type block struct {
	first         int64 // global index of the first vector
	n             int
	in, out       []uint64
	stim, exp, jl []byte // formatted lines, when text is wanted
	org           []byte // capture.jsonl lines (captured sets)
	err           error
	done          chan struct{}
}

// label returns the class index of global vector i.
func (p *plan) label(i int64) int {
	if d := int64(len(p.dirLabel)); i < d {
		return int(p.dirLabel[i])
	}
	return len(p.classes)
}

// input fills in with global vector i's stimulus.
func (p *plan) input(w *worker, i int64, in []uint64) error {
	if d := int64(len(p.dirLabel)); i < d {
		k := int(i % dirChunk)
		copy(in, p.dirIn[i/dirChunk][k*p.iw:(k+1)*p.iw])
		return nil
	}
	if p.capIn != nil {
		j := i - int64(len(p.dirLabel))
		copy(in, p.capIn[j*int64(p.iw):(j+1)*int64(p.iw)])
		return nil
	}
	for k := range in {
		in[k] = 0
	}
	j := i - int64(len(p.dirLabel))
	w.rng.Reset(p.opts.Seed, uint64(j))
	if err := p.m.Random(&w.rng, in); err != nil {
		return err
	}
	if p.bias != nil {
		p.bias.apply(p.lay.in, &w.rng, j, in)
	}
	return checkTop(p.lay.in, in)
}

// evalOne evaluates vector i (its input already in in) and accumulates coverage.
func (p *plan) evalOne(w *worker, i int64, in, out []uint64) error {
	for k := range out {
		out[k] = 0
	}
	w.hits.resetClasses()
	if err := w.ev.Eval(in, out, w.hits); err != nil {
		return err
	}
	return p.account(w, i, in, out)
}

// account checks an evaluated vector and adds it to the worker's coverage.
func (p *plan) account(w *worker, i int64, in, out []uint64) error {
	if err := checkTop(p.lay.out, out); err != nil {
		return err
	}
	if c := p.label(i); c < len(p.classes) && p.classes[c].Detected && !w.hits.Has(c) {
		return fmt.Errorf("the evaluator does not detect class %s in a vector generated for it", p.classes[c].Name)
	}
	w.hits.forEachClass(func(c int) { w.classHits[c]++ })
	for k, v := range in {
		w.inOr[k] |= v
		w.inAnd[k] &= v
	}
	for k, v := range out {
		w.outOr[k] |= v
		w.outAnd[k] &= v
	}
	return nil
}

// compute fills block b: inputs, evaluation, coverage, and (if text) its lines.
func (p *plan) compute(w *worker, b *block, text, jsonl bool) error {
	fast, _ := w.ev.(RandomEvaluator)
	d := int64(len(p.dirLabel))
	for k := 0; k < b.n; k++ {
		i := b.first + int64(k)
		in := b.in[k*p.iw : (k+1)*p.iw]
		out := b.out[k*p.ow : (k+1)*p.ow]
		if fast != nil && i >= d && p.capIn == nil && p.capture == nil && p.bias == nil {
			clear(in)
			clear(out)
			w.hits.resetClasses()
			w.rng.Reset(p.opts.Seed, uint64(i-d))
			err := fast.EvalRandom(&w.rng, in, out, w.hits)
			if err == nil {
				err = checkTop(p.lay.in, in)
			}
			if err == nil {
				err = p.account(w, i, in, out)
			}
			if err != nil {
				return fmt.Errorf("vectors: model %s: vector %d (class %s): %w", p.m.Name(), i, RandomClass, err)
			}
			continue
		}
		if err := p.input(w, i, in); err != nil {
			return fmt.Errorf("vectors: model %s: vector %d (class %s): input: %w", p.m.Name(), i, p.className(p.label(i)), err)
		}
		if err := p.evalOne(w, i, in, out); err != nil {
			return fmt.Errorf("vectors: model %s: vector %d (class %s): %w", p.m.Name(), i, p.className(p.label(i)), err)
		}
	}
	if text {
		p.formatBlock(b, jsonl)
	}
	return nil
}

// formatBlock renders block b's lines into b.stim, b.exp and (if jsonl) b.jl.
// The stimulus and expected lines (or records) have a fixed size, so each
// is written in place at its offset in a buffer sized once per block.
func (p *plan) formatBlock(b *block, jsonl bool) {
	if p.opts.Binary {
		b.stim = putRecords(b.stim, RecordBytes(p.lay.in), b.in, p.iw, b.n)
		b.exp = putRecords(b.exp, RecordBytes(p.lay.out), b.out, p.ow, b.n)
	} else {
		b.stim = putHexLines(b.stim, p.lay.in.HexDigits(), b.in, p.iw, b.n)
		b.exp = putHexLines(b.exp, p.lay.out.HexDigits(), b.out, p.ow, b.n)
	}
	b.jl = b.jl[:0]
	b.org = b.org[:0]
	if !jsonl && p.origins == nil {
		return
	}
	for k := 0; k < b.n; k++ {
		i := b.first + int64(k)
		if jsonl {
			b.jl = appendJSONLine(b.jl, i, p.className(p.label(i)), p.lay, b.in[k*p.iw:(k+1)*p.iw], b.out[k*p.ow:(k+1)*p.ow])
		}
		if p.origins != nil {
			b.org = appendOriginLine(b.org, i, &p.origins[i-int64(len(p.dirLabel))])
		}
	}
}

// putHexLines sets buf to the n hex lines (digits hex digits and a
// newline each) of the packed words words, nw words a vector, reusing
// buf's memory: what n calls of appendHex and a newline append.
func putHexLines(buf []byte, digits int, words []uint64, nw, n int) []byte {
	ll := digits + 1
	buf = slices.Grow(buf[:0], n*ll)[:n*ll]
	for k := 0; k < n; k++ {
		line := buf[k*ll : (k+1)*ll]
		putHex(line[:digits], words[k*nw:(k+1)*nw])
		line[digits] = '\n'
	}
	return buf
}

// putRecords sets buf to the n binary records (rb bytes each) of the
// packed words words, nw words a vector, reusing buf's memory: what n
// calls of appendRecord append. Each record is written as whole words;
// the bytes of its last word beyond the record land where the next
// record (or the spare capacity of 8 bytes) begins and are overwritten
// or cut off.
func putRecords(buf []byte, rb int, words []uint64, nw, n int) []byte {
	buf = slices.Grow(buf[:0], n*rb+8)[:n*rb+8]
	for k := 0; k < n; k++ {
		rec := buf[k*rb : k*rb+nw*8]
		for i, v := range words[k*nw : (k+1)*nw] {
			binary.LittleEndian.PutUint64(rec[8*i:], v)
		}
	}
	return buf[:n*rb]
}

// run evaluates vectors [p.first, p.last) on p.opts.Workers goroutines in
// blocks and hands each finished block to consume in index order. mk returns
// the block's buffers; release (may be nil) gets each block back after
// consume. It returns the merged coverage accumulators.
func (p *plan) run(text bool, mk func(first int64, n int) *block, consume func(b *block) error, release func(*block)) (*worker, error) {
	nw := p.opts.Workers
	ws := make([]*worker, nw)
	for k := range ws {
		w, err := p.newWorker()
		if err != nil {
			return nil, err
		}
		ws[k] = w
	}
	jobs := make(chan *block, 2*nw)
	order := make(chan *block, 2*nw)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // producer
		defer wg.Done()
		defer close(jobs)
		defer close(order)
		for first := p.first; first < p.last; first += blockSize {
			b := mk(first, int(min(blockSize, p.last-first)))
			b.done = make(chan struct{})
			select {
			case order <- b:
			case <-stop:
				return
			}
			select {
			case jobs <- b:
			case <-stop:
				return
			}
		}
	}()
	for _, w := range ws {
		wg.Add(1)
		go func(w *worker) {
			defer wg.Done()
			for b := range jobs {
				b.err = p.compute(w, b, text, !p.opts.NoJSONL)
				close(b.done)
			}
		}(w)
	}
	var err error
	done := int64(0)
	for b := range order {
		<-b.done
		if err = b.err; err == nil {
			err = consume(b)
		}
		if err != nil {
			close(stop)
			break
		}
		done += int64(b.n)
		if release != nil {
			release(b)
		}
		if p.opts.Progress != nil {
			p.opts.Progress(done, p.last-p.first)
		}
	}
	wg.Wait()
	if err != nil {
		return nil, err
	}
	acc := ws[0]
	for _, w := range ws[1:] {
		for c, n := range w.classHits {
			acc.classHits[c] += n
		}
		for b, n := range w.hits.Bins {
			acc.hits.Bins[b] += n
		}
		for k := range acc.inOr {
			acc.inOr[k] |= w.inOr[k]
			acc.inAnd[k] &= w.inAnd[k]
		}
		for k := range acc.outOr {
			acc.outOr[k] |= w.outOr[k]
			acc.outAnd[k] &= w.outAnd[k]
		}
	}
	for c, cl := range p.classes {
		if cl.Unreachable != "" && acc.classHits[c] != 0 {
			return nil, fmt.Errorf("vectors: model %s: %d vectors hit class %s, declared unreachable for this configuration (%s)", p.m.Name(), acc.classHits[c], cl.Name, cl.Unreachable)
		}
	}
	return acc, nil
}

// manifest builds the manifest (without Files) from the plan and coverage.
func (p *plan) manifest(acc *worker) Manifest {
	m := Manifest{
		Tool:        buildinfo.String(),
		Model:       p.m.Name(),
		Config:      json.RawMessage(p.configJSON),
		Level:       p.opts.Level,
		Seed:        p.opts.Seed,
		RandomCount: p.opts.Count,
		ClassFilter: p.opts.Classes,
		Total:       p.total,
		Shard:       ShardInfo{Index: p.opts.Shard.Index, Count: max(p.opts.Shard.Count, 1), First: p.first},
		Count:       p.last - p.first,
		Capture:     p.capture,
		Bias:        p.opts.Bias,
		Compression: p.opts.Compress,
	}
	for c := 0; c <= len(p.classes); c++ {
		cc := ClassCount{Name: p.className(c), Total: p.classN[c], First: p.classAt[c]}
		if c < len(p.classes) {
			cl := p.classes[c]
			cc.Doc, cc.Level, cc.Detected, cc.Unreachable = cl.Doc, cl.Level, cl.Detected, cl.Unreachable
			if cl.Detected {
				cc.Hits = acc.classHits[c]
			}
		} else {
			cc.Doc = p.tail.Doc
		}
		lo, hi := max(p.first, cc.First), min(p.last, cc.First+cc.Total)
		cc.Count = max(hi-lo, 0)
		m.Classes = append(m.Classes, cc)
	}
	m.Coverage = Coverage{
		InputBits:  bitCoverage(p.lay.in, acc.inOr, acc.inAnd),
		OutputBits: bitCoverage(p.lay.out, acc.outOr, acc.outAnd),
	}
	offs, _ := PointOffsets(p.points)
	for k, pt := range p.points {
		pc := PointCoverage{Name: pt.Name, Doc: pt.Doc, Bins: pt.Bins, Labels: pt.Labels,
			Counts: append([]uint64(nil), acc.hits.Bins[offs[k]:offs[k]+pt.Bins]...)}
		for _, n := range pc.Counts {
			if n != 0 {
				pc.Hit++
			}
		}
		m.Coverage.Points = append(m.Coverage.Points, pc)
	}
	return m
}

// bitCoverage computes per-field toggles from the OR and AND of all words.
func bitCoverage(t fieldtable.Table, or, and []uint64) BitCoverage {
	bc := BitCoverage{Width: t.Width}
	for _, f := range t.Fields {
		tog := fieldtable.GetBits(or, f.Offset, f.Width) &^ fieldtable.GetBits(and, f.Offset, f.Width)
		n := bits.OnesCount64(tog)
		bc.Toggled += n
		bc.Fields = append(bc.Fields, FieldToggle{Field: f.Name, Width: f.Width, Toggled: n, Mask: string(appendFieldHex(nil, f.Width, tog))})
	}
	return bc
}
