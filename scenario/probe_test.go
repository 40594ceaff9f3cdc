package scenario

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/pipeline"
	"github.com/hpccgold/hpccgold/pipeline/wire"
)

// probeSweepFile is the come-and-go sweep of docs/scenarios.md ("Probes").
const probeSweepFile = "../docs/scenarios/probes-sweep.json"

// probeConfigs returns the sweep's configurations: the scenario, its base
// overlay, then each value of its one grid key (nic.overrides).
func probeConfigs(t *testing.T) []Config {
	t.Helper()
	data, err := os.ReadFile(probeSweepFile)
	if err != nil {
		t.Fatal(err)
	}
	var spec struct {
		Scenario string
		Base     json.RawMessage
		Grid     []struct {
			Key    string
			Values []json.RawMessage
		}
	}
	if err := json.Unmarshal(data, &spec); err != nil {
		t.Fatal(err)
	}
	if len(spec.Grid) != 1 || spec.Grid[0].Key != "nic.overrides" {
		t.Fatalf("%s: want one grid key, nic.overrides", probeSweepFile)
	}
	base, err := Lookup(spec.Scenario)
	if err != nil {
		t.Fatal(err)
	}
	if base, err = Overlay(base, bytes.NewReader(spec.Base)); err != nil {
		t.Fatal(err)
	}
	var out []Config
	for _, v := range spec.Grid[0].Values {
		c, err := Overlay(base, strings.NewReader(`{"nic":{"overrides":`+string(v)+`}}`))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	return out
}

// probeMetrics are what the come-and-go table reports of one run.
type probeMetrics struct {
	burstMean, burstMax   float64 // FCT of the on/off flow's bursts, us
	resumeMean, resumeMax float64 // bottleneck queue peak within T of each resume, KB
	wResume, sentResume   float64 // the QP's W at a resume, and the bytes sent within T of it (mean), KB
	bgMean                float64 // FCT of the other flows, us
	p99Queue              float64 // bottleneck p99 queue, KB
	probes                uint64  // probes sent by every NIC
	resumes               int     // bursts posted on the idle QP (the previous one done)
}

func measureProbes(r *Result) probeMetrics {
	var m probeMetrics
	var bursts, resumes, bg int
	var prevDone uint64
	t := uint64(r.BaseRTTNs)
	for _, f := range r.Flows {
		fct := float64(f.FCTNs) / 1000
		if f.Src != 0 {
			m.bgMean += fct
			bg++
			continue
		}
		m.burstMean += fct
		m.burstMax = max(m.burstMax, fct)
		bursts++
		idle := f.StartNs > 0 && prevDone < f.StartNs // a resume: the previous burst done, the QP idle
		prevDone = f.DoneNs
		if !idle {
			continue
		}
		resumes++
		var peak uint64
		for i, ts := range r.Series.TimeNs {
			if ts > f.StartNs && ts <= f.StartNs+t {
				peak = max(peak, r.Series.QueueMax[i])
			}
		}
		m.resumeMean += float64(peak) / 1000
		m.resumeMax = max(m.resumeMax, float64(peak)/1000)
		for _, fs := range r.Series.Flows {
			if fs.Flow != f.Index {
				continue
			}
			first := true
			for i, ts := range r.Series.TimeNs {
				if ts <= f.StartNs || ts > f.StartNs+t {
					continue
				}
				if first {
					m.wResume += fs.Window[i] / 1000
					first = false
				}
				if !math.IsNaN(fs.Rate[i]) {
					dt := ts - r.Series.TimeNs[i-1]
					m.sentResume += fs.Rate[i] * float64(dt) / 8 / 1000 // Gbit/s x ns / 8 = bytes; KB
				}
			}
		}
	}
	m.burstMean /= float64(bursts)
	m.resumeMean /= float64(resumes)
	m.wResume /= float64(resumes)
	m.sentResume /= float64(resumes)
	m.resumes = resumes
	m.bgMean /= float64(bg)
	m.p99Queue = float64(r.Summary.P99QueueBytes) / 1000
	for _, n := range r.nics {
		m.probes += n.Counters().Tx.Frames[pipeline.FrameProbe]
	}
	return m
}

// TestProbesComeAndGo runs the come-and-go sweep (an on/off flow of 10
// bursts on one QP while other flows come and go) as a new connection per
// burst, as one lingering connection without probes (stale state), and
// with probes after T and after 4T of quiet, and checks the mechanism end to end: without the probe
// section every burst opens a connection (10 resets) and no probe is sent;
// with linger one connection carries all bursts (1 reset; a burst posted
// on the idle QP continues it, one posted while the QP is busy queues);
// with probes the generator's requests, the PktSend register's probes,
// the Tx pipeline's probe frames and the pcap's probe frames agree, each
// probe frame carries the data's UDP source port (ECMP path) and DSCP
// (QoS queue) and the INT request, the receiver answers every probe it
// gets, and every reply reaches the HPCC++ module as a datapath update.
// Oracle: the counters' definitions and the frames themselves. It logs the
// table of docs/scenarios.md ("Probes").
func TestProbesComeAndGo(t *testing.T) {
	cfgs := probeConfigs(t)
	names := []string{"new connection per burst", "one connection, no probes (stale)", "one connection, probes after T quiet",
		"one connection, probes after 4T quiet"}
	var rows []string
	for i, c := range cfgs {
		opts := Options{}
		if i == 2 {
			opts.TraceHosts = []int{0}
		}
		r, err := Run(context.Background(), c, opts)
		if err != nil {
			t.Fatal(err)
		}
		if err := r.Verdict(); err != nil {
			t.Fatalf("%s: %v", names[i], err)
		}
		snd, rcv := r.nics[0].Counters(), r.nics[8].Counters()
		switch i {
		case 0:
			if snd.Module.Resets != 10 || snd.Probe != nil {
				t.Fatalf("%s: %d resets (want 10), probe registers %v (want none)", names[i], snd.Module.Resets, snd.Probe)
			}
		case 1:
			if snd.Module.Resets != 1 || snd.Probe == nil || snd.Probe.Continued == 0 || snd.Probe.Requests != 0 {
				t.Fatalf("%s: %d resets (want 1), probe registers %+v (want bursts continued, no request)", names[i], snd.Module.Resets, snd.Probe)
			}
		default:
			p := snd.Probe
			if snd.Module.Resets != 1 || p == nil || p.Continued == 0 || p.Requests == 0 {
				t.Fatalf("%s: %d resets, probe registers %+v", names[i], snd.Module.Resets, p)
			}
			if p.Sent != p.Requests || snd.Tx.Frames[pipeline.FrameProbe] != p.Sent {
				t.Fatalf("probes: %d requested, %d passed by the PktSend register, %d frames built", p.Requests, p.Sent, snd.Tx.Frames[pipeline.FrameProbe])
			}
			var all uint64 // every sender probes (the overrides apply to every NIC)
			for _, n := range r.nics {
				all += n.Counters().Tx.Frames[pipeline.FrameProbe]
			}
			// No loss in this run: every probe is answered but those still
			// in flight when the last flow completed, at most one per
			// sending QP (4 senders, one QP each).
			if got := rcv.Tx.Frames[pipeline.FrameProbeReply]; got > all || all-got > 4 {
				t.Fatalf("receiver answered %d probes of the %d sent to it", got, all)
			}
			if snd.Module.ProbeReplies != p.Replies+p.Late || p.Replies+p.Timeouts+1 < p.Requests {
				t.Fatalf("module took %d probe replies; generator: %+v", snd.Module.ProbeReplies, *p)
			}
			if snd.Module.CCIssued != snd.Module.AckEvents+snd.Module.ProbeReplies-snd.Module.NoTelemetry {
				t.Fatalf("updates issued %d, want one per ACK and probe reply with telemetry (%d + %d - %d)",
					snd.Module.CCIssued, snd.Module.AckEvents, snd.Module.ProbeReplies, snd.Module.NoTelemetry)
			}
			if i == 2 {
				checkProbePcap(t, r, p.Sent)
			}
		}
		if i < 2 && (snd.Tx.Frames[pipeline.FrameProbe] != 0 || rcv.Tx.Frames[pipeline.FrameProbeReply] != 0) {
			t.Fatalf("%s: probe frames without probes enabled", names[i])
		}
		m := measureProbes(r)
		rows = append(rows, fmt.Sprintf("| %s | %d | %d | %.1f | %.1f | %.1f / %.1f | %.0f / %.0f | %.0f | %.1f |", names[i], m.probes, m.resumes,
			m.wResume, m.sentResume, m.resumeMean, m.resumeMax, m.burstMean, m.burstMax, m.bgMean, m.p99Queue))
	}
	t.Logf("\n| run | probes | resumes | W at a resume (KB) | sent within T of a resume (KB) | queue peak within T of a resume, mean / max (KB) | burst FCT mean / max (us) | other flows' FCT mean (us) | p99 queue (KB) |\n|---|---|---|---|---|---|---|---|---|\n%s",
		strings.Join(rows, "\n"))
}

// checkProbePcap reads host 0's tx.pcap: it holds want probe frames, each
// with the INT request and the UDP source port and DSCP of the flow's data
// frames.
func checkProbePcap(t *testing.T, r *Result, want uint64) {
	t.Helper()
	dir := t.TempDir()
	if _, err := r.nics[0].WriteTraces(dir); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, r.nics[0].Name()+"_tx.pcap"))
	if err != nil {
		matches, _ := filepath.Glob(filepath.Join(dir, "*tx.pcap"))
		if len(matches) != 1 {
			t.Fatalf("no tx.pcap among the traces: %v", err)
		}
		if data, err = os.ReadFile(matches[0]); err != nil {
			t.Fatal(err)
		}
	}
	if len(data) < 24 {
		t.Fatal("tx.pcap: no header")
	}
	le := binary.LittleEndian
	var probes uint64
	var dataPort, probePort uint16
	var dataDSCP, probeDSCP uint8
	for off := 24; off+16 <= len(data); {
		n := int(le.Uint32(data[off+8:]))
		frame := data[off+16 : off+16+n]
		off += 16 + n
		var p wire.Packet
		wire.Decode(frame, &p)
		switch p.Class {
		case wire.ClassData:
			dataPort, dataDSCP = p.UDPSrcPort, frame[p.IPOff+1]>>2
		case wire.ClassProbe:
			probes++
			probePort, probeDSCP = p.UDPSrcPort, frame[p.IPOff+1]>>2
			if !p.HasINT {
				t.Fatalf("probe frame %d without the INT request", probes)
			}
			if dataPort != 0 && (probePort != dataPort || probeDSCP != dataDSCP) {
				t.Fatalf("probe frame: UDP source port %d, DSCP %d; the data's %d, %d", probePort, probeDSCP, dataPort, dataDSCP)
			}
		}
	}
	if probes != want || dataPort == 0 {
		t.Fatalf("tx.pcap holds %d probe frames (want %d) and data from port %d", probes, want, dataPort)
	}
}
