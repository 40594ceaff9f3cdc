package llvmir

import (
	"errors"
	"fmt"
	"strings"

	"github.com/llir/llvm/ir"

	"github.com/hpccgold/hpccgold/fieldtable"
	"github.com/hpccgold/hpccgold/fixedpoint"
	"github.com/hpccgold/hpccgold/rtl"
)

// ErrLower is wrapped by every error of this package about its input.
var ErrLower = errors.New("llvmir")

func errorf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrLower, fmt.Sprintf(format, args...))
}

// Target triple and data layout written into every module (LLVM 14's
// layout for x86_64-pc-linux-gnu, as clang -S -emit-llvm prints it). The
// struct-return padding rule (see package doc) is this target's.
const (
	TargetTriple = "x86_64-pc-linux-gnu"
	DataLayout   = "e-m:e-p270:32:32-p271:32:32-p272:64:64-i64:64-f80:128-n8:16:32:64-S128"
)

// Group selects the ports that form one struct argument of the plain C
// entry M(...): the ports of direction Output whose names start with
// Prefix, in port order. The C field name is the port name without Prefix.
type Group struct {
	Param  string // C parameter name ("st")
	Type   string // the struct type is <module>_<Type>_t; groups sharing a Type must have identical fields
	Prefix string // port-name prefix ("st_"); "" takes every remaining port of the direction
	Output bool   // an output (state out, outputs out) rather than an input group
	Doc    string // one line for the header
}

// FlowUpdateGroups returns the groups of the field-table naming convention
// of the per-flow update models (cc/hpcc's InputTable and OutputTable):
// state in (st_*), event in (in_*: the ACK's scalars and per-hop telemetry),
// state out (ns_*), outputs out (out_*). State in and out share one struct
// type, M_state_t.
func FlowUpdateGroups() []Group {
	return []Group{
		{Param: "st", Type: "state", Prefix: "st_", Doc: "flow state before the update (st_* ports)"},
		{Param: "ev", Type: "event", Prefix: "in_", Doc: "the event: ACK scalars and per-hop telemetry (in_* ports)"},
		{Param: "ns", Type: "state", Prefix: "ns_", Output: true, Doc: "flow state after the update (ns_* ports)"},
		{Param: "out", Type: "out", Prefix: "out_", Output: true, Doc: "outputs of the update (out_* ports)"},
	}
}

// defaultGroups is one input struct and one output struct.
func defaultGroups() []Group {
	return []Group{
		{Param: "in", Type: "in", Doc: "every input port"},
		{Param: "out", Type: "out", Output: true, Doc: "every output port"},
	}
}

// Options configures Lower.
type Options struct {
	// Groups splits the ports into the struct arguments of the C entry, in
	// parameter order (inputs first is conventional, not required). nil
	// means one struct of every input and one of every output.
	Groups []Group
	// GuardMin is the smallest mux arm cone, in operations that cost an
	// instruction, that is computed under a branch on the select instead
	// of always (see package doc). 0 means DefaultGuardMin; a negative
	// value lowers every mux to a select (straight-line code).
	GuardMin int
	// Fields gives the ports' formats: a port named like a field of one of
	// these tables (cc/hpcc's InputTable and OutputTable, say) takes the
	// field's Format ("u32.24") and, when the port has no doc, its Doc; the
	// header then carries the format and raw<->real conversions of each
	// fixed-point field. Other ports are raw integers, "u<W>" or "s<W>".
	Fields []fieldtable.Table
	// Enums are code tables the fields carry (the telemetry speed codes),
	// printed as a C enum in M.h and a SystemVerilog enum in M_dpi.svh.
	Enums []fieldtable.Enum
}

// Port is one module port as the emitted code sees it.
type Port struct {
	Name   string
	Width  int
	Signed bool
	Doc    string
	Output bool
	Offset int    // bit offset in the packed vector of its direction (LSB-first in port order)
	Slot   int    // index of its first i64 argument (inputs) or return field (outputs) of M_abi
	Group  int    // index into Model.Groups
	Field  string // C field name: Name without the group's prefix
	Format string // "u32.24", "uint", "bool" from Options.Fields; "" for a raw integer
}

// Fixed returns the port's fixed-point format, when it has one.
func (p Port) Fixed() (fixedpoint.Format, bool) {
	return fieldtable.Field{Width: p.Width, Format: p.Format}.Fixed()
}

// Slots returns the number of i64 argument or return slots of the port.
func (p Port) Slots() int { return (p.Width + 63) / 64 }

// Model is an rtl module lowered to LLVM IR, with the interface description
// the C, SystemVerilog and check-program generators print from.
type Model struct {
	Name     string      // module name: the C entry's name and the file-name stem
	Doc      string      // the module's doc line
	Params   []rtl.Param // the module's configuration lines, for file headers
	Inputs   []Port      // in port order
	Outputs  []Port      // in port order
	InBits   int         // packed input width
	OutBits  int         // packed output width
	InSlots  int         // i64 arguments of M_abi
	RetSlots int         // i64 fields of M_abi's return, padding included (see package doc)
	// PackedRetSlots is the number of i64 fields of M_packed's return:
	// the packed output's 64-bit words, padded like RetSlots.
	PackedRetSlots int
	Enums          []fieldtable.Enum // Options.Enums
	Groups         []Group           // the groups in use, in parameter order
	Ops            int               // rtl nodes lowered (live, non-input)
	Guards         int               // mux arms computed under a branch (see Options.GuardMin)
	IR             *ir.Module        // the LLVM module (target triple and data layout set)
}

// cKeywords are C99/C11 and C++ keywords a generated C identifier must
// avoid (SystemVerilog's are already excluded by rtl).
var cKeywords = func() map[string]bool {
	k := map[string]bool{}
	for _, w := range strings.Fields(`auto break case char const continue default do double else enum extern
		float for goto if inline int long register restrict return short signed sizeof static struct switch
		typedef union unsigned void volatile while _Bool _Complex _Imaginary _Alignas _Alignof _Atomic
		_Generic _Noreturn _Static_assert _Thread_local asm bool catch class const_cast delete dynamic_cast
		explicit export false friend mutable namespace new operator private protected public
		reinterpret_cast static_cast template this throw true try typeid typename using virtual wchar_t
		alignas alignof char16_t char32_t constexpr decltype noexcept nullptr static_assert thread_local
		and and_eq bitand bitor compl not not_eq or or_eq xor xor_eq`) {
		k[w] = true
	}
	return k
}()

func cIdent(s string) bool {
	if s == "" || cKeywords[s] {
		return false
	}
	for i, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// Lower flattens m and lowers it to LLVM IR. m must be combinational once
// flattened (no registers or RAMs): for a pipelined design, lower the
// combinational module it was pipelined from, the per-event update as a
// pure function. Every port must belong to exactly one group and give a C
// identifier as field name.
func Lower(m *rtl.Module, opts Options) (*Model, error) {
	if m == nil {
		return nil, errorf("nil module")
	}
	f, err := rtl.Flatten(m)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrLower, err)
	}
	if len(f.Regs) > 0 {
		return nil, errorf("module %s: register %s: only combinational modules can be lowered (lower the unpipelined update)", f.Name, f.Regs[0].Name)
	}
	if len(f.Mems) > 0 {
		return nil, errorf("module %s: RAM %s: only combinational modules can be lowered", f.Name, f.Mems[0].Name)
	}
	if !cIdent(f.Name) {
		return nil, errorf("module name %q: not usable as a C identifier", f.Name)
	}
	md := &Model{Name: f.Name, Doc: f.Doc, Params: append([]rtl.Param(nil), f.Params...)}
	groups := opts.Groups
	if groups == nil {
		groups = defaultGroups()
	}
	if err := md.layout(f, groups); err != nil {
		return nil, err
	}
	if err := md.formats(opts); err != nil {
		return nil, err
	}
	if err := md.lower(f, opts); err != nil {
		return nil, err
	}
	return md, nil
}

// layout assigns ports to groups, offsets and slots, and checks names.
func (md *Model) layout(f *rtl.Module, groups []Group) error {
	seen := map[string]bool{}
	for i, g := range groups {
		if !cIdent(g.Param) || seen[g.Param] {
			return errorf("group %d: Param=%q: must be a unique C identifier", i, g.Param)
		}
		seen[g.Param] = true
		if !cIdent(md.Name + "_" + g.Type + "_t") {
			return errorf("group %s: Type=%q: %s_%s_t is not a C identifier", g.Param, g.Type, md.Name, g.Type)
		}
	}
	used := make([]bool, len(groups))
	assign := func(name string, out bool) (int, string, error) {
		for i, g := range groups {
			if g.Output == out && strings.HasPrefix(name, g.Prefix) {
				field := strings.TrimPrefix(name, g.Prefix)
				if !cIdent(field) {
					return 0, "", errorf("port %s: field name %q in group %s is not a C identifier", name, field, g.Param)
				}
				used[i] = true
				return i, field, nil
			}
		}
		dir := "input"
		if out {
			dir = "output"
		}
		return 0, "", errorf("%s port %s: no %s group's prefix matches it", dir, name, dir)
	}
	if len(f.Inputs) == 0 {
		// A module without inputs is legal rtl but has nothing to feed; its
		// C entry would take no input struct. Refuse: it is a mistake here.
		return errorf("module %s: no input ports", f.Name)
	}
	for _, n := range f.Inputs {
		if !cIdent(n.Name) {
			return errorf("input port %s: not usable as a C identifier", n.Name)
		}
		g, field, err := assign(n.Name, false)
		if err != nil {
			return err
		}
		md.Inputs = append(md.Inputs, Port{Name: n.Name, Width: n.Width, Signed: n.Signed, Doc: n.Doc,
			Offset: md.InBits, Slot: md.InSlots, Group: g, Field: field})
		md.InBits += n.Width
		md.InSlots += (n.Width + 63) / 64
	}
	slots := 0
	for _, p := range f.Outputs {
		if !cIdent(p.Name) {
			return errorf("output port %s: not usable as a C identifier", p.Name)
		}
		g, field, err := assign(p.Name, true)
		if err != nil {
			return err
		}
		n := p.Node
		md.Outputs = append(md.Outputs, Port{Name: p.Name, Width: n.Width, Signed: n.Signed, Doc: p.Doc, Output: true,
			Offset: md.OutBits, Slot: slots, Group: g, Field: field})
		md.OutBits += n.Width
		slots += (n.Width + 63) / 64
	}
	md.RetSlots = slots
	if slots == 3 || slots == 4 {
		md.RetSlots = 5 // see package doc: keep the C and LLVM return conventions equal
		if f.Output("_pad") != nil {
			return errorf("output port _pad: the name of M_abi_ret_t's padding member")
		}
	}
	md.PackedRetSlots = (md.OutBits + 63) / 64
	if md.PackedRetSlots == 3 || md.PackedRetSlots == 4 {
		md.PackedRetSlots = 5
	}
	for i, g := range groups {
		if !used[i] {
			return errorf("group %s (prefix %q): matches no port", g.Param, g.Prefix)
		}
	}
	md.Groups = append([]Group(nil), groups...)
	// Groups sharing a struct type must have identical fields.
	for i, g := range groups {
		for j := 0; j < i; j++ {
			if groups[j].Type != g.Type {
				continue
			}
			a, b := md.groupPorts(j), md.groupPorts(i)
			if len(a) != len(b) {
				return errorf("groups %s and %s share type %s but have %d and %d fields", groups[j].Param, g.Param, g.Type, len(a), len(b))
			}
			for k := range a {
				if a[k].Field != b[k].Field || a[k].Width != b[k].Width || a[k].Signed != b[k].Signed {
					return errorf("groups %s and %s share type %s but differ at field %d: %s (%s) vs %s (%s)",
						groups[j].Param, g.Param, g.Type, k, a[k].Name, typeName(a[k]), b[k].Name, typeName(b[k]))
				}
			}
			break
		}
	}
	return nil
}

// formats takes each port's format from the field of the same name in
// opts.Fields (the field's width must be the port's) and keeps the enums.
func (md *Model) formats(opts Options) error {
	for _, e := range opts.Enums {
		if !cIdent(e.Name) || e.Width < 1 || e.Width > 64 {
			return errorf("enum %q (%d bits): want a C identifier of 1..64 bits", e.Name, e.Width)
		}
		for _, v := range e.Values {
			if !cIdent("X" + v.Name) {
				return errorf("enum %s: value %q: not usable in a C identifier", e.Name, v.Name)
			}
		}
	}
	md.Enums = append([]fieldtable.Enum(nil), opts.Enums...)
	set := func(ports []Port) error {
		for i := range ports {
			p := &ports[i]
			for _, t := range opts.Fields {
				k := t.Index(p.Name)
				if k < 0 {
					continue
				}
				f := t.Fields[k]
				if f.Width != p.Width {
					return errorf("port %s: %d bits, but field %s of %s has %d", p.Name, p.Width, f.Name, t.Name, f.Width)
				}
				p.Format = f.Format
				if p.Doc == "" {
					p.Doc = f.Doc
				}
				break
			}
		}
		return nil
	}
	if err := set(md.Inputs); err != nil {
		return err
	}
	return set(md.Outputs)
}

// typeName returns the port's format: its field's ("u32.24", "uint",
// "bool") or, without one, the raw integer "u<W>" / "s<W>".
func typeName(p Port) string {
	if p.Format != "" {
		return p.Format
	}
	if p.Signed {
		return fmt.Sprintf("s%d", p.Width)
	}
	return fmt.Sprintf("u%d", p.Width)
}

// groupPorts returns the ports of group g in port order.
func (md *Model) groupPorts(g int) []Port {
	ports := md.Inputs
	if md.Groups[g].Output {
		ports = md.Outputs
	}
	var out []Port
	for _, p := range ports {
		if p.Group == g {
			out = append(out, p)
		}
	}
	return out
}

// firstOfType reports whether group g is the first group with its Type (the
// one whose struct definition the header prints).
func (md *Model) firstOfType(g int) bool {
	for j := 0; j < g; j++ {
		if md.Groups[j].Type == md.Groups[g].Type {
			return false
		}
	}
	return true
}
