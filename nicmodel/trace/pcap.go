package trace

import (
	"bytes"
	"encoding/binary"
)

// The pcap file format (libpcap's, nanosecond-resolution variant), which
// tshark and Wireshark read: a 24-byte file header, then per frame a
// 16-byte record header and the frame's bytes; every field little-endian.
// Written here rather than with gopacket's pcapgo, whose package pulls in
// gopacket/layers: that package's initialization took about 0.1 s of CPU
// at every start of the hpccgold binary, traced or not (a third of a
// 16:1 incast's run). TestPcapTshark (tshark dissects the files as
// RoCEv2) and the digest tests (the files' SHA-256, pinned before this
// writer replaced pcapgo's) check it.
const (
	pcapMagicNanos   = 0xA1B23C4D // magic number: timestamps in seconds and nanoseconds
	pcapVersionMajor = 2
	pcapVersionMinor = 4
	pcapLinkEthernet = 1 // LINKTYPE_ETHERNET
)

// pcapFileHeader appends the file header: magic, version 2.4, time zone
// 0 (UTC), sigfigs 0, the snapshot length and the Ethernet link type.
func pcapFileHeader(b *bytes.Buffer, snaplen uint32) {
	var h [24]byte
	binary.LittleEndian.PutUint32(h[0:], pcapMagicNanos)
	binary.LittleEndian.PutUint16(h[4:], pcapVersionMajor)
	binary.LittleEndian.PutUint16(h[6:], pcapVersionMinor)
	binary.LittleEndian.PutUint32(h[16:], snaplen)
	binary.LittleEndian.PutUint32(h[20:], pcapLinkEthernet)
	b.Write(h[:])
}

// pcapRecord appends one frame stamped ns nanoseconds after the epoch:
// seconds (mod 2^32) and nanoseconds, the captured and the original length
// (equal: frames are never truncated), then the bytes.
func pcapRecord(b *bytes.Buffer, ns uint64, data []byte) {
	var h [16]byte
	binary.LittleEndian.PutUint32(h[0:], uint32(ns/1_000_000_000))
	binary.LittleEndian.PutUint32(h[4:], uint32(ns%1_000_000_000))
	binary.LittleEndian.PutUint32(h[8:], uint32(len(data)))
	binary.LittleEndian.PutUint32(h[12:], uint32(len(data)))
	b.Write(h[:])
	b.Write(data)
}
