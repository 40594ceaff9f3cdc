package ldcp

import "testing"

// benchAcks builds 1024 stable-stage ACK events against a flow whose window
// hovers around 20 packets: one ACK per packet, every 8th marked, every 4th
// a delayed ACK of 2 packets; each ACK is preceded by the state it applies
// to (snd_nxt kept 40 ahead), so every iteration is a full per-ACK update.
func benchAcks(d *Datapath) ([]State, []Event) {
	var sts []State
	var evs []Event
	st := State{Stage: Stable, Cw: d.CwRaw(20), Start: 0, Una: 1000, Nxt: 1040, End: 1 << 23}
	for k := 0; k < 1024; k++ {
		n := uint32(1 + k%4/3)
		ev := Event{Kind: Ack, NowNs: uint64(k) * 100, AckSeq: st.Una + n, ECE: k%8 == 0}
		sts = append(sts, st)
		evs = append(evs, ev)
		st, _ = d.Update(st, ev)
		st.Nxt = st.Una + 40
	}
	return sts, evs
}

// BenchmarkAckFixed is the golden per-ACK update (Update on an Ack event).
func BenchmarkAckFixed(b *testing.B) {
	d := mustDP(b, DefaultConfig())
	sts, evs := benchAcks(d)
	b.ReportAllocs()
	b.ResetTimer()
	var sink uint64
	for i := 0; i < b.N; i++ {
		n, _ := d.Update(sts[i&1023], evs[i&1023])
		sink += n.Cw
	}
	_ = sink
}

// BenchmarkAckFloat is the float reference's per-ACK update.
func BenchmarkAckFloat(b *testing.B) {
	d := mustDP(b, DefaultConfig())
	r := mustRef(b, DefaultConfig())
	sts, evs := benchAcks(d)
	rss := make([]RefState, len(sts))
	for i, s := range sts {
		rss[i] = d.RefState(s)
	}
	b.ReportAllocs()
	b.ResetTimer()
	var sink float64
	for i := 0; i < b.N; i++ {
		n, _ := r.Update(rss[i&1023], evs[i&1023])
		sink += n.Cw
	}
	_ = sink
}

// BenchmarkWindowFixedAI is the golden window arithmetic alone on the
// costliest rule (AI: one reciprocal, two multiplies).
func BenchmarkWindowFixedAI(b *testing.B) {
	d := mustDP(b, DefaultConfig())
	cw := d.CwRaw(20)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		cw, _ = d.Window(cw, false, 1)
		if cw >= d.cwMax.RawUint() {
			cw = d.CwRaw(20)
		}
	}
}

// BenchmarkSendFixed is a Send decision in the sub-packet regime (window
// check, timer compare, reciprocal and re-arm).
func BenchmarkSendFixed(b *testing.B) {
	d := mustDP(b, DefaultConfig())
	st := State{Stage: Stable, Cw: d.CwRaw(0.375), Una: 10, Nxt: 10, End: 1 << 20}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		_, o := d.Update(st, Event{Kind: Send, NowNs: uint64(i&0x7fff) << 16})
		if !o.Allowed {
			b.Fatal("send refused")
		}
	}
}

// BenchmarkAckSpec is the same per-ACK update through UpdateSpec (fixedpoint
// Values op for op), for the speed ratio of the compiled form.
func BenchmarkAckSpec(b *testing.B) {
	d := mustDP(b, DefaultConfig())
	sts, evs := benchAcks(d)
	b.ReportAllocs()
	b.ResetTimer()
	var sink uint64
	for i := 0; i < b.N; i++ {
		n, _ := d.UpdateSpec(sts[i&1023], evs[i&1023])
		sink += n.Cw
	}
	_ = sink
}
