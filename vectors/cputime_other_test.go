//go:build !linux

package vectors

import "time"

// threadCPU is not available on this platform: benchmarks report wall time only.
func threadCPU() time.Duration { return 0 }

func lockThread() func() { return func() {} }

// processCPU is not available on this platform.
func processCPU() time.Duration { return 0 }
