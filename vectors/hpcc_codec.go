package vectors

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/fieldtable"
)

// hpccCodec packs and unpacks HPCC transactions without the per-field
// closures of hpcc.Datapath.PackInput & co.: the field tables (hpcc's, the
// one source of the layout) are compiled once into a list of (struct field,
// offset, width) operations, resolved from the field names. NewHPCC checks
// the compiled codec against hpcc's Pack/Unpack on sample transactions and
// falls back to hpcc's own functions if any field is unknown or any
// sample disagrees, so the layout can never come from this file.
type hpccCodec struct {
	in, out []codecOp
	// straight: the layout is the one packInDefault and packOutDefault
	// were generated for (hpcc_packfast.go).
	straight bool
}

type opKind uint8

const (
	kValid opKind = iota
	kNHops
	kW
	kWc
	kU
	kInc
	kLast
	kHopTs
	kHopTx
	kHopQ
	kHopID
	kSeq
	kSndNxt
	kNow
	kNFlows
	kInNHops
	kInSpeed
	kInTs
	kInRxSec
	kInRxNs
	kInRes
	kInTx
	kInQ
	kInDev
	kInPort
	kRate
	kFirst
	kMI
	kUpd
	kNotify
	kSel
	kValidHops
)

type codecOp struct {
	mask  uint64
	src   uint16 // slot index (see flatten)
	word  uint16 // index of the word holding the field's LSB
	shift uint8  // bit position of the LSB in that word
	k     opKind
	hop   uint8
	width uint8
}

var stateKinds = map[string]opKind{"valid": kValid, "nhops": kNHops, "w": kW, "wc": kWc, "u": kU, "inc_stage": kInc, "last_update": kLast}
var stateHopKinds = map[string]opKind{"ts": kHopTs, "tx_bytes": kHopTx, "qlen": kHopQ, "id": kHopID}
var eventKinds = map[string]opKind{"in_seq": kSeq, "in_snd_nxt": kSndNxt, "in_now": kNow, "in_nflows": kNFlows, "in_nhops": kInNHops}
var eventHopKinds = map[string]opKind{"speed": kInSpeed, "ts": kInTs, "rx_sec": kInRxSec, "rx_ns": kInRxNs, "residence": kInRes,
	"tx_bytes": kInTx, "qlen": kInQ, "device_id": kInDev, "egress_port": kInPort}
var outKinds = map[string]opKind{"out_rate": kRate, "out_first": kFirst, "out_mi": kMI, "out_update_wc": kUpd, "out_notify": kNotify,
	"out_sel_hop": kSel, "out_hop_valid": kValidHops}

// splitHop parses "hop<i>_<rest>".
func splitHop(s string) (int, string, bool) {
	if !strings.HasPrefix(s, "hop") {
		return 0, "", false
	}
	num, rest, ok := strings.Cut(s[3:], "_")
	i, err := strconv.Atoi(num)
	if !ok || err != nil || i < 0 || i >= hpcc.MaxHopsLimit {
		return 0, "", false
	}
	return i, rest, true
}

// compileOps resolves every field of t; statePrefix is "st_" or "ns_".
func compileOps(t fieldtable.Table, statePrefix string) ([]codecOp, error) {
	var ops []codecOp
	for _, f := range t.Fields {
		op := codecOp{word: uint16(f.Offset / 64), shift: uint8(f.Offset % 64), width: uint8(f.Width), mask: fieldtable.Mask(f.Width)}
		ok := false
		switch {
		case strings.HasPrefix(f.Name, statePrefix):
			rest := f.Name[len(statePrefix):]
			if op.k, ok = stateKinds[rest]; !ok {
				var i int
				var name string
				if i, name, ok = splitHop(rest); ok {
					op.hop = uint8(i)
					op.k, ok = stateHopKinds[name]
				}
			}
		case strings.HasPrefix(f.Name, "in_hop"):
			var i int
			var name string
			if i, name, ok = splitHop(f.Name[3:]); ok {
				op.hop = uint8(i)
				op.k, ok = eventHopKinds[name]
			}
		case strings.HasPrefix(f.Name, "in_"):
			op.k, ok = eventKinds[f.Name]
		case strings.HasPrefix(f.Name, "out_"):
			op.k, ok = outKinds[f.Name]
		}
		if !ok {
			return nil, fmt.Errorf("field %s of %s: not known to the fast codec", f.Name, t.Name)
		}
		op.src = uint16(slot(op.k, int(op.hop)))
		ops = append(ops, op)
	}
	return ops, nil
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// Flat value slots: every struct field the tables can carry has a slot
// in a [numSlots]uint64 array; slot = kind*MaxHopsLimit + hop.
const numSlots = int(kValidHops+1) * hpcc.MaxHopsLimit

func slot(k opKind, hop int) int { return int(k)*hpcc.MaxHopsLimit + hop }

// flatten copies the structs (any may be nil) into slots, straight-line.
func flatten(v *[numSlots]uint64, st *hpcc.State, in *hpcc.Input, out *hpcc.Output, maxHops int) {
	if st != nil {
		v[slot(kValid, 0)] = b2u(st.Valid)
		v[slot(kNHops, 0)] = uint64(st.NHops)
		v[slot(kW, 0)] = st.W
		v[slot(kWc, 0)] = st.Wc
		v[slot(kU, 0)] = st.U
		v[slot(kInc, 0)] = uint64(st.IncStage)
		v[slot(kLast, 0)] = st.LastUpdate
		for i := 0; i < maxHops; i++ {
			hs := &st.Hops[i]
			v[slot(kHopTs, i)] = hs.Ts
			v[slot(kHopTx, i)] = uint64(hs.TxBytes)
			v[slot(kHopQ, i)] = uint64(hs.Qlen)
			v[slot(kHopID, i)] = hs.ID
		}
	}
	if in != nil {
		v[slot(kSeq, 0)] = in.Seq
		v[slot(kSndNxt, 0)] = in.SndNxt
		v[slot(kNow, 0)] = in.NowNs
		v[slot(kNFlows, 0)] = uint64(in.NFlows)
		v[slot(kInNHops, 0)] = uint64(in.NHops)
		for i := 0; i < maxHops; i++ {
			h := &in.Hops[i]
			v[slot(kInSpeed, i)] = uint64(h.SpeedCode)
			v[slot(kInTs, i)] = uint64(h.Ts)
			v[slot(kInRxSec, i)] = uint64(h.RxSec)
			v[slot(kInRxNs, i)] = uint64(h.RxNs)
			v[slot(kInRes, i)] = uint64(h.ResidenceNs)
			v[slot(kInTx, i)] = uint64(h.TxBytes)
			v[slot(kInQ, i)] = uint64(h.Qlen)
			v[slot(kInDev, i)] = uint64(h.DeviceID)
			v[slot(kInPort, i)] = uint64(h.EgressPort)
		}
	}
	if out != nil {
		v[slot(kRate, 0)] = out.Rate
		v[slot(kFirst, 0)] = b2u(out.First)
		v[slot(kMI, 0)] = b2u(out.MI)
		v[slot(kUpd, 0)] = b2u(out.UpdateWc)
		v[slot(kNotify, 0)] = b2u(out.Notify)
		sel := uint64(out.SelHop)
		if out.SelHop == hpcc.NoHop {
			sel = uint64(maxHops) // out_sel_hop encodes "none" as MaxHops
		}
		v[slot(kSel, 0)] = sel
		v[slot(kValidHops, 0)] = uint64(out.HopValid)
	}
}

// unflatten is the inverse of flatten for the state and the event.
func unflatten(v *[numSlots]uint64, st *hpcc.State, in *hpcc.Input, maxHops int) {
	st.Valid = v[slot(kValid, 0)] != 0
	st.NHops = uint8(v[slot(kNHops, 0)])
	st.W = v[slot(kW, 0)]
	st.Wc = v[slot(kWc, 0)]
	st.U = v[slot(kU, 0)]
	st.IncStage = uint8(v[slot(kInc, 0)])
	st.LastUpdate = v[slot(kLast, 0)]
	for i := 0; i < maxHops; i++ {
		hs := &st.Hops[i]
		hs.Ts = v[slot(kHopTs, i)]
		hs.TxBytes = uint32(v[slot(kHopTx, i)])
		hs.Qlen = uint32(v[slot(kHopQ, i)])
		hs.ID = v[slot(kHopID, i)]
	}
	in.Seq = v[slot(kSeq, 0)]
	in.SndNxt = v[slot(kSndNxt, 0)]
	in.NowNs = v[slot(kNow, 0)]
	in.NFlows = uint32(v[slot(kNFlows, 0)])
	in.NHops = uint8(v[slot(kInNHops, 0)])
	for i := 0; i < maxHops; i++ {
		h := &in.Hops[i]
		h.SpeedCode = uint8(v[slot(kInSpeed, i)])
		h.Ts = uint32(v[slot(kInTs, i)])
		h.RxSec = uint32(v[slot(kInRxSec, i)])
		h.RxNs = uint32(v[slot(kInRxNs, i)])
		h.ResidenceNs = uint32(v[slot(kInRes, i)])
		h.TxBytes = uint32(v[slot(kInTx, i)])
		h.Qlen = uint32(v[slot(kInQ, i)])
		h.DeviceID = uint32(v[slot(kInDev, i)])
		h.EgressPort = uint16(v[slot(kInPort, i)])
	}
}

// packOps writes the slots of ops into word. ops are in offset order
// (fieldtable lays fields out LSB first, contiguously), so each word is
// built in a register and stored once; the part of a field that spills into
// the next word is x >> (64 - shift), which Go defines as 0 when shift is 0
// and which is 0 anyway when the field does not straddle. A value wider
// than its field is an error naming the field, as fieldtable.Put.
func packOps(t *fieldtable.Table, ops []codecOp, v *[numSlots]uint64, word []uint64) error {
	var acc, carry, bad uint64
	w := 0
	for i := range ops {
		op := &ops[i]
		x := v[op.src]
		bad |= x &^ op.mask
		if int(op.word) != w {
			word[w] = acc
			w, acc, carry = int(op.word), carry, 0
		}
		acc |= x << op.shift
		carry |= x >> (64 - op.shift)
	}
	word[w] = acc
	if w+1 < len(word) {
		word[w+1] = carry
		clear(word[w+2:])
	}
	if bad != 0 {
		for i := range ops {
			if x := v[ops[i].src]; x&^ops[i].mask != 0 {
				return fmt.Errorf("vectors: hpcc: %s: field %s: value %#x does not fit %d bits", t.Name, t.Fields[i].Name, x, ops[i].width)
			}
		}
	}
	return nil
}

// unpackOps reads the fields of ops from word into their slots, branch
// free: the high part comes from the next word (the same word for the last
// one), and bits beyond the field are masked off.
func unpackOps(ops []codecOp, v *[numSlots]uint64, word []uint64) {
	last := len(word) - 1
	for i := range ops {
		op := &ops[i]
		nx := min(int(op.word)+1, last)
		x := word[op.word]>>op.shift | word[nx]<<(64-op.shift)
		v[op.src] = x & op.mask
	}
}

// codecScratch holds the slot arrays of one goroutine. pack is
// overwritten by flatten for every slot a table can reference (all kinds,
// hops below MaxHops), so it needs no clearing; unpack is written only at
// the slots of the input table, so its other slots stay zero, as hpcc's
// Unpack leaves fields outside the table.
type codecScratch struct {
	pack, unpack [numSlots]uint64
}

// packIn packs the state before and the event.
func (h *HPCC) packIn(sc *codecScratch, st *hpcc.State, in *hpcc.Input, word []uint64) error {
	if h.codec == nil {
		return h.d.PackInput(*st, *in, word)
	}
	if h.codec.straight && packInDefault(st, in, word) == 0 {
		return nil
	}
	flatten(&sc.pack, st, in, nil, h.maxHops)
	return packOps(&h.in, h.codec.in, &sc.pack, word)
}

// unpackIn reads the state before and the event.
func (h *HPCC) unpackIn(sc *codecScratch, word []uint64, st *hpcc.State, in *hpcc.Input) error {
	if h.codec == nil {
		var err error
		*st, *in, err = h.d.UnpackInput(word)
		return err
	}
	unpackOps(h.codec.in, &sc.unpack, word)
	*st, *in = hpcc.State{}, hpcc.Input{}
	unflatten(&sc.unpack, st, in, h.maxHops)
	return nil
}

// packOut packs the state after and the outputs.
func (h *HPCC) packOut(sc *codecScratch, next *hpcc.State, out *hpcc.Output, word []uint64) error {
	if h.codec == nil {
		return h.d.PackOutput(*next, *out, word)
	}
	if h.codec.straight && packOutDefault(next, out, word) == 0 {
		return nil
	}
	flatten(&sc.pack, next, nil, out, h.maxHops)
	return packOps(&h.out, h.codec.out, &sc.pack, word)
}

// buildCodec compiles the fast codec and checks it against hpcc's
// Pack/Unpack on constrained-random transactions (and their updates); on
// any difference it leaves h.codec nil (hpcc's functions are used).
func (h *HPCC) buildCodec() {
	in, err1 := compileOps(h.in, "st_")
	out, err2 := compileOps(h.out, "ns_")
	if err1 != nil || err2 != nil {
		return
	}
	c := &hpccCodec{in: in, out: out, straight: packLayoutSig(h.in, h.out) == packDefaultLayout}
	saved := h.codec
	h.codec = c
	ok := true
	sc := &codecScratch{}
	wa, wb := make([]uint64, h.in.Words()), make([]uint64, h.in.Words())
	oa, ob := make([]uint64, h.out.Words()), make([]uint64, h.out.Words())
	r := NewRand(0x5eed, 0)
	for k := 0; k < 64 && ok; k++ {
		var st hpcc.State
		var ev hpcc.Input
		h.randomStructs(r, &st, &ev)
		var st2 hpcc.State
		var ev2 hpcc.Input
		if h.d.PackInput(st, ev, wa) != nil || h.packIn(sc, &st, &ev, wb) != nil || !equalWords(wa, wb) || h.unpackIn(sc, wa, &st2, &ev2) != nil {
			ok = false
			break
		}
		st3, ev3, err := h.d.UnpackInput(wa)
		next, o := h.d.Update(st, ev)
		ok = err == nil && st2 == st3 && ev2 == ev3 &&
			h.d.PackOutput(next, o, oa) == nil && h.packOut(sc, &next, &o, ob) == nil && equalWords(oa, ob)
	}
	if !ok {
		h.codec = saved
	}
}
