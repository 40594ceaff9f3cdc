package vectors

import (
	"fmt"
	"math/bits"

	"github.com/hpccgold/hpccgold/fieldtable"
)

// Model is a golden transaction-level datapath that vectors can be generated
// for. Implementations must be deterministic: the same configuration gives
// the same tables, classes, directed vectors and evaluations on every run.
type Model interface {
	// Name is the model's identifier ("hpcc_update"); it names the manifest's
	// model and is the prefix of the fields.vh defines (<NAME>_IN_..., <NAME>_OUT_...).
	Name() string
	// Input is the layout of one stimulus transaction.
	Input() fieldtable.Table
	// Output is the layout of one expected-output transaction.
	Output() fieldtable.Table
	// Config is the full configuration, marshalled with encoding/json into the
	// manifest and handed back to OpenModel by Verify.
	Config() any
	// Classes lists the directed corner classes in generation order. Their
	// names must be unique identifiers and must not be "random".
	Classes() []Class
	// CoverPoints lists the branch and table-entry coverage points the
	// evaluator counts into Hits.Bins, in the order their bins are laid out.
	CoverPoints() []CoverPoint
	// Directed emits every directed vector of the classes whose Level is at
	// most level, class by class in Classes() order: emit(c, in) with c the
	// class index and in a packed input (len Input().Words()); emit copies in.
	// An error from emit must be returned unchanged.
	Directed(level int, emit func(class int, in []uint64) error) error
	// Random fills in (len Input().Words(), zeroed by the caller) with one
	// constrained-random transaction drawn from r.
	Random(r *Rand, in []uint64) error
	// NewEvaluator returns an evaluator for one goroutine.
	NewEvaluator() (Evaluator, error)
}

// Evaluator computes golden outputs. An evaluator is used by one goroutine at
// a time and may keep scratch state, but Eval's result must depend only on in.
type Evaluator interface {
	// Eval evaluates one packed input into out (len Output().Words(), zeroed
	// by the caller) and records into h which classes the transaction hits
	// (as detected from the datapath's own signals) and which coverage bins it
	// exercises. An input the datapath cannot take is an error naming the
	// field and value.
	Eval(in, out []uint64, h *Hits) error
}

// RandomEvaluator is an optional fast path of an Evaluator: EvalRandom
// must fill in exactly as Model.Random(r, in) would and then evaluate it
// exactly as Eval(in, out, h) would (Verify regenerates the stimulus with
// Random, so a difference is caught there). in and out are zeroed by the
// caller.
type RandomEvaluator interface {
	EvalRandom(r *Rand, in, out []uint64, h *Hits) error
}

// Class is one named directed corner class.
type Class struct {
	// Name is an identifier, unique within the model ("ts_ns_wrap").
	Name string
	// Doc says in one line what the class exercises.
	Doc string
	// Level is 1 for the directed corner cases, 2 for the bit-pattern
	// operands added at level 2 (TestFloat's levels).
	Level int
	// Detected means the evaluator can recognise the class from the
	// datapath's signals and marks it in Hits. Every vector generated for a
	// detected class must then be recognised, or generation fails; the
	// coverage report counts how many vectors of the whole set (random ones
	// included) hit it. Level-2 pattern classes, defined by how their operands
	// were built, are not detected.
	Detected bool
	// Unreachable, when not empty, says why the configuration cannot produce
	// the class (e.g. a tie of two hops on a 1-hop path). Such a class is
	// listed, never generated, and is not a coverage hole: a set that hits
	// it contradicts the reason, and generation fails.
	Unreachable string
}

// CoverPoint is a group of coverage bins, such as the two arms of a branch
// (Labels {"additive", "multiplicative"}) or the entries of a reciprocal table.
type CoverPoint struct {
	Name   string   // identifier, unique within the model
	Doc    string   // one line
	Bins   int      // number of bins, >= 1
	Labels []string // optional: one name per bin (len Bins); bins are numbered otherwise
}

// PointOffsets returns, for each cover point, the index of its first bin in
// Hits.Bins, and the total number of bins.
func PointOffsets(points []CoverPoint) (offsets []int, total int) {
	offsets = make([]int, len(points))
	for i, p := range points {
		offsets[i] = total
		total += p.Bins
	}
	return offsets, total
}

// Hits collects what one or more evaluations exercised. The generator resets
// Classes before each evaluation and accumulates Bins across evaluations.
type Hits struct {
	// Classes is a bit set over class indices: bit c of Classes[c/64].
	Classes []uint64
	// Bins counts, per coverage bin (layout from PointOffsets), the
	// evaluations that exercised it.
	Bins []uint64
}

// NewHits returns Hits sized for nClasses classes and nBins bins.
func NewHits(nClasses, nBins int) *Hits {
	return &Hits{Classes: make([]uint64, (nClasses+63)/64), Bins: make([]uint64, nBins)}
}

// Hit marks class c as hit by the current evaluation.
func (h *Hits) Hit(c int) { h.Classes[c/64] |= 1 << uint(c%64) }

// Has reports whether class c was marked.
func (h *Hits) Has(c int) bool { return h.Classes[c/64]>>uint(c%64)&1 != 0 }

// Count adds one to bin b (an index into Bins).
func (h *Hits) Count(b int) { h.Bins[b]++ }

func (h *Hits) resetClasses() {
	for i := range h.Classes {
		h.Classes[i] = 0
	}
}

// forEachClass calls f for every marked class, in increasing order.
func (h *Hits) forEachClass(f func(c int)) {
	for w, x := range h.Classes {
		for x != 0 {
			b := bits.TrailingZeros64(x)
			f(w*64 + b)
			x &= x - 1
		}
	}
}

// RandomClass is the class name of the constrained-random vectors.
const RandomClass = "random"

// validateModel checks the model's static description.
func validateModel(m Model) error {
	in, out := m.Input(), m.Output()
	if in.Width == 0 || out.Width == 0 {
		return fmt.Errorf("vectors: model %s: empty input or output table", m.Name())
	}
	for _, t := range []fieldtable.Table{in, out} {
		for _, f := range t.Fields {
			if _, err := parseFieldFormat(f); err != nil {
				return fmt.Errorf("vectors: model %s: table %s: %w", m.Name(), t.Name, err)
			}
		}
	}
	seen := map[string]bool{RandomClass: true}
	for i, c := range m.Classes() {
		if !fieldtable.IsIdent(c.Name) || seen[c.Name] {
			return fmt.Errorf("vectors: model %s: class %d: Name=%q: must be a unique identifier other than %q", m.Name(), i, c.Name, RandomClass)
		}
		seen[c.Name] = true
		if c.Level != 1 && c.Level != 2 {
			return fmt.Errorf("vectors: model %s: class %s: Level=%d: must be 1 or 2", m.Name(), c.Name, c.Level)
		}
	}
	seenP := map[string]bool{}
	for i, p := range m.CoverPoints() {
		if !fieldtable.IsIdent(p.Name) || seenP[p.Name] {
			return fmt.Errorf("vectors: model %s: cover point %d: Name=%q: must be a unique identifier", m.Name(), i, p.Name)
		}
		seenP[p.Name] = true
		if p.Bins < 1 || p.Labels != nil && len(p.Labels) != p.Bins {
			return fmt.Errorf("vectors: model %s: cover point %s: Bins=%d, %d labels: need Bins >= 1 and one label per bin if any", m.Name(), p.Name, p.Bins, len(p.Labels))
		}
	}
	return nil
}
