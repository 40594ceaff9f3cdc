package coverage

import (
	"fmt"
	"math/big"
	"reflect"
	"strconv"
	"strings"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/fixedpoint"
	"github.com/hpccgold/hpccgold/rtl"
	"github.com/hpccgold/hpccgold/rtl/hpccrtl"
	"github.com/hpccgold/hpccgold/telemetry"
)

// ForHPCC builds the coverage model of hpcc_update for cfg: the structural
// points of its description (hpccrtl.UpdateComb) and the functional points
// of the HPCC++ datapath (value ranges of U, dts, qlen, txRate, W, Wc,
// rate, incStage, nhops, speed codes and the selected hop; the crosses MI/AI
// x incStage x update_wc, sel_hop x nhops, w_clamp x branch and egress
// carry x hop).
func ForHPCC(cfg hpcc.Config) (*Model, error) {
	d, err := hpcc.NewDatapath(cfg)
	if err != nil {
		return nil, fmt.Errorf("coverage: %w", err)
	}
	rm, err := hpccrtl.UpdateComb(cfg)
	if err != nil {
		return nil, fmt.Errorf("coverage: %w", err)
	}
	m, err := newModel(rm)
	if err != nil {
		return nil, err
	}
	m.speedWhy = speedRejections(cfg)
	m.addRelations()
	if err := m.addHPCC(d); err != nil {
		return nil, err
	}
	m.addStructural()
	if reflect.DeepEqual(cfg, hpcc.DefaultConfig()) {
		m.declareTxRateExhausted()
	}
	if err := m.validate(); err != nil {
		return nil, err
	}
	return m, nil
}

// txRateExhaustion is the proof of the txRate casts' "at" bins, by
// exhaustion: it holds for the default configuration only, the one the
// enumeration checks (TestTxRateExhaustionDeclared runs it and fails if an
// input reaches the threshold; vectors.TestTxRateSaturationEdgeUnreachable
// likewise).
const txRateExhaustion = "exhaustion (default configuration): no 1/dts input in [1, 2^26) and no dTx of the counter width puts txRate before saturation exactly at the format's maximum (vectors.TxRateSaturationEdges, checked by TestTxRateExhaustionDeclared)"

// txRateCompares returns the saturation compares of every hop's txRate
// cast: ovf_hi > max over the rounded product (tx_bytes - st_tx_bytes) *
// 1/dts, recognised by the product's operand, the difference of the hop's
// two counter ports (the only cast reading it).
func (m *Model) txRateCompares() []*rtl.Node {
	var out []*rtl.Node
	for _, n := range m.f.Nodes {
		if n.Op != rtl.OpGt || peel(n.Args[1]).Op != rtl.OpConst || n.Args[0].Op != rtl.OpAdd {
			continue
		}
		sl := peel(n.Args[0].Args[0])
		if sl.Op != rtl.OpSlice || sl.Args[0].Op != rtl.OpMul {
			continue
		}
		for _, f := range sl.Args[0].Args {
			if f.Op == rtl.OpSub && f.Args[0].Op == rtl.OpInput && f.Args[1].Op == rtl.OpInput &&
				strings.HasPrefix(f.Args[0].Name, "in_hop") && strings.HasSuffix(f.Args[0].Name, "_tx_bytes") &&
				strings.HasPrefix(f.Args[1].Name, "st_hop") && strings.HasSuffix(f.Args[1].Name, "_tx_bytes") {
				out = append(out, n)
				break
			}
		}
	}
	return out
}

// declareTxRateExhausted declares the "at" bin of every txRate saturation
// compare unreachable, by exhaustion (txRateExhaustion).
func (m *Model) declareTxRateExhausted() {
	for _, n := range m.txRateCompares() {
		for i := range m.Points {
			p := &m.Points[i]
			if p.Kind == KindCompare && p.Node == nodeLabel(n) && p.Bins[1].Unreachable == "" {
				p.Bins[1].Unreachable = txRateExhaustion
			}
		}
	}
}

// speedRejections returns, per speed code of cfg's encoding, why the
// configuration rejects it ("" for an accepted code): a code is accepted
// when the encoding's speed table gives it a speed and that speed is at
// most MaxLinkSpeedGbps (the codes whose kq and kr entries are non-zero).
func speedRejections(cfg hpcc.Config) []string {
	tab := cfg.Encoding.SpeedTable()
	why := make([]string, len(tab))
	for c, g := range tab {
		switch {
		case g == 0:
			why[c] = fmt.Sprintf("reserved in the %s speed table", cfg.Encoding)
		case g > cfg.MaxLinkSpeedGbps:
			why[c] = fmt.Sprintf("%d Gbps above MaxLinkSpeedGbps=%d", g, cfg.MaxLinkSpeedGbps)
		}
	}
	return why
}

// rawOf quantizes r into f (round, saturate) and returns the raw bits.
func rawOf(f fixedpoint.Format, r *big.Rat) (uint64, error) {
	v, err := fixedpoint.FromRat(f, r, fixedpoint.Rnd, fixedpoint.Sat)
	if err != nil {
		return 0, err
	}
	return v.RawUint(), nil
}

// gate restricts a point to the evaluations it applies to (ok), with the
// same condition as a SystemVerilog expression.
type gate struct {
	ok func(s valueSource) bool
	sv string
}

// rangeBins are bins over [lo_i, hi_i] intervals of an unsigned value.
type rangeBin struct {
	name   string
	lo, hi uint64
}

// addRanges adds a field point over the value of node n (<= 64 bits): bin
// i holds the values in [lo_i, hi_i] (intervals must not overlap; values in
// none hit no bin). A bin the value analysis of n excludes is unreachable;
// why adds a reason for bins unreachable by the datapath's definition.
func (m *Model) addRanges(name, doc string, n *rtl.Node, rs []rangeBin, g *gate) {
	lo, hi, ok := m.interval(n)
	bins := make([]Bin, len(rs))
	for i, r := range rs {
		bins[i].Name = r.name
		if r.lo > r.hi {
			bins[i].Unreachable = fmt.Sprintf("empty for this configuration ([%d, %d])", r.lo, r.hi)
		} else if ok && (r.hi < lo || r.lo > hi) {
			bins[i].Unreachable = m.rangeText(n)
		}
	}
	id := n.ID
	m.add(Point{Name: name, Doc: doc, Kind: KindField, Node: nodeLabel(n), Bins: bins, src: []*rtl.Node{n},
		sample: func(s valueSource) int {
			if g != nil && !g.ok(s) {
				return -1
			}
			v := s.node(id).Uint64()
			for i, r := range rs {
				if v >= r.lo && v <= r.hi {
					return i
				}
			}
			return -1
		},
		sv: svRanges(m.svRef(n), n.Width, g, rs)})
}

// addHPCC adds the functional points of the HPCC++ datapath.
func (m *Model) addHPCC(d *hpcc.Datapath) error {
	cfg := d.Config()
	fm := cfg.Formats
	var err error
	need := func(name string) *rtl.Node {
		if err != nil {
			return nil
		}
		var n *rtl.Node
		n, err = m.port(name)
		return n
	}
	nodeNamed := func(name string) *rtl.Node {
		for _, n := range m.f.Nodes {
			if n.Name == name {
				return n
			}
		}
		if err == nil {
			err = fmt.Errorf("coverage: %s has no node %q", m.Design, name)
		}
		return nil
	}
	first := need("out_first")
	nsU, nsW, stWc := need("ns_u"), need("ns_w"), need("st_wc")
	outRate, stInc, inNH := need("out_rate"), need("st_inc_stage"), need("in_nhops")
	sel, mi, upd, hv := need("out_sel_hop"), need("out_mi"), need("out_update_wc"), need("out_hop_valid")
	if err != nil {
		return err
	}
	notFirst := func(s valueSource) bool { return !s.node(first.ID).Bit(0) }
	gNotFirst := &gate{notFirst, "!" + m.svRef(first)}

	// Constants in their formats.
	konst := map[string]uint64{}
	for _, c := range d.Constants() {
		konst[c.Name] = c.Raw
	}
	etaU, err := rawOf(fm.U, new(big.Rat).SetFloat64(cfg.Eta))
	if err != nil {
		return fmt.Errorf("coverage: eta in U: %w", err)
	}
	oneU, err := rawOf(fm.U, big.NewRat(1, 1))
	if err != nil {
		return fmt.Errorf("coverage: 1.0 in U: %w", err)
	}
	uMax := maxOf(fm.U.W)
	m.addRanges("u", "U after the update (ns_u): zero, below eta, [eta, 1), [1, max), saturated at max", nsU, []rangeBin{
		{"zero", 0, 0}, {"below_eta", 1, etaU - 1}, {"eta_to_one", etaU, oneU - 1}, {"one_to_max", oneU, uMax - 1}, {"max", uMax, uMax}}, gNotFirst)

	wMin, wMax, wInit := konst["w_min"], konst["w_max"], konst["w_init"]
	m.addRanges("w", "W after the update (ns_w): at W_min, W_init and W_max (each once, in order) and the values between them", nsW, windowBins(wMin, wInit, wMax), nil)
	wAll := maxOf(fm.W.W)
	m.addRanges("wc", "Wc register read (st_wc): zero, below W_min, [W_min, W_max], above W_max (a state W never writes), all ones", stWc, []rangeBin{
		{"zero", 0, 0}, {"below_min", 1, wMin - 1}, {"in_range", max(wMin, 1), wMax}, {"above_max", wMax + 1, wAll - 1}, {"all_ones", wAll, wAll}}, nil)
	rMin, rMax := d.Rate(wMin), d.Rate(wMax)
	m.addRanges("rate", "pacing rate out_rate = W/T: at W_min/T, between, at W_max/T", outRate, []rangeBin{
		{"at_min", rMin, rMin}, {"between", rMin + 1, rMax - 1}, {"at_max", rMax, rMax}}, nil)

	var incBins []rangeBin
	for s := 0; s <= cfg.MaxStage; s++ {
		incBins = append(incBins, rangeBin{"s" + strconv.Itoa(s), uint64(s), uint64(s)})
	}
	if top := maxOf(stInc.Width); top > uint64(cfg.MaxStage) {
		incBins = append(incBins, rangeBin{"above_max_stage", uint64(cfg.MaxStage) + 1, top})
	}
	m.addRanges("inc_stage", fmt.Sprintf("incStage read (st_inc_stage): 0..maxStage=%d, and the register values above it", cfg.MaxStage), stInc, incBins, gNotFirst)

	var nhBins []rangeBin
	for h := 0; h <= cfg.MaxHops; h++ {
		nhBins = append(nhBins, rangeBin{"n" + strconv.Itoa(h), uint64(h), uint64(h)})
	}
	if top := maxOf(inNH.Width); top > uint64(cfg.MaxHops) {
		nhBins = append(nhBins, rangeBin{"above_max_hops", uint64(cfg.MaxHops) + 1, top})
	}
	m.addRanges("nhops", fmt.Sprintf("hop count of the event (in_nhops): 0..MaxHops=%d, and above", cfg.MaxHops), inNH, nhBins, gNotFirst)

	var selBins []rangeBin
	for h := 0; h < cfg.MaxHops; h++ {
		selBins = append(selBins, rangeBin{"hop" + strconv.Itoa(h), uint64(h), uint64(h)})
	}
	selBins = append(selBins, rangeBin{"none", uint64(cfg.MaxHops), uint64(cfg.MaxHops)}) // out_sel_hop encodes "none" as MaxHops
	m.addRanges("sel_hop", "selected hop (out_sel_hop) of a non-first event", sel, selBins, gNotFirst)

	// Per hop: dts, qlen, speed code, txRate, egress carry.
	e := cfg.Encoding
	maxQ := uint64(cfg.MaxQueueBytes) / uint64(e.QlenUnit())
	speeds := e.SpeedTable()
	for i := 0; i < cfg.MaxHops; i++ {
		p := "in_hop" + strconv.Itoa(i) + "_"
		hs := "h" + strconv.Itoa(i)
		bit := i
		valid := func(s valueSource) bool { return s.node(hv.ID).Bit(bit) }
		dts := nodeNamed(hs + "_dts")
		qlen, speed := need(p+"qlen"), need(p+"speed")
		if err != nil {
			return err
		}
		T, mx := uint64(cfg.BaseRTTNs), cfg.MaxDeltaTsNs
		m.addRanges(hs+"_dts", fmt.Sprintf("hop %d egress-time difference %s_dts: 0, 1 ns, below T, [T, MaxDeltaTsNs], above MaxDeltaTsNs (no measurement)", i, hs), dts, []rangeBin{
			{"zero", 0, 0}, {"one", 1, 1}, {"below_t", 2, T - 1}, {"t_to_max", T, mx}, {"above_max", mx + 1, maxOf(min(dts.Width, 64))}}, gNotFirst)
		fq := maxOf(qlen.Width)
		m.addRanges(hs+"_qlen", fmt.Sprintf("hop %d queue length as carried (%s): 0, up to MaxQueueBytes/4, up to MaxQueueBytes, above it, all ones", i, p+"qlen"), qlen, []rangeBin{
			{"zero", 0, 0}, {"quarter", 1, maxQ / 4}, {"up_to_max", maxQ/4 + 1, min(maxQ, fq-1)}, {"above_max", maxQ + 1, fq - 1}, {"all_ones", fq, fq}}, nil)
		var spBins []rangeBin
		for c, g := range speeds {
			name := fmt.Sprintf("code%d_%dG", c, g)
			if g == 0 {
				name = fmt.Sprintf("code%d_reserved", c)
			}
			spBins = append(spBins, rangeBin{name, uint64(c), uint64(c)})
		}
		inPath := func(s valueSource) bool {
			return notFirst(s) && s.node(inNH.ID).Uint64() > uint64(bit)
		}
		m.addRanges(hs+"_speed", fmt.Sprintf("hop %d speed code (%s) of an in-path hop", i, p+"speed"), speed, spBins,
			&gate{inPath, fmt.Sprintf("!%s && %s > %d", m.svRef(first), m.svRef(inNH), i)})
		if err := m.addTxRate(i, &gate{valid, fmt.Sprintf("%s[%d]", m.svRef(hv), i)}, speeds); err != nil {
			return err
		}
		if e == telemetry.IFA {
			carry := nodeNamed(hs + "_eg_carry")
			if err != nil {
				return err
			}
			var cb []rangeBin
			for k := 0; k <= 8; k++ {
				cb = append(cb, rangeBin{"c" + strconv.Itoa(k), uint64(k), uint64(k)})
			}
			m.addRanges(hs+"_eg_carry", fmt.Sprintf("hop %d egress-time carry (seconds added by rx_ns + residence), time-carry case x hop", i), carry, cb, nil)
		}
	}
	if err != nil {
		return err
	}
	return m.addHPCCCrosses(cfg, first, mi, upd, stInc, sel, inNH, nsW, wMin, wMax)
}

// windowBins are the bins of W: each of W_min, W_init and W_max exactly
// (merged where equal) and the open intervals between them.
func windowBins(wMin, wInit, wMax uint64) []rangeBin {
	type pt struct {
		v    uint64
		name string
	}
	pts := []pt{{wMin, "min"}}
	if wInit == wMin {
		pts[0].name += "_init"
	} else {
		pts = append(pts, pt{wInit, "init"})
	}
	if wMax == pts[len(pts)-1].v {
		pts[len(pts)-1].name += "_max"
	} else {
		pts = append(pts, pt{wMax, "max"})
	}
	var rs []rangeBin
	for i, p := range pts {
		if i > 0 && pts[i-1].v+1 <= p.v-1 {
			rs = append(rs, rangeBin{"between_" + pts[i-1].name + "_" + p.name, pts[i-1].v + 1, p.v - 1})
		}
		rs = append(rs, rangeBin{"at_" + p.name, p.v, p.v})
	}
	return rs
}

// addTxRate adds hop i's txRate point: the counter increase over dts, in
// bytes per ns, against the hop's link speed B: zero, up to B/4, up to B,
// up to 2B (a sample faster than the link: counters sampled at different
// instants), above 2B. Computed from the ports (d_tx * unit * 8 against
// Gbps * dts), for valid hops.
func (m *Model) addTxRate(i int, valid *gate, speeds []uint32) error {
	p := "in_hop" + strconv.Itoa(i) + "_"
	tx, err := m.port(p + "tx_bytes")
	if err != nil {
		return err
	}
	stTx, err := m.port("st_hop" + strconv.Itoa(i) + "_tx_bytes")
	if err != nil {
		return err
	}
	sp, err := m.port(p + "speed")
	if err != nil {
		return err
	}
	var dts *rtl.Node
	for _, n := range m.f.Nodes {
		if n.Name == "h"+strconv.Itoa(i)+"_dts" {
			dts = n
		}
	}
	if dts == nil {
		return fmt.Errorf("coverage: %s has no node h%d_dts", m.Design, i)
	}
	unit := txUnit(tx.Width)
	w := tx.Width
	txID, stID, spID, dID := tx.ID, stTx.ID, sp.ID, dts.ID
	bins := []Bin{{Name: "zero"}, {Name: "up_to_quarter_line"}, {Name: "up_to_line"}, {Name: "up_to_twice_line"}, {Name: "above_twice_line"}}
	m.add(Point{Name: "h" + strconv.Itoa(i) + "_tx_rate", Kind: KindField, Node: fmt.Sprintf("(%s - %s) / h%d_dts", tx.Name, stTx.Name, i),
		Doc:  fmt.Sprintf("hop %d txRate of a valid hop against its link speed B: 0, <= B/4, <= B, <= 2B, > 2B", i),
		Bins: bins, src: []*rtl.Node{tx, stTx, sp, dts},
		sample: func(s valueSource) int {
			if !valid.ok(s) {
				return -1
			}
			dtx := (s.node(txID).Uint64() - s.node(stID).Uint64()) & maxOf(w)
			g := uint64(0)
			if c := s.node(spID).Uint64(); c < uint64(len(speeds)) {
				g = uint64(speeds[c])
			}
			d := s.node(dID).Uint64()
			if dtx == 0 {
				return 0
			}
			bits := dtx * unit * 8 // bits moved; line moves g bits per ns
			line := g * d
			switch {
			case 4*bits <= line:
				return 1
			case bits <= line:
				return 2
			case bits <= 2*line:
				return 3
			}
			return 4
		},
		sv: m.svTxRate(tx, stTx, sp, dts, unit, speeds, valid.sv)})
	return nil
}

// txUnit is the txBytes counter unit in bytes for the model's encoding,
// read back from the table width (IFA counts bytes in 32 bits; Compact
// counts 128-byte units in 20 bits).
func txUnit(w int) uint64 {
	if w == telemetry.IFA.TxBytesBits() {
		return uint64(telemetry.IFA.TxBytesUnit())
	}
	return uint64(telemetry.Compact.TxBytesUnit())
}

// addHPCCCrosses adds the functional crosses.
func (m *Model) addHPCCCrosses(cfg hpcc.Config, first, mi, upd, stInc, sel, inNH, nsW *rtl.Node, wMin, wMax uint64) error {
	notFirst := func(s valueSource) bool { return !s.node(first.ID).Bit(0) }
	// MI/AI x incStage x update_wc.
	miProof := m.miForcedProof(stInc, cfg.MaxStage)
	nInc := cfg.MaxStage + 2 // 0..MaxStage, above
	var bins []Bin
	for b := 0; b < 2; b++ {
		for s := 0; s < nInc; s++ {
			for u := 0; u < 2; u++ {
				sn := "s" + strconv.Itoa(s)
				if s == nInc-1 {
					sn = "above_max_stage"
				}
				bn := Bin{Name: fmt.Sprintf("%s_%s_%s", []string{"ai", "mi"}[b], sn, []string{"hold", "commit"}[u])}
				if b == 0 && s >= cfg.MaxStage && miProof != "" {
					bn.Unreachable = miProof
				}
				if s == nInc-1 && maxOf(stInc.Width) <= uint64(cfg.MaxStage) {
					bn.Unreachable = fmt.Sprintf("st_inc_stage is %d bits: no value above maxStage=%d", stInc.Width, cfg.MaxStage)
				}
				bins = append(bins, bn)
			}
		}
	}
	miID, updID, incID := mi.ID, upd.ID, stInc.ID
	ms := uint64(cfg.MaxStage)
	m.add(Point{Name: "x_branch_inc_update", Kind: KindCross, Node: "out_mi x st_inc_stage x out_update_wc",
		Doc: "ComputeWind branch (AI/MI) x incStage read x Wc commit, non-first events", Bins: bins, src: []*rtl.Node{mi, stInc, upd},
		sample: func(s valueSource) int {
			if !notFirst(s) {
				return -1
			}
			st := s.node(incID).Uint64()
			si := int(min(st, ms+1))
			return (b2i(s.node(miID).Bit(0))*nInc+si)*2 + b2i(s.node(updID).Bit(0))
		},
		sv: svIndex(fmt.Sprintf("((%s * %d + ((%s > %d) ? %d : %s)) * 2 + %s)", m.svRef(mi), nInc, m.svRef(stInc), ms, ms+1, m.svRef(stInc), m.svRef(upd)), "!"+m.svRef(first), len(bins))})

	// sel_hop x nhops.
	selProof := m.selInPathProof(cfg.MaxHops)
	var sb []Bin
	nNH := cfg.MaxHops + 2              // 0..MaxHops, above
	for h := 0; h <= cfg.MaxHops; h++ { // hop index, MaxHops = none
		for n := 0; n < nNH; n++ {
			hn := "hop" + strconv.Itoa(h)
			if h == cfg.MaxHops {
				hn = "none"
			}
			nn := "n" + strconv.Itoa(n)
			if n == nNH-1 {
				nn = "above_max_hops"
			}
			b := Bin{Name: hn + "_" + nn}
			if h < cfg.MaxHops && (n <= h || n == nNH-1) {
				b.Unreachable = selProof
			}
			if n == nNH-1 && maxOf(inNH.Width) <= uint64(cfg.MaxHops) {
				b.Unreachable = fmt.Sprintf("in_nhops is %d bits: no value above MaxHops=%d", inNH.Width, cfg.MaxHops)
			}
			sb = append(sb, b)
		}
	}
	selID, nhID := sel.ID, inNH.ID
	mh := uint64(cfg.MaxHops)
	m.add(Point{Name: "x_sel_hop_nhops", Kind: KindCross, Node: "out_sel_hop x in_nhops",
		Doc: "selected hop x hop count, non-first events", Bins: sb, src: []*rtl.Node{sel, inNH},
		sample: func(s valueSource) int {
			if !notFirst(s) {
				return -1
			}
			h := s.node(selID).Uint64() // MaxHops: none
			if h > mh {
				return -1
			}
			n := min(s.node(nhID).Uint64(), mh+1)
			return int(h)*nNH + int(n)
		},
		sv: svIndex(fmt.Sprintf("(%s * %d + ((%s > %d) ? %d : %s))", m.svRef(sel), nNH, m.svRef(inNH), mh, mh+1, m.svRef(inNH)),
			fmt.Sprintf("!%s && %s <= %d", m.svRef(first), m.svRef(sel), mh), len(sb))})

	// w_clamp x branch.
	var cb []Bin
	for _, c := range []string{"inside", "at_min", "at_max"} {
		for _, b := range []string{"ai", "mi"} {
			cb = append(cb, Bin{Name: c + "_" + b})
		}
	}
	wID := nsW.ID
	m.add(Point{Name: "x_w_clamp_branch", Kind: KindCross, Node: "ns_w x out_mi",
		Doc: "new W inside, at W_min, at W_max x branch, non-first events", Bins: cb, src: []*rtl.Node{nsW, mi},
		sample: func(s valueSource) int {
			if !notFirst(s) {
				return -1
			}
			w := s.node(wID).Uint64()
			c := 0
			switch w {
			case wMin:
				c = 1
			case wMax:
				c = 2
			}
			return c*2 + b2i(s.node(miID).Bit(0))
		},
		sv: svIndex(fmt.Sprintf("(((%s == %d) ? 1 : (%s == %d) ? 2 : 0) * 2 + %s)", m.svRef(nsW), wMin, m.svRef(nsW), wMax, m.svRef(mi)), "!"+m.svRef(first), len(cb))})
	return nil
}

// miForcedProof checks, on the description, that the branch flag mi is an
// or whose operands include st_inc_stage >= MaxStage, and returns that
// proof ("" when the structure is not found: the bins stay reachable).
func (m *Model) miForcedProof(stInc *rtl.Node, maxStage int) string {
	for _, n := range m.f.Nodes {
		if n.Name != "mi" || n.Op != rtl.OpOr {
			continue
		}
		for _, a := range n.Args {
			if a.Op == rtl.OpGe && peel(a.Args[0]) == stInc && peel(a.Args[1]).Op == rtl.OpConst && peel(a.Args[1]).Value.Uint64() == uint64(maxStage) {
				return fmt.Sprintf("description: mi = or(..., st_inc_stage >= %d) (line 12): incStage >= maxStage forces the multiplicative branch", maxStage)
			}
		}
	}
	return ""
}

// selInPathProof checks that every hop's measurement flag h<i>_ok is an
// and-tree holding h<i>_in_path = i < in_nhops, and returns that proof.
func (m *Model) selInPathProof(maxHops int) string {
	found := 0
	for i := 0; i < maxHops; i++ {
		var ok, ip *rtl.Node
		for _, n := range m.f.Nodes {
			switch n.Name {
			case "h" + strconv.Itoa(i) + "_ok":
				ok = n
			case "h" + strconv.Itoa(i) + "_in_path":
				ip = n
			}
		}
		var take, pathOK *rtl.Node
		for _, n := range m.f.Nodes {
			switch n.Name {
			case "h" + strconv.Itoa(i) + "_take":
				take = n
			case "path_ok":
				pathOK = n
			}
		}
		if ok != nil && ip != nil && take != nil && pathOK != nil && andTreeHas(ok, ip) && andTreeHas(ok, pathOK) && andTreeHas(take, ok) {
			found++
		}
	}
	if found != maxHops {
		return ""
	}
	return "description: hop i is selected only when h<i>_take, an and over h<i>_ok, which is an and over h<i>_in_path (i < in_nhops) and path_ok (in_nhops = st_nhops <= MaxHops)"
}

// andTreeHas reports whether leaf is an operand of the tree of ands at n.
func andTreeHas(n, leaf *rtl.Node) bool {
	if n == leaf {
		return true
	}
	if n.Op != rtl.OpAnd {
		return false
	}
	for _, a := range n.Args {
		if andTreeHas(a, leaf) {
			return true
		}
	}
	return false
}
