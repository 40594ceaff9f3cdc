//go:build !linux

package hpcc

import "testing"

// cpuPerOp is not available on this platform: benchmarks report wall time
// only.
func cpuPerOp(b *testing.B) func() { return func() {} }

// threadCPUNs is not available on this platform.
func threadCPUNs() int64 { return 0 }
