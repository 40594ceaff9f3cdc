package wire

import (
	"encoding/binary"
	"testing"

	"github.com/hpccgold/hpccgold/telemetry"
)

func buildData(t testing.TB, e telemetry.Encoding, nhops int, payload int) []byte {
	t.Helper()
	f, err := AppendData(nil, &Data{Path: testPath(), Opcode: OpRCSendOnly,
		Transport: Transport{PKey: DefaultPKey, DestQP: 0x42, PSN: 100, AckReq: true},
		INT:       INTRequest{Enabled: true, Encoding: e, MaxHops: 5}, Payload: make([]byte, payload)})
	if err != nil {
		t.Fatal(err)
	}
	hops := compactHops(nhops)
	if e == telemetry.IFA {
		hops = ifaHops(nhops)
	}
	for _, h := range hops {
		if f, _, err = PushHop(f, e, h, 0); err != nil {
			t.Fatal(err)
		}
	}
	return f
}

// fixIP recomputes the IPv4 checksum after a test edits the header, so that
// the edit under test is what Decode rejects.
func fixIP(f []byte) {
	ip := IPv4(f[EthernetHeaderLen:])
	ip.SetChecksum(ip.CalculateChecksum())
}

// fixICRC recomputes the ICRC after a test edits the IBA part.
func fixICRC(f []byte) {
	ip := IPv4(f[EthernetHeaderLen:])
	putICRC(f[EthernetHeaderLen : EthernetHeaderLen+int(ip.TotalLength())])
}

const (
	ipO   = EthernetHeaderLen
	udpO  = ipO + IPv4HeaderLen
	bthO  = udpO + UDPHeaderLen
	shimO = bthO + BTHLen
)

// TestDecodeMalformed derives one malformed frame per Reason from a valid
// data packet (Compact, 2 hops, 10-byte payload) and checks Decode reports
// exactly that reason. Each edit is written from the layout in docs/wire.md;
// where the edit would also break an earlier check (IPv4 checksum, ICRC),
// that check is repaired so the intended one fires.
func TestDecodeMalformed(t *testing.T) {
	ack := func() []byte {
		f, err := AppendAck(nil, &Ack{Path: testPath(), Transport: Transport{DestQP: 1}, MSN: 1})
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	cases := []struct {
		name string
		edit func(f []byte) []byte
		want Reason
	}{
		{"short ethernet", func(f []byte) []byte { return f[:13] }, ReasonEthernetShort},
		{"short vlan", func(f []byte) []byte { binary.BigEndian.PutUint16(f[12:], EtherTypeVLAN); return f[:17] }, ReasonEthernetShort},
		{"ethertype", func(f []byte) []byte { f[12] = 0x86; f[13] = 0xDD; return f }, ReasonEtherType},
		{"short ip", func(f []byte) []byte { return f[:ipO+19] }, ReasonIPv4Short},
		{"ip version", func(f []byte) []byte { f[ipO] = 0x65; return f }, ReasonIPv4Version},
		{"ip options", func(f []byte) []byte { f[ipO] = 0x46; return f }, ReasonIPv4Options},
		{"ip total too long", func(f []byte) []byte {
			binary.BigEndian.PutUint16(f[ipO+2:], uint16(len(f)-ipO+1))
			fixIP(f)
			return f
		}, ReasonIPv4Length},
		{"ip total below header", func(f []byte) []byte { binary.BigEndian.PutUint16(f[ipO+2:], 19); fixIP(f); return f }, ReasonIPv4Length},
		{"ip checksum", func(f []byte) []byte { f[ipO+10] ^= 1; return f }, ReasonIPv4Checksum},
		{"ip MF", func(f []byte) []byte { f[ipO+6] |= 0x20; fixIP(f); return f }, ReasonIPv4Fragment},
		{"ip frag offset", func(f []byte) []byte { f[ipO+7] = 1; fixIP(f); return f }, ReasonIPv4Fragment},
		{"ip protocol", func(f []byte) []byte { f[ipO+9] = 6; fixIP(f); return f }, ReasonIPv4Protocol},
		{"udp length", func(f []byte) []byte { f[udpO+5]--; return f }, ReasonUDPLength},
		{"udp short", func(f []byte) []byte {
			binary.BigEndian.PutUint16(f[ipO+2:], 27)
			fixIP(f)
			return f
		}, ReasonUDPLength},
		{"udp port", func(f []byte) []byte { f[udpO+3] = 0xB8; return f }, ReasonUDPPort},
		{"udp checksum", func(f []byte) []byte { f[udpO+7] = 1; return f }, ReasonUDPChecksum},
		{"bth short", func(f []byte) []byte {
			n := IPv4HeaderLen + UDPHeaderLen + BTHLen + 3
			binary.BigEndian.PutUint16(f[ipO+2:], uint16(n))
			binary.BigEndian.PutUint16(f[udpO+4:], uint16(n-IPv4HeaderLen))
			fixIP(f)
			return f
		}, ReasonBTHShort},
		{"tver", func(f []byte) []byte { f[bthO+1] |= 1; fixICRC(f); return f }, ReasonBTHVersion},
		{"opcode", func(f []byte) []byte { f[bthO] = 0x0A; fixICRC(f); return f }, ReasonOpcode},
		{"cnp opcode", func(f []byte) []byte { f[bthO] = uint8(OpCNP); fixICRC(f); return f }, ReasonOpcode},
		{"aeth short", func(f []byte) []byte {
			f[bthO] = uint8(OpRCAck)
			n := IPv4HeaderLen + UDPHeaderLen + BTHLen + 3 + ICRCLen
			binary.BigEndian.PutUint16(f[ipO+2:], uint16(n))
			binary.BigEndian.PutUint16(f[udpO+4:], uint16(n-IPv4HeaderLen))
			fixIP(f)
			return f
		}, ReasonAETHShort},
		{"pad on ack", func(f []byte) []byte { f = ack(); f[bthO+1] |= 0x10; fixICRC(f); return f }, ReasonPadCount},
		{"pad beyond payload", func(f []byte) []byte {
			// No payload but PadCnt 3.
			g := buildData(t, telemetry.Compact, 0, 0)
			g[bthO+1] |= 0x30
			fixICRC(g)
			return g
		}, ReasonPadCount},
		{"probe without T", func(f []byte) []byte {
			g := buildData(t, telemetry.Compact, 0, 0)
			g[bthO] = uint8(OpProbe)
			g[bthO+8] &^= BTHINTFlag
			fixICRC(g)
			return g
		}, ReasonINTMissing},
		{"int short", func(f []byte) []byte { f = ack(); f[bthO+8] |= BTHINTFlag; fixICRC(f); return f }, ReasonINTShort},
		{"int version", func(f []byte) []byte { f[shimO] = 0x21; fixICRC(f); return f }, ReasonINTVersion},
		{"int kind echo on data", func(f []byte) []byte { f[shimO] = 0x12; fixICRC(f); return f }, ReasonINTKind},
		{"int kind zero", func(f []byte) []byte { f[shimO] = 0x10; fixICRC(f); return f }, ReasonINTKind},
		{"int encoding", func(f []byte) []byte { f[shimO+1] = 3; fixICRC(f); return f }, ReasonINTEncoding},
		{"int hoplen", func(f []byte) []byte { f[shimO+4] = 8; fixICRC(f); return f }, ReasonINTHopLen},
		{"int maxhops 0", func(f []byte) []byte { f[shimO+3] = 0; fixICRC(f); return f }, ReasonINTMaxHops},
		{"int maxhops 9", func(f []byte) []byte { f[shimO+3] = 9; fixICRC(f); return f }, ReasonINTMaxHops},
		{"int hopcount", func(f []byte) []byte { f[shimO+3] = 1; fixICRC(f); return f }, ReasonINTHopCount},
		{"int stack", func(f []byte) []byte {
			g := buildData(t, telemetry.Compact, 2, 0)
			g[shimO+2] = 5
			fixICRC(g)
			return g
		}, ReasonINTStack},
		{"hop record", func(f []byte) []byte { f[shimO+INTShimLen+7] |= 7; fixICRC(f); return f }, ReasonHopRecord}, // Compact speed code 7: reserved
		{"trailing", func(f []byte) []byte {
			// ACK with one stray byte before the ICRC.
			g := ack()
			ipl := int(IPv4(g[ipO:]).TotalLength())
			g = append(g[:ipO+ipl], 0)
			binary.BigEndian.PutUint16(g[ipO+2:], uint16(ipl+1))
			binary.BigEndian.PutUint16(g[udpO+4:], uint16(ipl+1-IPv4HeaderLen))
			fixIP(g)
			fixICRC(g)
			return g
		}, ReasonTrailing},
		{"icrc", func(f []byte) []byte { f[len(f)-5] ^= 0x40; return f }, ReasonICRC},
		{"icrc on hop", func(f []byte) []byte { f[shimO+INTShimLen] ^= 0x80; return f }, ReasonICRC},
	}
	seen := map[Reason]bool{}
	for _, c := range cases {
		f := c.edit(buildData(t, telemetry.Compact, 2, 10))
		var p Packet
		Decode(f, &p)
		if p.Class != ClassMalformed || p.Reason != c.want {
			t.Errorf("%s: Decode = %v/%v, want malformed/%v", c.name, p.Class, p.Reason, c.want)
		}
		seen[c.want] = true
	}
	for r := ReasonEthernetShort; r < numReasons; r++ {
		if !seen[r] {
			t.Errorf("reason %v has no test case", r)
		}
	}
	// The unedited frame is valid.
	var p Packet
	Decode(buildData(t, telemetry.Compact, 2, 10), &p)
	if p.Class != ClassData || p.Reason != ReasonNone {
		t.Fatalf("base frame: %v/%v", p.Class, p.Reason)
	}
}

// TestDecodeUDPChecksum: a non-zero UDP checksum that is correct is
// accepted (and a wrong one rejected, in TestDecodeMalformed).
func TestDecodeUDPChecksum(t *testing.T) {
	f := buildData(t, telemetry.IFA, 1, 33)
	ip := IPv4(f[ipO:])
	seg := f[udpO : ipO+int(ip.TotalLength())]
	binary.BigEndian.PutUint16(seg[UDPChecksumOffset:], UDPChecksum(ip.Src(), ip.Dst(), seg))
	if fold(onesSum(onesSum(onesSum(0, f[ipO+12:ipO+20]), []byte{0, IPProtocolUDP, byte(len(seg) >> 8), byte(len(seg))}), seg)) != 0xFFFF {
		t.Fatalf("UDPChecksum does not make the pseudo-header sum 0xFFFF (RFC 768)")
	}
	var p Packet
	Decode(f, &p)
	if p.Class != ClassData {
		t.Fatalf("Decode = %v/%v, want data", p.Class, p.Reason)
	}
	// PushHop keeps a sender's UDP checksum valid.
	f, res, err := PushHop(f, telemetry.IFA, ifaHops(2)[1], 0)
	if err != nil || res != Pushed {
		t.Fatalf("PushHop: %v %v", res, err)
	}
	Decode(f, &p)
	if p.Class != ClassData || p.INT.HopCount != 2 {
		t.Fatalf("after push: %v/%v hops %d", p.Class, p.Reason, p.INT.HopCount)
	}
}

// TestDecodeEthernetPadding: bytes after the IPv4 datagram (Ethernet
// padding or trailer) are ignored.
func TestDecodeEthernetPadding(t *testing.T) {
	f := append(buildData(t, telemetry.Compact, 0, 0), 0, 0, 0, 0, 0, 0)
	var p Packet
	Decode(f, &p)
	if p.Class != ClassData || p.PayloadLen != 0 {
		t.Fatalf("Decode = %v/%v payload %d", p.Class, p.Reason, p.PayloadLen)
	}
}

// TestIPv4Checksum checks the header checksum against the widely used
// worked example (Wikipedia "IPv4 header checksum": 4500 0073 0000 4000
// 4011 [b861] c0a8 0001 c0a8 00c7) and the ConnectX-4 capture's header
// (checksum 0x9161 written by the NIC).
func TestIPv4Checksum(t *testing.T) {
	for _, c := range []struct {
		hdr  string
		want uint16
	}{
		{"450000730000400040110000c0a80001c0a800c7", 0xb861},
		{"45c2003c718c4000401100000a0011010a001201", 0x9161},
	} {
		h := IPv4(mustHex(t, c.hdr))
		if got := h.CalculateChecksum(); got != c.want {
			t.Errorf("checksum(%s) = %#04x, want %#04x", c.hdr, got, c.want)
		}
		h.SetChecksum(c.want)
		if !h.ChecksumValid() {
			t.Errorf("ChecksumValid false for %s", c.hdr)
		}
	}
}

// TestSetECNIncremental: the RFC 1624 incremental update after an ECN
// rewrite equals a full recomputation, for every TOS byte and every target
// codepoint, over headers with assorted other fields (the full
// recomputation is the oracle).
func TestSetECNIncremental(t *testing.T) {
	h := IPv4(mustHex(t, "45000073abcd400040110000c0a80001c0a800c7"))
	for tos := 0; tos < 256; tos++ {
		for e := NotECT; e <= CE; e++ {
			h[IPv4TOSOffset] = byte(tos)
			h[IPv4IDOffset] = byte(tos * 7)
			h.SetChecksum(h.CalculateChecksum())
			old := h.SetECN(e)
			if old != ECN(tos&3) || h.ECN() != e || h.DSCP() != uint8(tos>>2) {
				t.Fatalf("SetECN(%v) on tos %#x: old %v now %v dscp %d", e, tos, old, h.ECN(), h.DSCP())
			}
			if !h.ChecksumValid() {
				t.Fatalf("tos %#x -> %v: incremental checksum %#04x, full %#04x", tos, e, h.Checksum(), h.CalculateChecksum())
			}
		}
	}
}

// TestMarkCE: ECT packets become CE with IPv4 checksum and ICRC still valid;
// Not-ECT and CE packets are unchanged (RFC 3168 section 5).
func TestMarkCE(t *testing.T) {
	for _, c := range []struct {
		in   ECN
		mark bool
	}{{ECT0, true}, {ECT1, true}, {NotECT, false}, {CE, false}} {
		path := testPath()
		path.ECN = c.in
		f, err := AppendData(nil, &Data{Path: path, Opcode: OpRCSendOnly, Transport: Transport{DestQP: 5}, Payload: []byte{1}})
		if err != nil {
			t.Fatal(err)
		}
		before := append([]byte(nil), f...)
		marked, err := MarkCE(f)
		if err != nil || marked != c.mark {
			t.Errorf("%v: MarkCE = %t, %v; want %t", c.in, marked, err, c.mark)
		}
		var p Packet
		Decode(f, &p)
		want := c.in
		if c.mark {
			want = CE
		}
		if p.Class != ClassData || p.ECN != want {
			t.Errorf("%v: after MarkCE %v/%v ECN %v, want %v", c.in, p.Class, p.Reason, p.ECN, want)
		}
		if !c.mark && string(before) != string(f) {
			t.Errorf("%v: frame changed without marking", c.in)
		}
	}
	if _, err := MarkCE([]byte{1, 2, 3}); err == nil {
		t.Errorf("MarkCE on a short frame: no error")
	}
}
