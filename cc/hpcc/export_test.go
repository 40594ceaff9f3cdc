package hpcc

// ThreadCPUNs is threadCPUNs for the external test package's benchmarks.
var ThreadCPUNs = threadCPUNs

// BenchTrace, RunBatch and CPUPerOp let the external test package's
// benchmarks (the generated models of gogen/hpccgo) run on the events and
// loops of this package's benchmarks.
var (
	BenchTrace = benchTrace
	RunBatch   = runBatch
	CPUPerOp   = cpuPerOp
)

// Unpruned returns a copy of d that computes every hop's u' (the max
// select without the bounds of prune.go), and whether d prunes at all.
func Unpruned(d *Datapath) (*Datapath, bool) {
	u := *d
	u.fast.hb.on = false
	return &u, d.fast.hb.on
}
