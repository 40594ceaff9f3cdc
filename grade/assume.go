package grade

import (
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/hpccgold/hpccgold/cc/ccutil"
	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/rtl"
)

// Assumption is a fact about one node of the description that the
// configuration's range analysis proves (cc/hpcc RangeAnalysis: a signal
// that fits its format, so the saturation of its cast never fires), which
// the description's own value analysis cannot see (it would need the
// arithmetic meaning of a reciprocal unit or of a convex combination).
type Assumption struct {
	Node string `json:"node"` // node of the flattened description
	Lo   uint64 `json:"lo"`   // the node's value lies in [Lo, Hi]
	Hi   uint64 `json:"hi"`
	Row  string `json:"row"` // the range-analysis row (signal) that proves it
	Why  string `json:"why"`
}

// String is "node in [lo, hi] (row: why)".
func (a Assumption) String() string {
	return fmt.Sprintf("%s in [%d, %d] (%s: %s)", a.Node, a.Lo, a.Hi, a.Row, a.Why)
}

// newProverAssuming returns a prover whose value analysis also takes the
// assumptions (each node's interval intersected with its assumption).
func newProverAssuming(f *rtl.Module, as []Assumption) (*prover, error) {
	var bs []*bound
	var rows []string
	for _, a := range as {
		i := slices.IndexFunc(f.Nodes, func(n *rtl.Node) bool { return n.Name == a.Node })
		if i < 0 {
			return nil, fmt.Errorf("grade: assumption on node %s: no such node in %s", a.Node, f.Name)
		}
		bs = append(bs, &bound{id: i, lo: a.Lo, hi: a.Hi})
		if !slices.Contains(rows, a.Row) {
			rows = append(rows, a.Row)
		}
	}
	kb, ok := knownBitsUnder(f, bs...)
	if !ok {
		return nil, fmt.Errorf("grade: the assumptions %v contradict the description's value analysis", as)
	}
	p := newProverKB(f, kb)
	p.assume, p.assumed = bs, "rows "+strings.Join(rows, ", ")
	return p, nil
}

// HPCCAssumptions returns the facts the range analysis of cfg proves about
// hpcc_update
// for the rows whose verdict is "fits" (m is hpccrtl.UpdateComb(cfg)):
//   - recip_dts (1/dts <= 1 for dts >= 1): the output cast of each hop's
//     1/dts unit (the first ovf_hi after its seed table) never saturates;
//     its input is at least 1 (the unit reads 1 for a hop without a
//     measurement, and a measurement has dts > 0);
//   - u_next (the EWMA is a convex combination of U and u, both <= UMax):
//     the saturation of the u_ewma cast (the select of the mux u_ewma)
//     never fires;
//   - u_nbl (MultiQ case 3: tx_rate * 1/y < 2, as y is at least tx_rate or
//     (tx_rate + mq_bh)/2): each hop's u_nbl sum before its saturating
//     cast is at most twice the row's worst case, far below U's maximum.
//
// A row that does not fit, or a node not found, gives no assumption.
func HPCCAssumptions(m *rtl.Module, cfg hpcc.Config) ([]Assumption, error) {
	f, err := combinational(m)
	if err != nil {
		return nil, err
	}
	rep, err := cfg.RangeAnalysis()
	if err != nil {
		return nil, err
	}
	rows := map[string]ccutil.RangeRow{}
	for _, r := range rep.Rows {
		rows[r.Signal] = r
	}
	var as []Assumption
	var roms []*rtl.Node
	isRecip := func(n *rtl.Node) bool {
		return n.Op == rtl.OpROM && (n.Name == "recip_rom" || strings.HasPrefix(n.Name, "recip_rom_"))
	}
	// The 1/dts units' seed tables are the reciprocal tables with no other
	// reciprocal unit before them (MultiQ's recip_mq of each hop reads
	// tx_rate, hence the hop's 1/dts; the 1/U unit reads the hops' u').
	for _, n := range f.Nodes {
		if !isRecip(n) {
			continue
		}
		seen := map[int]bool{}
		first := true
		var walk func(x *rtl.Node)
		walk = func(x *rtl.Node) {
			for _, a := range x.Args {
				if !seen[a.ID] && first {
					seen[a.ID] = true
					if isRecip(a) {
						first = false
						return
					}
					walk(a)
				}
			}
		}
		walk(n)
		if first {
			roms = append(roms, n)
		}
	}
	if r, ok := rows["recip_dts"]; ok && r.Status == ccutil.Fits && len(roms) >= cfg.MaxHops {
		for _, rom := range roms[:cfg.MaxHops] {
			for _, n := range f.Nodes[rom.ID+1:] {
				if n.Op == rtl.OpGt && strings.HasPrefix(n.Name, "ovf_hi") {
					as = append(as, Assumption{Node: n.Name, Lo: 0, Hi: 0, Row: "recip_dts",
						Why: fmt.Sprintf("1/dts <= 1 < %s's max for dts in [1, %d]: the unit's output cast never saturates", r.Format, cfg.MaxDeltaTsNs)})
					break
				}
			}
		}
	}
	if r, ok := rows["u_next"]; ok && r.Status == ccutil.Fits {
		for _, n := range f.Nodes {
			if n.Name == "u_ewma" && n.Op == rtl.OpMux && strings.HasPrefix(n.Args[0].Name, "ovf_hi") {
				as = append(as, Assumption{Node: n.Args[0].Name, Lo: 0, Hi: 0, Row: "u_next", Why: r.Note + ": the u_ewma cast never saturates"})
			}
		}
	}
	if r, ok := rows["u_nbl"]; ok && r.Status == ccutil.Fits && cfg.MultiQ.Enabled {
		// The sum before the u_nbl cast's saturation, in LSBs of U: at
		// most twice the row's worst case (2: tx_rate * 1/y with y >= tx_rate
		// or y = (tx_rate + mq_bh)/2; the factor 2 covers the reciprocal's
		// and the casts' roundings many times over).
		lsb := new(big.Float).SetMantExp(big.NewFloat(1), -cfg.Formats.U.F())
		hiF := new(big.Float).Quo(big.NewFloat(2*r.WorstCase), lsb)
		hi, _ := hiF.Uint64()
		for i := 0; i < cfg.MaxHops; i++ {
			for _, n := range f.Nodes {
				if n.Name != fmt.Sprintf("h%d_u_nbl", i) || n.Op != rtl.OpMux || !strings.HasPrefix(n.Args[0].Name, "ovf_hi") {
					continue
				}
				v := n.Args[0].Args[0]
				if v.Width > 64 || v.Signed || hi >= n.Args[0].Args[1].Value.Uint64() {
					continue
				}
				as = append(as, Assumption{Node: v.Name, Lo: 0, Hi: hi, Row: "u_nbl",
					Why: fmt.Sprintf("%s (worst %g): hop %d's u_nbl before its cast is at most twice that, %d LSBs of %s", r.Note, r.WorstCase, i, hi, r.Format)})
			}
		}
	}
	return as, nil
}
