package scenario

import (
	"fmt"
	"math"

	"github.com/hpccgold/hpccgold/cc/dcqcn"
	"github.com/hpccgold/hpccgold/cc/ldcp"
	"github.com/hpccgold/hpccgold/nicmodel"
	"github.com/hpccgold/hpccgold/nicmodel/network"
)

// ccChoices lists the congestion controls a scenario runs.
const ccChoices = "hpcc, hpcc-rx, ldcp or dcqcn"

// knownCC reports whether a scenario can run cc.
func knownCC(cc nicmodel.CCMode) bool {
	switch cc {
	case nicmodel.CCHPCC, nicmodel.CCHPCCRx, nicmodel.CCLDCP, nicmodel.CCDCQCN:
		return true
	}
	return false
}

// CCs are the congestion controls `hpccgold compare` runs, in its order.
var CCs = []nicmodel.CCMode{nicmodel.CCHPCC, nicmodel.CCHPCCRx, nicmodel.CCLDCP, nicmodel.CCDCQCN}

// LDCPParams are LDCP's switch parameters (LDCP draft, seeds 001, section
// 2.1 and Eq. (3)), applied to every switch egress queue when cc=ldcp:
// instant-queue WRED/ECN marks ECN-capable packets with probability 0 below
// K_min, (q-K_min)/(K_max-K_min)*P_max up to K_max and 1 above, drops them
// above buf_max, and drops ECN-incapable packets (the first-RTT packets of
// fast start) at or above K. The draft gives no values; the defaults
// (DefaultLDCPParams) are those of cc/ldcp's closed-loop test (K_min 5,
// K_max 40, K 16 packets of about 1 KB, P_max 0.2) for a 100 Gbit/s, 5 us
// network, in bytes. The NIC side (alpha, beta, gamma, IW = the BDP over
// T, the sub-packet timer's RTT = T) is nicmodel's LDCPResolved; any
// cc/ldcp key can be set through nic.overrides.ldcp.
type LDCPParams struct {
	// KMinBytes is K_min, bytes of the egress queue.
	KMinBytes uint64 `json:"k_min_bytes"`
	// KMaxBytes is K_max, bytes (> K_min).
	KMaxBytes uint64 `json:"k_max_bytes"`
	// PMax is P_max, the marking probability just below K_max, in (0,1].
	PMax float64 `json:"p_max"`
	// BufMaxBytes is buf_max, the per-port buffer under cc=ldcp, bytes; 0
	// keeps network.switch.buffer_bytes (the same buffer as the other
	// congestion controls).
	BufMaxBytes uint64 `json:"buf_max_bytes"`
	// KBytes is K: ECN-incapable packets are dropped when the queue is at
	// or above it, bytes (> 0).
	KBytes uint64 `json:"k_bytes"`
	// MarkAtDequeue draws the marking when a packet leaves the queue
	// (network.ECNConfig.MarkAtDequeue); false, the default, when it
	// arrives (the draft's instant queue at the packet's arrival).
	MarkAtDequeue bool `json:"mark_at_dequeue"`
}

// DefaultLDCPParams returns K_min 5000, K_max 40000, P_max 0.2, K 16000
// bytes and buf_max = the switch buffer (LDCPParams).
func DefaultLDCPParams() LDCPParams {
	return LDCPParams{KMinBytes: 5_000, KMaxBytes: 40_000, PMax: 0.2, KBytes: 16_000}
}

// DCQCNParams are DCQCN's parameters in a scenario (cc=dcqcn): the
// algorithm profile and the switches' RED/ECN marking (the congestion
// point; docs/dcqcn.md section 3). Every NIC runs the profile at its host
// link speed.
type DCQCNParams struct {
	// Variant is "mellanox" (dcqcn.MellanoxConfig: the HPCC authors'
	// simulator, what the HPCC paper compares against) or "paper"
	// (dcqcn.PaperConfig: SIGCOMM 2015).
	Variant dcqcn.Variant `json:"variant"`
	// KMinBytes, KMaxBytes and PMax set the marking; all three 0 take the
	// profile's recommendation at the host link speed (mellanox: K_min
	// 100 KB, K_max 400 KB per 25 Gbit/s, P_max 0.2; paper: 5 KB, 200 KB,
	// 1%).
	KMinBytes uint64  `json:"k_min_bytes"`
	KMaxBytes uint64  `json:"k_max_bytes"`
	PMax      float64 `json:"p_max"`
	// MarkAtDequeue draws the marking when a packet leaves the queue, with
	// q = the bytes left behind (default true: the HPCC authors' ns-3
	// switch, SwitchNotifyDequeue, which produced the DCQCN results the
	// HPCC paper reports; marking at arrival delays a CNP by the drain time
	// of the queue the marked packet joined, 32 us per 400 KB at 100 Gbit/s).
	MarkAtDequeue bool `json:"mark_at_dequeue"`
}

// DefaultDCQCNParams returns the mellanox profile with its own marking,
// drawn at dequeue.
func DefaultDCQCNParams() DCQCNParams {
	return DCQCNParams{Variant: dcqcn.Mellanox, MarkAtDequeue: true}
}

// profile returns the DCQCN configuration of a NIC of gbps.
func (p DCQCNParams) profile(gbps uint32) dcqcn.Config {
	if p.Variant == dcqcn.Paper {
		return dcqcn.PaperConfig(float64(gbps))
	}
	return dcqcn.MellanoxConfig(float64(gbps))
}

// marking returns the switches' marking under cc=dcqcn (the profile at
// the host link speed unless set).
func (p DCQCNParams) marking(hostGbps uint32) (kmin, kmax uint64, pmax float64) {
	if p.KMinBytes == 0 && p.KMaxBytes == 0 && p.PMax == 0 {
		e := p.profile(hostGbps).ECN
		return e.KminBytes, e.KmaxBytes, e.Pmax
	}
	return p.KMinBytes, p.KMaxBytes, p.PMax
}

// validateCCParams checks the section of the scenario's cc (the other
// sections are not used and not checked).
func (c *Config) validateCCParams() error {
	switch c.CC {
	case nicmodel.CCLDCP:
		l := &c.LDCP
		if l.KMaxBytes <= l.KMinBytes || l.KMaxBytes > network.MaxBufferByte {
			return cerr("ldcp.k_max_bytes", l.KMaxBytes, fmt.Sprintf("must be > ldcp.k_min_bytes=%d and at most 2^40", l.KMinBytes))
		}
		if math.IsNaN(l.PMax) || !(l.PMax > 0 && l.PMax <= 1) {
			return cerr("ldcp.p_max", l.PMax, "must be in (0,1]")
		}
		if l.KBytes == 0 || l.KBytes > network.MaxBufferByte {
			return cerr("ldcp.k_bytes", l.KBytes, "must be in [1,2^40]")
		}
		if l.BufMaxBytes != 0 && (l.BufMaxBytes < 64 || l.BufMaxBytes > network.MaxBufferByte) {
			return cerr("ldcp.buf_max_bytes", l.BufMaxBytes, "must be 0 (the switch buffer) or in [64,2^40]")
		}
	case nicmodel.CCDCQCN:
		d := &c.DCQCN
		if d.Variant != dcqcn.Mellanox && d.Variant != dcqcn.Paper {
			return cerr("dcqcn.variant", uint8(d.Variant), "must be mellanox or paper")
		}
		if d.KMinBytes != 0 || d.KMaxBytes != 0 || d.PMax != 0 {
			if d.KMaxBytes <= d.KMinBytes || d.KMaxBytes > network.MaxBufferByte {
				return cerr("dcqcn.k_max_bytes", d.KMaxBytes, fmt.Sprintf("must be > dcqcn.k_min_bytes=%d and at most 2^40", d.KMinBytes))
			}
			if math.IsNaN(d.PMax) || !(d.PMax > 0 && d.PMax <= 1) {
				return cerr("dcqcn.p_max", d.PMax, "must be in (0,1] (or k_min_bytes, k_max_bytes and p_max all 0)")
			}
		}
	}
	return nil
}

// networkConfig returns the network configuration a run builds: the
// scenario's, with the switches' WRED/ECN (and, under LDCP, buf_max) set
// from the ldcp or dcqcn section when cc is one of them.
func (c *Config) networkConfig() network.Config {
	n := c.Network
	switch c.CC {
	case nicmodel.CCLDCP:
		l := c.LDCP
		n.Switch.ECN = network.ECNConfig{Enabled: true, KMinBytes: l.KMinBytes, KMaxBytes: l.KMaxBytes, PMax: l.PMax,
			DropNotECTBytes: l.KBytes, MarkAtDequeue: l.MarkAtDequeue}
		if l.BufMaxBytes != 0 {
			n.Switch.BufferBytes = l.BufMaxBytes
		}
	case nicmodel.CCDCQCN:
		kmin, kmax, pmax := c.DCQCN.marking(c.Topology.HostLink.Gbps)
		n.Switch.ECN = network.ECNConfig{Enabled: true, KMinBytes: kmin, KMaxBytes: kmax, PMax: pmax, MarkAtDequeue: c.DCQCN.MarkAtDequeue}
	}
	return n
}

// ccModuleConfig sets a NIC's cc=ldcp/dcqcn sections (nothing for HPCC++):
// no telemetry on data packets; LDCP with IW = the BDP in packets of
// nic.mtu at the NIC's speed over T, CwMax = 2 IW, the sub-packet timer's
// RTT = T and the receiver's m = nic.ack_every; DCQCN with the profile at
// the NIC's speed; the retransmission timeout nic.rto_ns.
func (c *Config) ccModuleConfig(n *nicmodel.Config, baseRTT, gbps uint32) {
	switch c.CC {
	case nicmodel.CCLDCP:
		l := ldcp.DefaultConfig()
		l.BaseRTTNs = baseRTT
		l.MaxBaseRTTNs = max(l.MaxBaseRTTNs, baseRTT)
		l.IWPkts = ldcp.BDPPackets(gbps, baseRTT, uint32(c.NIC.MTU))
		l.CwMaxPkts = 2 * float64(l.IWPkts)
		l.DelayedAckPkts = uint32(c.NIC.AckEvery)
		n.LDCP = &nicmodel.LDCPConfig{Config: l}
	case nicmodel.CCDCQCN:
		n.DCQCN = &nicmodel.DCQCNConfig{Config: c.DCQCN.profile(gbps)}
	default:
		return
	}
	n.Tx.INTOnData = false
	n.CCModule = &nicmodel.CCModuleConfig{RTONs: c.NIC.RTONs}
}
