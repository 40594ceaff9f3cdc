package wire

import (
	"fmt"
	"testing"

	"github.com/hpccgold/hpccgold/telemetry"
)

// BenchmarkAppendData builds a 1 KiB-payload data packet with an INT
// request into a reused buffer (the Tx pipeline's per-packet encode).
func BenchmarkAppendData(b *testing.B) {
	d := Data{Path: testPath(), Opcode: OpRCSendOnly, Transport: Transport{PKey: DefaultPKey, DestQP: 9, PSN: 1},
		INT: INTRequest{Enabled: true, Encoding: telemetry.IFA, MaxHops: 5}, Payload: make([]byte, 1024)}
	buf := make([]byte, 0, 2048)
	b.SetBytes(1024)
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if buf, err = AppendData(buf[:0], &d); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAppendAckEcho builds an ACK echoing 5 hops, per encoding.
func BenchmarkAppendAckEcho(b *testing.B) {
	for _, e := range telemetry.Encodings() {
		hops := compactHops(5)
		if e == telemetry.IFA {
			hops = ifaHops(5)
		}
		a := Ack{Path: testPath(), Transport: Transport{DestQP: 9, PSN: 1}, Syndrome: MakeSyndrome(AckTypeACK, CreditsInvalid),
			Echo: Echo{Enabled: true, Encoding: e, MaxHops: 5, Hops: hops}}
		b.Run(e.String(), func(b *testing.B) {
			buf := make([]byte, 0, 512)
			b.ReportAllocs()
			for b.Loop() {
				var err error
				if buf, err = AppendAck(buf[:0], &a); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkDecode decodes a data packet with 5 hops and a 1 KiB payload
// (ICRC verified over the whole packet) and an ACK echoing 5 hops, per
// encoding (the Rx pipeline's per-packet parse).
func BenchmarkDecode(b *testing.B) {
	for _, e := range telemetry.Encodings() {
		data := buildData(b, e, 5, 1024)
		var p Packet
		Decode(data, &p)
		ack, err := AppendAck(nil, &Ack{Path: testPath(), Transport: Transport{DestQP: 9},
			Echo: Echo{Enabled: true, Encoding: e, MaxHops: 5, Hops: p.HopList()}})
		if err != nil {
			b.Fatal(err)
		}
		for _, c := range []struct {
			name  string
			frame []byte
			want  Class
		}{{"data-1KiB-5hops", data, ClassData}, {"ack-5hops", ack, ClassAck}} {
			b.Run(e.String()+"/"+c.name, func(b *testing.B) {
				b.SetBytes(int64(len(c.frame)))
				b.ReportAllocs()
				for b.Loop() {
					Decode(c.frame, &p)
				}
				if p.Class != c.want {
					b.Fatalf("class %v/%v", p.Class, p.Reason)
				}
			})
		}
	}
}

// BenchmarkPushHop stamps one hop into a data packet that already has 2
// (the switch-side cost per hop, decode included).
func BenchmarkPushHop(b *testing.B) {
	for _, e := range telemetry.Encodings() {
		base := buildData(b, e, 2, 1024)
		h := compactHop
		if e == telemetry.IFA {
			h = ifaHops(1)[0]
		}
		b.Run(e.String(), func(b *testing.B) {
			buf := make([]byte, 0, 2048)
			b.ReportAllocs()
			for b.Loop() {
				buf = append(buf[:0], base...)
				if _, _, err := PushHop(buf, e, h, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkICRC computes the RoCEv2 ICRC of an ACK-sized (84-byte) and a
// data-packet-sized (1080-byte) IPv4 datagram: the 40 masked header bytes
// plus the rest.
func BenchmarkICRC(b *testing.B) {
	for _, n := range []int{84, 1080} {
		l3 := make([]byte, n)
		for i := range l3 {
			l3[i] = byte(i * 7)
		}
		b.Run(fmt.Sprintf("bytes=%d", n), func(b *testing.B) {
			b.SetBytes(int64(n))
			var c uint32
			for b.Loop() {
				c += ICRC(l3)
			}
			sinkICRC = c
		})
	}
}

var sinkICRC uint32
