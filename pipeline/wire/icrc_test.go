package wire

import (
	"encoding/hex"
	"hash/crc32"
	"math/rand/v2"
	"strings"
	"testing"
)

func mustHex(t testing.TB, s string) []byte {
	t.Helper()
	s = strings.Join(strings.Fields(s), "")
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatalf("bad hex: %v", err)
	}
	return b
}

// TestICRCSeed checks the CRC state after the eight 0xFF bytes that stand
// for the masked LRH: Linux rdma_rxe (rxe_icrc.c) starts its raw crc32_le
// from the constant 0xdebb20e3, which must equal the complement of the
// standard CRC-32 of eight 0xFF bytes.
func TestICRCSeed(t *testing.T) {
	var ff [8]byte
	for i := range ff {
		ff[i] = 0xFF
	}
	if got := ^crc32.ChecksumIEEE(ff[:]); got != 0xdebb20e3 {
		t.Fatalf("raw CRC state after 8 x 0xFF = %#08x, want 0xdebb20e3 (rxe_icrc.c)", got)
	}
}

// TestICRCKnownPackets checks ICRC against a packet whose ICRC comes from
// outside this code: a RoCEv2 CNP captured on a Mellanox ConnectX-4 Lx
// (hardware-computed ICRC; the capture is reproduced in scapy's
// test/contrib/roce.uts). It exercises every masked field: TOS 0xc2 (ECN
// ECT(0)), TTL 64, a non-zero IP checksum and BECN set in BTH byte 4.
func TestICRCKnownPackets(t *testing.T) {
	tests := []struct {
		name  string
		frame string
		want  string // ICRC bytes as on the wire
	}{
		{
			name: "ConnectX-4 Lx CNP",
			frame: `e41d2dab2bc2 7cfe90643b32 0800
				45c2003c718c400040119161 0a001101 0a001201
				000012b700280000
				8100ffff4000011800000000
				00000000000000000000000000000000`,
			want: "82fd002a",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := mustHex(t, tc.frame)
			l3 := f[EthernetHeaderLen:]
			got := make([]byte, 4)
			c := ICRC(l3)
			got[0], got[1], got[2], got[3] = byte(c), byte(c>>8), byte(c>>16), byte(c>>24)
			if hex.EncodeToString(got) != tc.want {
				t.Fatalf("ICRC wire bytes = %x, want %s", got, tc.want)
			}
			// The same packet with the ICRC appended verifies.
			full := append(append([]byte{}, l3...), got...)
			if !icrcValid(full) {
				t.Fatalf("icrcValid rejected the packet with its own ICRC")
			}
			// Rewriting a masked field (ECN to CE, TTL) keeps it valid;
			// flipping a covered payload bit breaks it.
			ip := IPv4(full)
			ip.SetECN(CE)
			full[IPv4TTLOffset]--
			full[IPv4HeaderLen+UDPHeaderLen+BTHCNOffset] |= 0x80 // FECN
			if !icrcValid(full) {
				t.Fatalf("ICRC changed after rewriting masked fields")
			}
			full[len(full)-5] ^= 1
			if icrcValid(full) {
				t.Fatalf("ICRC did not catch a payload bit flip")
			}
		})
	}
}

// icrcBytewise is the ICRC by its definition (IBTA Vol. 1 7.8.1, Annex
// A17.3.3): a copy of l3 with the masked header bytes (icrcMask) set to
// 0xFF, run through the standard CRC-32 after eight 0xFF bytes. It is the
// oracle for the word-at-a-time ICRC.
func icrcBytewise(l3 []byte) uint32 {
	m := append(make([]byte, 0, 8+len(l3)), 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF)
	m = append(m, l3...)
	for i := 0; i < icrcMaskedHeader; i++ {
		if icrcMask>>uint(i)&1 != 0 {
			m[8+i] = 0xFF
		}
	}
	return crc32.ChecksumIEEE(m)
}

// TestICRCMatchesBytewise checks ICRC (slicing-by-8 over the masked header,
// hash/crc32 over the rest) against the byte-at-a-time definition on
// random datagrams of every length from the 40-byte header to 300 bytes
// (both sides of hash/crc32's 64-byte PCLMULQDQ threshold) and on longer
// ones up to 9000 bytes, and on the built packets of this package. The
// oracle is icrcBytewise, itself checked against the ConnectX capture by
// TestICRCDefinitionMatchesCapture.
func TestICRCMatchesBytewise(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 1))
	check := func(l3 []byte) {
		t.Helper()
		if got, want := ICRC(l3), icrcBytewise(l3); got != want {
			t.Fatalf("ICRC(%d bytes %x) = %#08x, want %#08x", len(l3), l3, got, want)
		}
	}
	for n := icrcMaskedHeader; n <= 300; n++ {
		for rep := 0; rep < 20; rep++ {
			l3 := make([]byte, n)
			for i := range l3 {
				l3[i] = byte(rng.Uint32())
			}
			check(l3)
		}
	}
	for rep := 0; rep < 500; rep++ {
		l3 := make([]byte, icrcMaskedHeader+rng.IntN(9000-icrcMaskedHeader))
		for i := range l3 {
			l3[i] = byte(rng.Uint32())
		}
		check(l3)
	}
	// All-ones and all-zero headers: every mask bit matters.
	for _, v := range []byte{0x00, 0xFF} {
		l3 := make([]byte, 1100)
		for i := range l3 {
			l3[i] = v
		}
		check(l3)
	}
}

// TestICRCDefinitionMatchesCapture checks the test oracle icrcBytewise on
// the ConnectX-4 Lx CNP of TestICRCKnownPackets (hardware-computed ICRC,
// wire bytes 82fd002a, least-significant byte first).
func TestICRCDefinitionMatchesCapture(t *testing.T) {
	f := mustHex(t, `e41d2dab2bc2 7cfe90643b32 0800
		45c2003c718c400040119161 0a001101 0a001201
		000012b700280000
		8100ffff4000011800000000
		00000000000000000000000000000000`)
	if got := icrcBytewise(f[EthernetHeaderLen:]); got != 0x2a00fd82 {
		t.Fatalf("icrcBytewise(CNP) = %#08x, want 0x2a00fd82", got)
	}
}
