// Package guardvec is the vector model of the telemetry integrity guard
// (cc/intguard, module int_guard): directed classes at every check's
// boundary (a queue exactly at the buffer and one unit above, a txBytes
// delta exactly at B*(1+tol)*dts and one unit above, dts = 0, a negative
// delta at the edge of the back window, a replayed stack, timestamp and
// counter wraps, hop-count and identity changes, reserved and undeployed
// speed codes), constrained-random draws, and the evaluator that computes
// the expected outputs with cc/intguard. Registered in vectors/registry as
// "int_guard".
package guardvec
