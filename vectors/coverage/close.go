package coverage

import (
	"context"
	"fmt"
	"slices"

	"github.com/hpccgold/hpccgold/fieldtable"
	"github.com/hpccgold/hpccgold/grade"
	"github.com/hpccgold/hpccgold/vectors"
)

// CloseOptions configure coverage closure (vectors gen --until-covered).
type CloseOptions struct {
	Level   int    // directed classes, 1 or 2
	Seed    uint64 // seed of the random vectors
	Budget  int64  // most random vectors to draw (> 0)
	Round   int64  // random vectors per round (> 0): the bias is chosen again after each round
	Workers int    // samplers of the directed vectors (0: one per CPU)
}

// RoundInfo is one round of closure.
type RoundInfo struct {
	From  int64  `json:"from"`  // first random index of the round
	Field string `json:"field"` // input field biased ("" plain draws)
	Holes int    `json:"holes"` // holes after the round
}

// CloseResult is the outcome of closure.
type CloseResult struct {
	Directed int64              // directed vectors
	Random   int64              // random vectors drawn (the set's --count)
	Bias     []vectors.BiasStep // the bias schedule (the set's manifest bias)
	Rounds   []RoundInfo        // per round
	Report   *Report            // coverage of directed + random vectors
	Closed   bool               // every reachable bin hit
	Counts   *Counts            // the counts behind Report
}

// Close draws constrained-random vectors after the directed ones of vm
// until every reachable bin of cm is hit or opts.Budget random vectors are
// drawn. The first round draws plainly; each later round biases one input
// field toward its boundary patterns (vectors.BiasStep): the field feeding
// the most holes, ties broken by field order, a field not chosen in the
// last four rounds. Deterministic for the options: the result's Random and
// Bias regenerate exactly the vectors sampled (vectors.Options Count, Bias).
func Close(ctx context.Context, vm vectors.Model, cm *Model, opts CloseOptions) (*CloseResult, error) {
	if opts.Budget <= 0 || opts.Round <= 0 {
		return nil, fmt.Errorf("coverage: closure: budget %d and round %d must be positive", opts.Budget, opts.Round)
	}
	dir, err := vectors.Generate(vm, vectors.Options{Level: opts.Level, Seed: opts.Seed, Count: 0, NoJSONL: true, Workers: opts.Workers})
	if err != nil {
		return nil, err
	}
	counts, err := cm.Run(ctx, grade.FromSet(dir, "directed"), opts.Workers)
	if err != nil {
		return nil, err
	}
	res := &CloseResult{Directed: int64(dir.Len())}
	cones := cm.inputCones()
	in := vm.Input()
	s, err := cm.NewSampler()
	if err != nil {
		return nil, err
	}
	vals := make([]uint64, len(in.Fields))
	var recent []int
	for res.Random < opts.Budget {
		holes := holeSet(cm, counts)
		if len(holes) == 0 {
			break
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		field := ""
		if res.Random > 0 {
			f := pickField(holes, cones, len(in.Fields), recent)
			if f >= 0 {
				field = in.Fields[f].Name
				recent = append(recent, f)
				if len(recent) > 4 {
					recent = recent[1:]
				}
			}
		}
		step := vectors.BiasStep{From: res.Random, Field: field}
		if len(res.Bias) == 0 && field == "" {
			// plain draws need no step
		} else {
			res.Bias = append(res.Bias, step)
		}
		n := min(opts.Round, opts.Budget-res.Random)
		words, err := vectors.RandomInputs(vm, opts.Seed, res.Bias, res.Random+n, res.Random, n)
		if err != nil {
			return nil, err
		}
		for _, w := range words {
			for i, f := range in.Fields {
				vals[i] = fieldtable.Get(w, f)
			}
			s.Sample(vals, counts)
		}
		res.Random += n
		res.Rounds = append(res.Rounds, RoundInfo{From: step.From, Field: field, Holes: len(holeSet(cm, counts))})
	}
	res.Counts = counts
	res.Report = cm.Report(counts, []string{fmt.Sprintf("level %d, seed %d, %d directed + %d random", opts.Level, opts.Seed, res.Directed, res.Random)})
	if err := res.Report.Contradicted(); err != nil {
		return nil, err
	}
	res.Closed = res.Report.Summary.Closed()
	return res, nil
}

// holeSet returns the points with holes (index) and how many each has.
func holeSet(cm *Model, c *Counts) map[int]int {
	h := map[int]int{}
	for p, pt := range cm.Points {
		for b, bin := range pt.Bins {
			if bin.Unreachable == "" && c.Bins[p][b] == 0 {
				h[p]++
			}
		}
	}
	return h
}

// pickField returns the input field in the cones of the most holes, not in
// recent (-1 if none feeds a hole).
func pickField(holes map[int]int, cones [][]int, nFields int, recent []int) int {
	score := make([]int, nFields)
	for p, n := range holes {
		for _, f := range cones[p] {
			score[f] += n
		}
	}
	best := -1
	for f, sc := range score {
		if sc == 0 || slices.Contains(recent, f) {
			continue
		}
		if best < 0 || sc > score[best] {
			best = f
		}
	}
	return best
}

// inputCones returns, per point, the input ports (indices) its sampled
// nodes depend on.
func (m *Model) inputCones() [][]int {
	inIdx := map[int]int{}
	for i, n := range m.f.Inputs {
		inIdx[n.ID] = i
	}
	memo := map[int][]int{}
	var cone func(id int) []int
	cone = func(id int) []int {
		if c, ok := memo[id]; ok {
			return c
		}
		memo[id] = nil // cycle guard (a combinational module has none)
		var out []int
		if i, ok := inIdx[id]; ok {
			out = []int{i}
		}
		for _, a := range m.f.Nodes[id].Args {
			for _, i := range cone(a.ID) {
				if !slices.Contains(out, i) {
					out = append(out, i)
				}
			}
		}
		slices.Sort(out)
		memo[id] = out
		return out
	}
	cs := make([][]int, len(m.Points))
	for p, pt := range m.Points {
		var all []int
		for _, n := range pt.src {
			for _, i := range cone(n.ID) {
				if !slices.Contains(all, i) {
					all = append(all, i)
				}
			}
		}
		slices.Sort(all)
		cs[p] = all
	}
	return cs
}
