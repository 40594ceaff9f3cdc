package trace

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/hpccgold/hpccgold/atomicfile"
	"github.com/hpccgold/hpccgold/buildinfo"
	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/engine"
	"github.com/hpccgold/hpccgold/fieldtable"
	"github.com/hpccgold/hpccgold/fixedpoint"
	"github.com/hpccgold/hpccgold/pipeline"
	"github.com/hpccgold/hpccgold/pipeline/wire"
	"github.com/hpccgold/hpccgold/scheduler"
	"github.com/hpccgold/hpccgold/telemetry"
)

// Options selects the traces a NIC records (in memory, written by
// Recorder.Write). Tracing costs time and memory per packet; it is off by
// default.
type Options struct {
	// Packets records every frame entering the Rx port (stamped with its
	// arrival cycle) and leaving the Tx port (stamped with its departure
	// cycle) as pcap (nanosecond timestamps) and as a hex stream.
	Packets bool
	// Vectors records the transactions between the blocks as vector files:
	// Rx -> module telemetry events, module -> scheduler updates, acks and
	// doorbells, scheduler -> Tx PktSend commands, and, with the fixed
	// model, every HPCC++ datapath update (sender module and Rx-HPCC) in
	// the hpcc_update vector layout (the float reference has no bit
	// layout, so its updates appear only in the updates stream).
	Vectors bool
}

// PcapSnapLen is the snapshot length written in the pcap headers: the
// largest frame the NIC can see (4096-byte payload, headers, 8 IFA hops).
const PcapSnapLen = 65535

// Layout is what the recorder needs to know of the NIC it records: the
// clock (cycles to ns stamps), the telemetry encoding and hop count (the
// events stream's hop slots), the formats of W and R (the updates stream),
// and the golden datapaths whose transactions it records in the
// hpcc_update layout (nil: none, e.g. the float model or no such role).
type Layout struct {
	Freq     engine.Freq
	Encoding telemetry.Encoding
	MaxHops  int
	W, Rate  fixedpoint.Format
	// Sender is the HPCC++ module's datapath (cc=hpcc), Receiver
	// Rx-HPCC's (cc=hpcc-rx).
	Sender, Receiver *hpcc.Datapath
}

// Recorder collects a NIC's traces in memory: frames at the port (pcap and
// hex) and the transactions between the blocks (vector streams). It
// implements Hooks; the NIC's blocks call it and know nothing of what it
// records.
type Recorder struct {
	freq    engine.Freq
	packets bool
	vectors bool

	rxPcap, txPcap     bytes.Buffer
	rxHex, txHex       bytes.Buffer
	rxFrames, txFrames uint64

	streams                             []*stream // in file order
	events, acks, updates, bells, sends *stream
	hopFields                           int // fields per hop slot in events
	enc                                 telemetry.Encoding
	maxHops                             int
	txnHPCC, txnRx                      *txnStream
	word                                []uint64
}

// New returns a Recorder of the traces o selects for a NIC of layout l.
func New(o Options, l Layout) (*Recorder, error) {
	t := &Recorder{freq: l.Freq, packets: o.Packets, vectors: o.Vectors, enc: l.Encoding, maxHops: l.MaxHops}
	if o.Packets {
		pcapFileHeader(&t.rxPcap, PcapSnapLen)
		pcapFileHeader(&t.txPcap, PcapSnapLen)
		t.rxHex.WriteString(frameHexHeader("rx", "arrival"))
		t.txHex.WriteString(frameHexHeader("tx", "departure"))
	}
	if !o.Vectors {
		return t, nil
	}
	var err error
	mk := func(name, doc string, specs []fieldtable.Spec) *stream {
		if err != nil {
			return nil
		}
		var s *stream
		s, err = newStream(name, doc, specs)
		if err == nil {
			t.streams = append(t.streams, s)
		}
		return s
	}
	wf, rf := l.W.String(), l.Rate.String()
	cyc := func(doc string) fieldtable.Spec {
		return fieldtable.Spec{Name: "cycle", Width: 64, Format: "uint", Doc: doc}
	}
	pushed := cyc("cycle the module pushed it (the scheduler can take it from the next cycle)")
	qpn := fieldtable.Spec{Name: "qpn", Width: 24, Format: "uint", Doc: "local QP number (flow id)"}
	evSpecs := []fieldtable.Spec{cyc("cycle the HPCC++ module took the event from the event FIFO"), qpn,
		{Name: "kind", Width: 2, Format: "uint", Doc: "1 ack, 2 notify, 3 probe reply (pipeline.EventKind)"},
		{Name: "psn", Width: 24, Format: "uint", Doc: "acknowledged PSN (ack, notify) or the probe's PSN"},
		{Name: "msn", Width: 24, Format: "uint", Doc: "AETH MSN"},
		{Name: "syndrome", Width: 8, Format: "uint", Doc: "AETH syndrome"},
		{Name: "ecn_echo", Width: 1, Format: "bool", Doc: "BTH BECN"},
		{Name: "window", Width: 32, Format: "uint", Doc: "notification W, bytes"},
		{Name: "has_int", Width: 1, Format: "bool", Doc: "telemetry present"},
		{Name: "exceeded", Width: 1, Format: "bool", Doc: "a switch could not add its record (shim E flag)"},
		{Name: "nhops", Width: 4, Format: "uint", Doc: "hop records present"},
	}
	hop := hopSpecs(t.enc)
	t.hopFields = len(hop)
	for i := 0; i < t.maxHops; i++ {
		for _, h := range hop {
			h.Name = fmt.Sprintf("h%d_%s", i, h.Name)
			h.Doc = fmt.Sprintf("hop %d (path order): %s", i, h.Doc)
			evSpecs = append(evSpecs, h)
		}
	}
	t.events = mk("events", "Rx pipeline -> HPCC++ module: telemetry response events (section 7.2)", evSpecs)
	t.acks = mk("acks", "HPCC++ module -> scheduler: acknowledged bytes", []fieldtable.Spec{pushed, qpn,
		{Name: "acked_bytes", Width: 64, Format: "uint", Doc: "cumulative payload bytes acknowledged since the QP's reset"}})
	t.updates = mk("updates", "HPCC++ module -> scheduler: window and rate updates (section 7.2)", []fieldtable.Spec{pushed, qpn,
		{Name: "set_window", Width: 1, Format: "bool", Doc: "apply w"},
		{Name: "set_rate", Width: 1, Format: "bool", Doc: "apply rate"},
		{Name: "w", Width: l.W.W, Format: wf, Doc: "window W, bytes"},
		{Name: "rate", Width: l.Rate.W, Format: rf, Doc: "pacing rate R = W/T, bytes per ns"}})
	t.bells = mk("doorbells", "HPCC++ module (QP context) -> scheduler: messages to send", []fieldtable.Spec{pushed, qpn,
		{Name: "bytes", Width: 64, Format: "uint", Doc: "message payload bytes"},
		{Name: "reset", Width: 1, Format: "bool", Doc: "new connection: reset the flow's entry first"}})
	t.sends = mk("pktsend", "scheduler -> Tx pipeline: PktSend commands (section 7.2)", []fieldtable.Spec{
		cyc("cycle the PktSend register took the command from the scheduler and pushed it to the Tx pipeline"), qpn,
		{Name: "psn", Width: 24, Format: "uint", Doc: "BTH PSN"},
		{Name: "bytes", Width: 32, Format: "uint", Doc: "payload bytes"},
		{Name: "offset", Width: 64, Format: "uint", Doc: "payload bytes of the QP sent before this packet"},
		{Name: "first", Width: 1, Format: "bool", Doc: "first packet of a message"},
		{Name: "last", Width: 1, Format: "bool", Doc: "last packet of a message"},
		{Name: "ack_req", Width: 1, Format: "bool", Doc: "BTH A bit"}})
	if err != nil {
		return nil, err
	}
	maxWords := 0
	for _, s := range t.streams {
		maxWords = max(maxWords, s.table.Words())
	}
	t.word = make([]uint64, maxWords)
	if l.Sender != nil {
		if t.txnHPCC, err = newTxnStream("hpcc_update", l.Sender); err != nil {
			return nil, err
		}
	}
	if l.Receiver != nil {
		if t.txnRx, err = newTxnStream("rxhpcc_update", l.Receiver); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// hopSpecs lists the fields of one hop record as the encoding carries them
// (telemetry.Hop, raw wire values).
func hopSpecs(e telemetry.Encoding) []fieldtable.Spec {
	if e == telemetry.Compact {
		return []fieldtable.Spec{
			{Name: "speed", Width: telemetry.CompactSpeedBits, Format: "uint", Doc: "speed code"},
			{Name: "ts", Width: telemetry.CompactTsBits, Format: "uint", Doc: "egress timestamp, ns mod 2^24"},
			{Name: "tx_bytes", Width: telemetry.CompactTxBits, Format: "uint", Doc: "txBytes, 128-byte units mod 2^20"},
			{Name: "qlen", Width: telemetry.CompactQlenBits, Format: "uint", Doc: "queue length, 80-byte units"},
		}
	}
	return []fieldtable.Spec{
		{Name: "ins", Width: telemetry.IFAInsBits, Format: "uint", Doc: "IFA Ins nibble"},
		{Name: "device_id", Width: telemetry.IFADeviceIDBits, Format: "uint", Doc: "switch id"},
		{Name: "speed", Width: telemetry.IFASpeedBits, Format: "uint", Doc: "speed code"},
		{Name: "rx_sec", Width: telemetry.IFARxSecBits, Format: "uint", Doc: "ingress time, seconds mod 2^20"},
		{Name: "egress_port", Width: telemetry.IFAPortBits, Format: "uint", Doc: "egress port"},
		{Name: "ingress_port", Width: telemetry.IFAPortBits, Format: "uint", Doc: "ingress port"},
		{Name: "rx_ns", Width: telemetry.IFARxNsBits, Format: "uint", Doc: "ingress time, ns part"},
		{Name: "residence_ns", Width: telemetry.IFAResidenceBits, Format: "uint", Doc: "residence time, ns"},
		{Name: "tx_bytes", Width: telemetry.IFATxBytesBits, Format: "uint", Doc: "txBytes, bytes mod 2^32"},
		{Name: "qlen", Width: telemetry.IFAQlenBits, Format: "uint", Doc: "queue length, bytes"},
	}
}

func hopValues(e telemetry.Encoding, h *telemetry.Hop, dst []uint64) []uint64 {
	if e == telemetry.Compact {
		return append(dst, uint64(h.SpeedCode), uint64(h.Ts), uint64(h.TxBytes), uint64(h.Qlen))
	}
	return append(dst, uint64(h.Ins), uint64(h.DeviceID), uint64(h.SpeedCode), uint64(h.RxSec), uint64(h.EgressPort),
		uint64(h.IngressPort), uint64(h.RxNs), uint64(h.ResidenceNs), uint64(h.TxBytes), uint64(h.Qlen))
}

func frameHexHeader(port, stamp string) string {
	return "// " + buildinfo.String() + " nicmodel " + port + " port frames: one per line: <" + stamp +
		" cycle> <ns> <length> <bytes in hex, wire order, no FCS>\n"
}

func (t *Recorder) frame(pc *bytes.Buffer, hx *bytes.Buffer, at engine.Cycle, data []byte) {
	ns := t.freq.NS(at)
	pcapRecord(pc, ns, data)
	var b [20]byte
	hx.Write(strconv.AppendUint(b[:0], uint64(at), 10))
	hx.WriteByte(' ')
	hx.Write(strconv.AppendUint(b[:0], ns, 10))
	hx.WriteByte(' ')
	hx.Write(strconv.AppendInt(b[:0], int64(len(data)), 10))
	hx.WriteByte(' ')
	var enc [128]byte
	for len(data) > 0 {
		n := min(len(data), 64)
		hex.Encode(enc[:], data[:n])
		hx.Write(enc[:2*n])
		data = data[n:]
	}
	hx.WriteByte('\n')
}

// RxFrame records a frame entering the Rx port in cycle at (Hooks).
func (t *Recorder) RxFrame(at engine.Cycle, data []byte) {
	if t.packets {
		t.rxFrames++
		t.frame(&t.rxPcap, &t.rxHex, at, data)
	}
}

// TxFrame records a frame leaving the Tx port in cycle at (Hooks).
func (t *Recorder) TxFrame(at engine.Cycle, data []byte) {
	if t.packets {
		t.txFrames++
		t.frame(&t.txPcap, &t.txHex, at, data)
	}
}

// Event records a telemetry response event taken by the module (Hooks).
func (t *Recorder) Event(now engine.Cycle, ev *pipeline.Event) {
	if !t.vectors {
		return
	}
	v := append(t.vals(), uint64(now), uint64(ev.Flow), uint64(ev.Kind), uint64(ev.PSN), uint64(ev.MSN),
		uint64(ev.Syndrome), b2u(ev.ECNEcho), uint64(ev.Window), b2u(ev.HasINT), b2u(ev.Exceeded), uint64(ev.NHops))
	for i := 0; i < t.maxHops; i++ {
		if i < ev.NHops {
			v = hopValues(t.enc, &ev.Hops[i], v)
		} else {
			v = hopValues(t.enc, &telemetry.Hop{}, v)
		}
	}
	t.events.add(t.word, v)
}

// Ack records acknowledged bytes pushed to the scheduler (Hooks).
func (t *Recorder) Ack(now engine.Cycle, a scheduler.Ack) {
	if t.vectors {
		t.acks.add(t.word, append(t.vals(), uint64(now), uint64(a.Flow), a.AckedBytes))
	}
}

// Update records a window/rate update pushed to the scheduler (Hooks).
func (t *Recorder) Update(now engine.Cycle, u scheduler.Update) {
	if t.vectors {
		t.updates.add(t.word, append(t.vals(), uint64(now), uint64(u.Flow), b2u(u.SetWindow), b2u(u.SetRate), u.Window, u.Rate))
	}
}

// Doorbell records a doorbell pushed to the scheduler (Hooks).
func (t *Recorder) Doorbell(now engine.Cycle, d scheduler.Doorbell) {
	if t.vectors {
		t.bells.add(t.word, append(t.vals(), uint64(now), uint64(d.Flow), d.Bytes, b2u(d.Reset)))
	}
}

// PktSend records a PktSend command passed to the Tx pipeline (Hooks).
func (t *Recorder) PktSend(now engine.Cycle, c scheduler.PktSend, ackReq bool) {
	if t.vectors {
		t.sends.add(t.word, append(t.vals(), uint64(now), uint64(c.Flow), uint64(c.PSN), uint64(c.Bytes), c.Offset,
			b2u(c.First), b2u(c.Last), b2u(ackReq)))
	}
}

// Txn records one HPCC++ datapath transaction of the fixed model: the
// sender's module (receiver false) or Rx-HPCC (receiver true), with the
// state read, the event, the state written and the outputs. The NIC
// subscribes it to the datapaths' update observer.
func (t *Recorder) Txn(now engine.Cycle, q wire.QPN, receiver bool, d *hpcc.Datapath, st *hpcc.State, in *hpcc.Input, next *hpcc.State, out *hpcc.Output) {
	x := t.txnHPCC
	if receiver {
		x = t.txnRx
	}
	if t.vectors && x != nil {
		x.add(now, q, d, st, in, next, out)
	}
}

// vals returns a scratch slice for field values.
func (t *Recorder) vals() []uint64 { return make([]uint64, 0, 16) }

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// stream is one vector stream: a fieldtable layout and its transactions as
// hex lines ($readmemh) and JSON lines (named fields, raw hex and exact
// values), in the conventions of package vectors.
type stream struct {
	name, doc string
	table     fieldtable.Table
	fmts      []*fixedpoint.Format // per field: the fixedpoint format, nil for uint/bool
	hex, js   bytes.Buffer
	n         uint64
}

func newStream(name, doc string, specs []fieldtable.Spec) (*stream, error) {
	tb, err := fieldtable.New(name, specs)
	if err != nil {
		return nil, fmt.Errorf("nicmodel: trace %s: %w", name, err)
	}
	s := &stream{name: name, doc: doc, table: tb, fmts: make([]*fixedpoint.Format, len(tb.Fields))}
	for i, f := range tb.Fields {
		if f.Format == "uint" || f.Format == "bool" {
			continue
		}
		ff, err := fixedpoint.ParseFormat(f.Format)
		if err != nil || ff.W != f.Width {
			return nil, fmt.Errorf("nicmodel: trace %s: field %s: format %q does not match width %d", name, f.Name, f.Format, f.Width)
		}
		s.fmts[i] = &ff
	}
	return s, nil
}

// add appends one transaction given its field values in table order.
func (s *stream) add(word []uint64, vals []uint64) {
	w := word[:s.table.Words()]
	clear(w)
	for i, f := range s.table.Fields {
		fieldtable.PutBits(w, f.Offset, f.Width, vals[i])
	}
	s.hex.Write(s.table.AppendHex(nil, w))
	s.hex.WriteByte('\n')
	s.js.WriteString(`{"index":`)
	s.js.WriteString(strconv.FormatUint(s.n, 10))
	s.js.WriteString(`,"fields":`)
	appendFieldsJSON(&s.js, s.table, s.fmts, w)
	s.js.WriteString("}\n")
	s.n++
}

// appendFieldsJSON writes {"name":{"raw":"0x..","value":..},...} for every
// field of t read from word (the vectors.jsonl field convention).
func appendFieldsJSON(b *bytes.Buffer, t fieldtable.Table, fmts []*fixedpoint.Format, word []uint64) {
	b.WriteByte('{')
	for i, f := range t.Fields {
		if i > 0 {
			b.WriteByte(',')
		}
		raw := fieldtable.GetBits(word, f.Offset, f.Width)
		b.WriteString(`"` + f.Name + `":{"raw":"0x`)
		d := (f.Width + 3) / 4
		hs := strconv.FormatUint(raw, 16)
		for k := len(hs); k < d; k++ {
			b.WriteByte('0')
		}
		b.WriteString(hs)
		b.WriteString(`","value":`)
		if fmts != nil && fmts[i] != nil {
			v, err := fixedpoint.FromBits64(*fmts[i], raw)
			if err != nil {
				b.WriteString("null")
			} else {
				b.WriteString(v.String())
			}
		} else {
			b.WriteString(strconv.FormatUint(raw, 10))
		}
		b.WriteByte('}')
	}
	b.WriteByte('}')
}

// txnStream records HPCC++ datapath transactions in the hpcc_update vector
// layout of package vectors (hpcc.Datapath InputTable/OutputTable:
// state-before + event, state-after + outputs), plus the cycle and QP of
// each.
type txnStream struct {
	name      string
	in, out   fieldtable.Table
	inFmt     []*fixedpoint.Format
	outFmt    []*fixedpoint.Format
	stim, exp bytes.Buffer
	js        bytes.Buffer
	issue     *stream
	inW, outW []uint64
	n         uint64
	err       error
}

func tableFormats(t fieldtable.Table) []*fixedpoint.Format {
	fs := make([]*fixedpoint.Format, len(t.Fields))
	for i, f := range t.Fields {
		if ff, err := fixedpoint.ParseFormat(f.Format); err == nil && ff.W == f.Width {
			fs[i] = &ff
		}
	}
	return fs
}

func newTxnStream(name string, d *hpcc.Datapath) (*txnStream, error) {
	s := &txnStream{name: name, in: d.InputTable(), out: d.OutputTable()}
	s.inFmt, s.outFmt = tableFormats(s.in), tableFormats(s.out)
	s.inW, s.outW = make([]uint64, s.in.Words()), make([]uint64, s.out.Words())
	var err error
	s.issue, err = newStream(name+"_issue", "cycle and QP of each "+name+" transaction (same line order as its stimulus/expected)", []fieldtable.Spec{
		{Name: "cycle", Width: 64, Format: "uint", Doc: "cycle the update was issued into the datapath"},
		{Name: "qpn", Width: 24, Format: "uint", Doc: "QP number"}})
	return s, err
}

func (s *txnStream) add(now engine.Cycle, q wire.QPN, d *hpcc.Datapath, st *hpcc.State, in *hpcc.Input, next *hpcc.State, out *hpcc.Output) {
	clear(s.inW)
	clear(s.outW)
	if err := d.PackInput(*st, *in, s.inW); err != nil && s.err == nil {
		s.err = fmt.Errorf("nicmodel: trace %s: %w", s.name, err)
	}
	if err := d.PackOutput(*next, *out, s.outW); err != nil && s.err == nil {
		s.err = fmt.Errorf("nicmodel: trace %s: %w", s.name, err)
	}
	s.stim.Write(s.in.AppendHex(nil, s.inW))
	s.stim.WriteByte('\n')
	s.exp.Write(s.out.AppendHex(nil, s.outW))
	s.exp.WriteByte('\n')
	s.js.WriteString(`{"index":` + strconv.FormatUint(s.n, 10) + `,"cycle":` + strconv.FormatUint(uint64(now), 10) +
		`,"qpn":` + strconv.FormatUint(uint64(q), 10) + `,"in":`)
	appendFieldsJSON(&s.js, s.in, s.inFmt, s.inW)
	s.js.WriteString(`,"out":`)
	appendFieldsJSON(&s.js, s.out, s.outFmt, s.outW)
	s.js.WriteString("}\n")
	w := []uint64{0, 0}
	s.issue.add(w, []uint64{uint64(now), uint64(q)})
	s.n++
}

// File describes one trace file Recorder.Write wrote.
type File struct {
	Name   string `json:"name"`
	Lines  uint64 `json:"records"` // transactions or frames
	SHA256 string `json:"sha256"`
	Doc    string `json:"doc"`
}

// Manifest is <prefix>.manifest.json: the tool version, the NIC's name
// and configuration, and every file with its SHA-256.
type Manifest struct {
	Tool   string          `json:"tool"`
	NIC    string          `json:"nic"`
	Config json.RawMessage `json:"config"`
	Files  []File          `json:"files"`
}

// Write writes every trace file into dir with names prefix.<stream>.<ext>
// and, last, prefix.manifest.json (tool version, the NIC's name and
// configuration cfgJSON, SHA-256 of every file). It returns the files
// written (manifest excluded).
func (t *Recorder) Write(dir, prefix, nic string, cfgJSON []byte) ([]File, error) {
	var files []File
	put := func(name string, n uint64, doc string, data []byte) error {
		p := filepath.Join(dir, prefix+"."+name)
		if err := atomicfile.WriteBytes(p, 0o644, data); err != nil {
			return err
		}
		sum := sha256.Sum256(data)
		files = append(files, File{Name: prefix + "." + name, Lines: n, SHA256: hex.EncodeToString(sum[:]), Doc: doc})
		return nil
	}
	if t.packets {
		for _, f := range []struct {
			name string
			n    uint64
			doc  string
			data []byte
		}{
			{"rx.pcap", t.rxFrames, "frames entering the Rx port, timestamp = arrival cycle in ns", t.rxPcap.Bytes()},
			{"tx.pcap", t.txFrames, "frames leaving the Tx port, timestamp = departure cycle in ns", t.txPcap.Bytes()},
			{"rx.frames.hex", t.rxFrames, "frames entering the Rx port as a hex stream", t.rxHex.Bytes()},
			{"tx.frames.hex", t.txFrames, "frames leaving the Tx port as a hex stream", t.txHex.Bytes()},
		} {
			if err := put(f.name, f.n, f.doc, f.data); err != nil {
				return nil, err
			}
		}
	}
	if t.vectors {
		for _, s := range t.streams {
			if err := writeStream(put, s); err != nil {
				return nil, err
			}
		}
		for _, x := range []*txnStream{t.txnHPCC, t.txnRx} {
			if x == nil {
				continue
			}
			if x.err != nil {
				return nil, x.err
			}
			inJSON, err := x.in.JSON()
			if err != nil {
				return nil, err
			}
			outJSON, err := x.out.JSON()
			if err != nil {
				return nil, err
			}
			layout := append(append(append([]byte(`{"input":`), bytes.TrimSpace(inJSON)...), `,"output":`...), bytes.TrimSpace(outJSON)...)
			layout = append(layout, "}\n"...)
			for _, f := range []struct {
				name string
				doc  string
				data []byte
			}{
				{x.name + ".stimulus.hex", "datapath inputs (state before + event), one per line, hpcc_update input layout", x.stim.Bytes()},
				{x.name + ".expected.hex", "golden datapath outputs (state after + outputs), same line order", x.exp.Bytes()},
				{x.name + ".jsonl", "the same transactions with named fields", x.js.Bytes()},
				{x.name + ".vh", "Verilog defines of both layouts", []byte(x.in.VerilogHeader(x.name+"_in") + x.out.VerilogHeader(x.name+"_out"))},
				{x.name + ".layout.json", "both layouts (fieldtable)", layout},
			} {
				if err := put(f.name, x.n, f.doc, f.data); err != nil {
					return nil, err
				}
			}
			if err := writeStream(put, x.issue); err != nil {
				return nil, err
			}
		}
	}
	m := Manifest{Tool: buildinfo.String(), NIC: nic, Config: json.RawMessage(bytes.TrimSpace(cfgJSON)), Files: files}
	mb, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("nicmodel: trace manifest: %w", err)
	}
	if err := atomicfile.WriteBytes(filepath.Join(dir, prefix+".manifest.json"), 0o644, append(mb, '\n')); err != nil {
		return nil, err
	}
	return files, nil
}

func writeStream(put func(string, uint64, string, []byte) error, s *stream) error {
	lj, err := s.table.JSON()
	if err != nil {
		return err
	}
	for _, f := range []struct {
		ext, doc string
		data     []byte
	}{
		{".hex", s.doc + "; one transaction per line, layout " + s.name + ".layout.json", s.hex.Bytes()},
		{".jsonl", s.doc + "; named fields", s.js.Bytes()},
		{".vh", "Verilog defines of the " + s.name + " layout", []byte(s.table.VerilogHeader(s.name))},
		{".layout.json", "the " + s.name + " layout (fieldtable)", lj},
	} {
		if err := put(s.name+f.ext, s.n, f.doc, f.data); err != nil {
			return err
		}
	}
	return nil
}
