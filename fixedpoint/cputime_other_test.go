//go:build !linux

package fixedpoint

import "testing"

// cpuPerOp is not available on this platform: benchmarks report wall time
// only.
func cpuPerOp(b *testing.B) func() { return func() {} }
