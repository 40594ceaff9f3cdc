package hpcc

// ThreadCPUNs is threadCPUNs for the external test package's benchmarks.
var ThreadCPUNs = threadCPUNs
