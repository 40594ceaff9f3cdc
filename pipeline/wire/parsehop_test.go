package wire

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"

	"github.com/hpccgold/hpccgold/telemetry"
)

// TestParseHopMatches is a property test of Decode's inline hop parser
// against its oracle, telemetry.ParseHop: for records of random bytes (every
// bit pattern of every field), records with every speed code, and IFA
// records with RxNs around 10^9, parseHop must accept exactly the records
// ParseHop accepts and give the same Hop (the zero Hop when rejecting).
func TestParseHopMatches(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	for _, e := range telemetry.Encodings() {
		size := e.HopSize()
		var recs [][]byte
		for i := 0; i < 20000; i++ {
			b := make([]byte, size)
			for k := range b {
				b[k] = byte(r.Uint32())
			}
			recs = append(recs, b)
		}
		for code := 0; code < 16; code++ {
			b := make([]byte, size)
			if e == telemetry.Compact {
				binary.BigEndian.PutUint64(b, uint64(code&7)|r.Uint64()<<3)
			} else {
				for k := range b {
					b[k] = byte(r.Uint32())
				}
				b[4] = b[4]&0x0F | byte(code)<<4
				binary.BigEndian.PutUint32(b[12:], r.Uint32N(telemetry.NsPerSecond))
			}
			recs = append(recs, b)
		}
		if e == telemetry.IFA {
			for _, ns := range []uint32{0, telemetry.NsPerSecond - 1, telemetry.NsPerSecond, telemetry.NsPerSecond + 1, 1<<32 - 1} {
				b := make([]byte, size)
				b[4] = 1 << 4 // speed code 1
				binary.BigEndian.PutUint32(b[12:], ns)
				recs = append(recs, b)
			}
		}
		accepted, rejected := 0, 0
		for _, b := range recs {
			want, err := telemetry.ParseHop(b, e)
			h := telemetry.Hop{Qlen: 12345} // must be overwritten
			ok := parseHop(b, e, &h)
			if ok != (err == nil) || h != want {
				t.Fatalf("%v record %x: parseHop = %+v, %v; ParseHop = %+v, %v", e, b, h, ok, want, err)
			}
			if ok {
				accepted++
			} else {
				rejected++
			}
		}
		if accepted == 0 || rejected == 0 {
			t.Fatalf("%v: %d accepted, %d rejected: the cases do not exercise both outcomes", e, accepted, rejected)
		}
	}
}
