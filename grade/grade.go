package grade

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/hpccgold/hpccgold/rtl"
	"github.com/hpccgold/hpccgold/vectors"
)

// Verdict is what grading concluded about one mutant.
type Verdict string

// The verdicts.
const (
	Killed     Verdict = "killed"     // an output of some vector differs from the golden one
	Equivalent Verdict = "equivalent" // survived, and proved unable to change any output (Result.Proof)
	Gap        Verdict = "gap"        // survived without a proof: a bug the vectors miss
)

// DefaultMinScore is issue 14's goal for the mutation score: 98%.
const DefaultMinScore = 0.98

// Options selects the mutants to grade.
type Options struct {
	Mutants int           // mutants sampled from Sites (0: every site)
	Seed    uint64        // seed of the ROM entries mutated and of the sample
	Shard   vectors.Shard // grade only this contiguous part of the sample
	Workers int           // parallel evaluators (0: GOMAXPROCS); the report does not depend on it
	// Assume are facts about nodes that the configuration's range analysis
	// proves (HPCCAssumptions). A survivor the value analysis cannot prove
	// equivalent is tried again with them; a proof that needs them is
	// marked (Result.RangeAnalysis) and counted apart.
	Assume []Assumption
}

// Result is one graded mutant.
type Result struct {
	Mutant
	Verdict Verdict  `json:"verdict"`
	Vector  *int64   `json:"vector,omitempty"` // Killed: global index of the first vector that kills it
	Class   string   `json:"class,omitempty"`  // Killed: that vector's class
	Fields  []string `json:"fields,omitempty"` // Killed: the output fields that differ there
	Proof   string   `json:"proof,omitempty"`  // Equivalent: why no output can change
	// RangeAnalysis: the proof rests on Options.Assume (the configuration's
	// range analysis), not on the description alone.
	RangeAnalysis bool     `json:"range_analysis,omitempty"`
	Near          string   `json:"near,omitempty"`    // survivors: the nearest readable node name downstream (the node's own if it has one)
	Reaches       []string `json:"reaches,omitempty"` // survivors: the output ports the mutated node feeds
}

// OperatorCount is the tally of one mutation operator.
type OperatorCount struct {
	Operator   Operator `json:"operator"`
	Mutants    int      `json:"mutants"`
	Killed     int      `json:"killed"`
	Equivalent int      `json:"equivalent"`
	Gaps       int      `json:"gaps"`
}

// Report is the outcome of Grade. Score = Killed / (Mutants - Equivalent).
type Report struct {
	Design     string `json:"design"`
	Nodes      int    `json:"nodes"` // nodes of the flattened module
	Vectors    int    `json:"vectors"`
	Source     string `json:"source"` // where the vectors came from
	Seed       uint64 `json:"seed"`
	Sites      int    `json:"sites"`   // every single-point mutant of the module
	Sampled    int    `json:"sampled"` // mutants drawn from the sites
	Shard      string `json:"shard"`   // i/n of the sample graded here
	Mutants    int    `json:"mutants"` // graded here
	Killed     int    `json:"killed"`
	Equivalent int    `json:"equivalent"`
	// EquivalentByRange counts the equivalent mutants whose proof uses the
	// configuration's range analysis (included in Equivalent).
	EquivalentByRange int             `json:"equivalent_by_range_analysis"`
	Gaps              int             `json:"gaps"`
	Score             float64         `json:"score"`     // Killed / (Mutants - Equivalent); 0 when undefined
	MinScore          float64         `json:"min_score"` // the goal the verdict is judged against
	Pass              bool            `json:"pass"`      // Score >= MinScore and at least one non-equivalent mutant
	Operators         []OperatorCount `json:"operators"`
	Results           []Result        `json:"results"`
}

// runner evaluates modules over a vector set.
type runner struct {
	v    *Vectors
	inIx []int // module input i reads field inIx[i] of the vector
}

func newRunner(f *rtl.Module, v *Vectors) (*runner, error) {
	if len(f.Inputs) != len(v.In.Fields) || len(f.Outputs) != len(v.Out.Fields) {
		return nil, fmt.Errorf("grade: module %s has %d inputs and %d outputs; the vector set's tables have %d and %d fields",
			f.Name, len(f.Inputs), len(f.Outputs), len(v.In.Fields), len(v.Out.Fields))
	}
	for i, fld := range v.In.Fields {
		if n := f.Inputs[i]; n.Name != fld.Name || n.Width != fld.Width {
			return nil, fmt.Errorf("grade: module %s input %d is %s (%d bits); the vector set's field %d is %s (%d bits)", f.Name, i, n.Name, n.Width, i, fld.Name, fld.Width)
		}
	}
	for i, fld := range v.Out.Fields {
		if p := f.Outputs[i]; p.Name != fld.Name || p.Node.Width != fld.Width {
			return nil, fmt.Errorf("grade: module %s output %d is %s (%d bits); the vector set's field %d is %s (%d bits)", f.Name, i, p.Name, p.Node.Width, i, fld.Name, fld.Width)
		}
	}
	return &runner{v: v}, nil
}

// firstKill runs m over the vectors in order and returns the first vector
// whose outputs differ from the golden ones and the differing fields, or
// -1.
func (r *runner) firstKill(ctx context.Context, m *rtl.Module) (int, []string, error) {
	sim, err := rtl.NewSim(m)
	if err != nil {
		return 0, nil, fmt.Errorf("grade: %w", err)
	}
	for k := 0; k < r.v.Len(); k++ {
		if k%1024 == 0 && ctx.Err() != nil {
			return 0, nil, ctx.Err()
		}
		for i, x := range r.v.input(k) {
			sim.SetInUint(i, x)
		}
		sim.Eval()
		want := r.v.output(k)
		var bad []string
		for i, x := range want {
			if sim.Out(i).Uint64() != x {
				bad = append(bad, r.v.Out.Fields[i].Name)
			}
		}
		if bad != nil {
			return k, bad, nil
		}
	}
	return -1, nil, nil
}

// Grade samples opts.Mutants mutants of the combinational module m
// (Sites, Sample), grades the part opts.Shard selects over v, tries to
// prove each survivor equivalent, and returns the report (judged against
// minScore). It fails when the unmutated module itself does not reproduce
// every vector (grading would be meaningless), on a bad option, or when ctx
// is cancelled.
func Grade(ctx context.Context, m *rtl.Module, v *Vectors, opts Options, minScore float64) (*Report, error) {
	if opts.Mutants < 0 {
		return nil, fmt.Errorf("grade: Mutants=%d: must be >= 0", opts.Mutants)
	}
	if opts.Workers < 0 {
		return nil, fmt.Errorf("grade: Workers=%d: must be >= 0", opts.Workers)
	}
	if minScore < 0 || minScore > 1 {
		return nil, fmt.Errorf("grade: min score %v: must be in [0,1]", minScore)
	}
	if v.Len() == 0 {
		return nil, fmt.Errorf("grade: vector set %s holds no vector", v.Source)
	}
	f, err := combinational(m)
	if err != nil {
		return nil, err
	}
	r, err := newRunner(f, v)
	if err != nil {
		return nil, err
	}
	if k, bad, err := r.firstKill(ctx, f); err != nil {
		return nil, err
	} else if k >= 0 {
		return nil, fmt.Errorf("grade: the unmutated %s differs from the golden vectors at vector %d (class %s) in %s: the set does not belong to this description",
			f.Name, v.First+int64(k), v.Class(k), strings.Join(bad, ", "))
	}
	all, err := Sites(f, opts.Seed)
	if err != nil {
		return nil, err
	}
	n := opts.Mutants
	if n == 0 || n > len(all) {
		n = len(all)
	}
	sample := Sample(all, n, opts.Seed)
	sh := opts.Shard
	if sh.Count < 0 || sh.Index < 0 || sh.Index >= max(sh.Count, 1) {
		return nil, fmt.Errorf("grade: shard %d/%d: need 0 <= i < n", sh.Index, sh.Count)
	}
	if max(sh.Count, 1) > len(sample) {
		return nil, fmt.Errorf("grade: shard %d/%d of %d mutants holds no mutant: want n <= %d", sh.Index, sh.Count, len(sample), len(sample))
	}
	lo, hi := sh.Range(int64(len(sample)))
	part := sample[lo:hi]

	results := make([]Result, len(part))
	errs := make([]error, len(part))
	pr := newProver(f)
	var prA *prover
	if len(opts.Assume) > 0 {
		if prA, err = newProverAssuming(f, opts.Assume); err != nil {
			return nil, err
		}
	}
	workers := opts.Workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, len(part))
	next := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				results[i], errs[i] = gradeOne(ctx, f, r, pr, prA, part[i])
			}
		}()
	}
	for i := range part {
		if ctx.Err() != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	rep := &Report{Design: f.Name, Nodes: len(f.Nodes), Vectors: v.Len(), Source: v.Source, Seed: opts.Seed,
		Sites: len(all), Sampled: len(sample), Shard: fmt.Sprintf("%d/%d", sh.Index, max(sh.Count, 1)),
		Mutants: len(part), MinScore: minScore, Results: results}
	rep.tally()
	return rep, nil
}

// tally sets the counts, the per-operator table, the score and the
// verdict of rep from rep.Results, rep.Mutants and rep.MinScore: Grade and
// Merge compute them the same way from the same results.
func (rep *Report) tally() {
	rep.Killed, rep.Equivalent, rep.EquivalentByRange, rep.Gaps = 0, 0, 0, 0
	rep.Operators, rep.Score, rep.Pass = nil, 0, false
	ops := map[Operator]*OperatorCount{}
	for _, res := range rep.Results {
		oc := ops[res.Operator]
		if oc == nil {
			oc = &OperatorCount{Operator: res.Operator}
			ops[res.Operator] = oc
		}
		oc.Mutants++
		switch res.Verdict {
		case Killed:
			rep.Killed++
			oc.Killed++
		case Equivalent:
			rep.Equivalent++
			oc.Equivalent++
			if res.RangeAnalysis {
				rep.EquivalentByRange++
			}
		default:
			rep.Gaps++
			oc.Gaps++
		}
	}
	for _, oc := range ops {
		rep.Operators = append(rep.Operators, *oc)
	}
	slices.SortFunc(rep.Operators, func(a, b OperatorCount) int { return strings.Compare(string(a.Operator), string(b.Operator)) })
	if d := rep.Mutants - rep.Equivalent; d > 0 {
		rep.Score = float64(rep.Killed) / float64(d)
		rep.Pass = rep.Score >= rep.MinScore
	}
}

// gradeOne builds mutant mu of the flat module f, runs it and, if it
// survives, tries to prove it equivalent.
func gradeOne(ctx context.Context, f *rtl.Module, r *runner, pr, prA *prover, mu Mutant) (Result, error) {
	res := Result{Mutant: mu}
	mm, err := rebuild(f, &mu)
	if err != nil {
		return res, err
	}
	k, bad, err := r.firstKill(ctx, mm)
	if err != nil {
		return res, err
	}
	if k >= 0 {
		idx := r.v.First + int64(k)
		res.Verdict, res.Vector, res.Class, res.Fields = Killed, &idx, r.v.Class(k), bad
		return res, nil
	}
	proof, err := pr.prove(mu)
	if err != nil {
		return res, err
	}
	res.Near, res.Reaches = pr.near(f.Nodes[mu.NodeID]), pr.reaches(f.Nodes[mu.NodeID])
	if proof != "" {
		res.Verdict, res.Proof = Equivalent, proof
		return res, nil
	}
	if prA != nil {
		if proof, err = prA.prove(mu); err != nil {
			return res, err
		}
		if proof != "" {
			res.Verdict, res.Proof, res.RangeAnalysis = Equivalent, "under the configuration's range analysis ("+prA.assumed+"): "+proof, true
			return res, nil
		}
	}
	res.Verdict = Gap
	return res, nil
}

// Err returns nil when the report passes, else an error stating the score
// and the goal (or that no mutant could be judged).
func (rep *Report) Err() error {
	if rep.Pass {
		return nil
	}
	if rep.Mutants-rep.Equivalent <= 0 {
		return fmt.Errorf("grade: %s: no mutant left to judge (%d graded, %d proved equivalent)", rep.Design, rep.Mutants, rep.Equivalent)
	}
	return fmt.Errorf("grade: %s: mutation score %s (%d killed of %d non-equivalent) is below the goal %.2f%%",
		rep.Design, pct(rep.Score), rep.Killed, rep.Mutants-rep.Equivalent, 100*rep.MinScore)
}

func pct(x float64) string { return fmt.Sprintf("%.2f%%", 100*x) }

// JSON returns the report as indented JSON with a trailing newline.
func (rep *Report) JSON() ([]byte, error) {
	b, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("grade: report: %w", err)
	}
	return append(b, '\n'), nil
}

// WriteText writes the report for people: the score, the tally per
// operator, and every survivor with its location and verdict.
func (rep *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "mutation grading of %s (%d nodes) over %d vectors (%s)\n", rep.Design, rep.Nodes, rep.Vectors, rep.Source)
	fmt.Fprintf(&b, "mutants: %d sites, %d sampled (seed %d), shard %s: %d graded\n", rep.Sites, rep.Sampled, rep.Seed, rep.Shard, rep.Mutants)
	fmt.Fprintf(&b, "killed %d, equivalent (proved) %d, gaps %d\n", rep.Killed, rep.Equivalent, rep.Gaps)
	if rep.EquivalentByRange > 0 {
		fmt.Fprintf(&b, "  of the equivalent, %d proved under the configuration's range analysis (without it: score %.2f%%)\n",
			rep.EquivalentByRange, 100*float64(rep.Killed)/float64(max(rep.Mutants-rep.Equivalent+rep.EquivalentByRange, 1)))
	}
	verdict := "PASS"
	if !rep.Pass {
		verdict = "FAIL"
	}
	fmt.Fprintf(&b, "score %s = %d / (%d - %d), goal %.2f%%: %s\n", pct(rep.Score), rep.Killed, rep.Mutants, rep.Equivalent, 100*rep.MinScore, verdict)
	fmt.Fprintf(&b, "\n%-10s %7s %7s %10s %5s\n", "operator", "mutants", "killed", "equivalent", "gaps")
	for _, oc := range rep.Operators {
		fmt.Fprintf(&b, "%-10s %7d %7d %10d %5d\n", oc.Operator, oc.Mutants, oc.Killed, oc.Equivalent, oc.Gaps)
	}
	for _, verdict := range []Verdict{Gap, Equivalent} {
		first := true
		for _, res := range rep.Results {
			if res.Verdict != verdict {
				continue
			}
			if first {
				fmt.Fprintf(&b, "\n%s survivors:\n", verdict)
				first = false
			}
			fmt.Fprintf(&b, "  #%d %s\n      in %s, reaches: %s\n", res.Index, res.Mutant, res.Near, strings.Join(res.Reaches, " "))
			if res.Proof != "" {
				fmt.Fprintf(&b, "      proof: %s\n", res.Proof)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
