package nicmodel

import (
	"reflect"
	"strings"
	"unicode"

	"github.com/hpccgold/hpccgold/pipeline"
	"github.com/hpccgold/hpccgold/pipeline/wire"
)

// Register is one status register: a dotted name ("rx.drops.event_full",
// "module.stall_hazard") and its 64-bit value.
type Register struct {
	Name  string
	Value uint64
}

// Registers flattens c into named registers in a fixed order (blocks in
// data-path order, fields in declaration order), the form a status-register
// dump, a CSV column list or a test comparison wants. Array counters are
// named by their index's name (wire classes and malformed reasons, drop
// reasons, stall points, frame kinds); FIFOs contribute capacity, level,
// high-water mark, pushes, pops and rejected pushes.
func (c *Counters) Registers() []Register {
	var out []Register
	add := func(block string, v any) {
		rv := reflect.ValueOf(v)
		rt := rv.Type()
		for i := 0; i < rt.NumField(); i++ {
			f := rt.Field(i)
			name := block + "." + snake(f.Name)
			fv := rv.Field(i)
			switch fv.Kind() {
			case reflect.Uint64:
				out = append(out, Register{name, fv.Uint()})
			case reflect.Array:
				for k := 0; k < fv.Len(); k++ {
					out = append(out, Register{name + "." + snake(indexName(f.Name, block, k)), fv.Index(k).Uint()})
				}
			}
		}
	}
	add("mac", c.MAC)
	add("rx", c.Rx)
	add("module", c.Module)
	add("rx_hpcc", c.RxHPCC)
	add("scheduler", c.Scheduler)
	add("pktsend", c.PktSend)
	add("tx", c.Tx)
	add("host", c.Host)
	if c.CC != nil {
		add("cc", *c.CC)
	}
	if c.Guard != nil {
		add("guard", *c.Guard)
	}
	if c.Probe != nil {
		add("probe", *c.Probe)
	}
	for _, f := range c.FIFOs {
		p := "fifo." + f.Name + "."
		out = append(out, Register{p + "capacity", uint64(f.Capacity)}, Register{p + "level", uint64(f.Level)},
			Register{p + "max_level", uint64(f.Max)}, Register{p + "pushes", f.Pushes}, Register{p + "pops", f.Pops},
			Register{p + "rejected", f.Rejected})
	}
	return out
}

// indexName names element k of an array counter field.
func indexName(field, block string, k int) string {
	switch field {
	case "Class":
		return wire.Class(k).String()
	case "Malformed":
		return wire.Reason(k).String()
	case "Drops":
		return pipeline.DropReason(k).String()
	case "Stalls":
		return pipeline.StallPoint(k).String()
	case "Frames":
		return pipeline.FrameKind(k).String()
	}
	return block + "_" + field
}

// snake converts a Go identifier or a hyphenated name into snake_case
// ("AcksAdvanced" -> "acks_advanced", "ECNEchoes" -> "ecn_echoes",
// "event-full" -> "event_full").
func snake(s string) string {
	r := []rune(s)
	var b strings.Builder
	for i, c := range r {
		if c == '-' || c == ' ' {
			b.WriteByte('_')
			continue
		}
		if unicode.IsUpper(c) {
			plural := i+2 == len(r) && r[i+1] == 's' // "NAKs": an acronym's plural stays one word
			if i > 0 && (unicode.IsLower(r[i-1]) || unicode.IsDigit(r[i-1]) ||
				(i+1 < len(r) && unicode.IsLower(r[i+1]) && unicode.IsUpper(r[i-1]) && !plural)) {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(c))
			continue
		}
		b.WriteRune(c)
	}
	return b.String()
}
