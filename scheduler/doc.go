// Package scheduler is the NIC scheduler of the HPCC++ draft's Figure 4
// (section 7.2, "Congestion control at NICs"): it receives window and rate
// updates from the HPCC++ module, enforces each flow's window (bytes in
// flight <= W), paces each flow at its rate R, arbitrates among eligible
// flows (round robin or DWRR) under a line-rate limit, and issues PktSend
// commands to the Tx pipeline. It is an engine.Component; its ports are
// engine FIFOs.
//
// Units and formats: bytes are bytes; payload bytes count toward the window,
// wire bytes (payload + Config.OverheadBytes) toward pacing, the line rate
// and DWRR. W arrives raw in Config.WindowFormat (default u32.24, bytes) and
// the window test uses floor(W). R arrives raw in Config.RateFormat and
// Config.RateUnit (default u32.8 bytes per ns, as cc/hpcc computes R = W/T).
// Pacing converts R once per update into a gap-per-byte register G (cycles
// per byte, unsigned, Config.GapBits wide with Config.GapFracBits fraction
// bits), rounded up so the paced rate never exceeds R; a packet of w wire
// bytes then advances the flow's pacer time register by w*G (fixed point,
// GapFracBits fraction bits of a cycle, fractions carried from packet to
// packet). A flow may send in the first whole cycle at or after its pacer
// time, so single inter-packet gaps are whole cycles (the floor or ceiling
// of w*G) while their sum over k packets is exactly ceil(k*w*G) cycles. The
// datapath is integer only: one exact 128-by-64-bit division per rate update,
// one 64-bit multiply and add per packet.
//
// The pacer computes eligibility lazily from its time registers (the
// quic-go pacer's idea) and keeps waiting flows in a calendar keyed by the
// cycle they become eligible, so NextWake can tell the engine exactly when
// to wake and no cycle is spent polling. See docs/scheduler.md for the
// timing of a cycle, the arbiters, the counters and benchmark figures.
package scheduler
