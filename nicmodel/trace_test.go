package nicmodel

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/google/gopacket/pcapgo"

	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/internal/testtool"
	"github.com/hpccgold/hpccgold/nicmodel/trace"
	"github.com/hpccgold/hpccgold/pipeline/wire"
)

// goldenResult is everything a golden run produces.
type goldenResult struct {
	files     map[string][]byte
	countersA Counters
	countersB Counters
	records   []FlowRecord
	stats     engine.Stats
	now       engine.Cycle
}

// goldenRun runs sender-based HPCC++ on three flows (two overlapping, one
// starting after a long idle gap) through an INT switch whose queue comes
// and goes, with every trace on and a VCD of both NICs, and returns the
// written files and the results.
func goldenRun(t *testing.T, noSkip bool) goldenResult {
	t.Helper()
	cfg := testConfig(CCHPCC)
	cfg.Tx.AckEvery, cfg.Tx.AckTimeoutCycles = 2, 2000
	qlen := func(now engine.Cycle) uint64 { return uint64(now/2500%3) * 15000 }
	b := newBench(t, benchOpts{cfgA: cfg, cfgB: cfg, flows: 3, delay: 1500, noSkip: noSkip, qlen: qlen,
		trace: TraceOptions{Packets: true, Vectors: true}})
	vcd := must(NewVCD(cfg.ClockHz, "nicmodel golden run"))(t)
	if err := b.a.Watch(vcd, []wire.QPN{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	if err := b.b.Watch(vcd, []wire.QPN{1}); err != nil {
		t.Fatal(err)
	}
	vcd.Start()
	b.e.SetCycleHook(vcd.Sample)
	b.open(t, 1, 100_000, 0)
	b.open(t, 2, 60_000, 500)
	b.open(t, 3, 30_000, 300_000)
	b.runIdle(t, 10_000_000)
	dir := t.TempDir()
	for _, n := range []*NIC{b.a, b.b} {
		if _, err := n.WriteTraces(dir); err != nil {
			t.Fatal(err)
		}
	}
	if err := vcd.WriteFile(filepath.Join(dir, "nics.vcd")); err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	ents := must(os.ReadDir(dir))(t)
	for _, e := range ents {
		files[e.Name()] = must(os.ReadFile(filepath.Join(dir, e.Name())))(t)
	}
	return goldenResult{files: files, countersA: b.a.Counters(), countersB: b.b.Counters(), records: b.a.Completed(),
		stats: b.e.Stats(), now: b.e.Now()}
}

// TestSkipEquivalence runs the golden scenario with idle skipping on and
// off. Results must be identical cycle for cycle: every trace file (pcap,
// hex streams, vector files, manifests, the VCD) byte for byte, every
// counter, every completion record; no component may make progress in a
// cycle in which skipping would not have ticked it; and skipping must
// execute far fewer cycles (the third flow starts after ~250 us of
// idleness).
func TestSkipEquivalence(t *testing.T) {
	s := goldenRun(t, false)
	n := goldenRun(t, true)
	if n.stats.UnexpectedProgress != 0 {
		t.Fatalf("NoSkip: UnexpectedProgress = %d", n.stats.UnexpectedProgress)
	}
	if len(s.records) != 3 {
		t.Fatalf("completed %+v", s.records)
	}
	if !reflect.DeepEqual(s.records, n.records) || s.now != n.now {
		t.Fatalf("completions differ: %+v vs %+v", s.records, n.records)
	}
	if !reflect.DeepEqual(s.countersA, n.countersA) || !reflect.DeepEqual(s.countersB, n.countersB) {
		t.Fatalf("counters differ with and without skipping")
	}
	var names []string
	for k := range s.files {
		names = append(names, k)
	}
	sort.Strings(names)
	if len(names) != len(n.files) || len(names) < 30 {
		t.Fatalf("%d files with skipping, %d without", len(names), len(n.files))
	}
	for _, k := range names {
		if !bytes.Equal(s.files[k], n.files[k]) {
			t.Errorf("%s differs with and without skipping", k)
		}
	}
	if s.stats.BusyCycles*3 > n.stats.BusyCycles {
		t.Errorf("skipping executed %d of %d cycles", s.stats.BusyCycles, n.stats.BusyCycles)
	}
}

// TestTraceFiles checks the golden run's trace files against each other and
// the counters: the manifest lists every file with its SHA-256; the pcaps
// hold exactly the frames the MAC counted, with nanosecond timestamps
// equal to their cycle (1 GHz), and the hex streams hold the same frames
// and stamps; the vector streams hold as many transactions as the blocks
// counted and every hex line parses back in its layout; the hpcc_update
// stimulus and expected files have one line per datapath update.
func TestTraceFiles(t *testing.T) {
	r := goldenRun(t, false)
	for _, nic := range []string{"A", "B"} {
		var m trace.Manifest
		if err := json.Unmarshal(r.files[nic+".manifest.json"], &m); err != nil {
			t.Fatal(err)
		}
		if m.NIC != nic || !strings.HasPrefix(m.Tool, "hpccgold ") || len(m.Config) == 0 {
			t.Errorf("%s manifest header %q %q", nic, m.NIC, m.Tool)
		}
		for _, f := range m.Files {
			sum := sha256.Sum256(r.files[f.Name])
			if hex.EncodeToString(sum[:]) != f.SHA256 {
				t.Errorf("%s: SHA-256 mismatch", f.Name)
			}
		}
		c := r.countersA
		if nic == "B" {
			c = r.countersB
		}
		for _, port := range []struct {
			name   string
			frames uint64
		}{{"rx", c.MAC.RxFrames}, {"tx", c.MAC.TxFrames}} {
			pr := must(pcapgo.NewReader(bytes.NewReader(r.files[nic+"."+port.name+".pcap"])))(t)
			lines := splitLines(string(r.files[nic+"."+port.name+".frames.hex"]))
			if !strings.HasPrefix(lines[0], "// hpccgold") {
				t.Fatalf("hex stream header %q", lines[0])
			}
			lines = lines[1:]
			var k uint64
			for {
				data, ci, err := pr.ReadPacketData()
				if err != nil {
					break
				}
				f := strings.Fields(lines[k])
				cyc, _ := strconv.ParseUint(f[0], 10, 64)
				ns, _ := strconv.ParseUint(f[1], 10, 64)
				if uint64(ci.Timestamp.UnixNano()) != ns || ns != cyc || f[2] != strconv.Itoa(len(data)) || f[3] != hex.EncodeToString(data) {
					t.Fatalf("%s %s frame %d: pcap (%d ns, %d bytes) vs hex line %q", nic, port.name, k, ci.Timestamp.UnixNano(), len(data), lines[k][:40])
				}
				k++
			}
			if k != port.frames || uint64(len(lines)) != port.frames {
				t.Errorf("%s %s: %d pcap frames, %d hex lines, MAC counted %d", nic, port.name, k, len(lines), port.frames)
			}
		}
		wantLines := map[string]uint64{
			"events": c.Module.Events, "acks": c.Module.AcksAdvanced, "updates": c.Module.CCRetired,
			"doorbells": c.Module.Posts, "pktsend": c.PktSend.Commands,
			"hpcc_update.stimulus": c.Module.CCIssued, "hpcc_update.expected": c.Module.CCIssued, "hpcc_update_issue": c.Module.CCIssued,
		}
		for s, want := range wantLines {
			lines := splitLines(string(r.files[nic+"."+s+".hex"]))
			if uint64(len(lines)) != want {
				t.Errorf("%s.%s.hex: %d lines, counters say %d", nic, s, len(lines), want)
			}
			js := splitLines(string(r.files[nic+"."+s+".jsonl"]))
			if !strings.HasPrefix(s, "hpcc_update.") && uint64(len(js)) != want {
				t.Errorf("%s.%s.jsonl: %d lines, want %d", nic, s, len(js), want)
			}
			for _, l := range js {
				var v map[string]any
				if err := json.Unmarshal([]byte(l), &v); err != nil {
					t.Fatalf("%s.%s.jsonl: %v: %s", nic, s, err, l)
				}
			}
		}
	}
	if r.countersA.Module.CCIssued == 0 || r.countersB.PktSend.Commands != 0 {
		t.Errorf("A issued %d updates, B sent %d packets", r.countersA.Module.CCIssued, r.countersB.PktSend.Commands)
	}
}

// TestPcapTshark runs Debian's tshark over both NICs' Tx and Rx captures of
// the golden run with UDP 4791 decoded as InfiniBand (RoCEv2). Oracle:
// tshark's dissection must show, for every frame, UDP destination port
// 4791 and the BTH opcode, destination QP and PSN we wrote (read back with
// wire.Decode from the same capture), the AETH MSN of acknowledgements,
// and a capture timestamp equal to the frame's cycle in ns (1 GHz clock).
func TestPcapTshark(t *testing.T) {
	tshark := testtool.Need(t, "tshark")[0]
	r := goldenRun(t, false)
	dir := t.TempDir()
	for _, name := range []string{"A.tx.pcap", "A.rx.pcap", "B.tx.pcap", "B.rx.pcap"} {
		file := filepath.Join(dir, name)
		if err := os.WriteFile(file, r.files[name], 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(tshark, "-r", file, "-d", "udp.port==4791,infiniband", "-T", "fields", "-E", "separator=;",
			"-e", "frame.time_epoch", "-e", "udp.dstport", "-e", "infiniband.bth.opcode", "-e", "infiniband.bth.destqp",
			"-e", "infiniband.bth.psn", "-e", "infiniband.aeth.msn")
		cmd.Env = append(os.Environ(), "HOME="+dir)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("tshark %s: %v", name, err)
		}
		rows := splitLines(string(out))
		pr := must(pcapgo.NewReader(bytes.NewReader(r.files[name])))(t)
		k := 0
		kinds := map[wire.Class]int{}
		for ; ; k++ {
			data, ci, err := pr.ReadPacketData()
			if err != nil {
				break
			}
			if k >= len(rows) {
				t.Fatalf("%s: tshark printed %d rows, capture has more frames", name, len(rows))
			}
			p := decoded(t, data)
			kinds[p.Class]++
			f := strings.Split(rows[k], ";")
			wantMSN := ""
			if p.AETHOff >= 0 {
				wantMSN = strconv.Itoa(int(p.MSN))
			}
			want := []string{fmt.Sprintf("%d.%09d", ci.Timestamp.Unix(), ci.Timestamp.Nanosecond()), "4791",
				strconv.Itoa(int(p.Opcode)), fmt.Sprintf("0x%06x", uint32(p.DestQP)), strconv.Itoa(int(p.PSN)), wantMSN}
			if len(f) != len(want) {
				t.Fatalf("%s frame %d: tshark row %q", name, k, rows[k])
			}
			for i := range want {
				if f[i] != want[i] {
					t.Fatalf("%s frame %d: tshark shows %q, we wrote %q (row %q)", name, k, f[i], want[i], rows[k])
				}
			}
		}
		if k != len(rows) || k == 0 {
			t.Errorf("%s: %d frames, tshark rows %d", name, k, len(rows))
		}
		if strings.HasSuffix(name, "tx.pcap") && strings.HasPrefix(name, "A") && kinds[wire.ClassData] == 0 {
			t.Errorf("%s has no data packets: %v", name, kinds)
		}
		if strings.HasSuffix(name, "tx.pcap") && strings.HasPrefix(name, "B") && kinds[wire.ClassAck] == 0 {
			t.Errorf("%s has no ACKs: %v", name, kinds)
		}
	}
}
