package nicmodel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/hpccgold/hpccgold/cc/dcqcn"
	"github.com/hpccgold/hpccgold/cc/ldcp"
	"github.com/hpccgold/hpccgold/pipeline"
)

// usesCCModule reports whether m runs in the NIC's CC module (ccmodule.go) instead of
// the HPCC++ module: cc=ldcp or cc=dcqcn.
func (m CCMode) usesCCModule() bool { return m == CCLDCP || m == CCDCQCN }

// LDCPConfig is the NIC's "ldcp" section: the one LDCP configuration
// (package cc/ldcp, docs/ldcp.md section 8) of the golden datapath (model
// fixed) or the float reference (model float) that the CC module runs per
// QP. In a JSON file, keys absent from the section keep the values already
// set, or ldcp.DefaultConfig's when the section is new; unknown keys are
// rejected.
type LDCPConfig struct{ ldcp.Config }

// UnmarshalJSON reads the section over the current values
// (ldcp.DefaultConfig when they are all zero: a section new to the file).
func (c *LDCPConfig) UnmarshalJSON(b []byte) error {
	if reflect.ValueOf(c.Config).IsZero() {
		c.Config = ldcp.DefaultConfig()
	}
	return strictDecode(b, &c.Config, "ldcp")
}

// DCQCNConfig is the NIC's "dcqcn" section: the DCQCN configuration
// (package cc/dcqcn, docs/dcqcn.md section 3) of the reaction point (the
// sender's rate) and the notification point (the receiver's CNPs). In a
// JSON file, keys absent from the section keep the values already set, or
// when the section is new the defaults of its "variant" (dcqcn.LoadConfig's
// rule: mellanox = dcqcn.DefaultConfig, paper = dcqcn.PaperConfig(100));
// unknown keys are rejected.
type DCQCNConfig struct{ dcqcn.Config }

// UnmarshalJSON reads the section over the current values (the variant's
// defaults when they are all zero).
func (c *DCQCNConfig) UnmarshalJSON(b []byte) error {
	if reflect.ValueOf(c.Config).IsZero() {
		c.Config = dcqcn.DefaultConfig()
		var probe struct {
			Variant dcqcn.Variant `json:"variant"`
		}
		if err := json.Unmarshal(b, &probe); err == nil && probe.Variant == dcqcn.Paper {
			c.Config = dcqcn.PaperConfig(100)
		}
	}
	return strictDecode(b, &c.Config, "dcqcn")
}

func strictDecode(b []byte, v any, section string) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("nicmodel: %s: %w", section, err)
	}
	if dec.More() {
		return fmt.Errorf("nicmodel: %s: trailing data after the JSON object", section)
	}
	return nil
}

// CCModuleConfig is the reliability and hand-off configuration of the CC
// module that runs LDCP and DCQCN (ccmodule.go). Zero fields take the
// defaults below.
type CCModuleConfig struct {
	// RTONs is the retransmission timeout, ns: a QP with packets in flight
	// whose snd_una has not advanced for RTONs goes back to snd_una
	// (go-back-N; under LDCP the datapath's Timeout event, which in fast
	// start also ends the stage). 0: DefaultRTONs. Range [1000, 10^10].
	RTONs uint64 `json:"rto_ns"`
	// Credits is how many packets of one QP the module may have released
	// to the scheduler that the scheduler has not yet sent (the datapath
	// decides each packet when it releases it; the scheduler arbitrates
	// and paces). 0: DefaultCredits. Range [1, 64], at most
	// scheduler.max_messages.
	Credits int `json:"credits"`
}

// CC module defaults.
const (
	// DefaultRTONs is 1 ms: RoCE NICs time out in milliseconds, and a
	// shorter timer fires spuriously behind the multi-megabyte first-RTT
	// queues of DCQCN incasts (the timer restarts at every advance of
	// snd_una). LDCP's ECN-capable last fast-start packet makes the
	// receiver see fast-start losses without it (draft section 3.1).
	DefaultRTONs = 1_000_000
	// DefaultCredits is 2: the module re-releases a packet 3 cycles after
	// the scheduler sent the previous one, far below a packet's
	// serialization time, so 2 never leaves the line idle.
	DefaultCredits = 2
)

// rto returns the retransmission timeout in ns.
func (c *Config) rtoNs() uint64 {
	if c.CCModule != nil && c.CCModule.RTONs != 0 {
		return c.CCModule.RTONs
	}
	return DefaultRTONs
}

// credits returns the per-QP credit count.
func (c *Config) credits() int {
	if c.CCModule != nil && c.CCModule.Credits != 0 {
		return c.CCModule.Credits
	}
	return DefaultCredits
}

// LDCPResolved returns the LDCP configuration the NIC runs: the ldcp
// section, or, when it is nil, ldcp.DefaultConfig with the NIC's own
// facts: the timer's RTT = hpcc.base_rtt_ns (the fabric's T), IW = the BDP
// in packets of scheduler.mtu at the line rate over T (draft section 2.3,
// 3.1), CwMax = 2 IW, the receiver's m = tx.ack_every.
func (c Config) LDCPResolved() ldcp.Config {
	if c.LDCP != nil {
		return c.LDCP.Config
	}
	l := ldcp.DefaultConfig()
	t := c.HPCC.BaseRTTNs
	if t > 0 {
		l.BaseRTTNs = t
		l.MaxBaseRTTNs = max(l.MaxBaseRTTNs, t)
	}
	if mtu := c.Scheduler.MTU; mtu > 0 && t > 0 {
		l.IWPkts = ldcp.BDPPackets(c.HPCC.NICSpeedGbps, t, uint32(mtu))
		l.CwMaxPkts = 2 * float64(l.IWPkts)
	}
	if c.Tx.AckEvery > 0 {
		l.DelayedAckPkts = uint32(c.Tx.AckEvery)
	}
	return l
}

// DCQCNResolved returns the DCQCN configuration the NIC runs: the dcqcn
// section, or, when it is nil, dcqcn.MellanoxConfig at the NIC's line
// rate (the HPCC artifact's profile, docs/dcqcn.md section 3).
func (c Config) DCQCNResolved() dcqcn.Config {
	if c.DCQCN != nil {
		return c.DCQCN.Config
	}
	return dcqcn.MellanoxConfig(float64(c.HPCC.NICSpeedGbps))
}

// validateCCModule checks the CC module's sections against cc and the rest
// of the NIC (called by Validate).
func (c *Config) validateCCModule() error {
	if !c.CC.usesCCModule() {
		for _, s := range []struct {
			name string
			set  bool
		}{{"ldcp", c.LDCP != nil}, {"dcqcn", c.DCQCN != nil}, {"cc_module", c.CCModule != nil}} {
			if s.set {
				return bad(s.name, "{...}", fmt.Sprintf("set with cc=%s: the section configures cc=ldcp or cc=dcqcn only", c.CC))
			}
		}
		return nil
	}
	if c.CC == CCLDCP && c.DCQCN != nil {
		return bad("dcqcn", "{...}", "set with cc=ldcp")
	}
	if c.CC == CCDCQCN && c.LDCP != nil {
		return bad("ldcp", "{...}", "set with cc=dcqcn")
	}
	if m := c.CCModule; m != nil {
		if m.RTONs != 0 && (m.RTONs < 1000 || m.RTONs > 10_000_000_000) {
			return bad("cc_module.rto_ns", m.RTONs, "must be 0 (default) or in [1000,1e10]")
		}
		if m.Credits < 0 || m.Credits > 64 {
			return bad("cc_module.credits", m.Credits, "must be 0 (default) or in [1,64]")
		}
	}
	if k := c.credits(); k > c.Scheduler.MaxMessages {
		return bad("cc_module.credits", k, fmt.Sprintf("must be at most scheduler.max_messages=%d (each credit is one message of the scheduler)", c.Scheduler.MaxMessages))
	}
	if c.Tx.EgressFull != pipeline.BackPressure {
		return bad("tx.egress_full", c.Tx.EgressFull, fmt.Sprintf("must be backpressure with cc=%s (the CC module pairs every data frame with its ECN decision)", c.CC))
	}
	if c.CC == CCLDCP {
		l := c.LDCPResolved()
		if err := l.Validate(); err != nil {
			return fmt.Errorf("nicmodel: ldcp: %w", err)
		}
		if l.SeqBits != 24 {
			return bad("ldcp.seq_bits", l.SeqBits, "must be 24 (the RoCEv2 BTH PSN)")
		}
		if l.DelayedAckPkts != uint32(c.Tx.AckEvery) {
			return bad("ldcp.delayed_ack_pkts", l.DelayedAckPkts, fmt.Sprintf("must equal tx.ack_every=%d (the receiver's m)", c.Tx.AckEvery))
		}
		return nil
	}
	d := c.DCQCNResolved()
	if err := d.Validate(); err != nil {
		return fmt.Errorf("nicmodel: dcqcn: %w", err)
	}
	if d.LineRateGbps != float64(c.HPCC.NICSpeedGbps) {
		return bad("dcqcn.line_rate_gbps", d.LineRateGbps, fmt.Sprintf("must equal the NIC's line rate hpcc.nic_speed_gbps=%d", c.HPCC.NICSpeedGbps))
	}
	return nil
}
