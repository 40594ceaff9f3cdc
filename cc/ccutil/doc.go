// Package ccutil holds the mechanism shared by the congestion-control
// datapaths of packages cc/hpcc and cc/ldcp: the transaction that packs one
// update's Go values into the little-endian words of a fieldtable.Table and
// back (the layout of the vector files and of the RTL ports), and the
// range-analysis verdicts and report rows with which each Config proves that
// every datapath signal fits its fixedpoint format.
//
// It knows nothing of either algorithm: the packages supply their own state,
// event and output types and field bindings, and the error prefix (their
// package name) that keeps their messages unchanged.
package ccutil
