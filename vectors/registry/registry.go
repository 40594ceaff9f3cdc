// Package registry is the one list of the vector models hpccgold writes
// sets for, side by side: HPCC++'s hpcc_update (package vectors) and
// LDCP's ldcp_update (package cc/ldcp/ldcpvec). Everything that reopens a
// set from its manifest (vectors verify, the verify command, cosim, the
// demo) opens its model here, so a new model is added in one place.
package registry

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/hpccgold/hpccgold/cc/ldcp/ldcpvec"
	"github.com/hpccgold/hpccgold/vectors"
)

// models maps a manifest's model name to the function that rebuilds the
// model from the manifest's configuration.
func models() map[string]vectors.OpenFunc {
	return map[string]vectors.OpenFunc{
		vectors.HPCCModelName: vectors.OpenModel,
		ldcpvec.Name:          ldcpvec.Open,
	}
}

// Names returns the model names a set's manifest may hold, sorted.
func Names() []string {
	var names []string
	for n := range models() {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Open rebuilds the model a manifest names from its configuration. An
// unknown name is an error listing the known ones.
func Open(name string, config json.RawMessage) (vectors.Model, error) {
	open, ok := models()[name]
	if !ok {
		return nil, fmt.Errorf("vectors: model %q: unknown (hpccgold writes sets of %s)", name, strings.Join(Names(), ", "))
	}
	return open(name, config)
}

// Verify checks the vector set in dir (vectors.VerifyWith) whatever its
// model.
func Verify(dir string) (*vectors.VerifyReport, error) { return vectors.VerifyWith(dir, Open) }
