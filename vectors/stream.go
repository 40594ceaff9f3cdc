package vectors

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/hpccgold/hpccgold/artefact"
	"github.com/hpccgold/hpccgold/buildinfo"
	"github.com/hpccgold/hpccgold/fieldtable"
)

// ModuleInfo is the "module" section of a stream set's manifest: the
// module a set of events was made for, and the throughput it must show.
// A stream set's vectors are not independent: each event's output depends
// on the module's flow table (RAM) as earlier events left it, so the set
// is replayed in order by a co-simulation of the module, never re-evaluated
// vector by vector.
type ModuleInfo struct {
	FlowBits      int      `json:"flow_bits"`       // flow-table depth 2^FlowBits (the event's flow field width)
	Stages        int      `json:"stages"`          // update pipeline stages the module was built with
	Kinds         []string `json:"kinds"`           // stream kinds, in order (one class each)
	EventsPerKind int      `json:"events_per_kind"` // events of each kind
	Seed          int64    `json:"seed"`            // stream seed (kind i uses Seed+i)
	// WantStalls is the number of cycles the module holds its ready low
	// over the whole stream, offered back to back, by its documented
	// handshake rule: a co-simulation that stalls more (or less) fails,
	// so a throughput bug is caught like an arithmetic one.
	WantStalls int `json:"want_stalls"`
}

// StreamSet is a set of events of a stateful module and its expected
// outputs in order, written by WriteStreamSet.
type StreamSet struct {
	Model   string // manifest model name, e.g. "hpcc_module"
	Config  any    // the module's algorithm configuration (JSON)
	In, Out fieldtable.Table
	Stim    [][]uint64 // per event, In.Words() words
	Exp     [][]uint64 // per event, Out.Words() words
	// Classes are consecutive runs of events (Name, Doc, Count); First and
	// Total are filled in.
	Classes []ClassCount
	Module  ModuleInfo
	Enums   []fieldtable.Enum // written into fields.vh
}

// WriteStreamSet writes s into dir like any vector set (stimulus.hex,
// expected.hex, fields.vh, layout.json, manifest.json with hashes and toggle
// coverage; through package artefact), with the manifest's "module"
// section. vectors check, show and cover take it; vectors verify checks its
// files (a stream cannot be re-run vector by vector).
func WriteStreamSet(ctx context.Context, dir string, s StreamSet) (*Manifest, error) {
	n := len(s.Stim)
	if n == 0 || len(s.Exp) != n {
		return nil, fmt.Errorf("vectors: stream set: %d events, %d expected outputs: want as many, at least one", n, len(s.Exp))
	}
	lay, err := newLayout(s.In, s.Out)
	if err != nil {
		return nil, err
	}
	cfg, err := json.Marshal(s.Config)
	if err != nil {
		return nil, fmt.Errorf("vectors: stream set: config: %w", err)
	}
	man := &Manifest{Tool: buildinfo.String(), Model: s.Model, Config: cfg, Total: int64(n), Count: int64(n),
		Shard: ShardInfo{Index: 0, Count: 1}, Module: &s.Module, Seed: uint64(s.Module.Seed)}
	var first int64
	for _, c := range s.Classes {
		c.First, c.Total = first, c.Count
		first += c.Count
		man.Classes = append(man.Classes, c)
	}
	if first != int64(n) {
		return nil, fmt.Errorf("vectors: stream set: classes hold %d events, the set %d", first, n)
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
	var files []FileHash
	for _, part := range []struct {
		name  string
		t     fieldtable.Table
		words [][]uint64
		cov   *BitCoverage
	}{{StimulusFile, s.In, s.Stim, &man.Coverage.InputBits}, {ExpectedFile, s.Out, s.Exp, &man.Coverage.OutputBits}} {
		nw := part.t.Words()
		or, and := make([]uint64, nw), make([]uint64, nw)
		for i := range and {
			and[i] = ^uint64(0)
		}
		var b []byte
		for k, w := range part.words {
			if len(w) != nw {
				return nil, fmt.Errorf("vectors: stream set: %s line %d: %d words, layout %s has %d", part.name, k+1, len(w), part.t.Name, nw)
			}
			for i := range w {
				or[i] |= w[i]
				and[i] &= w[i]
			}
			b = append(part.t.AppendHex(b, w), '\n')
		}
		*part.cov = bitCoverage(part.t, or, and)
		fh, err := writeSmall(root, part.name, b)
		if err != nil {
			return nil, fmt.Errorf("vectors: %w", err)
		}
		files = append(files, fh)
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("vectors: writing %s stopped: %w", dir, err)
		}
	}
	clHash, err := writeClasses(root, man)
	if err != nil {
		return nil, err
	}
	man.Files = append(files, clHash, vhHash, layoutHash)
	mb, err := marshalManifest(man)
	if err != nil {
		return nil, err
	}
	if err := aw.CommitManifest(ctx, mb); err != nil {
		return nil, fmt.Errorf("vectors: %w", err)
	}
	return man, nil
}
