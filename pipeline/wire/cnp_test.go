package wire

import (
	"bytes"
	"testing"
)

// TestCNPKnownBytes compares a built CNP with a hand-assembled wire image.
// The header bytes were written out field by field from IBTA Annex A17.9.4
// (BTH opcode 0x81, BECN set, 16 reserved bytes) and the layouts in
// docs/wire.md; the IPv4 checksum (0x1411) and the ICRC (0xca3d1991, sent
// LSB first) were computed independently of this package with Python (a
// hand-written ones'-complement sum and zlib.crc32 over eight 0xFF bytes
// and the masked headers).
func TestCNPKnownBytes(t *testing.T) {
	got, err := AppendCNP(nil, &CNP{Path: testPath().Reverse(), PKey: DefaultPKey, DestQP: 0x123})
	if err != nil {
		t.Fatal(err)
	}
	want := "020000000001 020000000002 0800" + // Ethernet: dst, src, IPv4
		"456a 003c 1234 4000 4011 1411 0a000002 0a000001" + // IPv4: DSCP 26 ECT(0), len 60, DF, TTL 64, UDP
		"c123 12b7 0028 0000" + // UDP: entropy port, 4791, len 40, no checksum
		"81 40 ffff 40 000123 00 000000" + // BTH: CNP, M=1, PKey, BECN, QP 0x123, PSN 0
		"00000000000000000000000000000000" + // 16 reserved bytes
		"91193dca" // ICRC, LSB first
	checkHex(t, "cnp", got, want)

	// Decode does not accept it (the Rx pipeline drops CNPs as
	// ReasonOpcode); ParseCNP does.
	var p Packet
	Decode(got, &p)
	if p.Class != ClassMalformed || p.Reason != ReasonOpcode {
		t.Errorf("Decode(CNP): class %v reason %v, want malformed/opcode", p.Class, p.Reason)
	}
	if q, ok := ParseCNP(got); !ok || q != 0x123 {
		t.Errorf("ParseCNP = %#x, %v; want 0x123, true", uint32(q), ok)
	}
}

// TestParseCNPRejects checks that ParseCNP answers false for every frame
// that is not exactly a CNP (each row breaks one check) and true for a
// VLAN-tagged CNP and one whose ECN field a switch rewrote (the ICRC masks
// the TOS byte). Expected results follow from the rules in ParseCNP's doc.
func TestParseCNPRejects(t *testing.T) {
	base, err := AppendCNP(nil, &CNP{Path: testPath(), PKey: DefaultPKey, DestQP: 0xABCDE})
	if err != nil {
		t.Fatal(err)
	}
	vp := testPath()
	vp.VLAN = VLAN{Present: true, VID: 7}
	tagged, err := AppendCNP(nil, &CNP{Path: vp, PKey: DefaultPKey, DestQP: 0xABCDE})
	if err != nil {
		t.Fatal(err)
	}
	ack, err := AppendAck(nil, &Ack{Path: testPath(), Transport: Transport{PKey: DefaultPKey, DestQP: 0xABCDE},
		Syndrome: MakeSyndrome(AckTypeACK, CreditsInvalid)})
	if err != nil {
		t.Fatal(err)
	}
	edit := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), base...)) }
	ipOff := EthernetHeaderLen
	bthOff := ipOff + IPv4HeaderLen + UDPHeaderLen
	cases := []struct {
		name  string
		frame []byte
		ok    bool
	}{
		{"cnp", base, true},
		{"vlan-tagged", tagged, true},
		{"ce-marked", edit(func(b []byte) []byte { IPv4(b[ipOff:]).SetECN(CE); return b }), true},
		{"ack", ack, false},
		{"truncated", base[:len(base)-1], false},
		{"empty", nil, false},
		{"not-ipv4", edit(func(b []byte) []byte { b[EthernetTypeOffset+1] = 0xDD; return b }), false},
		{"ip-options", edit(func(b []byte) []byte { b[ipOff] = 0x46; return b }), false},
		{"not-udp", edit(func(b []byte) []byte { b[ipOff+IPv4ProtocolOffset] = 6; return b }), false},
		{"other-port", edit(func(b []byte) []byte { b[ipOff+IPv4HeaderLen+UDPDstPortOffset+1]++; return b }), false},
		{"opcode", edit(func(b []byte) []byte { b[bthOff] = uint8(OpRCAck); return b }), false},
		{"tver", edit(func(b []byte) []byte { b[bthOff+BTHFlagsOffset] |= 1; return b }), false},
		{"icrc", edit(func(b []byte) []byte { b[len(b)-1] ^= 1; return b }), false},
		{"reserved-byte-changed-icrc-stale", edit(func(b []byte) []byte { b[bthOff+BTHLen] = 1; return b }), false},
	}
	for _, c := range cases {
		q, ok := ParseCNP(c.frame)
		if ok != c.ok || (ok && q != 0xABCDE) {
			t.Errorf("%s: ParseCNP = %#x, %v; want ok=%v", c.name, uint32(q), ok, c.ok)
		}
	}
	if !bytes.Equal(base, edit(func(b []byte) []byte { return b })) {
		t.Fatal("edit aliases base")
	}
}
