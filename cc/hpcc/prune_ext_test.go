package hpcc_test

import (
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/vectors"
)

// TestPrunedMatchesFull: the pruned max select (prune.go: the exact u' of
// only the hops whose upper bound reaches the largest exact u') gives, for
// every vector of the hpcc_update set of each pruned configuration kind,
// the next state and outputs of the full one (the same datapath computing
// every hop: hpcc.Unpruned), bit for bit: the level-1 set plus 10^6
// constrained-random vectors for the default configuration and 10^5 for
// each other kind (10^5 and 10^4 with -short). The MultiQ kinds do not
// prune (the test checks that they report so, and skips them). The oracle is the full
// select, which TestUpdateDigest pins through Update.
func TestPrunedMatchesFull(t *testing.T) {
	for i, bc := range batchConfigs() {
		cfg := bc.cfg
		nRandom := int64(100000)
		if i == 0 {
			nRandom = 1000000
		}
		if testing.Short() {
			nRandom /= 10
		}
		t.Run(bc.name, func(t *testing.T) {
			d, err := hpcc.NewDatapath(cfg)
			if err != nil {
				t.Fatal(err)
			}
			full, pruned := hpcc.Unpruned(d)
			if pruned == cfg.MultiQ.Enabled {
				t.Fatalf("prunes = %t with MultiQ.Enabled = %t: want pruning exactly without MultiQ", pruned, cfg.MultiQ.Enabled)
			}
			if !pruned {
				return // every hop computed: Update is the full select
			}
			m, err := vectors.NewHPCC(cfg)
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			check := func(word []uint64) error {
				st, in, err := d.UnpackInput(word)
				if err != nil {
					return err
				}
				n1, o1 := d.Update(st, in)
				n2, o2 := full.Update(st, in)
				if n1 != n2 || o1 != o2 {
					t.Fatalf("vector %d: pruned %+v %+v, full %+v %+v\nstate %+v\ninput %+v", n, n1, o1, n2, o2, st, in)
				}
				n++
				return nil
			}
			if err := m.Directed(1, func(_ int, word []uint64) error { return check(word) }); err != nil {
				t.Fatal(err)
			}
			const chunk = 50000
			for first := int64(0); first < nRandom; first += chunk {
				words, err := vectors.RandomInputs(m, 1, nil, nRandom, first, min(chunk, nRandom-first))
				if err != nil {
					t.Fatal(err)
				}
				for _, w := range words {
					if err := check(w); err != nil {
						t.Fatal(err)
					}
				}
			}
			t.Logf("%d vectors (level 1 and %d random) identical", n, nRandom)
		})
	}
}
