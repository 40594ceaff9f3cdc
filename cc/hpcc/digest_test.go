package hpcc

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/fixedpoint"
	"github.com/hpccgold/hpccgold/telemetry"
)

// digestConfigs are the configurations whose outputs TestUpdateDigest
// pins: the test configurations plus format variants that move every cast
// shift (the ones of TestFastMatchesSpecFormats).
func digestConfigs(t *testing.T) []namedConfig {
	cs := testConfigs()
	for ci, mod := range []func(*Config){
		func(c *Config) { c.Formats.Eta = fixedpoint.MustFormat("u28.0") },
		func(c *Config) {
			c.Formats.U = fixedpoint.MustFormat("u36.8")
			c.Formats.Eta = fixedpoint.MustFormat("u20.0")
		},
		func(c *Config) { c.Formats.Term = fixedpoint.MustFormat("u48.28"); c.TableEntryBits = 48 },
		func(c *Config) { c.RecipDts.EntryBits = 40; c.RecipU.EntryBits = 40; c.Mode = Receiver },
		func(c *Config) { c.RecipDts.NRSteps = 2; c.RecipU.NRSteps = 2 },
	} {
		for _, e := range telemetry.Encodings() {
			c := DefaultConfigFor(e)
			mod(&c)
			if _, err := NewDatapath(c); err != nil {
				t.Fatalf("variant %d %s: %v", ci, e, err)
			}
			cs = append(cs, namedConfig{c, fmt.Sprintf("%s/variant%d", e, ci)})
		}
	}
	// MultiQ (issue 17): appended, so the single-class lines stay as pinned.
	cs = append(cs, multiQConfigs()...)
	// Sojourn (issue 17, draft 9.4): appended likewise.
	return append(cs, sojournConfigs()...)
}

// TestUpdateDigest pins the bits of the golden datapath: the SHA-256 of
// every next state and output of Update, over random bit patterns of every
// field (half of them with valid slots) and a long physical trace, for
// every configuration of digestConfigs, must equal testdata/update.digest.
// The oracle is the datapath itself as it was when the file was written
// (commit 5fa2fbd, before the compiled casts moved into fixedpoint's raw
// plans): any change of a single output bit changes the digest. Refresh
// with -update only for an intended change of the datapath's bits.
func TestUpdateDigest(t *testing.T) {
	var sb strings.Builder
	for _, nc := range digestConfigs(t) {
		d := mustDP(t, nc.Config)
		h := sha256.New()
		rng := rand.New(rand.NewPCG(17, 19))
		for k := 0; k < 4000; k++ {
			st, in := randomStateInput(d, rng)
			if k%2 == 0 {
				st.NHops = in.NHops
				for i := range in.Hops {
					r := d.record(&in.Hops[i])
					st.Hops[i].ID = r.ID
					st.Hops[i].Ts = r.Ts - uint64(rng.IntN(3*int(nc.BaseRTTNs)))
				}
			}
			next, out := d.Update(st, in)
			fmt.Fprintf(h, "%+v %+v\n", next, out)
		}
		g := newTraceGen(nc.Config, 23)
		st := d.InitialState()
		for k := 0; k < 2000; k++ {
			next, out := d.Update(st, g.next())
			fmt.Fprintf(h, "%+v %+v\n", next, out)
			st = next
		}
		fmt.Fprintf(&sb, "%s %s\n", nc.name(), hex.EncodeToString(h.Sum(nil)))
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
		t.Errorf("Update's outputs changed:\ngot\n%swant (%s)\n%s", got, path, want)
	}
}
