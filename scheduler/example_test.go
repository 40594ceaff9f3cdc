package scheduler_test

import (
	"fmt"

	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/scheduler"
)

// A flow paced at 25 Gbit/s (R = 3.125 bytes/ns, raw u32.8 = 3.125 * 2^24)
// sends 1000-byte packets (1082 wire bytes) every 346.25 cycles on average
// at 1 GHz, driven here by a fake clock instead of an engine.
func Example() {
	cfg := scheduler.DefaultConfig()
	db, _ := engine.NewFIFO[scheduler.Doorbell]("doorbells", 4)
	up, _ := engine.NewFIFO[scheduler.Update]("updates", 4)
	out, _ := engine.NewFIFO[scheduler.PktSend]("sends", 4)
	s, err := scheduler.New(cfg, scheduler.Ports{Doorbells: db, Updates: up, Sends: out})
	if err != nil {
		fmt.Println(err)
		return
	}
	up.Push(0, scheduler.Update{Flow: 7, Rate: 52428800, SetRate: true})
	db.Push(0, scheduler.Doorbell{Flow: 7, Bytes: 5000})
	g, _ := s.GapPerByte(52428800)
	fmt.Printf("G = %d (%.6f cycles/byte)\n", g, float64(g)/float64(uint64(1)<<cfg.GapFracBits))
	last := engine.Cycle(0)
	for now := engine.Cycle(0); now < 3000; now++ {
		s.Tick(now)
		if p, ok := out.Pop(now); ok {
			fmt.Printf("cycle %4d (+%d): flow %d psn %d bytes %d offset %d last=%v\n", now, now-last, p.Flow, p.PSN, p.Bytes, p.Offset, p.Last)
			last = now
		}
	}
	// Output:
	// G = 20972 (0.320007 cycles/byte)
	// cycle    3 (+3): flow 7 psn 0 bytes 1000 offset 0 last=false
	// cycle  350 (+347): flow 7 psn 1 bytes 1000 offset 1000 last=false
	// cycle  696 (+346): flow 7 psn 2 bytes 1000 offset 2000 last=false
	// cycle 1042 (+346): flow 7 psn 3 bytes 1000 offset 3000 last=false
	// cycle 1388 (+346): flow 7 psn 4 bytes 1000 offset 4000 last=true
}
