// Package explore is design-space exploration of the HPCC++ datapath for
// architects: a sweep spec (Spec: parameters of cc/hpcc Config and the
// pipeline depth, their values or ranges, scenarios) expands into points
// (Spec.Expand); each point is measured (Evaluator) for area and timing
// proxies of hpcc_update (Yosys cells, flip-flops, longest path in cells;
// the pipeliner's register bits), its arithmetic error against the float
// reference (the range analysis' per-step bound on W and the largest
// per-step W error measured on the scenario runs' updates), and its
// network behaviour (scenario runs with the fixed model at that
// precision: peak queue, drain time, utilization, FCT slowdown p50/p99,
// Jain fairness, each as a relative deviation from the float reference).
//
// Results (Report) are deterministic: the same spec gives byte-identical
// files (CSV, JSON, the Pareto front as a table and plots, each metric
// against each parameter). A sweep splits into shards (Shard) whose
// outputs Merge combines into exactly the single run's result. Package
// explore/plan writes the batch jobs (Kubernetes Indexed Job, Slurm array)
// that run the shards. Units: bytes, ns, relative errors as fractions.
package explore
