package coverage

import (
	"fmt"
	"strings"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/rtl"
	"github.com/hpccgold/hpccgold/rtl/hpccrtl"
)

// The txRate saturation exhaustion carried to other configurations
// (issue 14, MultiQ and Sojourn): the "at" bin of each hop's txRate cast
// is declared unreachable for the default configuration by exhaustion
// (txRateExhaustion, hpcc.go). The exhaustion is a fact about the circuit
// that computes the compare's operand from the input ports; where another
// configuration's description computes it with the same circuit (the
// compare's whole input cone equal node by node: operations, widths,
// signedness, shift and slice amounts, constants, tables and the input
// ports it reads), the compare takes the same values on the same inputs
// and the fact holds there too. MultiQ and Sojourn change the hop term
// after txRate, not txRate.

// txRateAlike is the proof text of a carried declaration.
const txRateAlike = "exhaustion of the default configuration carried over: this compare's input cone is the same circuit as the default configuration's (node by node: operations, widths, constants, tables, input ports), whose txRate before saturation no 1/dts input and dTx puts exactly at the format's maximum (vectors.TxRateSaturationEdges, checked by TestTxRateExhaustionDeclared)"

// faninSig is the structure of node n's whole input cone in f: per node in
// topological order its operation, width, signedness, shift or slice
// amount, constant or table contents and operand positions, input ports by
// name. Two nodes with equal signatures compute the same function of the
// same ports.
func faninSig(f *rtl.Module, n *rtl.Node) string {
	in := make([]bool, len(f.Nodes))
	in[n.ID] = true
	for i := n.ID; i >= 0; i-- {
		if !in[i] {
			continue
		}
		for _, a := range f.Nodes[i].Args {
			in[a.ID] = true
		}
	}
	pos := map[int]int{}
	var sb strings.Builder
	for _, x := range f.Nodes[:n.ID+1] {
		if !in[x.ID] {
			continue
		}
		p := len(pos)
		pos[x.ID] = p
		fmt.Fprintf(&sb, "%d:%s/%d/%v/%d", p, x.Op, x.Width, x.Signed, x.K)
		switch x.Op {
		case rtl.OpInput:
			sb.WriteString("@" + x.Name)
		case rtl.OpConst:
			sb.WriteString("=" + x.Value.Hex(x.Width))
		}
		for _, e := range x.ROM {
			sb.WriteString("," + e.Hex(x.Width))
		}
		for _, a := range x.Args {
			fmt.Fprintf(&sb, " %d", pos[a.ID])
		}
		sb.WriteString(";")
	}
	return sb.String()
}

// declareTxRateAlike declares the "at" bin of every txRate saturation
// compare of an hpcc_update description whose input cone is the circuit of
// one of the default configuration's txRate compares (txRateAlike). The
// default configuration's own model is left to ForHPCC's declaration (its
// description is the default's: nothing is carried).
func (m *Model) declareTxRateAlike() {
	cmps := m.txRateCompares()
	if len(cmps) == 0 {
		return
	}
	dm, err := hpccrtl.UpdateComb(hpcc.DefaultConfig())
	if err != nil {
		return
	}
	df, err := rtl.Flatten(dm)
	if err != nil {
		return
	}
	if len(df.Nodes) == len(m.f.Nodes) && wholeSig(df) == wholeSig(m.f) {
		return // the default configuration's description itself
	}
	def := map[string]bool{}
	for _, c := range (&Model{f: df}).txRateCompares() {
		def[faninSig(df, c)] = true
	}
	for _, c := range cmps {
		if !def[faninSig(m.f, c)] {
			continue
		}
		for i := range m.Points {
			p := &m.Points[i]
			if p.Kind == KindCompare && p.Node == nodeLabel(c) && p.Bins[1].Unreachable == "" {
				p.Bins[1].Unreachable = txRateAlike
			}
		}
	}
}

// wholeSig is the structure of every node of f (as faninSig, positions
// being node IDs) and its output ports.
func wholeSig(f *rtl.Module) string {
	var sb strings.Builder
	for _, x := range f.Nodes {
		fmt.Fprintf(&sb, "%s/%d/%v/%d", x.Op, x.Width, x.Signed, x.K)
		switch x.Op {
		case rtl.OpInput:
			sb.WriteString("@" + x.Name)
		case rtl.OpConst:
			sb.WriteString("=" + x.Value.Hex(x.Width))
		}
		for _, e := range x.ROM {
			sb.WriteString("," + e.Hex(x.Width))
		}
		for _, a := range x.Args {
			fmt.Fprintf(&sb, " %d", a.ID)
		}
		sb.WriteString(";")
	}
	for _, o := range f.Outputs {
		fmt.Fprintf(&sb, "%s=%d|", o.Name, o.Node.ID)
	}
	return sb.String()
}
