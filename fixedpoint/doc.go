// Package fixedpoint is hpccgold's bit-accurate fixed-point arithmetic: the
// numeric semantics of every datapath signal, identical to SystemC's
// sc_fixed/sc_ufixed (IEEE 1666-2011 section 7.10) and Algorithmic C's
// ac_fixed, so an RTL engineer can read a format and know the bits.
//
// A Format is (W, I, Signed): W total bits (1..128), I integer bits (may be
// negative or exceed W), F = W-I fraction bits; notation "s16.8", "u12.-3".
// A Value is a Format plus a raw two's-complement integer r meaning r*2^-F;
// values are immutable and comparable with ==.
//
// Full-precision operations (Add, Sub, Mul, Neg, Abs) grow their result
// format as ac_fixed does and never round. Every narrowing goes through Cast
// (or the fused MulCast/AddCast/SubCast/Div, which quantize the exact result
// once) with an explicit Quantization (Trn, TrnZero, Rnd, RndZero, RndInf,
// RndMinInf, RndConv) and Overflow (Wrap, Sat, SatZero, SatSym) mode.
// Division comes in SystemC form (Div: exact quotient quantized once) and
// ac_fixed form (DivAC); Divider and Reciprocal model the hardware units a
// datapath really uses. WrapDiff and TimestampDiffNs difference wrapping
// hardware counters.
//
// Operations on formats up to 64 bits never allocate; wider operands take an
// exact math/big path that gives the same bits. A datapath stage with fixed
// formats and modes can resolve them once with NewCaster, NewMulCaster or
// NewAddCaster: the plan's methods give the same bits at a fraction of the
// cost, and return no error because the plan validated its formats and
// modes when it was built. A compiled datapath whose signals are unsigned
// raw registers uses the raw-integer plans (NewRawCaster, NewRawMulCaster,
// NewRawAddCaster, NewRawReciprocal): uint64 in and out, the same bits, and
// small enough to be inlined; fixedpoint is the only arithmetic engine of
// the golden datapaths. Library code never panics (except MustFormat on a
// bad literal); errors name the operand and value.
//
// No silent zero: every cast into an invalid format or with an undeclared
// mode is an error, never a plausible number. The zero Value has no format
// and is not a number: checked operations reject it, plans return it.
//
// The full specification, with the mode tables, worked examples, the
// divider and reciprocal error bounds and benchmark figures, is
// docs/fixedpoint.md.
package fixedpoint
