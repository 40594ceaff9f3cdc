package intguard

import (
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/telemetry"
)

// BenchmarkCheck times the golden guard on one 5-hop event (IFA with
// identity tracking, every check on, nothing firing), the per-ACK cost it
// adds to the NIC model's HPCC++ path.
func BenchmarkCheck(b *testing.B) {
	g, err := New(DefaultConfig(hpcc.DefaultConfig()))
	if err != nil {
		b.Fatal(err)
	}
	st := hpcc.State{Valid: true, NHops: 5}
	in := hpcc.Input{NHops: 5}
	code, _ := telemetry.IFA.SpeedCode(100)
	for i := 0; i < 5; i++ {
		st.Hops[i] = hpcc.HopState{Ts: uint64(1000 + i), TxBytes: 5000, ID: uint64(i+1)<<16 | 1}
		in.Hops[i] = telemetry.Hop{SpeedCode: code, RxNs: uint32(3000 + i), TxBytes: 20000, Qlen: 100, DeviceID: uint32(i + 1), EgressPort: 1}
	}
	b.ReportAllocs()
	var v Verdict
	for i := 0; i < b.N; i++ {
		v = g.Check(st, in)
	}
	if v.Drop != 0 || v.DropEvent {
		b.Fatalf("verdict %+v: the benchmark's event must be clean", v)
	}
}
