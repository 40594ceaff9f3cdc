package hpcc

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"

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
// modulo 2^SeqBits. Unknown keys are errors.
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

// ParseTraceLine parses and converts one trace line for config c. Errors
// name the line number and the field.
func ParseTraceLine(c Config, line []byte, lineNo int) (TraceEvent, error) {
	var tl TraceLine
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&tl); err != nil {
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) {
			return TraceEvent{}, fmt.Errorf("line %d: field %s: %s is not a valid %s", lineNo, ute.Field, ute.Value, ute.Type)
		}
		return TraceEvent{}, fmt.Errorf("line %d: %w", lineNo, err)
	}
	if dec.More() {
		return TraceEvent{}, fmt.Errorf("line %d: trailing data after the JSON object", lineNo)
	}
	missing := func(f string) error { return fmt.Errorf("line %d: field %s: missing", lineNo, f) }
	if tl.Flow == nil {
		return TraceEvent{}, missing("flow")
	}
	ev := TraceEvent{Flow: *tl.Flow}
	if c.Mode == Sender {
		if tl.Seq == nil {
			return TraceEvent{}, missing("seq")
		}
		if tl.SndNxt == nil {
			return TraceEvent{}, missing("snd_nxt")
		}
		ev.In.Seq, ev.In.SndNxt = *tl.Seq&mask64(c.SeqBits), *tl.SndNxt&mask64(c.SeqBits)
	} else {
		if tl.NowNs == nil {
			return TraceEvent{}, missing("now_ns")
		}
		ev.In.NowNs = *tl.NowNs & mask64(c.TimeBits)
		ev.In.NFlows = 1
		if tl.NFlows != nil {
			if uint64(*tl.NFlows) > mask64(c.FlowCountBits) {
				return TraceEvent{}, fmt.Errorf("line %d: field nflows: %d does not fit %d bits", lineNo, *tl.NFlows, c.FlowCountBits)
			}
			ev.In.NFlows = *tl.NFlows
		}
	}
	if tl.Hops == nil {
		return TraceEvent{}, missing("hops")
	}
	if len(tl.Hops) > c.MaxHops {
		return TraceEvent{}, fmt.Errorf("line %d: field hops: %d hops, the configuration allows at most %d", lineNo, len(tl.Hops), c.MaxHops)
	}
	ev.In.NHops = uint8(len(tl.Hops))
	for i, h := range tl.Hops {
		f := func(name string) string { return fmt.Sprintf("hops[%d].%s", i, name) }
		switch {
		case h.SpeedGbps == nil:
			return TraceEvent{}, missing(f("speed_gbps"))
		case h.TsNs == nil:
			return TraceEvent{}, missing(f("ts_ns"))
		case h.TxBytes == nil:
			return TraceEvent{}, missing(f("tx_bytes"))
		case h.QlenBytes == nil:
			return TraceEvent{}, missing(f("qlen_bytes"))
		}
		p := telemetry.Physical{SwitchID: h.Switch, PortID: h.Port, SpeedGbps: *h.SpeedGbps, TsNs: *h.TsNs, TxBytes: *h.TxBytes, QlenBytes: *h.QlenBytes}
		if _, err := c.Encoding.SpeedCode(p.SpeedGbps); err != nil {
			return TraceEvent{}, fmt.Errorf("line %d: field %s: %d Gbps has no %s speed code", lineNo, f("speed_gbps"), p.SpeedGbps, c.Encoding)
		}
		if c.Encoding == telemetry.IFA && p.SwitchID>>telemetry.IFADeviceIDBits != 0 {
			return TraceEvent{}, fmt.Errorf("line %d: field %s: %d does not fit the %d-bit IFA deviceID", lineNo, f("switch"), p.SwitchID, telemetry.IFADeviceIDBits)
		}
		if c.Encoding == telemetry.IFA && p.PortID>>telemetry.IFAPortBits != 0 {
			return TraceEvent{}, fmt.Errorf("line %d: field %s: %d does not fit the %d-bit IFA egressPort", lineNo, f("port"), p.PortID, telemetry.IFAPortBits)
		}
		hop, err := telemetry.FromPhysical(c.Encoding, p)
		if err != nil {
			return TraceEvent{}, fmt.Errorf("line %d: field hops[%d]: %w", lineNo, i, err)
		}
		ev.In.Hops[i] = hop
	}
	return ev, nil
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

// ScanTrace reads a trace and calls fn for each non-blank line's event, in
// order. It stops at the first malformed line with an error naming the line
// number and field.
func ScanTrace(c Config, r io.Reader, fn func(ev TraceEvent) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		ev, err := ParseTraceLine(c, line, n)
		if err != nil {
			return err
		}
		if err := fn(ev); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("reading trace: %w", err)
	}
	return nil
}

// Replayer runs trace events through the float reference and/or the golden
// datapath, one state per flow, and writes one JSON line per event.
type Replayer struct {
	model ReplayModel
	dp    *Datapath
	ref   *Reference
	fixed map[uint64]State
	float map[uint64]RefState
	buf   []byte
}

// NewReplayer builds the model(s) m needs for c (MultiQ configurations
// replay with the float model only).
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
