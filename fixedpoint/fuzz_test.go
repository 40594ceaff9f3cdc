package fixedpoint

import "testing"

// FuzzParseFormat: ParseFormat and ParseValue never panic; every accepted
// format prints back to a string that parses to the same format, and every
// accepted value round-trips through Notation and its exact decimal String.
func FuzzParseFormat(f *testing.F) {
	for _, s := range []string{"s16.8", "u12.-3", "u32.40", "s1.1", "u128.0", "s0.0", "u129.1", "s8.+2", "x8.4",
		"s8.4:0xfe", "s8.4:-3", "s8.4=-0.1875", "u4.8=240", "s8.4=1e3", "u8.0:0x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if fm, err := ParseFormat(s); err == nil {
			back, err := ParseFormat(fm.String())
			if err != nil || back != fm {
				t.Fatalf("ParseFormat(%q) = %v; String %q parses to %v, %v", s, fm, fm.String(), back, err)
			}
		}
		if v, err := ParseValue(s); err == nil {
			if back, err := ParseValue(v.Notation()); err != nil || back != v {
				t.Fatalf("ParseValue(%q) = %s; Notation parses to %s, %v", s, v.Notation(), back.Notation(), err)
			}
			dec := v.Format().String() + "=" + v.String()
			if back, err := ParseValue(dec); err != nil || back != v {
				t.Fatalf("ParseValue(%q) = %s; %q parses to %s, %v", s, v.Notation(), dec, back.Notation(), err)
			}
		}
	})
}

// FuzzCast: Cast and the fused operations never panic, even for invalid
// formats and modes; for valid inputs Cast equals oracleCast, and a cast
// into a format that contains the source exactly round-trips (back with
// Wrap, since SatSym maps MIN to -MAX).
func FuzzCast(f *testing.F) {
	f.Add(8, 4, true, uint64(0), uint64(0x80), 4, 2, true, uint8(2), uint8(3))
	f.Add(128, 0, false, ^uint64(0), ^uint64(0), 1, 1, true, uint8(6), uint8(0))
	f.Add(1, 1, true, uint64(0), uint64(1), 64, -100, false, uint8(1), uint8(1))
	f.Add(0, 0, false, uint64(0), uint64(0), 0, 0, false, uint8(99), uint8(99))
	f.Fuzz(func(t *testing.T, w, i int, signed bool, hi, lo uint64, tw, ti int, ts bool, q, o uint8) {
		from := Format{W: w, I: i, Signed: signed}
		to := Format{W: tw, I: ti, Signed: ts}
		x, err := FromBits(from, hi, lo)
		if err != nil {
			x = Value{} // exercise the zero Value (no format) too: must give an error, not panic
		}
		qm, om := Quantization(q), Overflow(o)
		valid := from.valid() && to.valid() && qm.Valid() && om.Valid()
		got, err := Cast(x, to, qm, om)
		for _, r := range []opResult{
			{"Cast", got, err},
			result("MulCast")(MulCast(x, x, to, qm, om)),
			result("AddCast")(AddCast(x, x, to, qm, om)),
			result("SubCast")(SubCast(x, x, to, qm, om)),
			result("NegCast")(NegCast(x, to, qm, om)),
		} {
			// Invalid inputs give an error and the zero Value, never a number.
			if (r.err == nil) != valid || (r.err != nil && r.v != (Value{})) {
				t.Fatalf("%s(%s, %s, %v, %v) = %s, %v; inputs valid: %v", r.op, x.Notation(), to, qm, om, r.v.Notation(), r.err, valid)
			}
		}
		_, _ = Div(x, x, to, qm, om)
		_, _ = Shl(x, tw)
		_ = CLZ(x)
		if !valid {
			return
		}
		if want := oracleCast(x.Rat(), to, qm, om); got.RawBig().Cmp(want) != 0 {
			t.Fatalf("Cast(%s, %s, %v, %v) = %s; want raw %s", x.Notation(), to, qm, om, got.Notation(), want)
		}
		// A container: same or more fraction and integer bits (one more when
		// an unsigned source goes signed) holds x exactly, and back again.
		cont := Format{W: from.W + 1 + b2i(!from.Signed && ts), I: from.I + 1 + b2i(!from.Signed && ts), Signed: ts || from.Signed}
		if cont.valid() {
			up := mustV(Cast(x, cont, qm, om))
			if up.Rat().Cmp(x.Rat()) != 0 || mustV(Cast(up, from, qm, Wrap)) != x { // Wrap back: SatSym would map MIN to -MAX
				t.Fatalf("round trip %s -> %s -> %s: %s", x.Notation(), cont, from, up.Notation())
			}
		}
	})
}
