package vectors

import (
	"runtime"
	"syscall"
	"time"
	"unsafe"
)

// threadCPU returns the CPU time consumed by the calling OS thread
// (clock_gettime CLOCK_THREAD_CPUTIME_ID). Benchmarks lock their goroutine
// to its thread and report CPU time per vector next to wall time, because
// the machine the figures come from is shared and wall time includes time
// spent waiting for a core.
func threadCPU() time.Duration {
	var ts syscall.Timespec
	const clockThreadCPUTime = 3
	if _, _, e := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0); e != 0 {
		return 0
	}
	return time.Duration(ts.Nano())
}

// lockThread pins the goroutine to its OS thread so threadCPU measures it.
func lockThread() func() {
	runtime.LockOSThread()
	return runtime.UnlockOSThread
}

// processCPU returns the CPU time (user and system) of the whole process
// (getrusage RUSAGE_SELF): every goroutine's thread and the kernel's work
// on its behalf, such as copying written bytes into the page cache.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
