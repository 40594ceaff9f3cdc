// Package intguard is the golden model of the telemetry integrity guard: a
// plausibility check of every hop record of an HPCC++ telemetry event,
// between the Rx pipeline's parsed telemetry and the HPCC++ update
// (cc/hpcc.Datapath.Update), as draft-miao-tsv-hpcc section 9.1 asks
// ("vulnerable to attacks where feedback messages are hijacked, replaced,
// or intentionally injected with misleading information resulting in
// denial of service ... RECOMMENDED that the notification feedback
// message is at least integrity checked"; seeds 000_..., lines 580-589).
//
// Five checks, each with an enable, its thresholds and a defined outcome
// (docs/guard.md gives the signals, widths and the bound each outcome puts
// on a forger):
//
//   - qlen: a queue length above the port buffer is clamped to the buffer;
//   - rate: a txBytes delta above B*(1+tol)*dts bytes is clamped to that
//     bound (the stored baseline is moved, so only this measurement is
//     clamped);
//   - speed: a speed code outside the configured set of deployed speeds
//     (a reserved code included) is clamped to the slowest deployed speed;
//   - path: a hop count or hop identity that differs from the flow's stored
//     path drops those hop records (the update re-baselines them);
//   - time: a zero or negative (wrapped) egress-time delta drops the hop
//     record; when every hop of the event fails it, the whole event is
//     dropped (a replay carries nothing new, and an update without any
//     valid hop would still take an additive-increase step).
//
// Everything is integer arithmetic on the raw wire fields and the stored
// per-hop records of cc/hpcc (hpcc.State.Hops), with the same widths as
// cc/hpcc's field tables: the guard's input table is a subset of
// hpcc_update's, field for field. The guard's outputs are applied to the
// update's inputs by Apply; the hardware form is rtl/guardrtl (module
// int_guard), checked bit for bit against this package on the vectors of
// cc/intguard/guardvec.
package intguard
