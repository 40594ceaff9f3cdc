package registry

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/cc/ldcp"
	"github.com/hpccgold/hpccgold/cc/ldcp/ldcpvec"
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
	for _, m := range []vectors.Model{h, l} {
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
	if got, want := strings.Join(Names(), ","), "hpcc_update,ldcp_update"; got != want {
		t.Errorf("Names() = %s, want %s", got, want)
	}
	if _, err := Open("dcqcn_update", nil); err == nil || !strings.Contains(err.Error(), "hpcc_update, ldcp_update") {
		t.Errorf("Open(unknown) = %v, want an error listing the known models", err)
	}
}
