package grade

import (
	"bufio"
	"fmt"
	"path/filepath"

	"github.com/hpccgold/hpccgold/fieldtable"
	"github.com/hpccgold/hpccgold/vectors"
)

// Vectors is a golden vector set unpacked for grading: per vector, the raw
// value of every input field and every expected output field, in table
// order, and its class.
type Vectors struct {
	Source  string // how the set was made or where it was read, for reports
	In, Out fieldtable.Table
	First   int64 // global index of the first vector (a shard's offset)
	n       int
	in, out []uint64 // n x len(In.Fields), n x len(Out.Fields)
	classes []string
}

// Len returns the number of vectors.
func (v *Vectors) Len() int { return v.n }

// Class returns vector k's class.
func (v *Vectors) Class(k int) string { return v.classes[k] }

func (v *Vectors) input(k int) []uint64 {
	w := len(v.In.Fields)
	return v.in[k*w : (k+1)*w]
}

func (v *Vectors) output(k int) []uint64 {
	w := len(v.Out.Fields)
	return v.out[k*w : (k+1)*w]
}

func (v *Vectors) add(iw, ow []uint64, class string) {
	for _, f := range v.In.Fields {
		v.in = append(v.in, fieldtable.Get(iw, f))
	}
	for _, f := range v.Out.Fields {
		v.out = append(v.out, fieldtable.Get(ow, f))
	}
	v.classes = append(v.classes, class)
	v.n++
}

// FromSet unpacks an in-memory vector set (vectors.Generate); source
// describes it in reports.
func FromSet(s *vectors.Set, source string) *Vectors {
	v := &Vectors{Source: source, In: s.InputTable(), Out: s.OutputTable()}
	if s.Len() > 0 {
		v.First = s.Index(0)
	}
	for k := 0; k < s.Len(); k++ {
		v.add(s.Input(k), s.Output(k), s.Class(k))
	}
	return v
}

// ReadDir reads a hex vector set directory (stimulus.hex and expected.hex,
// or their zstd-compressed forms stimulus.hex.zst and expected.hex.zst, and
// manifest.json, with the field tables of layout.json as recorded in the
// manifest's model) and returns it with its manifest. Callers check the
// files' hashes first (artefact.Verify). A line that does not parse, or a
// stimulus and an expected file of different lengths, is an error naming
// the file and line.
func ReadDir(dir string, in, out fieldtable.Table) (*Vectors, *vectors.Manifest, error) {
	man, err := vectors.ReadManifest(dir)
	if err != nil {
		return nil, nil, err
	}
	v := &Vectors{Source: dir, In: in, Out: out, First: man.Shard.First}
	if man.IsBinary() {
		return nil, nil, fmt.Errorf("grade: %s holds binary records (%s); grade reads hex sets (generate one without --format bin)", dir, vectors.StimulusBinFile)
	}
	stimName, expName := man.VectorFiles()
	stim, err := readHex(dir, stimName, in)
	if err != nil {
		return nil, nil, err
	}
	exp, err := readHex(dir, expName, out)
	if err != nil {
		return nil, nil, err
	}
	if len(stim) != len(exp) {
		return nil, nil, fmt.Errorf("grade: %s: %d stimulus lines but %d expected lines", dir, len(stim), len(exp))
	}
	if int64(len(stim)) != man.Count {
		return nil, nil, fmt.Errorf("grade: %s: %d vectors, manifest count=%d", dir, len(stim), man.Count)
	}
	for k := range stim {
		v.add(stim[k], exp[k], man.ClassAt(v.First+int64(k)))
	}
	return v, man, nil
}

func readHex(dir, name string, t fieldtable.Table) ([][]uint64, error) {
	path := filepath.Join(dir, name)
	f, err := vectors.OpenData(dir, name)
	if err != nil {
		return nil, fmt.Errorf("grade: %w", err)
	}
	defer f.Close()
	var out [][]uint64
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for line := 1; sc.Scan(); line++ {
		w := make([]uint64, t.Words())
		if err := t.ParseHex(sc.Text(), w); err != nil {
			return nil, fmt.Errorf("grade: %s: line %d: %w", path, line, err)
		}
		out = append(out, w)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("grade: %s: %w", path, err)
	}
	return out, nil
}

// Input returns vector k's input field values, in input-table order (a
// view: do not modify).
func (v *Vectors) Input(k int) []uint64 { return v.input(k) }
