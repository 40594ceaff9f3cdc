package hpcc

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/hpccgold/hpccgold/telemetry"
)

// TraceHop is one hop of a trace line, in physical units.
type TraceHop struct {
	Switch    uint32  `json:"switch"`
	Port      uint32  `json:"port"`
	SpeedGbps *uint32 `json:"speed_gbps"`
	TsNs      *uint64 `json:"ts_ns"`
	TxBytes   *uint64 `json:"tx_bytes"`
	QlenBytes *uint64 `json:"qlen_bytes"`
}

// TraceLine is one line of a replay trace: one ACK (sender mode) or one
// INT-carrying packet (receiver mode) of one flow:
//
//	{"flow":1,"seq":1000,"snd_nxt":61000,"hops":[{"switch":1,"port":2,"speed_gbps":100,
//	 "ts_ns":5000,"tx_bytes":123456,"qlen_bytes":0}]}
//
// Counters are absolute (unwrapped); they are quantized and wrapped into the
// configured encoding's wire fields. Receiver mode reads now_ns (required)
// and nflows (dynamic W_ai; optional, default 1). seq and snd_nxt are taken
// modulo 2^SeqBits. Keys are exact and case-sensitive: an unknown key, a
// key in another case ("Flow") and a key given twice are errors. The
// format, field by field with units, is in docs/replay.md.
type TraceLine struct {
	Flow   *uint64    `json:"flow"`
	Seq    *uint64    `json:"seq"`
	SndNxt *uint64    `json:"snd_nxt"`
	NowNs  *uint64    `json:"now_ns"`
	NFlows *uint32    `json:"nflows"`
	Hops   []TraceHop `json:"hops"`
}

// TraceEvent is a parsed trace line: the flow and the datapath input.
type TraceEvent struct {
	Flow uint64
	In   Input
}

// traceKeys and hopKeys are the exact keys of a trace line and of one of its
// hops (the json tags of TraceLine and TraceHop).
var (
	traceKeys = []string{"flow", "seq", "snd_nxt", "now_ns", "nflows", "hops"}
	hopKeys   = []string{"switch", "port", "speed_gbps", "ts_ns", "tx_bytes", "qlen_bytes"}
)

// checkKeys walks a trace line's JSON object and returns an error for a key
// that is not exactly one of traceKeys (hopKeys inside "hops") or that is
// given twice. encoding/json matches keys case-insensitively and lets a
// repeated key override an earlier one, so this walk is what makes keys
// exact. A line that is not well-formed JSON of the expected shape returns
// nil: decoding it reports the syntax or type error.
func checkKeys(line []byte) error {
	dec := json.NewDecoder(bytes.NewReader(line))
	obj := func(allowed []string, where string, value func(key string) (bool, error)) (bool, error) {
		if t, err := dec.Token(); err != nil || t != json.Delim('{') {
			return false, nil
		}
		seen := map[string]bool{}
		for dec.More() {
			t, err := dec.Token()
			if err != nil {
				return false, nil
			}
			k, _ := t.(string)
			if !slices.Contains(allowed, k) {
				return false, fmt.Errorf("unknown field %q%s (keys are exact and case-sensitive: %s)", k, where, strings.Join(allowed, ", "))
			}
			if seen[k] {
				return false, fmt.Errorf("field %s%s: given twice", k, where)
			}
			seen[k] = true
			ok, err := value(k)
			if !ok || err != nil {
				return ok, err
			}
		}
		_, err := dec.Token()
		return err == nil, nil
	}
	skip := func(string) (bool, error) {
		var raw json.RawMessage
		return dec.Decode(&raw) == nil, nil
	}
	_, err := obj(traceKeys, "", func(k string) (bool, error) {
		if k != "hops" {
			return skip(k)
		}
		t, err := dec.Token()
		if err != nil || t != json.Delim('[') {
			return false, nil // null or a non-array: decoding reports it
		}
		for i := 0; dec.More(); i++ {
			ok, err := obj(hopKeys, fmt.Sprintf(" in hops[%d]", i), skip)
			if !ok || err != nil {
				return ok, err
			}
		}
		_, err = dec.Token()
		return err == nil, nil
	})
	return err
}

// ParseTraceLine parses and converts one trace line for config c. Errors
// name the line number and the field. It checks one line; ScanTrace also
// checks the order of lines (counters and timestamps never go backwards).
func ParseTraceLine(c Config, line []byte, lineNo int) (TraceEvent, error) {
	_, ev, err := parseTraceLine(c, line, lineNo)
	return ev, err
}

func parseTraceLine(c Config, line []byte, lineNo int) (TraceLine, TraceEvent, error) {
	var tl TraceLine
	if err := checkKeys(line); err != nil {
		return tl, TraceEvent{}, fmt.Errorf("line %d: %w", lineNo, err)
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&tl); err != nil {
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) {
			return tl, TraceEvent{}, fmt.Errorf("line %d: field %s: %s is not a valid %s", lineNo, ute.Field, ute.Value, ute.Type)
		}
		return tl, TraceEvent{}, fmt.Errorf("line %d: %w", lineNo, err)
	}
	if dec.More() {
		return tl, TraceEvent{}, fmt.Errorf("line %d: trailing data after the JSON object", lineNo)
	}
	missing := func(f string) error { return fmt.Errorf("line %d: field %s: missing", lineNo, f) }
	if tl.Flow == nil {
		return tl, TraceEvent{}, missing("flow")
	}
	ev := TraceEvent{Flow: *tl.Flow}
	if c.Mode == Sender {
		if tl.Seq == nil {
			return tl, TraceEvent{}, missing("seq")
		}
		if tl.SndNxt == nil {
			return tl, TraceEvent{}, missing("snd_nxt")
		}
		ev.In.Seq, ev.In.SndNxt = *tl.Seq&mask64(c.SeqBits), *tl.SndNxt&mask64(c.SeqBits)
	} else {
		if tl.NowNs == nil {
			return tl, TraceEvent{}, missing("now_ns")
		}
		ev.In.NowNs = *tl.NowNs & mask64(c.TimeBits)
		ev.In.NFlows = 1
		if tl.NFlows != nil {
			if uint64(*tl.NFlows) > mask64(c.FlowCountBits) {
				return tl, TraceEvent{}, fmt.Errorf("line %d: field nflows: %d does not fit %d bits", lineNo, *tl.NFlows, c.FlowCountBits)
			}
			ev.In.NFlows = *tl.NFlows
		}
	}
	if tl.Hops == nil {
		return tl, TraceEvent{}, missing("hops")
	}
	if len(tl.Hops) > c.MaxHops {
		return tl, TraceEvent{}, fmt.Errorf("line %d: field hops: %d hops, the configuration allows at most %d", lineNo, len(tl.Hops), c.MaxHops)
	}
	ev.In.NHops = uint8(len(tl.Hops))
	for i, h := range tl.Hops {
		f := func(name string) string { return fmt.Sprintf("hops[%d].%s", i, name) }
		switch {
		case h.SpeedGbps == nil:
			return tl, TraceEvent{}, missing(f("speed_gbps"))
		case h.TsNs == nil:
			return tl, TraceEvent{}, missing(f("ts_ns"))
		case h.TxBytes == nil:
			return tl, TraceEvent{}, missing(f("tx_bytes"))
		case h.QlenBytes == nil:
			return tl, TraceEvent{}, missing(f("qlen_bytes"))
		}
		p := telemetry.Physical{SwitchID: h.Switch, PortID: h.Port, SpeedGbps: *h.SpeedGbps, TsNs: *h.TsNs, TxBytes: *h.TxBytes, QlenBytes: *h.QlenBytes}
		if _, err := c.Encoding.SpeedCode(p.SpeedGbps); err != nil {
			return tl, TraceEvent{}, fmt.Errorf("line %d: field %s: %d Gbps has no %s speed code", lineNo, f("speed_gbps"), p.SpeedGbps, c.Encoding)
		}
		if c.Encoding == telemetry.IFA && p.SwitchID>>telemetry.IFADeviceIDBits != 0 {
			return tl, TraceEvent{}, fmt.Errorf("line %d: field %s: %d does not fit the %d-bit IFA deviceID", lineNo, f("switch"), p.SwitchID, telemetry.IFADeviceIDBits)
		}
		if c.Encoding == telemetry.IFA && p.PortID>>telemetry.IFAPortBits != 0 {
			return tl, TraceEvent{}, fmt.Errorf("line %d: field %s: %d does not fit the %d-bit IFA egressPort", lineNo, f("port"), p.PortID, telemetry.IFAPortBits)
		}
		hop, err := telemetry.FromPhysical(c.Encoding, p)
		if err != nil {
			return tl, TraceEvent{}, fmt.Errorf("line %d: field hops[%d]: %w", lineNo, i, err)
		}
		ev.In.Hops[i] = hop
	}
	return tl, ev, nil
}

// ReplayModel selects which model(s) Replay runs.
type ReplayModel string

// Replay models.
const (
	ReplayFloat ReplayModel = "float"
	ReplayFixed ReplayModel = "fixed"
	ReplayBoth  ReplayModel = "both"
)

// ParseReplayModel accepts "float", "fixed" or "both".
func ParseReplayModel(s string) (ReplayModel, error) {
	switch m := ReplayModel(s); m {
	case ReplayFloat, ReplayFixed, ReplayBoth:
		return m, nil
	}
	return "", fmt.Errorf("--model=%q: must be float, fixed or both", s)
}

// ErrEmptyTrace is returned by ScanTrace for a trace with no event (empty,
// or only blank lines): a replay of nothing is not a result.
var ErrEmptyTrace = errors.New("the trace holds no event (no non-blank line)")

// hopSeen is the last sample of one flow at one hop position.
type hopSeen struct {
	set          bool
	sw, port     uint32
	line         int
	tsNs, txByte uint64
}

// flowSeen is what ScanTrace remembers of a flow to check the order of its
// lines.
type flowSeen struct {
	nowLine int // line of the last now_ns (receiver mode); 0: none yet
	nowNs   uint64
	hops    [MaxHopsLimit]hopSeen
}

// checkOrder enforces that a flow's samples never go backwards: in
// receiver mode now_ns does not decrease from one line of the flow to the
// next; at a hop position that reports the same switch and port as the
// flow's previous sample there, ts_ns and tx_bytes do not decrease (they are
// absolute counters: a smaller value is an error, not a wrap). A hop whose
// switch or port changed is a path change and starts afresh.
func checkOrder(c Config, fs *flowSeen, tl *TraceLine, lineNo int) error {
	if c.Mode == Receiver && tl.NowNs != nil {
		if fs.nowLine > 0 && *tl.NowNs < fs.nowNs {
			return fmt.Errorf("line %d: field now_ns: %d is before %d on line %d of flow %d (time never goes backwards)", lineNo, *tl.NowNs, fs.nowNs, fs.nowLine, *tl.Flow)
		}
		fs.nowLine, fs.nowNs = lineNo, *tl.NowNs
	}
	for i, h := range tl.Hops {
		p := &fs.hops[i]
		if p.set && p.sw == h.Switch && p.port == h.Port {
			if *h.TsNs < p.tsNs {
				return fmt.Errorf("line %d: field hops[%d].ts_ns: %d is before %d on line %d (flow %d, switch %d port %d; timestamps never go backwards)",
					lineNo, i, *h.TsNs, p.tsNs, p.line, *tl.Flow, h.Switch, h.Port)
			}
			if *h.TxBytes < p.txByte {
				return fmt.Errorf("line %d: field hops[%d].tx_bytes: %d is below %d on line %d (flow %d, switch %d port %d; tx_bytes is an absolute counter, it never wraps or goes backwards)",
					lineNo, i, *h.TxBytes, p.txByte, p.line, *tl.Flow, h.Switch, h.Port)
			}
		}
		*p = hopSeen{set: true, sw: h.Switch, port: h.Port, line: lineNo, tsNs: *h.TsNs, txByte: *h.TxBytes}
	}
	return nil
}

// ScanTrace reads a trace once, streaming, and calls fn for each non-blank
// line's event, in order. It stops at the first malformed line with an
// error naming the line number and field; a line whose counters or
// timestamps go backwards (see checkOrder) is malformed. A trace with no
// event returns ErrEmptyTrace. Events before a bad line have been handed
// to fn already.
func ScanTrace(c Config, r io.Reader, fn func(ev TraceEvent) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	flows := map[uint64]*flowSeen{}
	events := 0
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		tl, ev, err := parseTraceLine(c, line, n)
		if err != nil {
			return err
		}
		fs := flows[ev.Flow]
		if fs == nil {
			fs = &flowSeen{}
			flows[ev.Flow] = fs
		}
		if err := checkOrder(c, fs, &tl, n); err != nil {
			return err
		}
		events++
		if err := fn(ev); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("reading trace: a line is longer than %d bytes: %w", 16<<20, err)
		}
		return fmt.Errorf("reading trace: %w", err)
	}
	if events == 0 {
		return ErrEmptyTrace
	}
	return nil
}

// Replayer runs trace events through the float reference and/or the golden
// datapath, one state per flow, and writes one JSON line per event.
type Replayer struct {
	// OnFixed, if set, is called after every golden-datapath update with
	// the flow, its state before, the event's input, the state after and
	// the outputs; an error stops Step with it. (replay --emit-vectors
	// captures the transactions as a vector set through it.)
	OnFixed func(flow uint64, st State, in Input, next State, o Output) error

	model ReplayModel
	dp    *Datapath
	ref   *Reference
	fixed map[uint64]State
	float map[uint64]RefState
	buf   []byte
}

// Datapath returns the golden datapath the replayer runs (nil for the
// float model alone).
func (rp *Replayer) Datapath() *Datapath { return rp.dp }

// NewReplayer builds the model(s) m needs for c.
func NewReplayer(c Config, m ReplayModel) (*Replayer, error) {
	rp := &Replayer{model: m, fixed: map[uint64]State{}, float: map[uint64]RefState{}}
	var err error
	if m != ReplayFloat {
		if rp.dp, err = NewDatapath(c); err != nil {
			return nil, err
		}
	}
	if m != ReplayFixed {
		if rp.ref, err = NewReference(c); err != nil {
			return nil, err
		}
	}
	return rp, nil
}

func appendNum(b []byte, x float64) []byte {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return append(b, "null"...)
	}
	return strconv.AppendFloat(b, x, 'g', -1, 64)
}

type replayVals struct {
	w, wc, u, rateGbps float64
	inc                int
}

func appendVals(b []byte, v replayVals) []byte {
	b = append(b, `"W":`...)
	b = appendNum(b, v.w)
	b = append(b, `,"Wc":`...)
	b = appendNum(b, v.wc)
	b = append(b, `,"U":`...)
	b = appendNum(b, v.u)
	b = append(b, `,"inc_stage":`...)
	b = strconv.AppendInt(b, int64(v.inc), 10)
	b = append(b, `,"rate_gbps":`...)
	return appendNum(b, v.rateGbps)
}

// Step runs one event and writes its output line to w: for "fixed" or
// "float" {"flow":F,"W":..,"Wc":..,"U":..,"inc_stage":..,"rate_gbps":..}
// (W and Wc in bytes); for "both" {"flow":F,"fixed":{...},"float":{...},
// "diff":{...}} with diff = fixed - float.
func (rp *Replayer) Step(ev TraceEvent, w io.Writer) error {
	var fx, fl replayVals
	if rp.model != ReplayFloat {
		st, ok := rp.fixed[ev.Flow]
		if !ok {
			st = rp.dp.InitialState()
		}
		next, o := rp.dp.Update(st, ev.In)
		rp.fixed[ev.Flow] = next
		if rp.OnFixed != nil {
			if err := rp.OnFixed(ev.Flow, st, ev.In, next, o); err != nil {
				return err
			}
		}
		fx = replayVals{rp.dp.WBytes(o.W), rp.dp.WBytes(o.Wc), rp.dp.UValue(o.U), rp.dp.RateBytesPerNs(o.Rate) * 8, int(o.IncStage)}
	}
	if rp.model != ReplayFixed {
		st, ok := rp.float[ev.Flow]
		if !ok {
			st = rp.ref.InitialState()
		}
		next, o := rp.ref.Update(st, ev.In)
		rp.float[ev.Flow] = next
		fl = replayVals{o.W, o.Wc, o.U, o.RateBytesPerNs * 8, o.IncStage}
	}
	b := append(rp.buf[:0], `{"flow":`...)
	b = strconv.AppendUint(b, ev.Flow, 10)
	switch rp.model {
	case ReplayFixed:
		b = append(b, ',')
		b = appendVals(b, fx)
	case ReplayFloat:
		b = append(b, ',')
		b = appendVals(b, fl)
	default:
		b = append(b, `,"fixed":{`...)
		b = appendVals(b, fx)
		b = append(b, `},"float":{`...)
		b = appendVals(b, fl)
		b = append(b, `},"diff":{`...)
		b = appendVals(b, replayVals{fx.w - fl.w, fx.wc - fl.wc, fx.u - fl.u, fx.rateGbps - fl.rateGbps, fx.inc - fl.inc})
		b = append(b, '}')
	}
	b = append(b, "}\n"...)
	rp.buf = b
	_, err := w.Write(b)
	return err
}
