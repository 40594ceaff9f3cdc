package hpcc

import (
	"fmt"
	"github.com/hpccgold/hpccgold/telemetry"
	"runtime"
	"syscall"
	"testing"
	"time"
)

func cpuNow() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_THREAD, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
func TestZCPU(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for _, nh := range []int{1, 5} {
		for _, e := range telemetry.Encodings() {
			c := DefaultConfigFor(e)
			d := mustDP(t, c)
			r := mustRef(t, c)
			ins := benchTrace(t, e, nh, 1024)
			st, _ := d.Update(d.InitialState(), ins[0])
			rs, _ := r.Update(r.InitialState(), ins[0])
			const N = 2000000
			best, bestF, bestS := time.Hour, time.Hour, time.Hour
			for rep := 0; rep < 5; rep++ {
				t0 := cpuNow()
				for i := 0; i < N; i++ {
					st, _ = d.Update(st, ins[i&1023])
				}
				best = min(best, (cpuNow()-t0)/N)
				t0 = cpuNow()
				for i := 0; i < N; i++ {
					rs, _ = r.Update(rs, ins[i&1023])
				}
				bestF = min(bestF, (cpuNow()-t0)/N)
				t0 = cpuNow()
				for i := 0; i < N/20; i++ {
					st, _ = d.UpdateSpec(st, ins[i&1023])
				}
				bestS = min(bestS, (cpuNow()-t0)/(N/20))
			}
			fmt.Printf("%s %d hops: fixed %v float %v spec %v\n", e, nh, best, bestF, bestS)
		}
	}
}
