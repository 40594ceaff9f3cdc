// Package pipeline holds the Rx and Tx pipelines of the hpccgold NIC
// (HPCC++ draft section 7.2, Figure 4) as cycle-stepped components of
// package engine, over the wire formats of package pipeline/wire.
//
// # Blocks and queues
//
//	network --Frame--> Rx --Event--> HPCC++ module (sender role)
//	                    \--Reply--> Tx (receiver role: ACK, probe reply, notification)
//	scheduler --PktSend--> Tx --Frame--> network
//
// The Rx pipeline parses each arriving frame (wire.Decode), classifies it,
// and on the sender side hands a telemetry response event per flow ([Event]:
// flow id = the BTH destination QPN, PSN, echoed hop records or W) to the
// HPCC++ module's input FIFO; on the receiver side it passes the telemetry
// of data and probe packets to the Tx pipeline ([Reply]). With receiver-based
// HPCC (section 6.2, lines 28-34) the Rx pipeline calls an [RxCC]
// implementation, which decides when a notification carrying W goes out.
// The Tx pipeline builds packets for [PktSend] commands from the scheduler
// (adding the telemetry-request indication of section 7.2), echoes telemetry
// in ACKs (per packet or delayed, every m packets, with a timer), answers
// probes, and sends Rx-HPCC notifications.
//
// # Timing
//
// Time is engine.Cycle. Each pipeline is two stages, each with a latency in
// cycles (>= 1) and a depth (entries it can hold, >= 1); a stage accepts at
// most one entry per cycle, so with depth >= latency a pipeline sustains one
// packet per cycle. An entry entering a stage in cycle n can leave it in
// cycle n+latency. Stages are walked last to first within a Tick, so an entry
// advances at most one stage per cycle and a slot freed in cycle n can be
// refilled in cycle n (a stall signal propagating back within the cycle, as
// in a hardware pipeline with registered valid bits and combinational
// ready). Between components, queues are engine FIFOs (two-phase: visible in
// the next cycle). When a stage or an output FIFO is full, the configured
// [Policy] applies: BackPressure stalls (the entry waits, the upstream queue
// fills), Drop discards the entry and counts it by [DropReason]. Every drop
// and every first stall of an entry is counted, in counters that wrap at
// 2^64 like hardware status registers.
//
// # Flows
//
// A flow is identified by its local QP number (wire.QPN), which indexes a
// [FlowTable] (the QP context: path, remote QPN, partition key). Data sent on
// flow q carries the flow's remote QPN; ACKs, notifications and probe
// replies come back with DestQP = q, which is how the Rx pipeline finds the
// flow ("Flow can be defined by ... destination QP", section 7.2).
package pipeline
