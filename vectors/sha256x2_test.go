package vectors

import (
	"crypto/sha256"
	"testing"
)

// TestSHA256Pair checks sha256Pair against crypto/sha256 (the oracle) on
// pairs of random streams of 0..3000 bytes (every length 0..200, so every
// padding case, one or two final blocks, and random ones beyond), written
// in random chunks of 0..300 bytes, different for the two streams (chunks
// ending inside a block, filling one exactly, spanning several), with
// sums taken midway too (they must not disturb the state). It runs the
// SHA-NI code where the CPU has it and the crypto/sha256 fallback always.
func TestSHA256Pair(t *testing.T) {
	r := NewRand(5, 5)
	bytesOf := func(n int) []byte {
		p := make([]byte, n)
		for i := range p {
			p[i] = byte(r.Uint64())
		}
		return p
	}
	makers := map[string]func() *sha256Pair{
		"fallback": func() *sha256Pair { return &sha256Pair{ha: sha256.New(), hb: sha256.New()} },
	}
	if sha2Fast {
		makers["sha-ni"] = newSHA256Pair
	} else {
		t.Log("no SHA extensions here: only the fallback runs")
	}
	for name, mk := range makers {
		for iter := 0; iter < 600; iter++ {
			la, lb := iter%201, int(r.Below(201))
			if iter >= 201 {
				la, lb = int(r.Below(3001)), int(r.Below(3001))
			}
			a, b := bytesOf(la), bytesOf(lb)
			h := mk()
			pa, pb := a, b
			for len(pa) > 0 || len(pb) > 0 {
				ca, cb := min(len(pa), int(r.Below(301))), min(len(pb), int(r.Below(301)))
				h.write(pa[:ca], pb[:cb])
				pa, pb = pa[ca:], pb[cb:]
				if r.Below(8) == 0 {
					ga, gb := h.sums()
					if wa, wb := sha256.Sum256(a[:la-len(pa)]), sha256.Sum256(b[:lb-len(pb)]); ga != wa || gb != wb {
						t.Fatalf("%s: midway sums after %d and %d bytes = %x, %x; want %x, %x", name, la-len(pa), lb-len(pb), ga, gb, wa, wb)
					}
				}
			}
			ga, gb := h.sums()
			if wa, wb := sha256.Sum256(a), sha256.Sum256(b); ga != wa || gb != wb {
				t.Fatalf("%s: streams of %d and %d bytes: sums %x, %x; want %x, %x", name, la, lb, ga, gb, wa, wb)
			}
		}
	}
}

// BenchmarkSHA256Pair measures hashing a block's stimulus and expected
// bytes (256 vectors of the default configuration: hex lines of 454 and
// 224 bytes, binary records of 227 and 112) with sha256Pair and with two
// crypto/sha256 hashes, as cpu-ns/vector (CPU time of the benchmark's
// thread).
func BenchmarkSHA256Pair(b *testing.B) {
	for _, kind := range []struct {
		name     string
		stim, ex int
	}{{"hex", 454, 224}, {"bin", 227, 112}} {
		stim, exp := make([]byte, 256*kind.stim), make([]byte, 256*kind.ex)
		for i := range stim {
			stim[i] = byte(i * 7)
		}
		for _, h := range []struct {
			name string
			mk   func() *sha256Pair
		}{{"pair", newSHA256Pair}, {"crypto", func() *sha256Pair { return &sha256Pair{ha: sha256.New(), hb: sha256.New()} }}} {
			b.Run(kind.name+"_"+h.name, func(b *testing.B) {
				sp := h.mk()
				defer lockThread()()
				b.ResetTimer()
				cpu0 := threadCPU()
				for i := 0; i < b.N; i += 256 {
					sp.write(stim, exp)
				}
				if cpu := threadCPU() - cpu0; cpu > 0 {
					b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/vector")
				}
			})
		}
	}
}
