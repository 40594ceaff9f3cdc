package trace

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	"github.com/hpccgold/hpccgold/atomicfile"
	"github.com/hpccgold/hpccgold/buildinfo"
	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/fieldtable"
)

// VCD records chosen signals of one or more NICs as a Value Change Dump
// (IEEE 1364-2005 section 18.2), the waveform format GTKWave opens. Time is
// in picoseconds ($timescale 1ps): the value a signal has at the end of
// cycle c (after every component ticked) is dumped at the start of cycle
// c+1, Freq.PS(c+1), the clock edge at which a register would show it.
// Initial values, sampled when the first signal is sampled, are dumped at
// time 0. Only changes are written, and a skipped (idle) cycle changes no
// signal, so the file is identical with and without idle skipping.
//
// Install Sample as the engine's cycle hook (engine.Engine.SetCycleHook),
// or call it from a hook of your own. Signals are added before the first
// Sample; identifiers are assigned in the order signals are added, so the
// output is deterministic.
type VCD struct {
	freq    engine.Freq
	comment string
	sigs    []vcdSignal
	scopes  []string // scope path of each signal, in order
	started bool
	buf     bytes.Buffer
	last    int64 // time of the last #stamp written, -1 none
	val     []byte
}

type vcdSignal struct {
	scope, name string
	width       int
	get         func() uint64
	id          string
	cur         uint64
}

// NewVCD returns an empty VCD for a clock of freq. comment (may be empty)
// is written into the header ($comment), for example the configuration's
// name.
func NewVCD(freq engine.Freq, comment string) (*VCD, error) {
	if err := freq.Validate(); err != nil {
		return nil, fmt.Errorf("nicmodel: VCD: %w", err)
	}
	if strings.Contains(comment, "$end") {
		return nil, fmt.Errorf("nicmodel: VCD comment %q: must not contain $end", comment)
	}
	return &VCD{freq: freq, comment: comment, last: -1}, nil
}

// Add declares a signal of width bits (1..64) named name in scope (a
// dot-separated module path, e.g. "nicA.sched"), read by get after each
// executed cycle. get must depend only on model state (not on the wall
// clock or the cycle number alone), so that it changes only in executed
// cycles.
func (v *VCD) Add(scope, name string, width int, get func() uint64) error {
	if v.started {
		return fmt.Errorf("nicmodel: VCD: Add %s.%s after sampling started", scope, name)
	}
	if width < 1 || width > 64 {
		return fmt.Errorf("nicmodel: VCD: signal %s.%s: width=%d: must be in [1,64]", scope, name, width)
	}
	if !fieldtable.IsIdent(name) {
		return fmt.Errorf("nicmodel: VCD: signal name %q: must be [A-Za-z_][A-Za-z0-9_]*", name)
	}
	for _, p := range strings.Split(scope, ".") {
		if !fieldtable.IsIdent(p) {
			return fmt.Errorf("nicmodel: VCD: scope %q: each part must be [A-Za-z_][A-Za-z0-9_]*", scope)
		}
	}
	if get == nil {
		return fmt.Errorf("nicmodel: VCD: signal %s.%s: nil getter", scope, name)
	}
	v.sigs = append(v.sigs, vcdSignal{scope: scope, name: name, width: width, get: get, id: vcdID(len(v.sigs))})
	return nil
}

// vcdID is the n-th identifier code: base-94 over the printable ASCII
// characters '!'..'~'.
func vcdID(n int) string {
	var b []byte
	for {
		b = append(b, byte('!'+n%94))
		n /= 94
		if n == 0 {
			break
		}
		n--
	}
	return string(b)
}

func (v *VCD) header() {
	b := &v.buf
	b.WriteString("$version " + buildinfo.String() + " nicmodel $end\n")
	if v.comment != "" {
		b.WriteString("$comment " + v.comment + " $end\n")
	}
	b.WriteString("$timescale 1ps $end\n")
	// Scopes in first-appearance order; signals of a scope declared together.
	var order []string
	seen := map[string]bool{}
	for _, s := range v.sigs {
		if !seen[s.scope] {
			seen[s.scope] = true
			order = append(order, s.scope)
		}
	}
	var open []string
	for _, sc := range order {
		parts := strings.Split(sc, ".")
		k := 0
		for k < len(open) && k < len(parts) && open[k] == parts[k] {
			k++
		}
		for len(open) > k {
			b.WriteString("$upscope $end\n")
			open = open[:len(open)-1]
		}
		for _, p := range parts[k:] {
			b.WriteString("$scope module " + p + " $end\n")
			open = append(open, p)
		}
		for _, s := range v.sigs {
			if s.scope != sc {
				continue
			}
			b.WriteString("$var wire " + strconv.Itoa(s.width) + " " + s.id + " " + s.name)
			if s.width > 1 {
				b.WriteString(" [" + strconv.Itoa(s.width-1) + ":0]")
			}
			b.WriteString(" $end\n")
		}
	}
	for range open {
		b.WriteString("$upscope $end\n")
	}
	b.WriteString("$enddefinitions $end\n#0\n$dumpvars\n")
	for i := range v.sigs {
		s := &v.sigs[i]
		s.cur = s.get()
		if s.width < 64 {
			s.cur &= 1<<uint(s.width) - 1
		}
		v.value(s)
	}
	b.WriteString("$end\n")
	v.last = 0
}

func (v *VCD) value(s *vcdSignal) {
	b := &v.buf
	if s.width == 1 {
		b.WriteByte('0' + byte(s.cur&1))
		b.WriteString(s.id)
		b.WriteByte('\n')
		return
	}
	b.WriteByte('b')
	v.val = strconv.AppendUint(v.val[:0], s.cur, 2)
	b.Write(v.val)
	b.WriteByte(' ')
	b.WriteString(s.id)
	b.WriteByte('\n')
}

// Start writes the header and the initial values (time 0). Sample calls
// it on first use; call it before the run to take the initial values from
// the model's reset state.
func (v *VCD) Start() {
	if !v.started {
		v.started = true
		v.header()
	}
}

// Sample records the signals' values at the end of executed cycle now
// (dumped at time PS(now+1)). Use it as the engine's cycle hook.
func (v *VCD) Sample(now engine.Cycle) {
	v.Start()
	stamped := false
	for i := range v.sigs {
		s := &v.sigs[i]
		x := s.get()
		if s.width < 64 {
			x &= 1<<uint(s.width) - 1
		}
		if x == s.cur {
			continue
		}
		s.cur = x
		if !stamped {
			t := int64(v.freq.PS(now + 1))
			if t > v.last {
				v.buf.WriteByte('#')
				v.buf.WriteString(strconv.FormatInt(t, 10))
				v.buf.WriteByte('\n')
				v.last = t
			}
			stamped = true
		}
		v.value(s)
	}
}

// Bytes returns the dump so far (header included once started).
func (v *VCD) Bytes() []byte {
	v.Start()
	return v.buf.Bytes()
}

// WriteFile writes the dump to path atomically.
func (v *VCD) WriteFile(path string) error {
	return atomicfile.WriteBytes(path, 0o644, v.Bytes())
}
