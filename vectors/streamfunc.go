package vectors

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"

	"github.com/hpccgold/hpccgold/artefact"
	"github.com/hpccgold/hpccgold/atomicfile"
	"github.com/hpccgold/hpccgold/buildinfo"
	"github.com/hpccgold/hpccgold/fieldtable"
)

// streamFlush is how many bytes of hex lines WriteStreamSetFunc gathers per
// data file before it hashes and writes them.
const streamFlush = 1 << 20

// WriteStreamSetFunc is WriteStreamSet for a set made event by event, in
// memory flat in the number of events: feed hands each event's stimulus
// (s.In.Words() words) and expected output (s.Out.Words() words) to emit,
// in order (emit formats them before it returns, so feed may reuse the
// words), and returns the manifest's module section, which may depend on
// every event (its stall count). s.Stim and s.Exp must be empty; s.Module
// is replaced by what feed returns. The files are WriteStreamSet's for the
// same events, byte for byte, written in one pass through package
// artefact (the data files with atomicfile.WriteLarge), with the
// manifest committed last. ctx is checked before each block of lines is
// written. An error of feed or emit leaves no set (the directory's earlier
// set, if any, stays).
func WriteStreamSetFunc(ctx context.Context, dir string, s StreamSet, feed func(emit func(stim, exp []uint64) error) (ModuleInfo, error)) (*Manifest, error) {
	if len(s.Stim) != 0 || len(s.Exp) != 0 {
		return nil, fmt.Errorf("vectors: stream set: %d events and %d outputs given: WriteStreamSetFunc takes them from feed", len(s.Stim), len(s.Exp))
	}
	lay, err := newLayout(s.In, s.Out)
	if err != nil {
		return nil, err
	}
	cfg, err := json.Marshal(s.Config)
	if err != nil {
		return nil, fmt.Errorf("vectors: stream set: config: %w", err)
	}
	aw, err := artefact.Create(dir, "vectors")
	if err != nil {
		return nil, fmt.Errorf("vectors: %w", err)
	}
	defer aw.Close()
	root := aw.Root()
	lf, err := marshalLayoutFile(layoutFile{Model: s.Model, Input: s.In, Output: s.Out})
	if err != nil {
		return nil, err
	}
	layoutHash, err := writeSmall(root, LayoutFile, lf)
	if err != nil {
		return nil, fmt.Errorf("vectors: %w", err)
	}
	vhHash, err := writeSmall(root, FieldsVHFile, fieldsVHNamed(s.Model, s.Enums, buildinfo.String(), lay))
	if err != nil {
		return nil, fmt.Errorf("vectors: %w", err)
	}
	stim, exp := newStreamPart(StimulusFile, s.In), newStreamPart(ExpectedFile, s.Out)
	var n int64
	var mod ModuleInfo
	var feedErr error
	err = atomicfile.WriteLarge(filepath.Join(root, StimulusFile), 0o644, func(ws io.Writer) error {
		stim.hw = newHashWriter(ws)
		return atomicfile.WriteLarge(filepath.Join(root, ExpectedFile), 0o644, func(we io.Writer) error {
			exp.hw = newHashWriter(we)
			mod, feedErr = feed(func(sw, ew []uint64) error {
				n++
				if err := stim.add(n, sw); err != nil {
					return err
				}
				if err := exp.add(n, ew); err != nil {
					return err
				}
				if len(stim.buf) < streamFlush && len(exp.buf) < streamFlush {
					return nil
				}
				if err := ctx.Err(); err != nil {
					return fmt.Errorf("vectors: writing %s stopped: %w", dir, err)
				}
				if err := stim.flush(); err != nil {
					return err
				}
				return exp.flush()
			})
			if feedErr != nil {
				return feedErr
			}
			if err := ctx.Err(); err != nil {
				return fmt.Errorf("vectors: writing %s stopped: %w", dir, err)
			}
			if err := stim.flush(); err != nil {
				return err
			}
			return exp.flush()
		})
	})
	if feedErr != nil {
		return nil, feedErr
	}
	if err != nil {
		return nil, fmt.Errorf("vectors: %w", err)
	}
	if n == 0 {
		return nil, fmt.Errorf("vectors: stream set: no events: want at least one")
	}
	man := &Manifest{Tool: buildinfo.String(), Model: s.Model, Config: cfg, Total: n, Count: n,
		Shard: ShardInfo{Index: 0, Count: 1}, Module: &mod, Seed: uint64(mod.Seed)}
	var first int64
	for _, c := range s.Classes {
		c.First, c.Total = first, c.Count
		first += c.Count
		man.Classes = append(man.Classes, c)
	}
	if first != n {
		return nil, fmt.Errorf("vectors: stream set: classes hold %d events, the set %d", first, n)
	}
	man.Coverage.InputBits = bitCoverage(s.In, stim.or, stim.and)
	man.Coverage.OutputBits = bitCoverage(s.Out, exp.or, exp.and)
	clHash, err := writeClasses(root, man)
	if err != nil {
		return nil, err
	}
	man.Files = []FileHash{stim.hw.sum(StimulusFile), exp.hw.sum(ExpectedFile), clHash, vhHash, layoutHash}
	mb, err := marshalManifest(man)
	if err != nil {
		return nil, err
	}
	if err := aw.CommitManifest(ctx, mb); err != nil {
		return nil, fmt.Errorf("vectors: %w", err)
	}
	return man, nil
}

// streamPart is one data file of a stream set being written: its hex
// lines not yet written, and the OR and AND of every line (toggle
// coverage).
type streamPart struct {
	name    string
	t       fieldtable.Table
	hw      *hashWriter
	buf     []byte
	or, and []uint64
}

func newStreamPart(name string, t fieldtable.Table) *streamPart {
	p := &streamPart{name: name, t: t, buf: make([]byte, 0, streamFlush+t.HexDigits()+1),
		or: make([]uint64, t.Words()), and: make([]uint64, t.Words())}
	for i := range p.and {
		p.and[i] = ^uint64(0)
	}
	return p
}

// add appends line k's hex form (k from 1) and accounts its bits.
func (p *streamPart) add(k int64, w []uint64) error {
	if len(w) != len(p.or) {
		return fmt.Errorf("vectors: stream set: %s line %d: %d words, layout %s has %d", p.name, k, len(w), p.t.Name, len(p.or))
	}
	for i := range w {
		p.or[i] |= w[i]
		p.and[i] &= w[i]
	}
	p.buf = append(appendHex(p.buf, p.t, w), '\n')
	return nil
}

// flush hashes and writes the gathered lines.
func (p *streamPart) flush() error {
	if err := p.hw.write(p.buf); err != nil {
		return err
	}
	p.buf = p.buf[:0]
	return nil
}
