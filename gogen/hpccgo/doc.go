// Package hpccgo holds the generated Go models of hpcc_update: for each
// configuration of a fixed list (Models), one straight-line function that
// package gogen printed from the rtl description (rtl/hpccrtl.UpdateComb,
// flattened), with its ports bound to cc/hpcc's State, Input and Output.
// Every width, constant and ROM is fixed in the source, so an update is
// plain integer code with no lookups, no run-time formats and no error
// paths. It runs the hardware's arithmetic op for op: for 5 valid hops about
// the golden model's time, slower on shorter paths (docs/datapath.md §9).
//
// The oracle is cc/hpcc's Datapath.Update (pinned by its TestUpdateDigest):
// TestMatchesGolden requires every model to give the same next state and
// outputs, bit for bit, on the level-1 directed vectors and 100,000
// constrained-random vectors of its configuration; TestGeneratedSourceIsCurrent
// requires the checked-in files to be exactly what the generator prints
// today (regenerate with go generate after a change to the rtl description,
// cc/hpcc's Config or gogen).
//
// For a configuration not in the list, For reports false and the caller
// keeps hpcc.Datapath.
package hpccgo

//go:generate go run ./internal/gen
