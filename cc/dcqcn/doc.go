// Package dcqcn is a float model of DCQCN (Zhu et al., "Congestion Control
// for Large-Scale RDMA Deployments", SIGCOMM 2015), the rate-based,
// CNP-driven congestion control most RoCE NICs ship: the baseline hpccgold
// compares HPCC++ and LDCP against on the same NIC and network.
//
// Three parties take part. The switch (congestion point, CP) marks CE with
// the RED-like probability of ECNParams on its egress queue; that is the
// network model's job, and this package only carries the parameters. The
// receiver (notification point, NP) turns CE-marked packets into CNPs, at
// most one per flow per CNPIntervalNs: NP.OnPacket. The sender (reaction
// point, RP) holds the current rate RC, the target rate RT and the
// congestion estimate alpha, cuts RC on congestion, and raises it again in
// the fast recovery, additive increase and hyper increase phases driven by
// a timer and a byte counter: RP.OnCNP, RP.OnSent and RP.Advance.
//
// Two variants are modelled (Variant): the paper's algorithm, and the
// "Mellanox version" of the HPCC authors' simulator (alibaba-edu
// High-Precision-Congestion-Control, simulation/src/point-to-point/model/
// rdma-hw.cc), which is what the HPCC paper compares against: periodic
// alpha updates, at most one rate cut per rate-decrease interval, a timer
// stage counter instead of the byte counter.
//
// Like cc/hpcc and cc/ldcp the model is pure and narrow: every method takes
// the state and now (ns) as arguments and returns the new state and an
// update; nothing reads a clock. Timers are computed lazily: a call first
// processes every timer deadline at or before now, in time order, so the
// result does not depend on how often the caller wakes the model, and
// NextWake says when the rate can next change by itself.
//
// Units: rates in bytes per ns (x8 = Gbps) in the state and updates, Gbps
// and Mbps in the configuration as the sources give them; time in ns;
// alpha dimensionless. Parameters, their sources and the decisions where
// the sources are silent are in docs/dcqcn.md.
package dcqcn
