package explore

import (
	_ "embed"
)

//go:embed example.json
var exampleSpec []byte

// ExampleSpecJSON returns the built-in example sweep (explore
// --example; docs/explore.md shows its results): the width of U
// (u8.8 .. u32.8) against 0 or 1 Newton-Raphson steps of the 1/U unit,
// on a reduced hpcc_update (Compact telemetry, one hop slot, one pipeline
// stage) and the demo-incast-4to1 scenario.
func ExampleSpecJSON() []byte { return append([]byte(nil), exampleSpec...) }
