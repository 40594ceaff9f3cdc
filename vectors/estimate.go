package vectors

import "github.com/hpccgold/hpccgold/fieldtable"

// SizeEstimate is what GenerateDir will write for a request, estimated
// before any vector is evaluated.
type SizeEstimate struct {
	Vectors        int64 // vectors in the shard
	BytesPerVector int64 // stimulus.hex, expected.hex and vectors.jsonl lines of one vector
	Bytes          int64 // Vectors * BytesPerVector plus the small files (layout, fields.vh, manifest)
}

// smallFilesBytes bounds layout.json, fields.vh and manifest.json together.
const smallFilesBytes = 1 << 20

// EstimateDir returns how many vectors opts selects from m and about how
// many bytes GenerateDir writes for them. The hex lines (or binary
// records, with Binary) are exact
// (ceil(width/4) digits and a newline each); a vectors.jsonl line is taken
// as the longest of three bit patterns (all ones, 0x55.., 0xaa..) of every
// field, which bounds the digits of each hex and integer member (the real
// values' digits vary little). The options are validated as GenerateDir
// validates them.
func EstimateDir(m Model, opts Options) (SizeEstimate, error) {
	p, err := newPlan(m, opts)
	if err != nil {
		return SizeEstimate{}, err
	}
	return p.estimate(), nil
}

// estimate is EstimateDir of a validated plan.
func (p *plan) estimate() SizeEstimate {
	opts := p.opts
	hexLine := func(t fieldtable.Table) int64 { return int64(t.HexDigits()) + 1 }
	per := hexLine(p.lay.in) + hexLine(p.lay.out)
	if opts.Binary {
		per = int64(RecordBytes(p.lay.in) + RecordBytes(p.lay.out))
	}
	if !opts.NoJSONL {
		longest := 0
		in, out := make([]uint64, p.iw), make([]uint64, p.ow)
		var line []byte
		for _, pat := range []uint64{^uint64(0), 0x5555555555555555, 0xaaaaaaaaaaaaaaaa} {
			fill(p.lay.in, in, pat)
			fill(p.lay.out, out, pat)
			line = appendJSONLine(line[:0], p.last-1, p.className(p.label(p.last-1)), p.lay, in, out)
			longest = max(longest, len(line))
		}
		per += int64(longest)
	}
	n := p.last - p.first
	return SizeEstimate{Vectors: n, BytesPerVector: per, Bytes: n*per + smallFilesBytes}
}

// fill sets every field of table t in words w to the low bits of pat.
func fill(t fieldtable.Table, w []uint64, pat uint64) {
	clear(w)
	for _, f := range t.Fields {
		fieldtable.PutBits(w, f.Offset, f.Width, pat&fieldtable.Mask(f.Width))
	}
}
