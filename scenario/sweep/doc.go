// Package sweep runs a parameter sweep of one network scenario: a spec
// (a built-in scenario, a base overlay, and a grid of configuration keys
// with their values) expands into points, one scenario configuration each;
// the points run independently (scenario.RunParallel) and the sweep
// writes, per point, the run's data files (scenario.Result.DataFiles) under
// points/NNNN/, and a table of every point's parameters and headline
// metrics (points.csv, points.txt).
//
// A sweep splits into shards (a contiguous slice of the points each, as
// vectors.Shard.Range cuts them) that run as separate processes on
// separate machines; Merge combines the shards' records, and the caller
// copies their point files, into exactly the single run's output, byte
// for byte. Outputs are deterministic: the same spec and build give the
// same bytes whatever the worker count or the sharding.
//
// Point order: the grid's first key varies slowest, its last fastest;
// point k's directory is points/%04d.
package sweep
