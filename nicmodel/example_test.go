package nicmodel_test

import (
	"fmt"

	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/nicmodel"
	"github.com/hpccgold/hpccgold/pipeline"
	"github.com/hpccgold/hpccgold/pipeline/wire"
)

// wireLink is the smallest network: it moves each frame from one NIC's Out
// to the other's In after a propagation delay (the NIC has already
// serialized it at its line rate).
type wireLink struct {
	from, to *engine.TimedQueue[pipeline.Frame]
	delay    engine.Cycle
}

func (l *wireLink) Tick(now engine.Cycle) bool {
	p := false
	for f, ok := l.from.Pop(now); ok; f, ok = l.from.Pop(now) {
		l.to.Push(now, now+l.delay, f)
		p = true
	}
	return p
}

func (l *wireLink) NextWake(engine.Cycle) (engine.Cycle, bool) { return engine.Never, false }

// Two NICs back to back over 1 us links: host 1 sends a 100 kB flow on QP 7
// to host 2 with congestion control off (no switch stamps telemetry here):
// 100 packets at the line rate (87.2 ns each) plus one loop of about 2 us.
func Example() {
	cfg := nicmodel.DefaultConfig()
	cfg.QPs, cfg.CC = 16, nicmodel.CCNone
	eng, _ := engine.New(engine.Config{Freq: cfg.ClockHz})
	path := wire.Path{SrcMAC: wire.MAC{2, 0, 0, 0, 0, 1}, DstMAC: wire.MAC{2, 0, 0, 0, 0, 2},
		SrcIP: wire.IPv4Addr{10, 0, 0, 1}, DstIP: wire.IPv4Addr{10, 0, 0, 2}, TTL: 64, UDPSrcPort: 49159}
	h1, _ := nicmodel.New(cfg, []pipeline.FlowContext{{QPN: 7, RemoteQPN: 7, Path: path, PKey: 0xFFFF}}, nicmodel.Options{Name: "h1"})
	h2, _ := nicmodel.New(cfg, []pipeline.FlowContext{{QPN: 7, RemoteQPN: 7, Path: path.Reverse(), PKey: 0xFFFF}}, nicmodel.Options{Name: "h2"})
	h1.Register(eng)
	h2.Register(eng)
	to2, _ := eng.Add("link12", &wireLink{from: h1.Out(), to: h2.In(), delay: 1000})
	to1, _ := eng.Add("link21", &wireLink{from: h2.Out(), to: h1.In(), delay: 1000})
	h1.ConnectOut(to2)
	h2.ConnectOut(to1)

	h1.OpenFlow(nicmodel.FlowSpec{QPN: 7, Bytes: 100_000, Start: 0})
	eng.RunUntilIdle(engine.Never - 1)

	r := h1.Completed()[0]
	c := h1.Counters()
	fmt.Printf("flow %d: %d bytes in %d cycles\n", r.ID, r.Bytes, r.Done-r.Start)
	fmt.Printf("h1 sent %d data frames, received %d ACKs\n", c.Tx.Frames[pipeline.FrameData], c.Rx.Class[wire.ClassAck])
	for _, reg := range c.Registers() {
		if reg.Name == "scheduler.payload_bytes" || reg.Name == "mac.tx_busy_ps" {
			fmt.Println(reg.Name, reg.Value)
		}
	}
	// Output:
	// flow 0: 100000 bytes in 10762 cycles
	// h1 sent 100 data frames, received 100 ACKs
	// mac.tx_busy_ps 8720000
	// scheduler.payload_bytes 100000
}
