package vectors

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/hpccgold/hpccgold/fieldtable"
)

// The fast codec (hpcc_codec.go) packs any layout from a list of per-field
// operations, about 3 ns a field; the default configuration's layout (70
// input and 34 output fields, packed twice per random vector) also has
// straight-line packers, packInDefault and packOutDefault in
// hpcc_pack_default.go, generated from hpcc's own field tables by
// TestPackDefaultGenerated. They are used only when the model's tables
// are, field for field (name, offset, width), the ones they were generated
// from (packLayoutSig), and NewHPCC cross-checks them against hpcc's
// PackInput/PackOutput like the rest of the fast codec. A value wider than
// its field makes them report a nonzero bad mask, and the per-field
// packer then runs to name the field in its error.

// packLayoutSig is the SHA-256 (hex) of the input and output tables' names
// and their fields' names, offsets and widths: what a straight-line packer
// depends on.
func packLayoutSig(in, out fieldtable.Table) string {
	h := sha256.New()
	for _, t := range []fieldtable.Table{in, out} {
		fmt.Fprintf(h, "%s %d\n", t.Name, t.Width)
		for _, f := range t.Fields {
			fmt.Fprintf(h, "%s %d %d\n", f.Name, f.Offset, f.Width)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}
