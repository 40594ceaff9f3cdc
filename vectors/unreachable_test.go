package vectors

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/telemetry"
)

// TestUnreachableTie checks that a 1-hop configuration declares class
// u_tie unreachable with its reason (a tie needs two valid hops) instead of
// failing generation or leaving an empty class that reads as a hole: the
// manifest and every coverage format carry the reason, a request for the
// class is refused naming it, and a 2-hop configuration still generates
// and hits the class. Oracle: the definition of the class (two or more
// valid hops tie for the largest u'), which one hop cannot satisfy.
func TestUnreachableTie(t *testing.T) {
	for _, c := range []struct {
		name        string
		enc         telemetry.Encoding
		hops        int
		unreachable bool
	}{
		{"compact_1hop", telemetry.Compact, 1, true},
		{"ifa_1hop", telemetry.IFA, 1, true},
		{"compact_2hop", telemetry.Compact, 2, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := hpcc.DefaultConfigFor(c.enc)
			cfg.MaxHops = c.hops
			set, err := GenerateHPCC(cfg, Options{Level: 1, Seed: 1})
			if err != nil {
				t.Fatalf("GenerateHPCC: %v", err)
			}
			var tie *ClassCount
			for i := range set.Manifest.Classes {
				if set.Manifest.Classes[i].Name == "u_tie" {
					tie = &set.Manifest.Classes[i]
				}
			}
			if tie == nil {
				t.Fatal("class u_tie missing from the manifest (it must be listed, reachable or not)")
			}
			if !c.unreachable {
				if tie.Unreachable != "" || tie.Count == 0 || tie.Hits == 0 {
					t.Fatalf("u_tie = %+v, want reachable, generated and hit", *tie)
				}
				return
			}
			if !strings.Contains(tie.Unreachable, "two valid hops") || tie.Count != 0 || tie.Hits != 0 {
				t.Fatalf("u_tie = %+v, want unreachable (two valid hops), 0 vectors, 0 hits", *tie)
			}
			var txt, js, csv bytes.Buffer
			if err := WriteCoverage(&txt, &set.Manifest); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(txt.String(), "class u_tie is unreachable for this configuration (not a hole): a tie needs two valid hops") {
				t.Errorf("text coverage does not state u_tie's reason:\n%s", txt.String())
			}
			if err := WriteCoverageJSON(&js, &set.Manifest); err != nil {
				t.Fatal(err)
			}
			var back CoverageJSON
			if err := json.Unmarshal(js.Bytes(), &back); err != nil {
				t.Fatal(err)
			}
			found := false
			for _, cl := range back.Classes {
				found = found || cl.Name == "u_tie" && cl.Unreachable == tie.Unreachable
			}
			if !found {
				t.Errorf("JSON coverage lost u_tie's reason")
			}
			if err := WriteCoverageCSV(&csv, &set.Manifest); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(csv.String(), "class,u_tie,unreachable,0\n") || strings.Contains(csv.String(), "class,u_tie,hits") {
				t.Errorf("CSV coverage: want an unreachable row and no hits row for u_tie:\n%s", csv.String())
			}
			_, err = GenerateHPCC(cfg, Options{Level: 1, Seed: 1, Classes: []string{"u_tie"}})
			if err == nil || !strings.Contains(err.Error(), "u_tie is unreachable") {
				t.Errorf("requesting u_tie: err = %v, want it refused as unreachable", err)
			}
		})
	}
}
