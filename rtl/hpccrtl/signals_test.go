package hpccrtl

import (
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/fixedpoint"
	"github.com/hpccgold/hpccgold/telemetry"
)

// signalNodes maps the signal table of cc/hpcc (Datapath.Signals) to the
// node of the rtl description that carries the signal (slot 0 for the
// per-hop signals). Every signal whose width is written as a number rather
// than read from a format ("uint" and "bool" rows) must be here, so no
// literal width goes unchecked; format-derived rows are here where the
// description names the node.
var signalNodes = map[string]string{
	"eg_t": "h0_eg_t", "eg_carry": "h0_eg_carry", "eg_ns": "h0_eg_ns", "eg_sec": "h0_eg_sec",
	"dts": "h0_dts", "hop_valid": "h0_ok", "kq[code]": "kq", "kr[code]": "kr", "u_hop": "h0_u",
	"tau": "tau", "u_ewma": "u_ewma", "any_valid": "any_valid", "u_next": "u_new",
	"update_wc": "update_wc", "mi": "mi", "w_next": "w_new",
	// MultiQ
	"mq_wb[code]": "mq_wb", "mq_bh[code]": "mq_bh", "mq_within": "h0_mq_within", "mq_backlog": "mq_backlog",
	"mq_is_backlog": "h0_mq_is_backlog", "mq_s": "h0_mq_s", "mq_y": "h0_mq_y", "recip_mq": "h0_recip_mq",
	"sojourn_q": "h0_sojourn_q", "mq_rho": "h0_mq_rho", "q_term_bl": "h0_q_term_bl", "u_bl": "h0_u_bl", "u_nbl": "h0_u_nbl", "u_hop_mq": "h0_u_hop_mq",
}

// TestSignalWidthsMatchRTL checks, for several configurations (both
// encodings, both modes, non-default formats), that every signal of the
// datapath's documented signal table has the width of the rtl node that
// computes it. Oracle: the rtl description, built independently of the
// signal table; a width stated twice that drifts fails here.
func TestSignalWidthsMatchRTL(t *testing.T) {
	rx := hpcc.DefaultConfig()
	rx.Mode, rx.DynamicWAI = hpcc.Receiver, true
	narrow := hpcc.DefaultConfigFor(telemetry.Compact)
	narrow.Formats.U = fixedpoint.MustFormat("u28.6")
	narrow.Formats.W = fixedpoint.MustFormat("u30.22")
	mq := hpcc.DefaultConfig()
	mq.MultiQ = hpcc.MultiQConfig{Enabled: true, ClassWeight: 0.4, BacklogBytes: 1500}
	mqc := hpcc.DefaultConfigFor(telemetry.Compact)
	mqc.Mode = hpcc.Receiver
	mqc.MultiQ = hpcc.MultiQConfig{Enabled: true, ClassWeight: 0.25, BacklogBytes: 0}
	sj := hpcc.DefaultConfig()
	sj.Sojourn = true
	for name, cfg := range map[string]hpcc.Config{
		"ifa_sender": hpcc.DefaultConfig(), "compact_sender": hpcc.DefaultConfigFor(telemetry.Compact),
		"ifa_receiver_dynwai": rx, "compact_narrow_formats": narrow,
		"ifa_multiq": mq, "compact_receiver_multiq": mqc, "ifa_sojourn": sj,
	} {
		t.Run(name, func(t *testing.T) {
			d, err := hpcc.NewDatapath(cfg)
			if err != nil {
				t.Fatal(err)
			}
			m, err := UpdateComb(cfg)
			if err != nil {
				t.Fatal(err)
			}
			width := map[string]int{}
			for _, n := range m.Nodes {
				width[n.Name] = n.Width
			}
			checked := 0
			for _, s := range d.Signals() {
				node, ok := signalNodes[s.Name]
				if !ok {
					if s.Format == "uint" || s.Format == "bool" {
						t.Errorf("signal %s (%d bits, written as a literal width) has no rtl node in signalNodes", s.Name, s.Width)
					}
					continue
				}
				w, ok := width[node]
				if !ok {
					t.Errorf("signal %s: rtl node %s not found", s.Name, node)
					continue
				}
				if w != s.Width {
					t.Errorf("signal %s: table says %d bits, rtl node %s has %d", s.Name, s.Width, node, w)
				}
				checked++
			}
			if checked < 10 {
				t.Errorf("only %d signals checked", checked)
			}
		})
	}
}
