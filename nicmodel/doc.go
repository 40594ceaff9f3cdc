// Package nicmodel assembles the NIC of Figure 4 of the HPCC++ draft
// (section 7.2, "Congestion control at NICs") from the blocks of packages
// pipeline, scheduler and cc/hpcc into a cycle-stepped model on package
// engine:
//
//	port in --> MAC Rx --FIFO--> Rx pipeline --events--> HPCC++ module --updates/acks/doorbells--> scheduler
//	                                  |                      ^ posts (host)        ^ send log        |
//	                                  +--replies--> Tx <--PktSend-- PktSend register <--PktSend-------+
//	                                                 \--FIFO--> MAC Tx --> port out
//
// Both roles run in every NIC: ACKs and notifications arriving on a QP go
// to the HPCC++ module (sender role), data packets and probes to the Tx
// pipeline, which acknowledges them, answers probes and, with receiver-based
// HPCC (Rx-HPCC, section 6.2), sends notifications carrying W at most once
// per T (receiver role).
//
// The HPCC++ module holds the per-QP flow state table and runs the golden
// fixed-point datapath (hpcc.Datapath) or, for what-if runs, the float
// reference (hpcc.Reference). It takes at most one telemetry event per
// cycle with the timing of the RTL hpcc_module (package rtl/hpccrtl derives
// its latency, 1 + module.stages, and its same-flow spacing from the RTL
// hpcc_update's stage count), and is read-after-write exact: an event of a
// QP whose previous update has not written back waits (a counted hazard
// stall), so the results equal sequential evaluation whatever the latency.
// The module (module.go) is that timed component and the QP context; the
// HPCC++ algorithm sits behind hpccAlgorithm, one file per algorithm
// (hpcc.go: the sender's datapath per ACK; rxhpcc.go: Rx-HPCC at the
// receiver and the notified window applied at the sender), computed
// synchronously when the module issues an update and written back when it
// retires; New builds only the one cc names (cc=none has none).
//
// Units: time is engine.Cycle at Config.ClockHz; bytes are bytes; W and R
// on the scheduler port are raw registers in hpcc formats.w (bytes) and
// formats.rate (bytes per ns). Counters are 64-bit and wrap like hardware
// status registers; they count events, so they are identical with and
// without idle skipping.
//
// The port boundary for a network model: frames enter through NIC.In with
// their arrival cycle and leave through NIC.Out at their departure cycle,
// already serialized at the line rate by the NIC's MAC. Flows are opened
// with NIC.OpenFlow (a message of Bytes bytes on a QP); completions are
// recorded (NIC.Completed) and reported through Options.OnComplete.
//
// With cc=ldcp or cc=dcqcn a CC module takes the HPCC++ module's place
// (ccmodule.go): it owns each QP's send sequence and releases packets to the
// scheduler as LDCP's golden datapath (or float reference) or DCQCN's
// reaction point allows, with go-back-N on NAKs and timeouts. The
// algorithm sits behind a small interface named after the module's events
// (onStart, onSend, onAck, onTimeout, onTimer, onCNP, onSent, onDone), one
// file per algorithm (ldcp.go, dcqcn.go), and New builds only the one cc
// names; ccwiring.go connects the module and the port. A CC port
// (ccport.go) runs the receiver's go-back-N acceptance, NAKs and DCQCN's
// CNPs, takes CNPs off the port, and writes LDCP's per-packet ECN-capable
// decision into each data packet. docs/compare.md describes both. The NIC
// sees either family as one ccBlock (hpccwiring.go, ccwiring.go): its
// components, queues, counters and QP status.
//
// Traces (off by default, package trace): every frame at the ports as pcap
// and as a hex stream; the transactions between the blocks as vector files
// (fieldtable layouts, the conventions of package vectors); a VCD waveform
// of chosen signals (VCD, NIC.Watch). The blocks report at hook points
// (trace.Hooks) and know nothing of the recorder. See docs/nicmodel.md.
package nicmodel
