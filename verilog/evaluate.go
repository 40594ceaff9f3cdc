package verilog

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	"github.com/hpccgold/hpccgold/fieldtable"
	"github.com/hpccgold/hpccgold/rtl"
)

// EvalResult is the outcome of running vectors through the Go evaluator.
type EvalResult struct {
	Passed, Failed int
	Stalls         int
	Cycles         int
	First          string // the first mismatch, field by field ("" if none)
}

// ReadVectors reads up to n lines (n <= 0: all) of a hex vector file laid
// out by table t.
func ReadVectors(path string, t fieldtable.Table, n int) ([][]uint64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, errorf("%w", err)
	}
	defer f.Close()
	var out [][]uint64
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<16), 1<<20)
	line := 0
	for sc.Scan() && (n <= 0 || len(out) < n) {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" || strings.HasPrefix(s, "//") {
			continue
		}
		w := make([]uint64, t.Words())
		if err := t.ParseHex(s, w); err != nil {
			return nil, errorf("%s line %d: %w", path, line, err)
		}
		out = append(out, w)
	}
	if err := sc.Err(); err != nil {
		return nil, errorf("%s: %w", path, err)
	}
	if n > 0 && len(out) < n {
		return nil, errorf("%s: %d vectors, want %d", path, len(out), n)
	}
	return out, nil
}

// Evaluate runs the vectors through the rtl evaluator of the bench's DUT with
// exactly the testbench's protocol (reset, one offer per cycle held while
// Ready is low, an idle cycle after every gap transactions, compare on
// ValidOut): the Go side of the three-way check.
func (b Bench) Evaluate(stim, exp [][]uint64, gap int) (EvalResult, error) {
	var r EvalResult
	if err := b.check(); err != nil {
		return r, err
	}
	if b.DUT == nil {
		return r, errorf("evaluate %s: no rtl module to evaluate (Bench.DUT is nil)", b.Name())
	}
	sim, err := rtl.NewSim(b.DUT)
	if err != nil {
		return r, err
	}
	m := sim.Module()
	type bind struct {
		port int
		f    fieldtable.Field
	}
	var ins []bind
	validIn := -1
	for i, n := range m.Inputs {
		if n.Name == b.ValidIn {
			validIn = i
			continue
		}
		ins = append(ins, bind{i, b.In.Fields[b.In.Index(n.Name)]})
	}
	var outs []bind
	validOut, ready := -1, -1
	for i, p := range m.Outputs {
		switch p.Name {
		case b.ValidOut:
			validOut = i
		case b.Ready:
			ready = i
		default:
			outs = append(outs, bind{i, b.Out.Fields[b.Out.Index(p.Name)]})
		}
	}
	n := len(stim)
	if len(exp) < n {
		return r, errorf("evaluate %s: %d expected lines for %d stimulus lines", b.DUT.Name, len(exp), n)
	}
	// Reset: three edges with rst high and nothing offered.
	sim.SetInUint(validIn, 0)
	for i := 0; i < 3; i++ {
		sim.Step(true)
	}
	sent, recv, idle, sinceGap := 0, 0, 0, 0
	curValid := false
	var cur []uint64
	for recv < n && idle <= Timeout {
		// Drive the offered transaction for this cycle.
		if curValid {
			for _, x := range ins {
				sim.SetInUint(x.port, fieldtable.Get(cur, x.f))
			}
			sim.SetInUint(validIn, 1)
		} else {
			sim.SetInUint(validIn, 0)
		}
		sim.Eval()
		if sim.Out(validOut).Bit(0) {
			idle = 0
			if recv < n {
				var diff []string
				for _, x := range outs {
					got, want := sim.Out(x.port).Uint64(), fieldtable.Get(exp[recv], x.f)
					if got != want {
						diff = append(diff, fmt.Sprintf("%s: got %x want %x", x.f.Name, got, want))
					}
				}
				if len(diff) > 0 {
					r.Failed++
					if r.First == "" {
						r.First = fmt.Sprintf("vector %d: %s", recv, strings.Join(diff, "; "))
					}
				} else {
					r.Passed++
				}
			}
			recv++
		} else {
			idle++
		}
		taken := !curValid || ready < 0 || sim.Out(ready).Bit(0)
		if curValid && !taken {
			r.Stalls++
		} else if sent < n && !(gap > 0 && sinceGap == gap) {
			cur, curValid = stim[sent], true
			sent++
			sinceGap++
		} else {
			curValid = false
			sinceGap = 0
		}
		sim.Step(false)
		r.Cycles++
	}
	if recv < n {
		r.Failed += n - recv
		if r.First == "" {
			r.First = fmt.Sprintf("timeout: %d of %d results missing", n-recv, n)
		}
	}
	return r, nil
}
