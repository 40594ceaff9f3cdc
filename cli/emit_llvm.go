package cli

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/hpccgold/hpccgold/artefact"
	"github.com/hpccgold/hpccgold/fieldtable"
	"github.com/hpccgold/hpccgold/llvmir"
	"github.com/hpccgold/hpccgold/rtl/hpccrtl"
	"github.com/hpccgold/hpccgold/vectors"
)

// runEmitLLVM implements `hpccgold emit llvm [--config FILE] --out DIR`:
// the HPCC++ per-ACK update (the combinational hpcc_update of package
// rtl/hpccrtl) lowered to LLVM IR by package llvmir, with its C header, C
// and DPI-C wrapper, vector check program and DPI-C import (see
// docs/llvm.md). args are the arguments after "emit llvm".
func runEmitLLVM(env *Env, args []string) error {
	fs := newFlagSet(env, "emit llvm", "emit llvm [--config FILE] --out DIR")
	configFile := fs.String("config", "", "HPCC++ configuration JSON (hpcc.LoadConfig form); default: the default configuration")
	out := fs.String("out", "", "output directory (created if missing)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := noPositional(fs); err != nil {
		return err
	}
	if *out == "" {
		return errors.New("--out is required")
	}
	cfg, err := loadHPCCConfig(*configFile)
	if err != nil {
		return err
	}
	m, err := hpccrtl.UpdateComb(cfg)
	if err != nil {
		return err
	}
	fields, err := vectors.NewHPCC(cfg)
	if err != nil {
		return err
	}
	md, err := llvmir.Lower(m, llvmir.Options{Groups: llvmir.FlowUpdateGroups(),
		Fields: []fieldtable.Table{fields.Input(), fields.Output()}, Enums: fields.Enums()})
	if err != nil {
		return err
	}
	aw, err := artefact.Create(*out, "llvm")
	if err != nil {
		return err
	}
	defer aw.Close()
	names, err := llvmir.Emit(aw.Root(), md)
	if err != nil {
		return err
	}
	if err := aw.Commit(env.context()); err != nil {
		return err
	}
	for _, n := range names {
		fmt.Fprintln(env.Stdout, filepath.Join(*out, n))
	}
	fmt.Fprintf(env.Stdout, "%s: %d rtl ops, %d input bits, %d output bits; build: see %s.h\n", md.Name, md.Ops, md.InBits, md.OutBits, md.Name)
	return nil
}
