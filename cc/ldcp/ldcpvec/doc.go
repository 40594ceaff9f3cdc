// Package ldcpvec plugs the LDCP golden datapath (package cc/ldcp) into the
// golden-vector machinery of package vectors: Model implements
// vectors.Model for the ldcp_update transaction (the flow state before and
// one event in, the state after and the outputs out), with directed corner
// classes detected from the datapath's own signals, constrained-random
// stimulus and coverage points.
//
// It is a separate package so that cc/ldcp itself does not depend on
// vectors. Generate with vectors.Generate(m, opts) or
// vectors.GenerateDir(dir, m, opts); verify a directory of any model with
// registry.Verify(dir) (package vectors/registry, which lists this model
// beside HPCC++'s).
package ldcpvec
