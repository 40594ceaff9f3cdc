package coverage

import (
	"github.com/hpccgold/hpccgold/cc/ldcp"
	"github.com/hpccgold/hpccgold/cc/ldcp/ldcpvec"
	"github.com/hpccgold/hpccgold/vectors"
)

func ldcpvecNew(cfg ldcp.Config) (vectors.Model, error) { return ldcpvec.New(cfg) }
