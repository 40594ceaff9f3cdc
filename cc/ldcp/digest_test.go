package ldcp

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestUpdateDigest pins the bits of the golden datapath: the SHA-256 of
// Window and Interval on every cw register value around the constants and
// 4000 random ones (every n up to past NMax, both ECE values), of lossCw,
// and of Update's next state and output on 20000 random bit patterns of
// every state and event field, for every test configuration, must equal
// testdata/update.digest. The oracle is the datapath itself as it was when
// the file was written (commit 5fa2fbd, before the compiled casts moved
// into fixedpoint's raw plans): any change of a single output bit changes
// the digest. Refresh with -update only for an intended change of the
// datapath's bits.
func TestUpdateDigest(t *testing.T) {
	var sb strings.Builder
	for _, nc := range testConfigs() {
		d := mustDP(t, nc.Config)
		h := sha256.New()
		rng := rand.New(rand.NewPCG(29, 31))
		mask := mask64(d.fCw.W)
		var cws []uint64
		for _, c := range []uint64{0, d.gammaCw.RawUint(), d.one.RawUint(), d.cwMax.RawUint(), mask, d.iw.RawUint()} {
			for k := uint64(0); k < 5; k++ {
				cws = append(cws, (c+k)&mask, (c-k)&mask)
			}
		}
		for k := 0; k < 4000; k++ {
			cws = append(cws, rng.Uint64()>>uint(rng.IntN(64))&mask)
		}
		for _, cw := range cws {
			for _, n := range []uint64{1, 2, 3, d.nMax - 1, d.nMax, d.nMax + 1, 1 << 20} {
				for _, ece := range []bool{false, true} {
					w, r := d.Window(cw, ece, n)
					fmt.Fprintf(h, "w %d %s\n", w, r)
				}
			}
			fmt.Fprintf(h, "iv %d\n", d.Interval(cw))
		}
		for _, a := range []uint32{0, 1, 2, 63, 64, 4095, 4096, 1<<24 - 1, 1 << 31, ^uint32(0)} {
			fmt.Fprintf(h, "loss %d\n", d.lossCw(a))
		}
		in := make([]uint64, d.InputTable().Words())
		for k := 0; k < 20000; k++ {
			for w := range in {
				in[w] = rng.Uint64()
			}
			st, ev, _ := d.UnpackInput(in)
			if k%2 == 0 {
				st.Cw = cws[rng.IntN(len(cws))]
			}
			next, out := d.Update(st, ev)
			fmt.Fprintf(h, "%+v %+v\n", next, out)
		}
		fmt.Fprintf(&sb, "%s %s\n", nc.name, hex.EncodeToString(h.Sum(nil)))
	}
	path := filepath.Join("testdata", "update.digest")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run TestUpdateDigest -update to create it)", err)
	}
	if got := sb.String(); got != string(want) {
		t.Errorf("the datapath's outputs changed:\ngot\n%swant (%s)\n%s", got, path, want)
	}
}
