// Package wire holds the byte-exact wire formats of the hpccgold NIC: views
// of Ethernet II, IPv4, UDP, InfiniBand BTH and AETH headers (RoCEv2), the
// hpccgold INT shim that carries HPCC++ per-hop telemetry, builders for the
// five packet kinds the NIC sends (data with a telemetry request, ACKs
// echoing telemetry, Rx-HPCC notifications carrying W, probes, probe
// replies), a Decode that classifies any byte slice without panicking, and
// the switch-side edits (push a hop record, mark ECN CE) that keep every
// checksum and the RoCEv2 ICRC correct.
//
// Conventions (gvisor netstack pkg/tcpip/header style): a header is a []byte
// view with offset constants; accessors read big-endian fields in place and
// assume the caller checked the length (Decode does, before it builds a
// view); builders append to a caller-supplied slice and allocate only when
// it lacks capacity. Lengths are bytes; sequence numbers are 24-bit wrapping
// [PSN] values with serial-number comparison.
//
// The layout and every choice the standards leave open (where the INT stack
// sits, the T bit, the shim fields, probe opcodes, the ICRC treatment) are
// specified in docs/wire.md; the telemetry records inside the hop stack are
// package telemetry's byte-exact encodings.
package wire
