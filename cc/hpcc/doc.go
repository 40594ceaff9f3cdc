// Package hpcc implements HPCC++ congestion control (the IETF draft
// draft-miao-tsv-hpcc, ../shared/seeds/000_..., section 4.2 lines 1-27 and
// section 6.2 lines 28-34) twice, side by side with the same shape:
//
//   - Reference: a float64 model that reads like the draft's pseudo-code
//     (MeasureInflight, ComputeWind, NewAck / Rx-HPCC's NewINT), plus the
//     MultiQ variant of the HPCC++ slides and the dynamic W_ai. It is the
//     oracle of the property tests.
//   - Datapath: the golden fixed-point model the RTL must match bit for bit.
//     Every signal has a width, a fixedpoint format, a rounding and an
//     overflow mode; the hop loop is a fixed unrolled structure of MaxHops
//     slots; divisions go through fixedpoint reciprocal units and per-speed
//     tables; no floating point is used on the per-event path. With
//     MultiQ.Enabled it computes the slides' per-class U (multiq.go).
//
// Both are built from one Config (Validate runs a range analysis that proves
// every signal fits or saturates by design). Both take the same Input: the
// event's scalars and the per-hop telemetry as carried on the wire
// (package telemetry, IFA or Compact encoding).
//
// Units: bytes for windows and queue lengths, ns for time, bytes per ns for
// rates (x8 = Gbps), U dimensionless. Edge cases the drafts leave open
// (first ACK, path change, dts = 0, stale samples, wraps, window bounds) are
// decided in one place for both models; see docs/datapath.md.
//
// For the vectors and RTL engineers: InputTable/OutputTable with
// PackInput/UnpackInput/PackOutput/UnpackOutput define the transaction bit
// layout; Tables, RecipUnits and Constants give every ROM and constant;
// Signals gives the signal table.
package hpcc
