package vectors

import (
	"bytes"
	"testing"

	"github.com/hpccgold/hpccgold/fieldtable"
)

// TestPutLinesMatchAppend checks the block formatters against the line
// formatters they replace (the oracle: fieldtable's own AppendHex for hex
// lines, appendRecord for binary records, one line at a time): random
// words of random widths 1..300 bits (partial top words, an odd or even
// number of full words), 1..40 vectors a block, into a reused buffer that
// held longer and shorter blocks before.
func TestPutLinesMatchAppend(t *testing.T) {
	r := NewRand(3, 3)
	var hexBuf, recBuf []byte
	for iter := 0; iter < 2000; iter++ {
		width := 1 + int(r.Below(300))
		var specs []fieldtable.Spec
		for rest, k := width, 0; rest > 0; rest, k = rest-64, k+1 {
			specs = append(specs, fieldtable.Spec{Name: string(rune('a' + k)), Width: min(rest, 64)})
		}
		tb, err := fieldtable.New("t", specs)
		if err != nil {
			t.Fatal(err)
		}
		nw, n := tb.Words(), 1+int(r.Below(40))
		words := make([]uint64, n*nw)
		for k := range words {
			words[k] = r.Uint64()
		}
		for k := 0; k < n; k++ {
			if rem := tb.Width % 64; rem != 0 {
				words[k*nw+nw-1] &= fieldtable.Mask(rem)
			}
		}
		var wantHex, wantRec []byte
		for k := 0; k < n; k++ {
			wantHex = append(tb.AppendHex(wantHex, words[k*nw:(k+1)*nw]), '\n')
			wantRec = appendRecord(wantRec, tb, words[k*nw:(k+1)*nw])
		}
		hexBuf = putHexLines(hexBuf, tb.HexDigits(), words, nw, n)
		if !bytes.Equal(hexBuf, wantHex) {
			t.Fatalf("width %d, %d vectors: putHexLines =\n%s\nwant\n%s", width, n, hexBuf, wantHex)
		}
		recBuf = putRecords(recBuf, RecordBytes(tb), words, nw, n)
		if !bytes.Equal(recBuf, wantRec) {
			t.Fatalf("width %d, %d vectors: putRecords = %x, want %x", width, n, recBuf, wantRec)
		}
	}
}
