package nicmodel

import (
	"fmt"
	"math"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/pipeline/wire"
)

// MultiQ per traffic class (the HPCC++ slides' "HPCC++ MultiQ Algorithm",
// seeds 002): under QoS queueing each hop record reports the flow's class
// queue (nicmodel/network QoSConfig), and the update measures U against
// the class's guaranteed rate wB_j = w_j B instead of B. w_j is a constant
// of the update (its tables: hpcc.Config.MultiQ.ClassWeight), so a NIC
// whose flows are in several classes runs one update per class: the same
// HPCC++ module, flow-state table and timing, with the class's constants
// selected by the QP's class (in hardware, a small table of per-class
// constants indexed by the QP context's class field). A flow's class is
// FlowSpec.Class; the QP keeps it while it has flows open.

// MaxTrafficClasses bounds Config.MultiQClassWeights (802.1p priorities).
const MaxTrafficClasses = 8

func (c *Config) validateMultiQClasses() error {
	w := c.MultiQClassWeights
	if len(w) == 0 {
		return nil
	}
	if c.CC != CCHPCC {
		return bad("multiq_class_weights", w, fmt.Sprintf("needs cc=hpcc (cc=%s)", c.CC))
	}
	if !c.HPCC.MultiQ.Enabled {
		return bad("multiq_class_weights", w, "needs hpcc.multiq.enabled")
	}
	if len(w) > MaxTrafficClasses {
		return bad("multiq_class_weights", w, fmt.Sprintf("%d classes: at most %d", len(w), MaxTrafficClasses))
	}
	for j, x := range w {
		if !(x > 0 && x <= 1) || math.IsNaN(x) {
			return bad(fmt.Sprintf("multiq_class_weights[%d]", j), x, "must be in (0,1]")
		}
	}
	return nil
}

// classConfig returns the HPCC++ configuration of class j.
func classConfig(cfg *Config, j int) hpcc.Config {
	h := cfg.HPCC
	h.MultiQ.ClassWeight = cfg.MultiQClassWeights[j]
	return h
}

// buildClassCores gives the sender HPCC++ algorithm one core per MultiQ
// class (Config.MultiQClassWeights; nothing without them).
func (n *NIC) buildClassCores(cfg *Config, dps *Datapaths) error {
	if len(cfg.MultiQClassWeights) == 0 {
		return nil
	}
	w, ok := n.cc.(*hpccWiring)
	if !ok || w.guard == nil {
		return fmt.Errorf("nicmodel: %s: multiq_class_weights: no sender HPCC++ module", n.name)
	}
	h := w.guard
	for j := range cfg.MultiQClassWeights {
		c, err := newCCCore(cfg.Model, classConfig(cfg, j), dps)
		if err != nil {
			return fmt.Errorf("nicmodel: %s: multiq_class_weights[%d]: %w", n.name, j, err)
		}
		h.classCores = append(h.classCores, c)
	}
	h.class = make([]uint8, cfg.QPs)
	return nil
}

// checkFlowClass checks f's class against the configured classes and the
// flows open on its QP.
func (n *NIC) checkFlowClass(f FlowSpec) error {
	nc := max(1, len(n.cfg.MultiQClassWeights))
	if f.Class < 0 || f.Class >= nc {
		return fmt.Errorf("nicmodel: %s: OpenFlow: Class=%d: must be in [0,%d) (multiq_class_weights has %d)", n.name, f.Class, nc, len(n.cfg.MultiQClassWeights))
	}
	if h := n.senderClasses(); h != nil && n.open[f.QPN] > 0 && int(h.class[f.QPN]) != f.Class {
		return fmt.Errorf("nicmodel: %s: OpenFlow: QPN=%d Class=%d: the QP has flows open in class %d", n.name, f.QPN, f.Class, h.class[f.QPN])
	}
	return nil
}

// setFlowClass records f's class as its QP's.
func (n *NIC) setFlowClass(f FlowSpec) {
	if h := n.senderClasses(); h != nil {
		h.class[f.QPN] = uint8(f.Class)
	}
}

// senderClasses returns the sender HPCC++ algorithm when it runs MultiQ
// classes, else nil.
func (n *NIC) senderClasses() *hpccCC {
	if w, ok := n.cc.(*hpccWiring); ok && w.guard != nil && w.guard.class != nil {
		return w.guard
	}
	return nil
}

// coreOf returns the core that runs QP q's update: its class's, or the
// one core without classes.
func (h *hpccCC) coreOf(q wire.QPN) *ccCore {
	if h.class == nil {
		return h.core
	}
	return h.classCores[h.class[q]]
}
