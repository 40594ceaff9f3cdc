package fixedpoint

import (
	"runtime"
	"syscall"
	"testing"
	"unsafe"
)

// threadCPUNs returns the CPU time in ns consumed by the calling OS thread
// (clock_gettime CLOCK_THREAD_CPUTIME_ID), 0 if the clock is unavailable.
func threadCPUNs() int64 {
	var ts syscall.Timespec
	const clockThreadCPUTime = 3
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return 0
	}
	return ts.Nano()
}

// cpuPerOp locks the benchmark's goroutine to its OS thread and returns the
// function that, called after the timed loop, reports the thread's CPU time
// per iteration as the metric cpu-ns/op. The machine the figures come from
// is shared, so wall ns/op includes time spent waiting for a core; CPU time
// of the benchmark's own thread does not.
func cpuPerOp(b *testing.B) func() {
	runtime.LockOSThread()
	t0 := threadCPUNs()
	return func() {
		t1 := threadCPUNs()
		runtime.UnlockOSThread()
		if t0 > 0 && b.N > 0 {
			b.ReportMetric(float64(t1-t0)/float64(b.N), "cpu-ns/op")
		}
	}
}
