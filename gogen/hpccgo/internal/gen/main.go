// Command gen writes package hpccgo's generated files (hpccsrc.Files) into
// the current directory, each atomically. hpccgo's go:generate line runs
// it.
package main

import (
	"fmt"
	"os"

	"github.com/hpccgold/hpccgold/atomicfile"
	"github.com/hpccgold/hpccgold/gogen/hpccgo/internal/hpccsrc"
)

func main() {
	fs, err := hpccsrc.Files()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	for _, f := range fs {
		if err := atomicfile.WriteBytes(f.Name, 0o644, f.Data); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
	}
}
