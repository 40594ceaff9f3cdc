package network

import (
	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/pipeline"
	"github.com/hpccgold/hpccgold/pipeline/wire"
)

// Endpoint is a host's NIC as the network sees it: the port boundary of
// nicmodel.NIC (which implements it). Frames arrive through In, pushed
// with the cycle their last bit arrives; frames leave through Out, each
// visible at its departure cycle, already serialized at the NIC's line
// rate by the NIC's MAC (so the link from a NIC adds only its propagation
// delay). Register adds the endpoint's components to the engine and
// ConnectOut names the component that consumes Out.
type Endpoint interface {
	In() *engine.TimedQueue[pipeline.Frame]
	Out() *engine.TimedQueue[pipeline.Frame]
	Register(e *engine.Engine) error
	ConnectOut(consumer engine.ID) error
}

// Addr is a host's addressing: the network routes on the IPv4 address.
type Addr struct {
	MAC wire.MAC
	IP  wire.IPv4Addr
}

// hostIPBase is the address of host 0, 10.0.0.1; host i is hostIPBase+i.
const hostIPBase = 0x0A000001

// MaxHosts bounds the hosts of a network (host addresses stay inside
// 10.0.0.0/8).
const MaxHosts = 1 << 20

// HostAddr returns the addressing of host i: IPv4 10.0.0.1 + i, MAC
// 02:00:0a:xx:xx:xx with the low three bytes of the IPv4 address (a
// locally administered unicast MAC).
func HostAddr(i int) Addr {
	ip := uint32(hostIPBase + i)
	return Addr{
		MAC: wire.MAC{0x02, 0x00, 0x0a, byte(ip >> 16), byte(ip >> 8), byte(ip)},
		IP:  wire.IPv4Addr{byte(ip >> 24), byte(ip >> 16), byte(ip >> 8), byte(ip)},
	}
}

// UplinkCounters count what a host sent into the network.
type UplinkCounters struct {
	Frames    uint64
	Bytes     uint64 // frame bytes without FCS
	WireBytes uint64 // Bytes + MAC overhead per frame
}

// uplink carries a host's frames from its NIC's Out to its switch: it
// takes each frame at its departure cycle and delivers it after the
// propagation delay plus the switch's forwarding latency. It runs only in
// departure cycles.
type uplink struct {
	from  *engine.TimedQueue[pipeline.Frame]
	to    *engine.TimedQueue[arrival]
	port  uint16 // ingress port at the switch
	delay uint64 // fs
	ovh   uint64
	clk   clock
	cnt   UplinkCounters
	seq   uint64      // frames sent: the link's sequence number (arrivalTie)
	out   *[]crossing // the host's partition's outbox when the switch is in another (Parts)
}

func (u *uplink) Tick(now engine.Cycle) bool {
	p := false
	for {
		f, ok := u.from.Pop(now)
		if !ok {
			return p
		}
		p = true
		n := uint64(len(f.Data))
		u.cnt.Frames++
		u.cnt.Bytes += n
		u.cnt.WireBytes += n + u.ovh
		at, tie, a := u.clk.at(u.clk.start(now)+u.delay), arrivalTie(u.port, u.seq), arrival{port: u.port, frame: f.Data}
		u.seq++
		if u.out != nil {
			*u.out = append(*u.out, crossing{sw: u.to, now: now, at: at, tie: tie, a: a})
			continue
		}
		u.to.PushTie(now, at, tie, a)
	}
}

func (u *uplink) NextWake(engine.Cycle) (engine.Cycle, bool) { return engine.Never, false }
