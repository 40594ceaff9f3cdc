package registry

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/cc/intguard"
	"github.com/hpccgold/hpccgold/cc/intguard/guardvec"
	"github.com/hpccgold/hpccgold/cc/ldcp"
	"github.com/hpccgold/hpccgold/cc/ldcp/ldcpvec"
	"github.com/hpccgold/hpccgold/rtl"
	"github.com/hpccgold/hpccgold/vectors"
)

// TestOpenEveryModel reopens each model from the configuration its own
// manifest would record (Model.Config) and checks the name round-trips; an
// unknown name lists the known ones.
func TestOpenEveryModel(t *testing.T) {
	h, err := vectors.NewHPCC(hpcc.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	l, err := ldcpvec.New(ldcp.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	g, err := guardvec.New(intguard.DefaultConfig(hpcc.DefaultConfig()))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []vectors.Model{h, l, g} {
		cfg, err := json.Marshal(m.Config())
		if err != nil {
			t.Fatal(err)
		}
		got, err := Open(m.Name(), cfg)
		if err != nil {
			t.Fatalf("Open(%s): %v", m.Name(), err)
		}
		if got.Name() != m.Name() {
			t.Errorf("Open(%s) built model %s", m.Name(), got.Name())
		}
	}
	if got, want := strings.Join(Names(), ","), "hpcc_update,int_guard,ldcp_update"; got != want {
		t.Errorf("Names() = %s, want %s", got, want)
	}
	if _, err := Open("dcqcn_update", nil); err == nil || !strings.Contains(err.Error(), "hpcc_update, int_guard, ldcp_update") {
		t.Errorf("Open(unknown) = %v, want an error listing the known models", err)
	}
}

// TestEveryModelHasRTL builds each registered model's update RTL, pipelined
// and combinational, from the model's default configuration: the module is
// named after the model (the registry's name constant) and has its valid
// ports; a model whose configuration is of another type is an error.
func TestEveryModelHasRTL(t *testing.T) {
	h, err := vectors.NewHPCC(hpcc.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	l, err := ldcpvec.New(ldcp.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	g, err := guardvec.New(intguard.DefaultConfig(hpcc.DefaultConfig()))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []vectors.Model{h, l, g} {
		d, err := Update(m, 2)
		if err != nil {
			t.Fatalf("Update(%s): %v", m.Name(), err)
		}
		if d.Module.Name != m.Name() || len(d.Stages) != 2 {
			t.Errorf("Update(%s): module %s, %d stages", m.Name(), d.Module.Name, len(d.Stages))
		}
		if !hasPort(d.Module, d.ValidIn, d.ValidOut) {
			t.Errorf("Update(%s): no %s input or %s output", m.Name(), d.ValidIn, d.ValidOut)
		}
		c, err := Comb(m)
		if err != nil || c.Name != m.Name() {
			t.Errorf("Comb(%s) = %v, %v", m.Name(), c, err)
		}
	}
	if _, err := Update(wrongConfig{h}, 1); err == nil || !strings.Contains(err.Error(), "configuration") {
		t.Errorf("Update(model with a foreign configuration) = %v, want an error", err)
	}
}

// wrongConfig is the HPCC++ model reporting a configuration of another type.
type wrongConfig struct{ *vectors.HPCC }

func (wrongConfig) Config() any { return ldcp.DefaultConfig() }

// hasPort reports whether m has the input in and the output out.
func hasPort(m *rtl.Module, in, out string) bool {
	okIn, okOut := false, false
	for _, n := range m.Inputs {
		okIn = okIn || n.Name == in
	}
	for _, p := range m.Outputs {
		okOut = okOut || p.Name == out
	}
	return okIn && okOut
}
