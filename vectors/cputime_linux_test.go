package vectors

import (
	"runtime"
	"syscall"
	"time"
)

// threadCPU returns the CPU time consumed by the calling OS thread
// (getrusage RUSAGE_THREAD). Benchmarks lock their goroutine to its thread
// and report CPU time per vector next to wall time, because the machine
// the figures come from is shared and wall time includes time spent
// waiting for a core.
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// lockThread pins the goroutine to its OS thread so threadCPU measures it.
func lockThread() func() {
	runtime.LockOSThread()
	return runtime.UnlockOSThread
}
