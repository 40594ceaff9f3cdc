package wire

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/gopacket"
	"github.com/google/gopacket/layers"
	"github.com/google/gopacket/pcapgo"

	"github.com/hpccgold/hpccgold/atomicfile"
	"github.com/hpccgold/hpccgold/internal/testtool"
	"github.com/hpccgold/hpccgold/telemetry"
)

// pcapPacket is one generated frame with the BTH fields we wrote, which
// tshark must read back.
type pcapPacket struct {
	name   string
	frame  []byte
	opcode Opcode
	psn    PSN
	qp     QPN
	ackReq bool
	udpSum bool // frame carries a UDP checksum tshark must call good
	msn    int  // AETH MSN, -1 without AETH
}

func pcapPackets(t *testing.T) []pcapPacket {
	t.Helper()
	path := testPath()
	tagged := path
	tagged.VLAN = VLAN{Present: true, PCP: 3, VID: 42}
	ok := func(b []byte, err error) []byte {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	ifa := buildData(t, telemetry.IFA, 2, 100) // QPN 0x42, PSN 100, A=1
	cmp := ok(AppendData(nil, &Data{Path: tagged, Opcode: OpRCSendOnly,
		Transport: Transport{PKey: DefaultPKey, DestQP: 0xABCDEF, PSN: 0xFFFFFF, MigReq: true},
		INT:       INTRequest{Enabled: true, Encoding: telemetry.Compact, MaxHops: 5}, Payload: []byte("odd-length")}))
	cmp = stampHops(t, cmp, telemetry.Compact, compactHops(3))
	sum := ok(AppendData(nil, &Data{Path: path, Opcode: OpRCSendFirst, Transport: Transport{PKey: DefaultPKey, DestQP: 7, PSN: 0},
		Payload: bytes.Repeat([]byte{0x5A}, 256)}))
	ip := IPv4(sum[EthernetHeaderLen:])
	seg := sum[EthernetHeaderLen+IPv4HeaderLen : EthernetHeaderLen+int(ip.TotalLength())]
	binary.BigEndian.PutUint16(seg[UDPChecksumOffset:], UDPChecksum(ip.Src(), ip.Dst(), seg))
	var p Packet
	Decode(ifa, &p)
	ack := ok(AppendAck(nil, &Ack{Path: path.Reverse(), Transport: Transport{PKey: DefaultPKey, DestQP: 0x42, PSN: 100},
		Syndrome: MakeSyndrome(AckTypeACK, CreditsInvalid), MSN: 0x123456,
		Echo: Echo{Enabled: true, Encoding: telemetry.IFA, MaxHops: 5, Hops: p.HopList()}}))
	note := ok(AppendNotify(nil, &Notify{Path: path.Reverse(), Transport: Transport{PKey: DefaultPKey, DestQP: 0x42, PSN: 200},
		Syndrome: MakeSyndrome(AckTypeACK, CreditsInvalid), MSN: 9, Window: 150000}))
	probe := ok(AppendProbe(nil, &Probe{Path: path, Transport: Transport{PKey: DefaultPKey, DestQP: 0x42, PSN: 101},
		INT: INTRequest{Enabled: true, Encoding: telemetry.Compact, MaxHops: 4}}))
	return []pcapPacket{
		{"data IFA 2 hops", ifa, OpRCSendOnly, 100, 0x42, true, false, -1},
		{"data Compact 3 hops, VLAN", cmp, OpRCSendOnly, 0xFFFFFF, 0xABCDEF, false, false, -1},
		{"data with UDP checksum", sum, OpRCSendFirst, 0, 7, false, true, -1},
		{"ack echo", ack, OpRCAck, 100, 0x42, false, false, 0x123456},
		{"notify", note, OpRCAck, 200, 0x42, false, false, 9},
		{"probe", probe, OpProbe, 101, 0x42, false, false, -1},
	}
}

// writePcap writes frames with nanosecond timestamps 1 us apart (from an
// arbitrary fixed epoch, so the file is deterministic) through gopacket's
// pcapgo writer, atomically.
func writePcap(path string, frames [][]byte) error {
	return atomicfile.Write(path, 0o644, func(w io.Writer) error {
		pw := pcapgo.NewWriterNanos(w)
		if err := pw.WriteFileHeader(65535, layers.LinkTypeEthernet); err != nil {
			return err
		}
		epoch := time.Unix(1_700_000_000, 0).UTC()
		for i, f := range frames {
			ci := gopacket.CaptureInfo{Timestamp: epoch.Add(time.Duration(i)*time.Microsecond + 7), CaptureLength: len(f), Length: len(f)}
			if err := pw.WritePacket(ci, f); err != nil {
				return err
			}
		}
		return nil
	})
}

// TestPcapTshark writes generated frames to a nanosecond pcap and has
// Debian's tshark dissect it with UDP 4791 decoded as InfiniBand
// (`tshark -r file -V -d udp.port==4791,infiniband`, plus IPv4 and UDP
// checksum validation on). The oracle is tshark: for every frame it must
// show the RoCE BTH with the opcode, PSN, destination QP and A bit we
// wrote, the AETH MSN of ACK-class packets, an IPv4 header checksum it
// calls good, and, where we set one, a UDP checksum it calls good; its
// "Invariant CRC" of SEND packets (the last 4 bytes of the UDP payload,
// which tshark shows but does not verify; it stops after the AETH of ACKs
// and shows probes as vendor data) must be our ICRC bytes, which checks the
// lengths. The
// capture timestamps must come back with nanosecond resolution.
func TestPcapTshark(t *testing.T) {
	tshark := testtool.Need(t, "tshark")[0]
	pkts := pcapPackets(t)
	var frames [][]byte
	for _, p := range pkts {
		frames = append(frames, p.frame)
	}
	file := filepath.Join(t.TempDir(), "wire.pcap")
	if err := writePcap(file, frames); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(tshark, "-r", file, "-V", "-d", "udp.port==4791,infiniband",
		"-o", "ip.check_checksum:TRUE", "-o", "udp.check_checksum:TRUE", "-t", "e")
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir()) // no user preferences
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("tshark: %v\n%s", err, out)
	}
	dis := splitFrames(string(out))
	if len(dis) != len(pkts) {
		t.Fatalf("tshark dissected %d frames, want %d:\n%s", len(dis), len(pkts), out)
	}
	for i, p := range pkts {
		d := dis[i]
		check := func(what, re string, want string) {
			t.Helper()
			m := regexp.MustCompile(re).FindStringSubmatch(d)
			if m == nil {
				t.Errorf("%s: tshark shows no %s:\n%s", p.name, what, d)
				return
			}
			if m[1] != want {
				t.Errorf("%s: tshark %s = %s, want %s", p.name, what, m[1], want)
			}
		}
		check("opcode", `(?m)^\s+Opcode: .*\((\d+)\)$`, strconv.Itoa(int(p.opcode)))
		check("PSN", `(?m)^\s+Packet Sequence Number: (\d+)$`, strconv.Itoa(int(p.psn)))
		check("destination QP", `(?m)^\s+Destination Queue Pair: (0x[0-9a-f]+)`, fmt.Sprintf("0x%06x", uint32(p.qp)))
		check("acknowledge request", `(?m)^\s+\d\.\.\. \.\.\.\. = Acknowledge Request: (\w+)$`, map[bool]string{true: "True", false: "False"}[p.ackReq])
		check("IPv4 checksum status", `(?m)^\s+\[Header checksum status: (\w+)\]$`, "Good")
		if p.udpSum {
			check("UDP checksum status", `(?m)^\s+\[Checksum Status: (\w+)\]$`, "Good")
		}
		if p.msn >= 0 {
			check("AETH MSN", `(?m)^\s+Message Sequence Number: (\d+)$`, strconv.Itoa(p.msn))
		}
		var q Packet
		Decode(p.frame, &q)
		if p.opcode.IsSend() { // tshark locates the ICRC only after a SEND payload
			check("invariant CRC", `(?m)^\s+Invariant CRC: (0x[0-9a-f]+)$`, fmt.Sprintf("0x%08x", binary.BigEndian.Uint32(p.frame[q.ICRCOff:])))
		}
		check("epoch timestamp", `(?m)^\s+Epoch Time: (\d+\.\d+) seconds$`, fmt.Sprintf("1700000000.%06d007", i))
	}
}

// splitFrames cuts tshark -V output into one string per frame.
func splitFrames(s string) []string {
	var out []string
	var cur strings.Builder
	started := false
	sc := bufio.NewScanner(strings.NewReader(s))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "Frame ") {
			if started {
				out = append(out, cur.String())
			}
			cur.Reset()
			started = true
		}
		if !started {
			continue // tshark's banner lines before the first frame
		}
		cur.WriteString(line)
		cur.WriteByte('\n')
	}
	if started {
		out = append(out, cur.String())
	}
	return out
}
