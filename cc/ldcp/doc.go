// Package ldcp implements the sender of LDCP, the PFC-Free Low Delay Control
// Protocol (IETF draft draft-dai-tsvwg-pfc-free-congestion-control-01,
// ../shared/seeds/001_...), twice, side by side with the same shape:
//
//   - Reference: a float64 model that reads like the draft: per-ACK window
//     adjustment (section 2.2, Eq. (1) and the delayed-ACK form Eq. (2)),
//     the sub-packet window ticked out by a timer RTT/cw (section 2.2, last
//     part), and zero-RTT bandwidth acquisition with its two transitions to
//     the stable stage and go-back-N (sections 2.3 and 3.1). It is the
//     oracle of the property tests.
//   - Datapath: the golden fixed-point model the RTL must match bit for bit.
//     cw is a Formats.Cw register in packets, 1/cw comes from a
//     fixedpoint.Reciprocal unit, every other operation is an exact add,
//     subtract, compare or a product rounded once; there is no floating
//     point and no free division on the per-event path.
//
// Both are pure: Update(state, event) returns the next state and what
// happened, reading nothing but its arguments (the event carries now). The
// per-flow state machine has four events: Start (a message of MsgPkts
// packets begins at PSN Seq), Send (may packet snd_nxt leave now, and with
// which ECN codepoint), Ack (a cumulative ACK or go-back-N NAK with its ECE
// bit) and Timeout (the NIC's retransmission timer fired). Window only —
// the per-ACK cw arithmetic on its own — is exported for users that keep
// sequence state elsewhere.
//
// Both models are built from one Config (Validate runs a range analysis
// that proves every signal fits its format or saturates by design). The
// field tables (InputTable, OutputTable) are the bit layout of one update
// for vector files and RTL ports; package ldcp/ldcpvec plugs the datapath
// into package vectors.
//
// Units: cw, alpha, beta and gamma in packets; PSNs are SeqBits-wide
// wrapping packet sequence numbers (RoCEv2 BTH PSN: 24 bits); time in ns,
// TimeBits wide, wrapping. The switch side of LDCP (WRED/ECN marking of
// ECN-capable packets, WRED dropping of ECN-incapable ones) and the receiver
// (per-packet ACKs echoing CE) belong to the network model; see
// docs/ldcp.md for the state machine, formats, signal table, error bounds
// and every decision where the draft is silent.
package ldcp
