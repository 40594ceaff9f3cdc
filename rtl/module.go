package rtl

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/hpccgold/hpccgold/fieldtable"
)

// Op is the operation a Node performs. Every operation has one result whose
// width and signedness are the node's; the operand rules below are checked
// when the node is built, so printers can map each op 1:1 to a Verilog
// expression or an LLVM instruction on iN without width surprises.
type Op uint8

// The operations. "W" is the node's width, "a", "b" are Args[0], Args[1].
const (
	OpInput   Op = iota + 1 // module input port (a source); Name is the port name
	OpConst                 // the constant Value (a source)
	OpAdd                   // a + b mod 2^W; a.W == b.W == W, same signedness
	OpSub                   // a - b mod 2^W; a.W == b.W == W, same signedness
	OpMul                   // exact product a*b; W == a.W + b.W; a, b and the result share one signedness
	OpAnd                   // a & b; same widths
	OpOr                    // a | b; same widths
	OpXor                   // a ^ b; same widths
	OpNot                   // ^a; same width
	OpShlC                  // a << K, K in [0,W], zeros shifted in
	OpLShrC                 // a >> K, K in [0,W], zeros shifted in
	OpAShrC                 // a >>> K, K in [0,W], copies of a's top bit shifted in whatever its signedness
	OpShl                   // a << b, b unsigned; b >= W gives 0
	OpLShr                  // a >> b, b unsigned; b >= W gives 0
	OpAShr                  // a >>> b, b unsigned, top bit replicated (as LLVM ashr); b >= W gives W copies of it
	OpEq                    // a == b; 1-bit unsigned result; a, b same width and signedness
	OpNe                    // a != b
	OpLt                    // a < b, signed compare when a and b are signed
	OpLe                    // a <= b
	OpGt                    // a > b
	OpGe                    // a >= b
	OpMux                   // a ? b : c; a is 1 bit, b and c have the node's width and signedness
	OpSlice                 // a[K+W-1 : K], result unsigned
	OpConcat                // {Args[0], Args[1], ...}, Args[0] most significant; result unsigned
	OpZExt                  // a zero-extended to W >= a.W; result unsigned
	OpSExt                  // a sign-extended to W >= a.W; result signed
	OpAs                    // a's bits unchanged, read with the node's signedness (a wire)
	OpROM                   // ROM[a], a unsigned; addresses >= len(ROM) read 0; combinational
	OpReg                   // register (a source): next = rst&&HasReset ? Value : (En==nil||En ? D : q)
	OpMemRead               // registered read port of Mem (a source): next = En ? Mem[a] (before this edge's write) : q
	OpInstOut               // output K of instance Inst (combinational function of Inst.Args and Inst's state)
)

var opNames = [...]string{
	OpInput: "input", OpConst: "const", OpAdd: "add", OpSub: "sub", OpMul: "mul",
	OpAnd: "and", OpOr: "or", OpXor: "xor", OpNot: "not",
	OpShlC: "shlc", OpLShrC: "lshrc", OpAShrC: "ashrc", OpShl: "shl", OpLShr: "lshr", OpAShr: "ashr",
	OpEq: "eq", OpNe: "ne", OpLt: "lt", OpLe: "le", OpGt: "gt", OpGe: "ge",
	OpMux: "mux", OpSlice: "slice", OpConcat: "concat", OpZExt: "zext", OpSExt: "sext", OpAs: "as",
	OpROM: "rom", OpReg: "reg", OpMemRead: "memread", OpInstOut: "instout",
}

// String returns the op's lower-case name ("add", "mux", ...).
func (o Op) String() string {
	if int(o) < len(opNames) && opNames[o] != "" {
		return opNames[o]
	}
	return "op(" + strconv.Itoa(int(o)) + ")"
}

// IsSource reports whether the op's value does not depend combinationally on
// its Args within the current cycle (inputs, constants, registers, RAM read
// ports). Every other op is a pure combinational function of its Args.
func (o Op) IsSource() bool {
	return o == OpInput || o == OpConst || o == OpReg || o == OpMemRead
}

// IsCompare reports whether o is one of OpEq..OpGe.
func (o Op) IsCompare() bool { return o >= OpEq && o <= OpGe }

// Node is one signal of a Module: the single result of one operation. Nodes
// are created only by Module's builder methods; treat every field as
// read-only. Node IDs follow creation order, which is a topological order of
// the combinational graph (an op's Args are created before it; registers and
// RAM read ports, whose inputs are connected later, are sources).
type Node struct {
	ID     int    // index in Module.Nodes
	Name   string // unique identifier within the module (Verilog- and LLVM-safe)
	Op     Op
	Width  int  // bits, 1..MaxWidth
	Signed bool // how the bits read: two's complement when true
	Args   []*Node
	K      int    // OpShlC/OpLShrC/OpAShrC: shift amount; OpSlice: low bit; OpInstOut: output index
	Value  Bits   // OpConst: the constant; OpReg: the reset value
	ROM    []Bits // OpROM: contents, entry i at address i
	// OpReg only.
	HasReset bool  // the register loads Value while rst is high
	D, En    *Node // next-state input and optional enable (nil: always enabled); set by SetNext
	Mem      *Mem  // OpMemRead only
	Inst     *Inst // OpInstOut only
	Doc      string
	named    bool
	owner    *Module
}

// Mem is a synchronous single-write-port RAM of 2^AddrWidth words of Width
// bits, written on the clock edge when WE is high. Read ports (OpMemRead
// nodes) are registered: the data of a read issued in cycle n is visible in
// cycle n+1 and is the contents before any write at the same edge
// (read-first). Contents are not reset.
type Mem struct {
	Name      string
	Width     int
	AddrWidth int
	WE        *Node // 1 bit
	WAddr     *Node // AddrWidth bits, unsigned
	WData     *Node // Width bits
	Reads     []*Node
	Doc       string
}

// Depth returns the number of words, 2^AddrWidth.
func (m *Mem) Depth() int { return 1 << m.AddrWidth }

// Inst is an instance of another Module inside this one.
type Inst struct {
	Name string
	Mod  *Module
	Args []*Node // one per Mod.Inputs, in that order
	Outs []*Node // OpInstOut nodes, one per Mod.Outputs, in that order
}

// Port is a named module output driven by a node.
type Port struct {
	Name string
	Node *Node
	Doc  string
}

// Param is one line of configuration a module records for generated-file
// headers (e.g. {"Stages", "3"}).
type Param struct{ Key, Value string }

// Module is a hardware description: typed nodes, ports, registers, RAMs and
// instances, with one implicit clock (clk, rising edge) and one implicit
// synchronous active-high reset (rst) when it holds any register or RAM.
//
// Builder methods never panic: the first misuse is recorded and returned by
// Err (later calls return a placeholder node so construction code can carry
// on and check once at the end).
type Module struct {
	Name    string
	Doc     string
	Params  []Param
	Nodes   []*Node
	Inputs  []*Node // OpInput nodes in declaration order
	Outputs []Port
	Regs    []*Node // OpReg nodes in creation order
	Mems    []*Mem
	Insts   []*Inst

	names map[string]bool
	ports map[string]bool
	err   error
}

// NewModule returns an empty module. name must be an identifier.
func NewModule(name, doc string) *Module {
	m := &Module{Name: name, Doc: doc, names: map[string]bool{}, ports: map[string]bool{}}
	if !fieldtable.IsIdent(name) || reserved[name] {
		m.fail("module name %q: must be a non-reserved identifier", name)
	}
	for _, r := range []string{"clk", "rst"} {
		m.names[r] = true
	}
	return m
}

// Err returns the first construction error, or nil.
func (m *Module) Err() error { return m.err }

// ErrBuild is wrapped by every construction error.
var ErrBuild = errors.New("rtl")

func (m *Module) fail(format string, args ...any) {
	if m.err == nil {
		m.err = fmt.Errorf("%w: module %s: %s", ErrBuild, m.Name, fmt.Sprintf(format, args...))
	}
}

// Clocked reports whether the module (or any instance inside it) holds state
// and so has clk and rst ports.
func (m *Module) Clocked() bool {
	if len(m.Regs) > 0 || len(m.Mems) > 0 {
		return true
	}
	for _, in := range m.Insts {
		if in.Mod.Clocked() {
			return true
		}
	}
	return false
}

// Output returns the output port with the given name, or nil.
func (m *Module) Output(name string) *Node {
	for _, p := range m.Outputs {
		if p.Name == name {
			return p.Node
		}
	}
	return nil
}

// Input returns the input port with the given name, or nil.
func (m *Module) Input(name string) *Node {
	for _, n := range m.Inputs {
		if n.Name == name {
			return n
		}
	}
	return nil
}

// AddParam appends a configuration line for generated-file headers.
func (m *Module) AddParam(key, value string) { m.Params = append(m.Params, Param{key, value}) }

// reserved holds Verilog-2005 and SystemVerilog keywords (Verilator parses
// .v files as SystemVerilog) that generated names must avoid.
var reserved = func() map[string]bool {
	r := map[string]bool{}
	for _, k := range []string{
		"always", "and", "assign", "begin", "buf", "case", "casex", "casez", "cmos", "deassign", "default",
		"defparam", "disable", "edge", "else", "end", "endcase", "endfunction", "endmodule", "endprimitive",
		"endspecify", "endtable", "endtask", "event", "for", "force", "forever", "fork", "function", "generate",
		"genvar", "highz0", "highz1", "if", "initial", "inout", "input", "integer", "join", "large", "localparam",
		"macromodule", "medium", "module", "nand", "negedge", "nmos", "nor", "not", "notif0", "notif1", "or",
		"output", "parameter", "pmos", "posedge", "primitive", "pull0", "pull1", "pulldown", "pullup", "rcmos",
		"real", "realtime", "reg", "release", "repeat", "rnmos", "rpmos", "rtran", "rtranif0", "rtranif1",
		"scalared", "signed", "small", "specify", "specparam", "strong0", "strong1", "supply0", "supply1",
		"table", "task", "time", "tran", "tranif0", "tranif1", "tri", "tri0", "tri1", "triand", "trior",
		"trireg", "unsigned", "vectored", "wait", "wand", "weak0", "weak1", "while", "wire", "wor", "xnor",
		"xor", "automatic", "cell", "config", "design", "endconfig", "endgenerate", "incdir", "include",
		"instance", "liblist", "library", "noshowcancelled", "pulsestyle_ondetect", "pulsestyle_onevent",
		"showcancelled", "use", "bit", "byte", "int", "integer", "logic", "longint", "shortint", "string",
		"type", "var", "void", "final", "ref", "const", "static", "struct", "union", "enum", "typedef",
		"class", "package", "import", "export", "interface", "modport", "program", "property", "sequence",
		"assert", "assume", "cover", "bind", "chandle", "context", "do", "break", "continue", "return",
		"unique", "priority", "inside", "with", "new", "null", "this", "super", "local", "protected",
		"virtual", "extern", "pure", "rand", "randc", "solve", "before", "dist", "wildcard", "iff", "alias",
		"always_comb", "always_ff", "always_latch", "timeprecision", "timeunit", "default_nettype",
	} {
		r[k] = true
	}
	return r
}()

// claim reserves a unique name derived from hint (hint itself when free,
// else hint_<id>).
func (m *Module) claim(hint string, id int) string {
	if !fieldtable.IsIdent(hint) || reserved[hint] || m.names[hint] {
		if !fieldtable.IsIdent(hint) {
			hint = "n"
		}
		hint = hint + "_" + strconv.Itoa(id)
		for m.names[hint] {
			hint += "_"
		}
	}
	m.names[hint] = true
	return hint
}

// Named gives the node a readable name (made unique within its module) and
// returns it, for chaining: m.Add(a, b).Named("sum"). Ports keep their names.
func (n *Node) Named(name string) *Node {
	if n == nil || n.Op == OpInput || n.named {
		return n
	}
	if m := n.module(); m != nil {
		delete(m.names, n.Name)
		n.Name = m.claim(name, n.ID)
		n.named = true
	}
	return n
}

// WithDoc attaches a one-line comment printed next to the node and returns it.
func (n *Node) WithDoc(doc string) *Node {
	if n != nil {
		n.Doc = doc
	}
	return n
}

func (n *Node) module() *Module { return n.owner }
