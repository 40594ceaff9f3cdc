package wire

import (
	"bytes"
	"encoding/hex"
	"reflect"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/telemetry"
)

// testPath is the sender->receiver path used by the tests.
func testPath() Path {
	return Path{
		SrcMAC: MAC{2, 0, 0, 0, 0, 1}, DstMAC: MAC{2, 0, 0, 0, 0, 2},
		SrcIP: IPv4Addr{10, 0, 0, 1}, DstIP: IPv4Addr{10, 0, 0, 2},
		DSCP: 26, ECN: ECT0, TTL: 64, IPID: 0x1234, UDPSrcPort: 0xC123,
	}
}

// compactHop is the Compact record of telemetry's own known-bytes test
// (wire image ffff891a2d5e6f7a).
var compactHop = telemetry.Hop{SpeedCode: 2, Ts: 0xABCDEF, TxBytes: 0x12345, Qlen: 0x1FFFF}

// TestBuildKnownBytes compares two built frames with hand-assembled wire
// images. The header bytes were written out field by field from the layouts
// in docs/wire.md; the IPv4 checksums (0x1411, 0x140d) and the ICRCs were
// computed independently of this package with Python (a hand-written
// ones'-complement sum and zlib.crc32 over the masked pseudo-header).
func TestBuildKnownBytes(t *testing.T) {
	path := testPath()
	data, err := AppendData(nil, &Data{
		Path: path, Opcode: OpRCSendOnly,
		Transport: Transport{PKey: DefaultPKey, DestQP: 0x123, PSN: 0xFFFFFE, MigReq: true, AckReq: true},
		INT:       INTRequest{Enabled: true, Encoding: telemetry.Compact, MaxHops: 5},
		Payload:   []byte("hello"),
	})
	if err != nil {
		t.Fatal(err)
	}
	wantData := "020000000002 020000000001 0800" + // Ethernet: dst, src, IPv4
		"456a 003c 1234 4000 4011 1411 0a000001 0a000002" + // IPv4: DSCP 26 ECT(0), len 60, DF, TTL 64, UDP
		"c123 12b7 0028 0000" + // UDP: entropy port, 4791, len 40, no checksum
		"04 70 ffff 00 000123 c0 fffffe" + // BTH: SEND_ONLY, M=1 PadCnt=3, PKey, QP 0x123, A=1 T=1, PSN
		"11 02 00 05 02 00 0000" + // shim: v1 request, Compact, 0 hops of max 5, HopLen 2 words
		"68656c6c6f 000000" + // payload "hello" + 3 pad bytes
		"1d96d136" // ICRC, LSB first
	checkHex(t, "data", data, wantData)

	ack, err := AppendAck(nil, &Ack{
		Path:      path.Reverse(),
		Transport: Transport{PKey: DefaultPKey, DestQP: 0x456, PSN: 0xFFFFFE, MigReq: true},
		Syndrome:  MakeSyndrome(AckTypeACK, CreditsInvalid), MSN: 7,
		Echo: Echo{Enabled: true, Encoding: telemetry.Compact, MaxHops: 5, Hops: []telemetry.Hop{compactHop}},
	})
	if err != nil {
		t.Fatal(err)
	}
	wantAck := "020000000001 020000000002 0800" +
		"456a 0040 1234 4000 4011 140d 0a000002 0a000001" +
		"c123 12b7 002c 0000" +
		"11 40 ffff 00 000456 40 fffffe" + // BTH: ACKNOWLEDGE, M=1, A=0 T=1
		"1f 000007" + // AETH: ACK, credits invalid, MSN 7
		"12 02 01 05 02 00 0000" + // shim: v1 echo, Compact, 1 hop of 5
		"ffff891a2d5e6f7a" + // the hop record
		"bad95464" // ICRC
	checkHex(t, "ack", ack, wantAck)
}

func checkHex(t *testing.T, name string, got []byte, want string) {
	t.Helper()
	w := strings.Join(strings.Fields(want), "")
	if g := hex.EncodeToString(got); g != w {
		t.Errorf("%s frame:\n got %s\nwant %s", name, g, w)
	}
}

func stampHops(t *testing.T, frame []byte, e telemetry.Encoding, hops []telemetry.Hop) []byte {
	t.Helper()
	for i, h := range hops {
		var res PushResult
		var err error
		frame, res, err = PushHop(frame, e, h, 0)
		if err != nil || res != Pushed {
			t.Fatalf("PushHop %d: %v, %v", i, res, err)
		}
	}
	return frame
}

func ifaHops(n int) []telemetry.Hop {
	hs := make([]telemetry.Hop, n)
	for i := range hs {
		hs[i] = telemetry.Hop{SpeedCode: 4, DeviceID: uint32(100 + i), EgressPort: uint16(i + 1), IngressPort: 9,
			RxSec: 3, RxNs: uint32(1000 * (i + 1)), ResidenceNs: 250, TxBytes: uint32(0xFFFFFF00 + i), Qlen: uint32(80 * i)}
	}
	return hs
}

func compactHops(n int) []telemetry.Hop {
	hs := make([]telemetry.Hop, n)
	for i := range hs {
		hs[i] = telemetry.Hop{SpeedCode: 2, Ts: uint32(0xFFFF00 + 16*i), TxBytes: uint32(0xFFFF0 + i), Qlen: uint32(3 * i)}
	}
	return hs
}

// TestRoundTrip builds every packet kind, stamps hops where the kind
// collects them, decodes, and checks every field comes back. The expected
// values are the builder inputs; hops are compared in path order, which
// also checks the per-encoding stack order (IFA newest first, Compact
// oldest first on the wire).
func TestRoundTrip(t *testing.T) {
	path := testPath()
	tagged := path
	tagged.VLAN = VLAN{Present: true, PCP: 3, VID: 100}
	tr := Transport{PKey: DefaultPKey, DestQP: 0xABCDEF, PSN: 0x7FFFFF, MigReq: true, AckReq: true, SE: true, FECN: true}
	type row struct {
		name    string
		build   func() ([]byte, error)
		stamp   []telemetry.Hop
		enc     telemetry.Encoding
		class   Class
		payload []byte
		hasINT  bool
		kind    Kind
		hops    []telemetry.Hop // expected decoded hops (path order)
		window  uint32
		vlan    VLAN
	}
	rows := []row{
		{name: "data no INT, payload 1024", class: ClassData, payload: bytes.Repeat([]byte{0xA5}, 1024),
			build: func() ([]byte, error) {
				return AppendData(nil, &Data{Path: path, Opcode: OpRCSendOnly, Transport: tr, Payload: bytes.Repeat([]byte{0xA5}, 1024)})
			}},
		{name: "data empty payload, VLAN", class: ClassData, payload: []byte{}, vlan: tagged.VLAN,
			build: func() ([]byte, error) {
				return AppendData(nil, &Data{Path: tagged, Opcode: OpRCSendFirst, Transport: tr})
			}},
		{name: "data IFA 5 hops, odd payload", class: ClassData, payload: []byte{1, 2, 3, 4, 5, 6, 7},
			hasINT: true, kind: KindRequest, enc: telemetry.IFA, stamp: ifaHops(5), hops: ifaHops(5),
			build: func() ([]byte, error) {
				return AppendData(nil, &Data{Path: path, Opcode: OpRCSendLast, Transport: tr,
					INT: INTRequest{Enabled: true, Encoding: telemetry.IFA, MaxHops: 5}, Payload: []byte{1, 2, 3, 4, 5, 6, 7}})
			}},
		{name: "data Compact 3 hops", class: ClassData, payload: []byte{9, 9},
			hasINT: true, kind: KindRequest, enc: telemetry.Compact, stamp: compactHops(3), hops: compactHops(3),
			build: func() ([]byte, error) {
				return AppendData(nil, &Data{Path: path, Opcode: OpRCSendMiddle, Transport: tr,
					INT: INTRequest{Enabled: true, Encoding: telemetry.Compact, MaxHops: 8}, Payload: []byte{9, 9}})
			}},
		{name: "ack plain", class: ClassAck,
			build: func() ([]byte, error) {
				return AppendAck(nil, &Ack{Path: path.Reverse(), Transport: tr, Syndrome: MakeSyndrome(AckTypeNAK, 3), MSN: 0xFFFFFF})
			}},
		{name: "ack echo IFA 4", class: ClassAck, hasINT: true, kind: KindEcho, enc: telemetry.IFA, hops: ifaHops(4),
			build: func() ([]byte, error) {
				return AppendAck(nil, &Ack{Path: path.Reverse(), Transport: tr, Syndrome: MakeSyndrome(AckTypeACK, CreditsInvalid), MSN: 1,
					Echo: Echo{Enabled: true, Encoding: telemetry.IFA, MaxHops: 5, Hops: ifaHops(4)}})
			}},
		{name: "ack echo Compact 0 hops", class: ClassAck, hasINT: true, kind: KindEcho, enc: telemetry.Compact, hops: []telemetry.Hop{},
			build: func() ([]byte, error) {
				return AppendAck(nil, &Ack{Path: path.Reverse(), Transport: tr, MSN: 1,
					Echo: Echo{Enabled: true, Encoding: telemetry.Compact, MaxHops: 5}})
			}},
		{name: "notify", class: ClassNotify, hasINT: true, kind: KindNotify, window: 0xDEADBEEF, hops: []telemetry.Hop{},
			build: func() ([]byte, error) {
				return AppendNotify(nil, &Notify{Path: path.Reverse(), Transport: tr, MSN: 2, Window: 0xDEADBEEF})
			}},
		{name: "probe Compact 2 hops", class: ClassProbe, hasINT: true, kind: KindRequest, enc: telemetry.Compact,
			stamp: compactHops(2), hops: compactHops(2),
			build: func() ([]byte, error) {
				return AppendProbe(nil, &Probe{Path: path, Transport: tr, INT: INTRequest{Enabled: true, Encoding: telemetry.Compact, MaxHops: 5}})
			}},
		{name: "probe reply IFA 8", class: ClassProbeReply, hasINT: true, kind: KindEcho, enc: telemetry.IFA, hops: ifaHops(8),
			build: func() ([]byte, error) {
				return AppendProbeReply(nil, &ProbeReply{Path: path.Reverse(), Transport: tr,
					Echo: Echo{Enabled: true, Encoding: telemetry.IFA, MaxHops: 8, Hops: ifaHops(8)}})
			}},
	}
	for _, r := range rows {
		t.Run(r.name, func(t *testing.T) {
			f, err := r.build()
			if err != nil {
				t.Fatal(err)
			}
			if r.stamp != nil {
				f = stampHops(t, f, r.enc, r.stamp)
			}
			var p Packet
			Decode(f, &p)
			if p.Class != r.class {
				t.Fatalf("Class = %v (reason %v), want %v", p.Class, p.Reason, r.class)
			}
			if p.DestQP != tr.DestQP || p.PSN != tr.PSN || p.PKey != tr.PKey || p.FECN != tr.FECN || p.BECN != tr.BECN {
				t.Errorf("BTH fields = qp %#x psn %#x pkey %#x F%t B%t", p.DestQP, p.PSN, p.PKey, p.FECN, p.BECN)
			}
			bth := p.BTH()
			if bth.SolicitedEvent() != tr.SE || bth.MigReq() != tr.MigReq || p.AckReq != tr.AckReq || bth.Reserved() != 0 {
				t.Errorf("BTH flags SE %t M %t A %t resv %#x", bth.SolicitedEvent(), bth.MigReq(), p.AckReq, bth.Reserved())
			}
			if p.VLAN != r.vlan {
				t.Errorf("VLAN = %+v, want %+v", p.VLAN, r.vlan)
			}
			if p.ECN != ECT0 || p.UDPSrcPort != 0xC123 {
				t.Errorf("ECN %v port %#x", p.ECN, p.UDPSrcPort)
			}
			if r.class == ClassData && !bytes.Equal(p.Payload(), r.payload) {
				t.Errorf("Payload = %x, want %x", p.Payload(), r.payload)
			}
			if p.HasINT != r.hasINT {
				t.Fatalf("HasINT = %t, want %t", p.HasINT, r.hasINT)
			}
			if r.hasINT {
				if p.INT.Kind != r.kind || p.INT.Encoding != r.enc {
					t.Errorf("INT = %+v, want kind %v enc %v", p.INT, r.kind, r.enc)
				}
				if !reflect.DeepEqual(p.HopList(), r.hops) {
					t.Errorf("hops =\n %+v\nwant\n %+v", p.HopList(), r.hops)
				}
				if p.StackLen != len(r.hops)*r.enc.HopSize() {
					t.Errorf("StackLen = %d", p.StackLen)
				}
			}
			if p.Window != r.window {
				t.Errorf("Window = %#x, want %#x", p.Window, r.window)
			}
			ip := p.IPv4()
			if !ip.ChecksumValid() || int(ip.TotalLength())+p.IPOff != p.ICRCOff+ICRCLen {
				t.Errorf("IPv4 checksum valid %t, total length %d", ip.ChecksumValid(), ip.TotalLength())
			}
			if len(f) < EthernetMinFrameLen {
				t.Errorf("frame %d bytes, below Ethernet minimum", len(f))
			}
		})
	}
}

// TestBuildErrors checks that bad builder input is an error naming the
// field and value, and leaves dst unchanged.
func TestBuildErrors(t *testing.T) {
	path := testPath()
	bad := path
	bad.DSCP = 64
	noTTL := path
	noTTL.TTL = 0
	tr := Transport{DestQP: 1}
	cases := []struct {
		name string
		f    func(dst []byte) ([]byte, error)
		want string
	}{
		{"DSCP", func(d []byte) ([]byte, error) { return AppendData(d, &Data{Path: bad, Opcode: OpRCSendOnly}) }, "Path.DSCP=64"},
		{"TTL", func(d []byte) ([]byte, error) { return AppendData(d, &Data{Path: noTTL, Opcode: OpRCSendOnly}) }, "Path.TTL=0"},
		{"QPN", func(d []byte) ([]byte, error) {
			return AppendData(d, &Data{Path: path, Opcode: OpRCSendOnly, Transport: Transport{DestQP: 1 << 24}})
		}, "DestQP=0x1000000"},
		{"PSN", func(d []byte) ([]byte, error) {
			return AppendData(d, &Data{Path: path, Opcode: OpRCSendOnly, Transport: Transport{PSN: 1 << 24}})
		}, "PSN=0x1000000"},
		{"opcode", func(d []byte) ([]byte, error) { return AppendData(d, &Data{Path: path, Opcode: OpRCAck}) }, "Data.Opcode=RC_ACKNOWLEDGE"},
		{"maxhops", func(d []byte) ([]byte, error) {
			return AppendData(d, &Data{Path: path, Opcode: OpRCSendOnly, Transport: tr, INT: INTRequest{Enabled: true, Encoding: telemetry.IFA, MaxHops: 9}})
		}, "INT.MaxHops=9"},
		{"encoding", func(d []byte) ([]byte, error) {
			return AppendProbe(d, &Probe{Path: path, Transport: tr, INT: INTRequest{Enabled: true, MaxHops: 2}})
		}, "Encoding=0"},
		{"echo hops", func(d []byte) ([]byte, error) {
			return AppendAck(d, &Ack{Path: path, Transport: tr, Echo: Echo{Enabled: true, Encoding: telemetry.IFA, MaxHops: 2, Hops: ifaHops(3)}})
		}, "must be <= MaxHops=2"},
		{"bad hop", func(d []byte) ([]byte, error) {
			return AppendProbeReply(d, &ProbeReply{Path: path, Transport: tr,
				Echo: Echo{Enabled: true, Encoding: telemetry.Compact, MaxHops: 2, Hops: []telemetry.Hop{{SpeedCode: 2, Ts: 1 << 24}}}})
		}, "Ts=16777216"},
		{"probe without INT", func(d []byte) ([]byte, error) { return AppendProbe(d, &Probe{Path: path, Transport: tr}) }, "Probe.INT.Enabled=false"},
		{"MSN", func(d []byte) ([]byte, error) { return AppendAck(d, &Ack{Path: path, Transport: tr, MSN: 1 << 24}) }, "MSN=0x1000000"},
		{"payload", func(d []byte) ([]byte, error) {
			return AppendData(d, &Data{Path: path, Opcode: OpRCSendOnly, Transport: tr, Payload: make([]byte, 65500)})
		}, "above 65535"},
	}
	for _, c := range cases {
		dst := []byte{0xEE}
		out, err := c.f(dst)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want mention of %q", c.name, err, c.want)
		}
		if len(out) != 1 || out[0] != 0xEE {
			t.Errorf("%s: dst changed on error: %x", c.name, out)
		}
	}
}
