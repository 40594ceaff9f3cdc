package wire

import (
	"testing"

	"github.com/hpccgold/hpccgold/telemetry"
)

// FuzzDecode feeds arbitrary bytes to Decode (and to the switch edits) and
// checks it never panics and that a frame it accepts is self-consistent:
// every offset lies inside the frame in header order, hop counts respect
// the limits, and a switch push on an accepted request yields a frame that
// decodes to the same class with one more hop or the E flag. Seeds are one
// frame of every class plus stamped stacks.
func FuzzDecode(f *testing.F) {
	for _, s := range seedFrames(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var p Packet
		Decode(b, &p)
		var q Packet
		Decode(b, &q)
		if p.Class != q.Class || p.Reason != q.Reason {
			t.Fatalf("Decode not deterministic")
		}
		if p.Class == ClassMalformed {
			if p.Reason == ReasonNone {
				t.Fatalf("malformed without reason")
			}
			return
		}
		if p.Reason != ReasonNone {
			t.Fatalf("class %v with reason %v", p.Class, p.Reason)
		}
		if !(p.IPOff < p.UDPOff && p.UDPOff < p.BTHOff && p.BTHOff < p.ICRCOff && p.ICRCOff+ICRCLen <= len(b)) {
			t.Fatalf("offsets out of order: %+v", p)
		}
		if p.HasINT && (p.INT.HopCount > p.INT.MaxHops || p.INT.MaxHops > MaxHops) && p.INT.Kind != KindNotify {
			t.Fatalf("hop counts %+v", p.INT)
		}
		if p.Class == ClassData && p.PayloadOff+p.PayloadLen > p.ICRCOff {
			t.Fatalf("payload past ICRC")
		}
		if !p.HasINT || p.INT.Kind != KindRequest {
			return
		}
		var h telemetry.Hop
		if p.INT.Encoding == telemetry.IFA {
			h = ifaHops(1)[0]
		} else {
			h = compactHop
		}
		c := append([]byte(nil), b...)
		out, res, err := PushHop(c, p.INT.Encoding, h, 0)
		if err != nil {
			t.Fatalf("PushHop on an accepted request: %v", err)
		}
		var r Packet
		Decode(out, &r)
		if r.Class != p.Class {
			t.Fatalf("after push: class %v/%v, was %v", r.Class, r.Reason, p.Class)
		}
		switch res {
		case Pushed:
			if r.INT.HopCount != p.INT.HopCount+1 {
				t.Fatalf("pushed but count %d -> %d", p.INT.HopCount, r.INT.HopCount)
			}
		case HopLimit, FrameLimit:
			if !r.INT.Exceeded || r.INT.HopCount != p.INT.HopCount {
				t.Fatalf("%v but E %t count %d", res, r.INT.Exceeded, r.INT.HopCount)
			}
		default:
			t.Fatalf("unexpected %v", res)
		}
		_, _ = MarkCE(append([]byte(nil), b...))
	})
}

func seedFrames(tb testing.TB) [][]byte {
	tb.Helper()
	path := testPath()
	tr := Transport{PKey: DefaultPKey, DestQP: 7, PSN: 3, AckReq: true}
	var out [][]byte
	add := func(b []byte, err error) {
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, b)
	}
	add(AppendData(nil, &Data{Path: path, Opcode: OpRCSendOnly, Transport: tr, Payload: []byte("abc")}))
	for _, e := range telemetry.Encodings() {
		out = append(out, buildData(tb, e, 2, 5))
		hops := compactHops(2)
		if e == telemetry.IFA {
			hops = ifaHops(2)
		}
		add(AppendAck(nil, &Ack{Path: path, Transport: tr, MSN: 4, Echo: Echo{Enabled: true, Encoding: e, MaxHops: 5, Hops: hops}}))
		add(AppendProbe(nil, &Probe{Path: path, Transport: tr, INT: INTRequest{Enabled: true, Encoding: e, MaxHops: 1}}))
		add(AppendProbeReply(nil, &ProbeReply{Path: path, Transport: tr, Echo: Echo{Enabled: true, Encoding: e, MaxHops: 2, Hops: hops}}))
	}
	add(AppendAck(nil, &Ack{Path: path, Transport: tr}))
	add(AppendNotify(nil, &Notify{Path: path, Transport: tr, Window: 12345}))
	return out
}

// TestSeedFramesDecode: every fuzz seed is a valid frame (so the fuzzer
// starts from accepted inputs and mutates into every check).
func TestSeedFramesDecode(t *testing.T) {
	for i, s := range seedFrames(t) {
		var p Packet
		Decode(s, &p)
		if p.Class == ClassMalformed {
			t.Errorf("seed %d malformed: %v", i, p.Reason)
		}
	}
}
