// Package telemetry holds the per-hop inband telemetry (INT) record that a
// switch stamps into a packet and that HPCC++ consumes, exactly as it is
// carried on the wire, in the two encodings hpccgold supports:
//
//   - IFA: the per-hop IFA metadata of the HPCC++ slides
//     (../shared/seeds/002_..., "IFA meta data format for HPCC++"): 32 bytes
//     per hop with a speed code, the ingress timestamp as seconds
//     (rxTimestampSec, 20 bits) plus nanoseconds (rxTimeStampNs, wrapping at
//     10^9), the residence time in ns, a 32-bit wrapping txBytes counter and a
//     24-bit queue length.
//   - Compact: the 8-byte-per-hop INT of the HPCC paper (SIGCOMM 2019, the
//     authors' ns-3 IntHop): 3-bit speed code, 24-bit ns timestamp, 20-bit
//     txBytes in 128-byte units, 17-bit queue length in 80-byte units.
//
// A Hop holds the raw wire fields (integers exactly as transmitted). The
// package provides byte-exact AppendHop/ParseHop for one hop and
// AppendStack/ParseStack for a stack of hops, the speed-code tables
// (code -> Gbps), the field widths and units of each encoding, and exact
// integer conversions to and from physical units (bytes, ns) used by the
// float reference of cc/hpcc and by the network model.
//
// Conventions. All multi-byte wire fields are big-endian (network order).
// Timestamps are in nanoseconds, byte counts in bytes, speeds in Gbps
// (10^9 bit/s). Hop slices in Go are always in path order: index 0 is the
// first switch after the sender. The egress timestamp of an IFA hop is
// ts = rx + residenceTime (see EgressTime): HPCC++ (draft section 6.1)
// requires txBytes, qlen and ts to be one snapshot at the egress port, and the
// IFA metadata carries the ingress time plus the residence time, so their sum
// is the egress time at which txBytes and the queue length were sampled.
//
// The package never panics on bad input: every parse and conversion returns
// an error naming the field and value.
package telemetry
