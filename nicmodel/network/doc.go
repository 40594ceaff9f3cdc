// Package network is the network around the NIC of package nicmodel:
// links with a line rate and a propagation delay, output-queued
// store-and-forward switches that stamp HPCC++ telemetry at egress, hosts
// with one NIC each, the standard topologies (star and N-to-1 incast,
// dumbbell, two-tier leaf-spine with ECMP by flow hash) and workloads
// (explicit and long flows, flows that come and go, incast bursts, random
// load with flow sizes from a CDF file).
//
// # Time
//
// Everything runs on the NIC's engine (package engine) at its clock. The
// network keeps instants in femtoseconds, so serialization at any standard
// rate is exact, and delivers each frame into its next node's
// engine.TimedQueue at the cycle that contains the instant its last bit
// arrives. Nothing in the network runs per cycle: a switch is ticked only
// in cycles in which a frame joins one of its queues or a busy port can
// start its next frame, and a host uplink only in its NIC's departure
// cycles. Idle time and frames in flight cost nothing.
//
// # Switches
//
// One FIFO queue per egress port with a per-port byte limit and an
// optional shared limit (tail drop, counted), instant-queue WRED/ECN
// marking at enqueue with a seeded deterministic generator (LDCP draft
// section 2.1, used by package cc/ldcp), and, at the instant a frame
// starts serialization, one telemetry snapshot (ts, txBytes, qlen, B,
// switch and port id) pushed into the frame with wire.PushHop in the
// configured encoding (HPCC++ draft section 6.1; see Switch). txBytes
// counts frame bytes plus the MAC overhead (preamble, FCS, inter-frame
// gap), so txRate/B is the wire utilization.
//
// # Units
//
// Bytes are bytes, rates Gbit/s (10^9 bit/s), delays ns in configuration
// and fs inside; counters are 64-bit and wrap like hardware registers.
// Host i has IPv4 address 10.0.0.1+i (HostAddr); switch i stamps device ID
// i+1; a switch's ports are numbered in the order its links were added.
//
// # Endpoints
//
// Hosts attach an Endpoint, the port boundary of nicmodel.NIC (In, Out,
// Register, ConnectOut), so the package is tested with a scripted endpoint
// and used with the NIC unchanged. docs/network.md describes the model,
// its choices and its measured speed.
package network
