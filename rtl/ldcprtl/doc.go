// Package ldcprtl describes the LDCP sender's per-event update in package
// rtl's hardware description, from the same cc/ldcp Config as the golden
// model:
//
//   - ldcp_update: one event (start, send, ack, timeout; draft
//     draft-dai-tsvwg-pfc-free-congestion-control-01 sections 2.2, 2.3 and
//     3.1, docs/ldcp.md) applied to one flow-table entry. Ports are
//     generated from the golden datapath's field tables (InputTable:
//     st_* state before and ev_* event in; OutputTable: ns_* state after and
//     out_* outputs), constants from its Constants and the 1/cw ROM and
//     unit from its RecipUnit; pipelined into a configurable number of
//     register stages with initiation interval 1 (in_valid/out_valid).
//
// The description is written independently of the golden model's code
// (which stays hand-written with package fixedpoint, cc/ldcp): the four
// window candidates, the loss window, the send decision and the timer
// interval are computed in parallel and selected by the event kind, stage,
// regime and ECE, as hardware does. One 1/cw reciprocal unit serves both
// the additive-increase step (1/cw before the ACK) and the sub-packet timer
// (1/cw after the event): no event needs both. Tests check the rtl
// evaluator against the golden datapath on the golden vectors (package
// cc/ldcp/ldcpvec) and on directed sweeps; package verilog/cosim checks
// the printed Verilog under Verilator and Icarus.
package ldcprtl
