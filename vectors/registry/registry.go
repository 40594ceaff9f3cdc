// Package registry is the one list of the vector models hpccgold writes
// sets for, side by side: HPCC++'s hpcc_update (package vectors), LDCP's
// ldcp_update (package cc/ldcp/ldcpvec) and the telemetry integrity
// guard int_guard (package cc/intguard/guardvec). Everything that reopens a
// set from its manifest (vectors verify, the verify command, cosim, grade,
// the demo) opens its model here, and everything that simulates a model's
// RTL builds it here, so a new model is added with one entry.
package registry

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/cc/intguard"
	"github.com/hpccgold/hpccgold/cc/intguard/guardvec"
	"github.com/hpccgold/hpccgold/cc/ldcp"
	"github.com/hpccgold/hpccgold/cc/ldcp/ldcpvec"
	"github.com/hpccgold/hpccgold/rtl"
	"github.com/hpccgold/hpccgold/rtl/guardrtl"
	"github.com/hpccgold/hpccgold/rtl/hpccrtl"
	"github.com/hpccgold/hpccgold/rtl/ldcprtl"
	"github.com/hpccgold/hpccgold/vectors"
)

// The model names, one per model: a manifest's "model", the vector model's
// Name and the name of its update module's RTL.
const (
	HPCC = vectors.HPCCModelName // HPCC++ per-event update, "hpcc_update"
	LDCP = ldcpvec.Name          // LDCP sender per-event update, "ldcp_update"
	// Guard is the telemetry integrity guard before hpcc_update,
	// "int_guard" (cc/intguard, docs/guard.md).
	Guard = guardvec.Name
)

// Design is a model's per-event update as RTL: the module and the names of
// its valid handshake ports (a transaction in on ValidIn, its result out
// on ValidOut).
type Design struct {
	Module  *rtl.Module
	Stages  []rtl.StageReport // per pipeline stage (nil for the combinational form)
	ValidIn string
	// ValidOut is the output marking a result.
	ValidOut string
}

// Entry is one vector model: how to rebuild it from a manifest's
// configuration and how to build its RTL for the model's configuration.
type Entry struct {
	// Name is the model's name constant (HPCC, LDCP).
	Name string
	// Open rebuilds the model from a manifest's configuration.
	Open vectors.OpenFunc
	// Update builds the update module of the model's configuration
	// pipelined into stages (latency in cycles, II 1).
	Update func(m vectors.Model, stages int) (Design, error)
	// Comb builds the combinational update module (no clock, no handshake).
	Comb func(m vectors.Model) (*rtl.Module, error)
}

// entries is the registry: one entry per model.
func entries() []Entry {
	return []Entry{
		{
			Name: HPCC,
			Open: vectors.OpenModel,
			Update: func(m vectors.Model, stages int) (Design, error) {
				cfg, err := config[hpcc.Config](m)
				if err != nil {
					return Design{}, err
				}
				mod, rep, err := hpccrtl.Update(cfg, stages)
				return Design{Module: mod, Stages: rep, ValidIn: hpccrtl.ValidIn, ValidOut: hpccrtl.ValidOut}, err
			},
			Comb: func(m vectors.Model) (*rtl.Module, error) {
				cfg, err := config[hpcc.Config](m)
				if err != nil {
					return nil, err
				}
				return hpccrtl.UpdateComb(cfg)
			},
		},
		{
			Name: LDCP,
			Open: ldcpvec.Open,
			Update: func(m vectors.Model, stages int) (Design, error) {
				cfg, err := config[ldcp.Config](m)
				if err != nil {
					return Design{}, err
				}
				mod, rep, err := ldcprtl.Update(cfg, stages)
				return Design{Module: mod, Stages: rep, ValidIn: ldcprtl.ValidIn, ValidOut: ldcprtl.ValidOut}, err
			},
			Comb: func(m vectors.Model) (*rtl.Module, error) {
				cfg, err := config[ldcp.Config](m)
				if err != nil {
					return nil, err
				}
				return ldcprtl.UpdateComb(cfg)
			},
		},
		{
			Name: Guard,
			Open: guardvec.Open,
			Update: func(m vectors.Model, stages int) (Design, error) {
				cfg, err := config[intguard.Config](m)
				if err != nil {
					return Design{}, err
				}
				mod, rep, err := guardrtl.Pipelined(cfg, stages)
				return Design{Module: mod, Stages: rep, ValidIn: guardrtl.ValidIn, ValidOut: guardrtl.ValidOut}, err
			},
			Comb: func(m vectors.Model) (*rtl.Module, error) {
				cfg, err := config[intguard.Config](m)
				if err != nil {
					return nil, err
				}
				return guardrtl.Comb(cfg)
			},
		},
	}
}

// config returns m's configuration as a C, or an error naming the model
// when it holds another type.
func config[C any](m vectors.Model) (C, error) {
	c, ok := m.Config().(C)
	if !ok {
		var zero C
		return zero, fmt.Errorf("registry: model %s: configuration %T, want %T", m.Name(), m.Config(), zero)
	}
	return c, nil
}

// Names returns the model names a set's manifest may hold, sorted.
func Names() []string {
	var names []string
	for _, e := range entries() {
		names = append(names, e.Name)
	}
	sort.Strings(names)
	return names
}

// Lookup returns the entry of the model named name; an unknown name is an
// error listing the known ones.
func Lookup(name string) (Entry, error) {
	for _, e := range entries() {
		if e.Name == name {
			return e, nil
		}
	}
	return Entry{}, fmt.Errorf("vectors: model %q: unknown (hpccgold writes sets of %s)", name, strings.Join(Names(), ", "))
}

// Open rebuilds the model a manifest names from its configuration. An
// unknown name is an error listing the known ones.
func Open(name string, config json.RawMessage) (vectors.Model, error) {
	e, err := Lookup(name)
	if err != nil {
		return nil, err
	}
	return e.Open(name, config)
}

// OpenSet rebuilds the model of the vector set in dir from its manifest.
func OpenSet(dir string) (vectors.Model, error) {
	man, err := vectors.ReadManifest(dir)
	if err != nil {
		return nil, err
	}
	m, err := Open(man.Model, man.Config)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	return m, nil
}

// Update builds m's update RTL pipelined into stages.
func Update(m vectors.Model, stages int) (Design, error) {
	e, err := Lookup(m.Name())
	if err != nil {
		return Design{}, err
	}
	return e.Update(m, stages)
}

// Comb builds m's combinational update RTL.
func Comb(m vectors.Model) (*rtl.Module, error) {
	e, err := Lookup(m.Name())
	if err != nil {
		return nil, err
	}
	return e.Comb(m)
}

// Verify checks the vector set in dir (vectors.VerifyWith) whatever its
// model.
func Verify(dir string) (*vectors.VerifyReport, error) { return vectors.VerifyWith(dir, Open) }
