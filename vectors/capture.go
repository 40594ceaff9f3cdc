package vectors

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/hpccgold/hpccgold/fieldtable"
)

// CaptureInfo is the "capture" section of a captured set's manifest: where
// its transactions came from, enough to reproduce them.
type CaptureInfo struct {
	// Source says what produced the transactions: "sim", a closed-loop
	// scenario run on the NIC model (package scenario, hpccgold sim).
	Source string `json:"source"`
	// Scenario is the scenario's name.
	Scenario string `json:"scenario"`
	// ScenarioConfig is the scenario's full configuration, in the form
	// scenario.Overlay reads (hpccgold sim --scenario NAME --config FILE
	// with this object as FILE runs the same scenario).
	ScenarioConfig json.RawMessage `json:"scenario_config"`
	// Limit is the requested maximum number of transactions; 0: no limit.
	Limit int64 `json:"limit"`
	// Complete reports that the set holds every transaction of the run;
	// false means the run made more than Limit and the set holds the
	// first Limit of them.
	Complete bool `json:"complete"`
}

// Origin is where one captured transaction happened. For a scenario run
// (package scenario/simvec) it is one HPCC++ datapath update of a NIC
// (nicmodel.HPCCUpdate).
type Origin struct {
	Host     int    // index of the host whose NIC ran the update
	Receiver bool   // receiver-mode datapath (Rx-HPCC); false: the sender's module
	QPN      uint32 // local QP (flow state table entry)
	Conn     uint32 // the sender QP's connection number (0 for the receiver)
	Cycle    uint64 // engine cycle of the update
	// Txn is the transaction's number within its flow (Host, Receiver,
	// QPN, Conn), from 0, over the whole capture. Capture sets it; the
	// value given to Add is ignored.
	Txn int64
}

// flowKey identifies the flow of an origin: one chain of flow states.
type flowKey struct {
	host      int
	receiver  bool
	qpn, conn uint32
}

func (o *Origin) key() flowKey { return flowKey{o.Host, o.Receiver, o.QPN, o.Conn} }

// CaptureOptions select how a capture is written.
type CaptureOptions struct {
	// Shard selects part of the captured set, as Options.Shard.
	Shard Shard
	// Workers is the number of goroutines re-evaluating the transactions;
	// 0 means runtime.GOMAXPROCS(0). The output does not depend on it.
	Workers int
	// NoJSONL skips vectors.jsonl.
	NoJSONL bool
	// Progress, as Options.Progress.
	Progress func(done, total int64)
}

// Capture collects transactions of a model recorded from a run of real
// hardware or of the NIC model (each a packed input and the packed output
// the run produced, with its origin) and turns them into a vector set in
// the formats of generated sets. The expected outputs of the set are the
// model's: Set and WriteDir re-evaluate every captured input with the
// model's evaluator and fail, naming the transaction and field, if the
// captured output differs, so a captured set is a golden set by
// construction and by check.
type Capture struct {
	m       Model
	class   Class
	info    CaptureInfo
	in, out fieldtable.Table
	iw, ow  int
	inW     []uint64
	outW    []uint64
	org     []Origin
}

// NewCapture starts an empty capture of model m's transactions. Its
// vectors belong to one class, class (Level and Detected are ignored: a
// captured class has level 0 and is not detected); its name must be
// letters, digits and "_.:-", other than "random" and the model's class
// names ("sim:demo-incast-4to1"). info is written into the manifest.
func NewCapture(m Model, class Class, info CaptureInfo) (*Capture, error) {
	if err := validateModel(m); err != nil {
		return nil, err
	}
	if err := checkCaptureClass(m, class.Name); err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(info.ScenarioConfig)) == 0 {
		info.ScenarioConfig = json.RawMessage("null")
	} else if !json.Valid(info.ScenarioConfig) {
		return nil, fmt.Errorf("vectors: capture: ScenarioConfig is not valid JSON")
	}
	class.Level, class.Detected = 0, false
	in, out := m.Input(), m.Output()
	return &Capture{m: m, class: class, info: info, in: in, out: out, iw: in.Words(), ow: out.Words()}, nil
}

// checkCaptureClass validates a captured class name.
func checkCaptureClass(m Model, name string) error {
	ok := name != "" && name != RandomClass && classIndex(m.Classes(), name) < 0
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == ':' || c == '-') {
			ok = false
		}
	}
	if !ok {
		return fmt.Errorf("vectors: capture class %q: must be letters, digits and _.:- and not %q or a class of model %s", name, RandomClass, m.Name())
	}
	return nil
}

// Len is the number of transactions captured so far.
func (c *Capture) Len() int { return len(c.org) }

// Model is the captured model.
func (c *Capture) Model() Model { return c.m }

// Add appends one transaction: in (len Input().Words()) and out (len
// Output().Words()) are copied. Bits above a table's width, or more than
// the in-memory bound (8 GiB of packed words), are errors.
func (c *Capture) Add(o Origin, in, out []uint64) error {
	if len(in) != c.iw || len(out) != c.ow {
		return fmt.Errorf("vectors: capture: transaction %d: %d input and %d output words, want %d and %d", len(c.org), len(in), len(out), c.iw, c.ow)
	}
	if err := checkTop(c.in, in); err != nil {
		return fmt.Errorf("vectors: capture: transaction %d: %w", len(c.org), err)
	}
	if err := checkTop(c.out, out); err != nil {
		return fmt.Errorf("vectors: capture: transaction %d: %w", len(c.org), err)
	}
	if int64(len(c.org)+1)*int64(c.iw+c.ow) > maxMemWords {
		return fmt.Errorf("vectors: capture: more than %d transactions of %d words do not fit in memory: set a limit", len(c.org), c.iw+c.ow)
	}
	c.inW = append(c.inW, in...)
	c.outW = append(c.outW, out...)
	c.org = append(c.org, o)
	return nil
}

// SetComplete records whether the capture holds every transaction of its
// run (CaptureInfo.Complete).
func (c *Capture) SetComplete(complete bool) { c.info.Complete = complete }

// numbered returns the origins with Txn set: each transaction's number
// within its flow, in capture order.
func (c *Capture) numbered() []Origin {
	org := append([]Origin(nil), c.org...)
	next := map[flowKey]int64{}
	for i := range org {
		k := org[i].key()
		org[i].Txn = next[k]
		next[k]++
	}
	return org
}

// newCapturePlan is the plan of a captured set of total vectors of class
// tail, with the options every set shares.
func newCapturePlan(m Model, tail Class, info *CaptureInfo, total int64, opts CaptureOptions) (*plan, error) {
	if err := checkCaptureClass(m, tail.Name); err != nil {
		return nil, err
	}
	p, err := basePlan(m, Options{Shard: opts.Shard, Workers: opts.Workers, NoJSONL: opts.NoJSONL, Progress: opts.Progress})
	if err != nil {
		return nil, err
	}
	p.opts.Level = 0
	p.tail = Class{Name: tail.Name, Doc: tail.Doc}
	p.capture = info
	p.classN = make([]int64, len(p.classes)+1)
	p.classN[len(p.classes)] = total
	p.classAt = make([]int64, len(p.classN))
	p.total = total
	p.first, p.last = opts.Shard.Range(total)
	if err := opts.Shard.nonEmpty(total); err != nil {
		return nil, err
	}
	return p, nil
}

// Set evaluates the captured transactions (the shard opts selects) with
// the model, checks every captured output against the model's, and
// returns the set in memory; its manifest carries the capture section.
func (c *Capture) Set(opts CaptureOptions) (*Set, error) {
	info := c.info
	p, err := newCapturePlan(c.m, c.class, &info, int64(len(c.org)), opts)
	if err != nil {
		return nil, err
	}
	p.capIn = c.inW
	p.origins = c.numbered()
	s, err := generateSet(p)
	if err != nil {
		return nil, err
	}
	for k := 0; k < s.Len(); k++ {
		i := s.Index(k)
		got := c.outW[i*int64(c.ow) : (i+1)*int64(c.ow)]
		want := s.Output(k)
		if equalWords(got, want) {
			continue
		}
		o := &p.origins[i]
		for _, f := range c.out.Fields {
			g, w := fieldtable.GetBits(got, f.Offset, f.Width), fieldtable.GetBits(want, f.Offset, f.Width)
			if g != w {
				return nil, fmt.Errorf("vectors: capture: transaction %d (host %d, %s QP %d conn %d, cycle %d): output field %s: the run produced %#x, model %s gives %#x",
					i, o.Host, roleName(o.Receiver), o.QPN, o.Conn, o.Cycle, f.Name, g, c.m.Name(), w)
			}
		}
	}
	return s, nil
}

// WriteDir writes the captured set (the shard opts selects) into dir, as
// Set(opts) followed by Set.Write, and returns its manifest.
func (c *Capture) WriteDir(dir string, opts CaptureOptions) (*Manifest, error) {
	return c.WriteDirContext(context.Background(), dir, opts)
}

// WriteDirContext is WriteDir that stops, leaving the directory as it was,
// when ctx is done.
func (c *Capture) WriteDirContext(ctx context.Context, dir string, opts CaptureOptions) (*Manifest, error) {
	s, err := c.Set(opts)
	if err != nil {
		return nil, err
	}
	if err := s.WriteContext(ctx, dir); err != nil {
		return nil, err
	}
	return &s.Manifest, nil
}

func roleName(receiver bool) string {
	if receiver {
		return "receiver"
	}
	return "sender"
}

// appendOriginLine appends one capture.jsonl line (with newline):
// {"index":N,"host":H,"role":"sender","qpn":Q,"conn":C,"txn":K,"cycle":Y}.
func appendOriginLine(dst []byte, index int64, o *Origin) []byte {
	dst = append(dst, `{"index":`...)
	dst = strconv.AppendInt(dst, index, 10)
	dst = append(dst, `,"host":`...)
	dst = strconv.AppendInt(dst, int64(o.Host), 10)
	dst = append(dst, `,"role":"`...)
	dst = append(dst, roleName(o.Receiver)...)
	dst = append(dst, `","qpn":`...)
	dst = strconv.AppendUint(dst, uint64(o.QPN), 10)
	dst = append(dst, `,"conn":`...)
	dst = strconv.AppendUint(dst, uint64(o.Conn), 10)
	dst = append(dst, `,"txn":`...)
	dst = strconv.AppendInt(dst, o.Txn, 10)
	dst = append(dst, `,"cycle":`...)
	dst = strconv.AppendUint(dst, o.Cycle, 10)
	return append(dst, '}', '\n')
}

// originLine is a capture.jsonl line as decoded.
type originLine struct {
	Index *int64  `json:"index"`
	Host  *int    `json:"host"`
	Role  string  `json:"role"`
	QPN   *uint32 `json:"qpn"`
	Conn  *uint32 `json:"conn"`
	Txn   *int64  `json:"txn"`
	Cycle *uint64 `json:"cycle"`
}

// parseOriginLine decodes one capture.jsonl line; it must be exactly the
// line appendOriginLine prints for what it holds.
func parseOriginLine(line []byte) (index int64, o Origin, err error) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	var l originLine
	if err := dec.Decode(&l); err != nil {
		return 0, Origin{}, err
	}
	if l.Index == nil || l.Host == nil || l.QPN == nil || l.Conn == nil || l.Txn == nil || l.Cycle == nil || l.Role != "sender" && l.Role != "receiver" {
		return 0, Origin{}, fmt.Errorf("want index, host, role (sender or receiver), qpn, conn, txn and cycle")
	}
	o = Origin{Host: *l.Host, Receiver: l.Role == "receiver", QPN: *l.QPN, Conn: *l.Conn, Cycle: *l.Cycle, Txn: *l.Txn}
	if o.Host < 0 || o.Txn < 0 {
		return 0, Origin{}, fmt.Errorf("host=%d, txn=%d: must be >= 0", o.Host, o.Txn)
	}
	if canon := appendOriginLine(nil, *l.Index, &o); !bytes.Equal(canon[:len(canon)-1], line) {
		return 0, Origin{}, fmt.Errorf("not in the canonical form %s", canon[:len(canon)-1])
	}
	return *l.Index, o, nil
}

// Stateful is an optional Model interface for models whose transactions
// carry a flow's state: the state before among the input fields, the
// state after among the output fields. Verify uses it on captured sets:
// within a flow (Origin without Txn), a transaction numbered Txn+1 must
// read the state the transaction numbered Txn wrote, and a flow's first
// transaction (Txn 0) must read the all-zero reset state.
type Stateful interface {
	// StateFields lists every state register as a pair of field indices:
	// In into Input().Fields (before), Out into Output().Fields (after).
	StateFields() []StateField
}

// StateField is one state register's input and output field indices.
type StateField struct{ In, Out int }

// chainChecker checks the state chain of a captured set's flows.
type chainChecker struct {
	in, out fieldtable.Table
	fields  []StateField
	last    map[flowKey]chainEnd
}

// chainEnd is the last transaction seen of a flow: its number and the
// state it wrote.
type chainEnd struct {
	txn   int64
	state []uint64
}

func newChainChecker(m Model) *chainChecker {
	sm, ok := m.(Stateful)
	if !ok {
		return nil
	}
	return &chainChecker{in: m.Input(), out: m.Output(), fields: sm.StateFields(), last: map[flowKey]chainEnd{}}
}

// check checks transaction (o, in, out) against its flow's previous one
// in the directory and returns a description of the first difference, or "".
func (c *chainChecker) check(o *Origin, in, out []uint64) string {
	k := o.key()
	prev, seen := c.last[k]
	var msg string
	for j, sf := range c.fields {
		fi := c.in.Fields[sf.In]
		v := fieldtable.GetBits(in, fi.Offset, fi.Width)
		switch {
		case o.Txn == 0 && v != 0:
			msg = fmt.Sprintf("the flow's first transaction reads %s = %#x, not the reset state 0", fi.Name, v)
		case o.Txn > 0 && seen && prev.txn == o.Txn-1 && v != prev.state[j]:
			msg = fmt.Sprintf("%s = %#x, but the flow's previous transaction (txn %d) wrote %s = %#x",
				fi.Name, v, prev.txn, c.out.Fields[sf.Out].Name, prev.state[j])
		}
		if msg != "" {
			break
		}
	}
	if seen && o.Txn <= prev.txn && msg == "" {
		msg = fmt.Sprintf("txn %d after txn %d of the same flow", o.Txn, prev.txn)
	}
	st := prev.state
	if st == nil {
		st = make([]uint64, len(c.fields))
	}
	for j, sf := range c.fields {
		fo := c.out.Fields[sf.Out]
		st[j] = fieldtable.GetBits(out, fo.Offset, fo.Width)
	}
	c.last[k] = chainEnd{txn: o.Txn, state: st}
	return msg
}
