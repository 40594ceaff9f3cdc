package network

import (
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/engine"
)

// Partition splits hosts into equal contiguous groups and keeps each ToR
// with its hosts and each aggregation switch with its pod's ToRs when the
// groups allow (oracle: the paper's fat tree, 320 hosts, 16 per ToR, 4 ToRs
// and 4 aggregation switches per pod: with k=2 the groups end at ToR 10,
// with k=5 at pod boundaries); cores, tied between the five pods at k=5,
// are spread by load (at k=2 they follow the majority of their pods). The lookahead is the 1000 ns link delay at 1 GHz, whatever crosses.
func TestPartitionFatTree(t *testing.T) {
	for _, k := range []int{1, 2, 5} {
		n, err := paperFatTree().Build(DefaultConfig())
		if err != nil {
			t.Fatal(err)
		}
		hp, sp, err := n.Partition(k)
		if err != nil {
			t.Fatal(err)
		}
		count := make([]int, k)
		for h, p := range hp {
			count[p]++
			if sw, _, _ := n.HostLink(h); sp[sw] != p {
				t.Errorf("k=%d: host %d in partition %d, its ToR %d in %d", k, h, p, sw, sp[sw])
			}
		}
		for p, c := range count {
			if c != 320/k {
				t.Errorf("k=%d: partition %d holds %d hosts, want %d", k, p, c, 320/k)
			}
		}
		if k == 5 {
			for a := 20; a < 40; a++ {
				if pod := (a - 20) / 4; sp[a] != pod {
					t.Errorf("k=5: agg %d in partition %d, want its pod %d", a-20, sp[a], pod)
				}
			}
		}
		cores := make([]int, k)
		for c := 40; c < 56; c++ {
			cores[sp[c]]++
		}
		for p, c := range cores {
			if k == 5 && (c < 16/k-1 || c > 16/k+1) {
				t.Errorf("k=%d: %d cores in partition %d, want about %d", k, c, p, 16/k)
			}
		}
		engs := make([]*engine.Engine, k)
		for i := range engs {
			if engs[i], err = engine.New(engine.Config{Freq: engine.GHz}); err != nil {
				t.Fatal(err)
			}
		}
		for i := 0; i < n.Hosts(); i++ {
			if err := n.Attach(i, newScriptEP(n.HostName(i), 100)); err != nil {
				t.Fatal(err)
			}
		}
		ps, err := n.RegisterParts(engs, hp, sp)
		if err != nil {
			t.Fatal(err)
		}
		want := engine.Cycle(1000)
		if k == 1 {
			want = engine.Never
		}
		if ps.Lookahead() != want {
			t.Errorf("k=%d: lookahead %d, want %d", k, ps.Lookahead(), want)
		}
	}
}

// A star split in two puts the host links between partitions (the switch
// stays with the first group); a partition of more than there are hosts is
// capped; RegisterParts names a bad partition, and a window longer than
// the lookahead is refused at the barrier rather than delivered late.
func TestRegisterPartsErrors(t *testing.T) {
	n, err := star(3, 100, 700).Build(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	hp, sp, err := n.Partition(8)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{0, 1, 2}; len(hp) != 3 || hp[0] != want[0] || hp[1] != want[1] || hp[2] != want[2] || sp[0] != 0 {
		t.Fatalf("Partition(8) = %v, %v; want hosts [0 1 2], switch [0]", hp, sp)
	}
	if _, _, err := n.Partition(0); err == nil || !strings.Contains(err.Error(), "k=0") {
		t.Errorf("Partition(0): %v", err)
	}
	e1, _ := engine.New(engine.Config{Freq: engine.GHz})
	e2, _ := engine.New(engine.Config{Freq: engine.GHz})
	for i := 0; i < 3; i++ {
		if err := n.Attach(i, newScriptEP(n.HostName(i), 100)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := n.RegisterParts([]*engine.Engine{e1, e2}, []int{0, 1, 2}, []int{0}); err == nil || !strings.Contains(err.Error(), "host 2: partition 2") {
		t.Errorf("RegisterParts with host 2 in partition 2 of 2: %v", err)
	}
	ps, err := n.RegisterParts([]*engine.Engine{e1, e2}, []int{0, 1, 1}, []int{0})
	if err != nil {
		t.Fatal(err)
	}
	if ps.Lookahead() != 700 {
		t.Errorf("lookahead %d, want 700 (the host links' delay)", ps.Lookahead())
	}
	ps.out[1] = append(ps.out[1], crossing{sw: n.switches[0].in, now: 10, at: 710})
	if err := ps.Exchange(800); err == nil || !strings.Contains(err.Error(), "before the window's end 800") {
		t.Errorf("Exchange past a frame's cycle: %v", err)
	}
	if n.switches[0].in.Len() != 0 {
		t.Errorf("a refused exchange delivered %d frames", n.switches[0].in.Len())
	}
}
