package fixedpoint

// mustV returns v and panics with err when err is not nil: for test calls
// whose formats and modes are valid by construction, where an error is a
// bug the test must report loudly rather than compare as a zero Value.
func mustV(v Value, err error) Value {
	if err != nil {
		panic(err)
	}
	return v
}

// rawOf returns v's raw integer and panics when it does not fit an int64:
// the tests that use it hold values of at most 64 bits.
func rawOf(v Value) int64 {
	r, ok := v.Raw()
	if !ok {
		panic("rawOf: " + v.Notation() + " does not fit int64")
	}
	return r
}

// opResult is one operation's result, for tables of results.
type opResult struct {
	op  string
	v   Value
	err error
}

// result returns a function that records a (Value, error) result of op.
func result(op string) func(Value, error) opResult {
	return func(v Value, err error) opResult { return opResult{op, v, err} }
}
