package dcqcn

import "testing"

// BenchmarkCNPAndRecovery: one CNP every 100 us on a Mellanox-profile flow,
// the caller waking the model at NextWake in between: the per-event cost of
// the reaction point including its timers.
func BenchmarkCNPAndRecovery(b *testing.B) {
	r := mustRP(b, DefaultConfig())
	st := r.InitialState()
	now := uint64(0)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		now += 100 * us
		st, _ = r.OnCNP(st, now)
		if w, ok := r.NextWake(st); ok && w < now+100*us {
			st, _ = r.Advance(st, w)
		}
	}
}

// BenchmarkOnSent: byte-counter accounting of one 1000-byte packet (paper
// variant).
func BenchmarkOnSent(b *testing.B) {
	r := mustRP(b, PaperConfig(100))
	st, _ := r.OnCNP(r.InitialState(), 0)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		st, _ = r.OnSent(st, uint64(i)*80, 1000)
	}
}
