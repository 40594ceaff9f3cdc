// Package simvec captures golden HPCC++ test vectors from closed-loop
// scenario runs: `hpccgold vectors gen --from-sim SCENARIO`. It runs a
// scenario of package scenario on the NIC model (package nicmodel inside
// nicmodel/network), observes every HPCC++ datapath update of every NIC
// through scenario.Options.OnHPCCUpdate (the flow state the update read,
// the ACK's or data packet's event, the state it wrote and its outputs,
// exactly the hpcc.Datapath InputTable / OutputTable layout), and hands them
// to a vectors.Capture, which writes them as a vector set in the formats of
// generated sets (stimulus.hex, expected.hex, vectors.jsonl, fields.vh,
// layout.json, manifest.json) plus capture.jsonl, each vector's origin.
//
// Order: transactions are ordered by cycle, then host, then role (sender
// before receiver), then QP, which is the order of the run's clock and does
// not depend on the order the engine ticks components; a limit keeps the
// first N in that order, so every flow's transactions in the set are a
// prefix of its chain of states. Same scenario, configuration, seed, limit
// and tool version give byte-identical files.
//
// The vectors always come from the golden fixed-point datapath: a scenario
// whose model is "float" is rejected (the float reference has no bit
// layout), and every captured output is re-checked against the golden
// datapath evaluated on the captured input (vectors.Capture.Set). The
// wrapping counters the NIC model keeps wider than the datapath's ports
// (seq and snd_nxt, SeqBits; the receiver's now, TimeBits) are reduced to
// their port width, as the datapath itself does before using them; that
// re-check confirms the reduction changes no output.
package simvec
