package guardrtl

import (
	"fmt"
	"strconv"

	"github.com/hpccgold/hpccgold/cc/intguard"
	"github.com/hpccgold/hpccgold/rtl"
	"github.com/hpccgold/hpccgold/telemetry"
)

// Port names of the handshake added to int_guard by the pipeliner.
const (
	ValidIn  = "in_valid"
	ValidOut = "out_valid"
)

// Name is the module name, intguard.ModelName ("int_guard").
const Name = intguard.ModelName

// Comb returns the combinational int_guard (no clock, no handshake).
func Comb(cfg intguard.Config) (*rtl.Module, error) {
	g, err := intguard.New(cfg)
	if err != nil {
		return nil, err
	}
	return rtl.CombUpdate(spec(g))
}

// Pipelined returns int_guard pipelined into stages register stages
// (latency = stages cycles, II 1) with the in_valid/out_valid handshake,
// and the pipeliner's per-stage report.
func Pipelined(cfg intguard.Config, stages int) (*rtl.Module, []rtl.StageReport, error) {
	g, err := intguard.New(cfg)
	if err != nil {
		return nil, nil, err
	}
	return rtl.PipelinedUpdate(spec(g), stages)
}

func spec(g *intguard.Guard) rtl.UpdateSpec {
	cfg := g.Config()
	return rtl.UpdateSpec{
		Comb:         func() (*rtl.Module, error) { return build(g) },
		ValidIn:      ValidIn,
		ValidOut:     ValidOut,
		Pkg:          "guardrtl",
		ConfigSource: "cc/intguard",
		ConfigJSON:   cfg.JSON,
	}
}

// hopPorts are one hop slot's ports.
type hopPorts struct {
	stTs, stTx, stID                  *rtl.Node // stID nil without identity tracking
	speed, ts, rxSec, rxNs, residence *rtl.Node // ts Compact only; rxSec, rxNs, residence IFA only
	tx, qlen, deviceID, egressPort    *rtl.Node // deviceID, egressPort with identity tracking only
}

// ports is the typed record of int_guard's input ports.
type ports struct {
	stValid, stNHops, nhops *rtl.Node
	hops                    [intguard.MaxHopsLimit]hopPorts
}

// slots names every port of the configuration and its record field: the
// one place the port names are spelt.
func (p *ports) slots(cfg intguard.Config) map[string]**rtl.Node {
	s := map[string]**rtl.Node{"st_valid": &p.stValid, "st_nhops": &p.stNHops, "in_nhops": &p.nhops}
	dp := cfg.Datapath
	for i := 0; i < dp.MaxHops; i++ {
		st, in := "st_hop"+strconv.Itoa(i)+"_", "in_hop"+strconv.Itoa(i)+"_"
		h := &p.hops[i]
		s[st+"ts"], s[st+"tx_bytes"] = &h.stTs, &h.stTx
		s[in+"speed"], s[in+"tx_bytes"], s[in+"qlen"] = &h.speed, &h.tx, &h.qlen
		if dp.Encoding == telemetry.Compact {
			s[in+"ts"] = &h.ts
		} else {
			s[in+"rx_sec"], s[in+"rx_ns"], s[in+"residence"] = &h.rxSec, &h.rxNs, &h.residence
		}
		if dp.HopIDBits() > 0 {
			s[st+"id"], s[in+"device_id"], s[in+"egress_port"] = &h.stID, &h.deviceID, &h.egressPort
		}
	}
	return s
}

func bindPorts(g *intguard.Guard, m *rtl.Module) (*ports, error) {
	p := &ports{}
	slots := p.slots(g.Config())
	for _, f := range g.InputTable().Fields {
		s, ok := slots[f.Name]
		if !ok {
			return nil, fmt.Errorf("guardrtl: input field %s has no port slot", f.Name)
		}
		*s = m.In(f.Name, f.Width, false).WithDoc(f.Doc)
		delete(slots, f.Name)
	}
	for name := range slots {
		return nil, fmt.Errorf("guardrtl: port slot %s has no input field", name)
	}
	return p, nil
}

func bitsFor(v uint64) int {
	n := 0
	for ; v != 0; v >>= 1 {
		n++
	}
	return max(n, 1)
}

// build describes int_guard (docs/guard.md, "Signals").
func build(g *intguard.Guard) (*rtl.Module, error) {
	cfg := g.Config()
	dp := cfg.Datapath
	e := dp.Encoding
	k := g.Constants()
	m := rtl.NewModule(Name, "telemetry integrity guard before hpcc_update (draft-miao-tsv-hpcc section 9.1; docs/guard.md)")
	p, err := bindPorts(g, m)
	if err != nil {
		return nil, err
	}
	c := func(w int, v uint64) *rtl.Node { return m.Const(w, false, v) }
	b2 := func(v bool) *rtl.Node {
		if v {
			return c(1, 1)
		}
		return c(1, 0)
	}
	nhb := dp.NHopsBits()
	mh := dp.MaxHops
	stValid := p.stValid
	countChange := m.And(stValid, m.Ne(p.nhops, p.stNHops)).Named("count_change")
	codes := e.SpeedCodes()
	allowed := make([]uint64, codes)
	c2 := make([]uint64, codes)
	maxC2 := uint64(0)
	for code := 0; code < codes; code++ {
		if k.Allowed[code] {
			allowed[code] = 1
		}
		c2[code] = k.C2[code]
		maxC2 = max(maxC2, c2[code])
	}
	c2w := bitsFor(maxC2)
	qb, txb, tsb := e.QlenBits(), e.TxBytesBits(), dp.HopTsBits()
	var fired [intguard.NumChecks][]*rtl.Node
	var drop, inPath []*rtl.Node
	type hopOut struct{ speed, qlen, stTs, stTx *rtl.Node }
	outs := make([]hopOut, mh)
	for i := 0; i < mh; i++ {
		h := &p.hops[i]
		hp := fmt.Sprintf("h%d_", i)
		in := m.Lt(c(nhb, uint64(i)), p.nhops).Named(hp + "in_path")
		inPath = append(inPath, in)
		// qlen: clamp above the buffer.
		qHi := m.AndAll(b2(cfg.Qlen.Enable), in, m.Gt(h.qlen, c(qb, k.Qmax))).Named(hp + "qlen_hi")
		qOut := m.Mux(qHi, c(qb, k.Qmax), h.qlen)
		// speed: clamp a code outside the deployed set.
		spBad := m.AndAll(b2(cfg.Speed.Enable), in, m.Not(m.ROM(h.speed, 1, allowed))).Named(hp + "speed_bad")
		spOut := m.Mux(spBad, c(e.SpeedBits(), uint64(k.SlowCode)), h.speed).Named(hp + "speed_out")
		// The stored form of the event's egress time (cc/hpcc HopState.Ts).
		var ts *rtl.Node
		if e == telemetry.Compact {
			ts = h.ts
		} else {
			t := m.Add(m.ZExt(h.rxNs, 33), m.ZExt(h.residence, 33)).Named(hp + "eg_t")
			carry := c(4, 0)
			mults := make([]uint64, 9)
			for j := 1; j <= 8; j++ {
				carry = m.Add(carry, m.ZExt(m.Ge(t, c(33, uint64(j)*telemetry.NsPerSecond)), 4))
				mults[j] = uint64(j) * telemetry.NsPerSecond
			}
			ns := m.Slice(m.Sub(t, m.ROM(carry, 33, mults)), 0, telemetry.IFAEgressNsBits)
			sec := m.Add(h.rxSec, m.ZExt(carry, telemetry.IFARxSecBits))
			ts = m.Concat(sec, ns)
		}
		ts = ts.Named(hp + "ts")
		// path: hop count or identity changed.
		chg := countChange
		if h.stID != nil {
			idChg := m.And(stValid, m.Ne(m.Concat(h.deviceID, h.egressPort), h.stID)).Named(hp + "id_change")
			chg = m.Or(chg, idChg)
		}
		path := m.AndAll(b2(cfg.Path.Enable), in, chg).Named(hp + "path")
		comparable := m.AndAll(stValid, in, m.Not(chg)).Named(hp + "comparable")
		// time: zero or negative delta.
		var dts *rtl.Node
		if e == telemetry.Compact {
			dts = m.Sub(ts, h.stTs)
		} else {
			nb, sb := telemetry.IFAEgressNsBits, telemetry.IFARxSecBits
			cs, cn := m.Slice(ts, nb, sb), m.Slice(ts, 0, nb)
			ps, pn := m.Slice(h.stTs, nb, sb), m.Slice(h.stTs, 0, nb)
			borrow := m.Lt(cn, pn)
			dsec := m.Sub(m.Sub(cs, ps), m.ZExt(borrow, sb))
			dns := m.Sub(m.Add(m.ZExt(cn, 31), m.Mux(borrow, c(31, telemetry.NsPerSecond), c(31, 0))), m.ZExt(pn, 31))
			secNs := m.Mul(dsec, c(30, telemetry.NsPerSecond))
			dts = m.Add(m.ZExt(secNs, 51), m.ZExt(dns, 51))
		}
		dts = dts.Named(hp + "dts")
		dw := dts.Width
		stale := m.Or(m.IsZero(dts), m.Ge(m.ZExt(dts, 64), c(64, k.NegFrom))).Named(hp + "stale")
		tm := m.AndAll(b2(cfg.Time.Enable), comparable, stale).Named(hp + "time")
		// rate: dB above floor(dts * C2[code] / 2^shift).
		c2v := m.ROM(spOut, c2w, c2).Named(hp + "c2")
		prod := m.Mul(dts, c2v) // dw + c2w bits, exact
		lim := m.Slice(prod, int(k.Shift), dw+c2w-int(k.Shift)).Named(hp + "db_max")
		dB := m.Sub(h.tx, h.stTx).Named(hp + "db")
		lw := max(lim.Width, txb)
		rateConds := []*rtl.Node{b2(cfg.Rate.Enable), comparable, m.Not(stale), m.Gt(m.ZExt(dB, lw), m.ZExt(lim, lw))}
		if !cfg.Speed.Enable {
			// A reserved code reaches the rate check only when the speed
			// check is off (it clamps every code outside the deployed set,
			// which has no reserved code): C2 = 0 gates it there.
			rateConds = append(rateConds, m.Not(m.IsZero(c2v)))
		}
		rate := m.AndAll(rateConds...).Named(hp + "rate")
		stTx := m.Mux(rate, m.Sub(h.tx, m.Slice(lim, 0, txb)), h.stTx)
		dr := m.Or(path, tm).Named(hp + "drop")
		stTs := m.Mux(dr, ts, h.stTs)
		for ck, n := range []*rtl.Node{qHi, rate, spBad, path, tm} {
			fired[ck] = append(fired[ck], n)
		}
		drop = append(drop, dr)
		outs[i] = hopOut{spOut, qOut, stTs, stTx}
		_ = tsb
	}
	mask := func(ns []*rtl.Node) *rtl.Node {
		rev := make([]*rtl.Node, len(ns))
		for i, n := range ns {
			rev[len(ns)-1-i] = n
		}
		return m.Concat(rev...)
	}
	pathMask := mask(inPath)
	timeMask := mask(fired[intguard.CheckTime])
	nhOK := m.AndAll(m.Not(m.IsZero(p.nhops)))
	if uint64(mh) < 1<<uint(nhb)-1 {
		nhOK = m.And(nhOK, m.Le(p.nhops, c(nhb, uint64(mh))))
	}
	dropEvent := m.AndAll(b2(cfg.Time.Enable), stValid, m.Not(countChange), nhOK, m.Eq(timeMask, pathMask)).Named("drop_event")
	res := map[string]*rtl.Node{"out_drop_event": dropEvent, "out_drop": mask(drop)}
	for ck := intguard.Check(0); ck < intguard.NumChecks; ck++ {
		res["out_"+ck.String()] = mask(fired[ck])
	}
	for i, o := range outs {
		pfx := "out_hop" + strconv.Itoa(i) + "_"
		res[pfx+"speed"], res[pfx+"qlen"], res[pfx+"st_ts"], res[pfx+"st_tx_bytes"] = o.speed, o.qlen, o.stTs, o.stTx
	}
	for _, f := range g.OutputTable().Fields {
		n, ok := res[f.Name]
		if !ok {
			return nil, fmt.Errorf("guardrtl: output field %s: not produced by the description", f.Name)
		}
		if n.Width != f.Width {
			return nil, fmt.Errorf("guardrtl: output field %s: %d bits, description has %d", f.Name, f.Width, n.Width)
		}
		m.Out(f.Name, n, f.Doc)
		delete(res, f.Name)
	}
	for name := range res {
		return nil, fmt.Errorf("guardrtl: description output %s has no field", name)
	}
	if err := m.Check(); err != nil {
		return nil, err
	}
	return m, nil
}
