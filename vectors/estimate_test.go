package vectors

import (
	"os"
	"path/filepath"
	"testing"
)

// TestEstimateDir: the estimate against what GenerateDir writes. Oracle:
// the files' sizes. Without JSON Lines the vector files are exactly
// Vectors*BytesPerVector (hex lines have a fixed width); with them the
// estimate bounds the files from above and is within 25% of them (the
// JSON line is sized from the widest bit patterns).
func TestEstimateDir(t *testing.T) {
	for _, opts := range []Options{
		{Level: 2, Count: 500, NoJSONL: true},
		{Level: 2, Count: 500},
		{Level: 1, Count: 300, Shard: Shard{Index: 1, Count: 3}},
	} {
		m := newMac(macConfig{})
		est, err := EstimateDir(m, opts)
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		man, err := GenerateDir(dir, m, opts)
		if err != nil {
			t.Fatal(err)
		}
		var vecBytes int64
		for _, name := range []string{StimulusFile, ExpectedFile, JSONLFile} {
			if st, err := os.Stat(filepath.Join(dir, name)); err == nil {
				vecBytes += st.Size()
			}
		}
		got := est.Vectors * est.BytesPerVector
		switch {
		case est.Vectors != man.Count:
			t.Errorf("%+v: estimate of %d vectors, generated %d", opts, est.Vectors, man.Count)
		case opts.NoJSONL && got != vecBytes:
			t.Errorf("%+v: estimate %d bytes of hex, files hold %d", opts, got, vecBytes)
		case !opts.NoJSONL && (got < vecBytes || got > vecBytes*5/4):
			t.Errorf("%+v: estimate %d bytes, files hold %d: want in [1, 1.25] times", opts, got, vecBytes)
		}
	}
}
