package vectors

import (
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
)

// TestHPCCSojournClasses: a Sojourn configuration's set (sender and
// receiver) holds every class of the model, the sojourn classes among
// them, each recognised by its detector at least as often as it was
// generated (every directed class of the single-class model keeps its
// meaning through sojournCarry, else generation fails); a configuration
// without Sojourn has no sojourn class. Oracle: the class list written
// here from draft 9.4's sample (zero, T, min of two, the largest, above
// saturation, one per slot).
func TestHPCCSojournClasses(t *testing.T) {
	c := hpcc.DefaultConfig()
	c.Sojourn = true
	r := c
	r.Mode = hpcc.Receiver
	for name, cfg := range map[string]hpcc.Config{"sender": c, "receiver": r} {
		set, err := GenerateHPCC(cfg, Options{Level: 2, Count: 2000, Seed: 9, NoJSONL: true})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		byName := map[string]ClassCount{}
		for _, cc := range set.Manifest.Classes {
			byName[cc.Name] = cc
			if cc.Count == 0 {
				t.Errorf("%s: class %s has no vectors", name, cc.Name)
			}
		}
		for _, w := range []string{"sojourn_zero", "sojourn_at_t", "sojourn_min_stored", "sojourn_at_max", "sojourn_saturated", "sojourn_per_slot"} {
			cc, ok := byName[w]
			if !ok || cc.Count == 0 || cc.Hits < cc.Count {
				t.Errorf("%s: class %s: present %v, %d vectors, %d hits", name, w, ok, cc.Count, cc.Hits)
			}
		}
	}
	set, err := GenerateHPCC(hpcc.DefaultConfig(), Options{Level: 1, Count: 10, Seed: 9, NoJSONL: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, cc := range set.Manifest.Classes {
		if len(cc.Name) > 8 && cc.Name[:8] == "sojourn_" {
			t.Errorf("single-class set has sojourn class %s", cc.Name)
		}
	}
}
