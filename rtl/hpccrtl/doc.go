// Package hpccrtl describes the HPCC++ datapath in package rtl's hardware
// description, from the same cc/hpcc Config as the golden model:
//
//   - hpcc_update: the per-event update (draft-miao-tsv-hpcc section 4.2
//     lines 1-27; receiver variant section 6.2), ports generated from the
//     golden datapath's field tables (InputTable/OutputTable: st_*/in_* in,
//     ns_*/out_* out), ROM contents and constants from its Tables,
//     RecipUnits and Constants, pipelined into a configurable number of
//     stages with initiation interval 1 (in_valid/out_valid).
//   - hpcc_module: the HPCC++ module of the draft's Figure 4 (section 7.2):
//     a valid/ready telemetry-event input, the per-flow state RAM,
//     read-modify-write through hpcc_update with read-after-write
//     forwarding and a documented stall, and the window/rate update outputs
//     to the scheduler.
//
// The description is written independently of the golden model's code
// (which stays hand-written with package fixedpoint); tests check the rtl
// evaluator against the golden datapath on the golden vectors, and the
// printed Verilog against both under Verilator and Icarus.
package hpccrtl
