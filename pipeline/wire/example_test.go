package wire_test

import (
	"fmt"

	"github.com/hpccgold/hpccgold/pipeline/wire"
	"github.com/hpccgold/hpccgold/telemetry"
)

// A sender builds a data packet asking for Compact INT, one switch pushes
// its record, and the receiver decodes it and echoes the records in an ACK.
func Example() {
	path := wire.Path{SrcMAC: wire.MAC{2, 0, 0, 0, 0, 1}, DstMAC: wire.MAC{2, 0, 0, 0, 0, 2},
		SrcIP: wire.IPv4Addr{10, 0, 0, 1}, DstIP: wire.IPv4Addr{10, 0, 0, 2}, TTL: 64, ECN: wire.ECT0, UDPSrcPort: 0xC000}
	frame, err := wire.AppendData(nil, &wire.Data{Path: path, Opcode: wire.OpRCSendOnly,
		Transport: wire.Transport{PKey: wire.DefaultPKey, DestQP: 0x11, PSN: 0xFFFFFF},
		INT:       wire.INTRequest{Enabled: true, Encoding: telemetry.Compact, MaxHops: 5},
		Payload:   make([]byte, 64)})
	if err != nil {
		panic(err)
	}
	hop := telemetry.Hop{SpeedCode: 2, Ts: 5000, TxBytes: 8192, Qlen: 100}
	frame, res, err := wire.PushHop(frame, telemetry.Compact, hop, 1500)
	if err != nil {
		panic(err)
	}
	var p wire.Packet
	wire.Decode(frame, &p)
	fmt.Println(res, p.Class, p.Opcode, p.PSN, p.PayloadLen, p.INT.HopCount, p.Hops[0] == hop)

	ack, err := wire.AppendAck(nil, &wire.Ack{Path: path.Reverse(),
		Transport: wire.Transport{PKey: wire.DefaultPKey, DestQP: 0x22, PSN: p.PSN},
		Syndrome:  wire.MakeSyndrome(wire.AckTypeACK, wire.CreditsInvalid), MSN: 1,
		Echo: wire.Echo{Enabled: true, Encoding: p.INT.Encoding, MaxHops: p.INT.MaxHops, Hops: p.HopList()}})
	if err != nil {
		panic(err)
	}
	wire.Decode(ack, &p)
	fmt.Println(p.Class, p.PSN, p.INT.Kind, len(ack), "bytes") // 14 Ethernet + 20 IPv4 + 8 UDP + 12 BTH + 4 AETH + 8 shim + 8 hop + 4 ICRC
	fmt.Println(p.PSN.Add(1), p.PSN.LessThan(p.PSN.Add(1)))
	// Output:
	// pushed data RC_SEND_ONLY 16777215 64 1 true
	// ack 16777215 echo 78 bytes
	// 0 true
}
