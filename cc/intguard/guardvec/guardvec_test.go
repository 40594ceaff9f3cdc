package guardvec

import (
	"testing"

	"github.com/hpccgold/hpccgold/vectors"
)

// TestGenerateAndVerify generates a set per configuration (every
// directed class plus random draws): generation fails if a detected
// class's vector is not recognised; every reachable class must be hit,
// and the set must verify (re-run by the model).
func TestGenerateAndVerify(t *testing.T) {
	for name, cfg := range CheckConfigs() {
		m, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		man, err := vectors.GenerateDir(dir, m, vectors.Options{Level: 1, Seed: 7, Count: 4000, Workers: 2})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, c := range man.Classes {
			if c.Level == 1 && c.Unreachable == "" && c.Hits == 0 {
				t.Errorf("%s: class %s: no vector hits it", name, c.Name)
			}
		}
		if _, err := vectors.VerifyWith(dir, Open); err != nil {
			t.Fatalf("%s: verify: %v", name, err)
		}
	}
}
