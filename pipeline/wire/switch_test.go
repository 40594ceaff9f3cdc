package wire

import (
	"bytes"
	"errors"
	"testing"

	"github.com/hpccgold/hpccgold/telemetry"
)

// TestPushHopOrderAndLimits pushes records one by one and checks, after
// each push, the decoded hops (path order), the raw stack order on the wire
// (IFA newest first, Compact oldest first: telemetry.AppendStack's order)
// and that the frame still verifies; then the hop limit and frame limit
// set the E flag without adding a record.
func TestPushHopOrderAndLimits(t *testing.T) {
	for _, e := range telemetry.Encodings() {
		t.Run(e.String(), func(t *testing.T) {
			hops := compactHops(5)
			if e == telemetry.IFA {
				hops = ifaHops(5)
			}
			f := buildData(t, e, 0, 13)
			payload := append([]byte(nil), (func() []byte { var p Packet; Decode(f, &p); return p.Payload() })()...)
			for i, h := range hops {
				var res PushResult
				var err error
				f, res, err = PushHop(f, e, h, 0)
				if err != nil || res != Pushed {
					t.Fatalf("push %d: %v, %v", i, res, err)
				}
				var p Packet
				Decode(f, &p)
				if p.Class != ClassData || p.INT.HopCount != i+1 || p.INT.Exceeded {
					t.Fatalf("after push %d: %v/%v count %d E %t", i, p.Class, p.Reason, p.INT.HopCount, p.INT.Exceeded)
				}
				for j := 0; j <= i; j++ {
					if p.Hops[j] != hops[j] {
						t.Fatalf("after push %d: hop %d = %+v, want %+v", i, j, p.Hops[j], hops[j])
					}
				}
				want, _ := telemetry.AppendStack(nil, e, hops[:i+1])
				if !bytes.Equal(p.Stack(), want) {
					t.Fatalf("after push %d: stack bytes %x, want AppendStack order %x", i, p.Stack(), want)
				}
				if !bytes.Equal(p.Payload(), payload) {
					t.Fatalf("payload moved or changed")
				}
			}
			// Hop limit (MaxHops 5 reached).
			before := len(f)
			f, res, err := PushHop(f, e, hops[0], 0)
			if err != nil || res != HopLimit || len(f) != before {
				t.Fatalf("6th push: %v, %v, len %d->%d", res, err, before, len(f))
			}
			var p Packet
			Decode(f, &p)
			if p.Class != ClassData || !p.INT.Exceeded || p.INT.HopCount != 5 {
				t.Fatalf("after hop limit: %v/%v E %t count %d", p.Class, p.Reason, p.INT.Exceeded, p.INT.HopCount)
			}
		})
	}
	// Frame limit: one byte short of room for the record.
	f := buildData(t, telemetry.IFA, 1, 100)
	out, res, err := PushHop(f, telemetry.IFA, ifaHops(1)[0], len(f)+telemetry.IFAHopSize-1)
	if err != nil || res != FrameLimit {
		t.Fatalf("frame limit: %v, %v", res, err)
	}
	var p Packet
	Decode(out, &p)
	if p.Class != ClassData || !p.INT.Exceeded || p.INT.HopCount != 1 {
		t.Fatalf("after frame limit: %v/%v E %t", p.Class, p.Reason, p.INT.Exceeded)
	}
	// Exactly enough room succeeds.
	f = buildData(t, telemetry.IFA, 1, 100)
	if _, res, err = PushHop(f, telemetry.IFA, ifaHops(1)[0], len(f)+telemetry.IFAHopSize); err != nil || res != Pushed {
		t.Fatalf("exact room: %v, %v", res, err)
	}
}

// TestPushHopRefuses: packets without a request are left unchanged, an
// encoding mismatch and a malformed frame are errors, an invalid record is an
// error.
func TestPushHopRefuses(t *testing.T) {
	ack, err := AppendAck(nil, &Ack{Path: testPath(), Transport: Transport{DestQP: 1},
		Echo: Echo{Enabled: true, Encoding: telemetry.Compact, MaxHops: 5, Hops: compactHops(1)}})
	if err != nil {
		t.Fatal(err)
	}
	plain, err := AppendData(nil, &Data{Path: testPath(), Opcode: OpRCSendOnly, Transport: Transport{DestQP: 1}})
	if err != nil {
		t.Fatal(err)
	}
	for name, f := range map[string][]byte{"echo ack": ack, "data without INT": plain} {
		before := append([]byte(nil), f...)
		out, res, err := PushHop(f, telemetry.Compact, compactHop, 0)
		if err != nil || res != NotRequesting || !bytes.Equal(out, before) {
			t.Errorf("%s: %v, %v, changed %t", name, res, err, !bytes.Equal(out, before))
		}
	}
	f := buildData(t, telemetry.Compact, 0, 0)
	if _, _, err := PushHop(f, telemetry.IFA, ifaHops(1)[0], 0); err == nil {
		t.Errorf("encoding mismatch: no error")
	}
	if _, _, err := PushHop(f, telemetry.Compact, telemetry.Hop{SpeedCode: 7}, 0); err == nil {
		t.Errorf("reserved speed code: no error")
	}
	if _, _, err := PushHop(f[:40], telemetry.Compact, compactHop, 0); !errors.Is(err, ErrMalformed) {
		t.Errorf("truncated frame: err %v, want ErrMalformed", err)
	}
}
