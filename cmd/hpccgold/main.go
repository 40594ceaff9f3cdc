// Command hpccgold is the one CLI of the hpccgold toolkit: golden vectors,
// Verilog and LLVM IR emission, co-simulation, replay and NIC/network
// simulation for INT-based datacenter congestion control (HPCC++, LDCP).
// It is a thin shell over the library package cli.
package main

import (
	"os"

	"github.com/hpccgold/hpccgold/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr))
}
