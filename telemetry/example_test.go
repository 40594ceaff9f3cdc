package telemetry_test

import (
	"fmt"

	"github.com/hpccgold/hpccgold/telemetry"
)

// A switch stamps its egress state as Compact INT; the receiver of the bytes
// parses it back and converts the counters to bytes and ns. The word is
// qlen 100<<47 | txBytes 8192<<27 | ts 5000<<3 | speed code 2.
func Example() {
	h, err := telemetry.FromPhysical(telemetry.Compact, telemetry.Physical{
		SpeedGbps: 100, TsNs: 5000, TxBytes: 1 << 20, QlenBytes: 8000,
	})
	if err != nil {
		panic(err)
	}
	b, _ := telemetry.AppendHop(nil, telemetry.Compact, h)
	back, _ := telemetry.ParseHop(b, telemetry.Compact)
	p, _ := telemetry.ToPhysical(telemetry.Compact, back)
	fmt.Printf("%d bytes on the wire: % x\n", len(b), b)
	fmt.Printf("speed %d Gbps, ts %d ns, txBytes %d, qlen %d bytes\n", p.SpeedGbps, p.TsNs, p.TxBytes, p.QlenBytes)
	// Output:
	// 8 bytes on the wire: 00 32 01 00 00 00 9c 42
	// speed 100 Gbps, ts 5000 ns, txBytes 1048576, qlen 8000 bytes
}
