package rtl

// EvalOp computes combinational node n of a flattened module from its
// operand values args (one per n.Args, canonical patterns: zero above each
// operand's width): the semantics documented on each Op, the very function
// Sim uses, exported so that analyses which re-evaluate a node under changed
// operands (vectors/coverage's observability) share the simulator's single
// definition instead of restating it. n must not be a source (OpInput,
// OpReg, OpMemRead) or an OpInstOut; the result is canonical.
func EvalOp(n *Node, args []Bits) Bits { return evalOp(n, args) }

// EvalOp64 is EvalOp for a node whose operands and result are all at most
// 64 bits wide, on plain uint64 values a, b, c (Args[0..2], canonical; unused
// ones ignored): Sim's fast path. ok is false for an op it does not handle
// (then use EvalOp).
func EvalOp64(n *Node, a, b, c uint64) (r uint64, ok bool) { return evalOp64(n, a, b, c) }
