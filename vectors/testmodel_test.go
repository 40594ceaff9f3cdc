package vectors

import (
	"encoding/json"
	"fmt"

	"github.com/hpccgold/hpccgold/fieldtable"
)

// macModel is a small test model exercising the generic machinery: a
// saturating multiply or a table-plus-add, selected by a bit.
//
//	in:  a u12.8 (4 fraction bits), b uint8, sel bool
//	out: y u16.12 (4 fraction bits) = sel ? min(a*b, 2^16-1) (raw)
//	                   : min(a + tbl[b>>4], 2^16-1)  (tbl[k] = 16*k+1, raw)
//	     sat bool  = the result saturated
//
// Classes (level 1, detected): zero_a (a == 0), sat (saturated), max_b
// (b == 255); level 2: pattern_a_b (a x b bit patterns), not detected.
// Cover points: sel (mul/add), tbl (16 entries, counted on the add path).
type macModel struct {
	in, out fieldtable.Table
	cfg     macConfig
}

type macConfig struct {
	// SkipClass makes Directed emit nothing for the named class (to test
	// "cannot be produced").
	SkipClass string `json:"skip_class,omitempty"`
	// Mislabel makes Directed emit, for class sat, a vector that does not
	// saturate (to test detection of a mislabelled vector).
	Mislabel bool `json:"mislabel,omitempty"`
	// Bug flips output bit 0 for a == 1 (to test that verify re-runs the model).
	Bug bool `json:"bug,omitempty"`
}

func newMac(cfg macConfig) *macModel {
	in, err := fieldtable.New("mac_in", []fieldtable.Spec{
		{Name: "a", Width: 12, Format: "u12.8", Doc: "operand a"},
		{Name: "b", Width: 8, Format: "uint", Doc: "operand b"},
		{Name: "sel", Width: 1, Format: "bool", Doc: "1: multiply, 0: table add"},
	})
	if err != nil {
		panic(err)
	}
	out, err := fieldtable.New("mac_out", []fieldtable.Spec{
		{Name: "y", Width: 16, Format: "u16.12", Doc: "result"},
		{Name: "sat", Width: 1, Format: "bool", Doc: "result saturated"},
	})
	if err != nil {
		panic(err)
	}
	return &macModel{in: in, out: out, cfg: cfg}
}

func openMac(name string, config json.RawMessage) (Model, error) {
	if name != "mac" {
		return nil, fmt.Errorf("unknown model %q", name)
	}
	var c macConfig
	if err := json.Unmarshal(config, &c); err != nil {
		return nil, err
	}
	return newMac(c), nil
}

func (m *macModel) Name() string             { return "mac" }
func (m *macModel) Input() fieldtable.Table  { return m.in }
func (m *macModel) Output() fieldtable.Table { return m.out }
func (m *macModel) Config() any              { return m.cfg }

const (
	macZeroA = iota
	macSat
	macMaxB
	macPattern
)

func (m *macModel) Classes() []Class {
	return []Class{
		{Name: "zero_a", Doc: "a is zero", Level: 1, Detected: true},
		{Name: "sat", Doc: "the result saturates", Level: 1, Detected: true},
		{Name: "max_b", Doc: "b is all ones", Level: 1, Detected: true},
		{Name: "pattern_a_b", Doc: "a x b bit patterns", Level: 2},
	}
}

func (m *macModel) CoverPoints() []CoverPoint {
	return []CoverPoint{
		{Name: "sel", Doc: "operation", Bins: 2, Labels: []string{"add", "mul"}},
		{Name: "tbl", Doc: "table entry", Bins: 16},
	}
}

func (m *macModel) pack(a, b, sel uint64) []uint64 {
	w := make([]uint64, m.in.Words())
	fieldtable.PutBits(w, m.in.Fields[0].Offset, 12, a)
	fieldtable.PutBits(w, m.in.Fields[1].Offset, 8, b)
	fieldtable.PutBits(w, m.in.Fields[2].Offset, 1, sel)
	return w
}

// Directed emits: zero_a: a=0 with b in {0,1,255} x sel in {0,1} (6);
// sat: a=0xfff, b in {17, 255}, sel=1 (2); max_b: b=255, a in {1, 0x800}, both
// sel (4); level 2: Patterns(12) x Patterns(8) with sel=1.
func (m *macModel) Directed(level int, emit func(int, []uint64) error) error {
	type vec struct {
		c       int
		a, b, s uint64
	}
	var vs []vec
	for _, b := range []uint64{0, 1, 255} {
		for s := uint64(0); s < 2; s++ {
			vs = append(vs, vec{macZeroA, 0, b, s})
		}
	}
	if m.cfg.Mislabel {
		vs = append(vs, vec{macSat, 1, 1, 1})
	}
	vs = append(vs, vec{macSat, 0xfff, 17, 1}, vec{macSat, 0xfff, 255, 1})
	for _, a := range []uint64{1, 0x800} {
		for s := uint64(0); s < 2; s++ {
			vs = append(vs, vec{macMaxB, a, 255, s})
		}
	}
	for _, v := range vs {
		if m.Classes()[v.c].Name == m.cfg.SkipClass {
			continue
		}
		if err := emit(v.c, m.pack(v.a, v.b, v.s)); err != nil {
			return err
		}
	}
	if level < 2 || m.cfg.SkipClass == "pattern_a_b" {
		return nil
	}
	return Pairwise(m.in, m.pack(0, 0, 1), PatternField{0, Patterns(12, 0xfff)}, PatternField{1, Patterns(8, 0xff)}, nil,
		func(in []uint64) error { return emit(macPattern, in) })
}

func (m *macModel) Random(r *Rand, in []uint64) error {
	fieldtable.PutBits(in, 0, 12, r.LogUniform(0xfff))
	fieldtable.PutBits(in, 12, 8, r.Bits(8))
	fieldtable.PutBits(in, 20, 1, r.Bits(1))
	return nil
}

func (m *macModel) NewEvaluator() (Evaluator, error) { return macEval{m}, nil }

type macEval struct{ m *macModel }

func (e macEval) Eval(in, out []uint64, h *Hits) error {
	a := fieldtable.GetBits(in, 0, 12)
	b := fieldtable.GetBits(in, 12, 8)
	sel := fieldtable.GetBits(in, 20, 1)
	var y uint64
	if sel == 1 {
		y = a * b
		h.Count(1)
	} else {
		y = a + 16*(b>>4) + 1
		h.Count(0)
		h.Count(2 + int(b>>4))
	}
	sat := uint64(0)
	if y > 0xffff {
		y, sat = 0xffff, 1
		h.Hit(macSat)
	}
	if e.m.cfg.Bug && a == 1 {
		y ^= 1
	}
	if a == 0 {
		h.Hit(macZeroA)
	}
	if b == 255 {
		h.Hit(macMaxB)
	}
	fieldtable.PutBits(out, 0, 16, y)
	fieldtable.PutBits(out, 16, 1, sat)
	return nil
}
