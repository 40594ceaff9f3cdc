package network

import (
	"fmt"

	"github.com/hpccgold/hpccgold/telemetry"
)

// ForgeKind is what a misbehaving switch does to the telemetry it stamps
// (HPCC++ draft section 9.1: feedback "hijacked, replaced, or
// intentionally injected with misleading information").
type ForgeKind string

// The forgeries.
const (
	// ForgeQlen inflates the queue length: the record reports
	// max(real queue, QlenBytes) (saturating at the field's maximum).
	ForgeQlen ForgeKind = "qlen"
	// ForgeFrozenTx freezes txBytes: each egress port reports the counter
	// of its first stamped record forever (the link looks idle).
	ForgeFrozenTx ForgeKind = "frozen_tx"
	// ForgeSpeed forges the link speed: the record reports SpeedGbps.
	ForgeSpeed ForgeKind = "speed"
	// ForgeReplay replays INT: each egress port captures its record and
	// stamps that same record (timestamp, txBytes, queue length) on every
	// packet for ReplayNs, then captures a fresh one.
	ForgeReplay ForgeKind = "replay"
)

// ForgeConfig makes one switch forge the hop records it stamps, on every
// egress port. Set in Config.Forge; the zero list (the default) forges
// nothing.
type ForgeConfig struct {
	// Switch is the switch's index in the topology (switch i stamps
	// device ID i+1).
	Switch int       `json:"switch"`
	Kind   ForgeKind `json:"kind"`
	// QlenBytes is the queue length ForgeQlen reports at least.
	QlenBytes uint64 `json:"qlen_bytes,omitempty"`
	// SpeedGbps is the link speed ForgeSpeed reports; it needs a code in
	// the encoding.
	SpeedGbps uint32 `json:"speed_gbps,omitempty"`
	// ReplayNs is how long ForgeReplay replays one captured record, ns.
	ReplayNs uint64 `json:"replay_ns,omitempty"`
}

// validate checks f for a network of ns switches and encoding e; errors
// name forge[i] and the field.
func (f ForgeConfig) validate(i, ns int, e telemetry.Encoding) error {
	field := fmt.Sprintf("network: forge[%d]", i)
	if f.Switch < 0 || f.Switch >= ns {
		return fmt.Errorf("%s.switch=%d: must be in [0,%d)", field, f.Switch, ns)
	}
	bad := func(name string, v any) error {
		return fmt.Errorf("%s.%s=%v: not used by kind %s", field, name, v, f.Kind)
	}
	switch f.Kind {
	case ForgeQlen:
		if f.QlenBytes == 0 || f.QlenBytes > MaxBufferByte {
			return fmt.Errorf("%s.qlen_bytes=%d: must be in [1,2^40]", field, f.QlenBytes)
		}
	case ForgeSpeed:
		if _, err := e.SpeedCode(f.SpeedGbps); err != nil {
			return fmt.Errorf("%s.speed_gbps: %w", field, err)
		}
	case ForgeReplay:
		if f.ReplayNs < 1 || f.ReplayNs > MaxDelayNs {
			return fmt.Errorf("%s.replay_ns=%d: must be in [1,%d]", field, f.ReplayNs, MaxDelayNs)
		}
	case ForgeFrozenTx:
	default:
		return fmt.Errorf("%s.kind=%q: must be qlen, frozen_tx, speed or replay", field, f.Kind)
	}
	if f.Kind != ForgeQlen && f.QlenBytes != 0 {
		return bad("qlen_bytes", f.QlenBytes)
	}
	if f.Kind != ForgeSpeed && f.SpeedGbps != 0 {
		return bad("speed_gbps", f.SpeedGbps)
	}
	if f.Kind != ForgeReplay && f.ReplayNs != 0 {
		return bad("replay_ns", f.ReplayNs)
	}
	return nil
}

// forger is one switch's forgery and its per-egress-port state.
type forger struct {
	cfg   ForgeConfig
	ports []forgePort
	// Forged counts the hop records the forgery changed.
	forged uint64
}

type forgePort struct {
	have  bool
	saved telemetry.Physical // frozen_tx: the first record; replay: the captured one
	at    uint64             // replay: capture time, ns
}

// apply forges the snapshot ph that egress port port takes at tsNs (the
// switch calls it before quantizing ph into the wire record).
func (f *forger) apply(port int, ph *telemetry.Physical) {
	fp := &f.ports[port]
	switch f.cfg.Kind {
	case ForgeQlen:
		if ph.QlenBytes < f.cfg.QlenBytes {
			ph.QlenBytes = f.cfg.QlenBytes
			f.forged++
		}
	case ForgeSpeed:
		if ph.SpeedGbps != f.cfg.SpeedGbps {
			ph.SpeedGbps = f.cfg.SpeedGbps
			f.forged++
		}
	case ForgeFrozenTx:
		if !fp.have {
			fp.have, fp.saved = true, *ph
			return
		}
		if ph.TxBytes != fp.saved.TxBytes {
			ph.TxBytes = fp.saved.TxBytes
			f.forged++
		}
	case ForgeReplay:
		if !fp.have || ph.TsNs-fp.at >= f.cfg.ReplayNs {
			fp.have, fp.saved, fp.at = true, *ph, ph.TsNs
			return
		}
		*ph = fp.saved
		f.forged++
	}
}

// installForgers validates cfg.Forge against the built network and gives
// each named switch its forger.
func (n *Network) installForgers() error {
	for i, f := range n.cfg.Forge {
		if err := f.validate(i, len(n.switches), n.cfg.Encoding); err != nil {
			return err
		}
		s := n.switches[f.Switch]
		if s.forge != nil {
			return fmt.Errorf("network: forge[%d].switch=%d: the switch already forges (one forgery per switch)", i, f.Switch)
		}
		s.forge = &forger{cfg: f, ports: make([]forgePort, len(s.ports))}
	}
	return nil
}

// Forged returns the number of hop records switch sw's forgery changed (0
// for an honest switch).
func (n *Network) Forged(sw int) uint64 {
	if sw < 0 || sw >= len(n.switches) || n.switches[sw].forge == nil {
		return 0
	}
	return n.switches[sw].forge.forged
}
