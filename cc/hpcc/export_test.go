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
