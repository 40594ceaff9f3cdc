package llvmir

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/hpccgold/hpccgold/atomicfile"
)

// LL returns M.ll: a comment header (tool version, configuration, the
// interface) and the LLVM module.
func (md *Model) LL() []byte {
	var b strings.Builder
	md.genHeader(&b, ";", ";", "", "LLVM IR of "+md.Name+": a pointer-free reference model (see "+md.Name+".h and package llvmir).")
	fmt.Fprintf(&b, ";\n; @%s_core: exact-width ports (iN in, struct of iN out), one instruction per rtl op; alwaysinline.\n", md.Name)
	fmt.Fprintf(&b, "; @%s_abi: C ABI form, one i64 per port (per 64-bit word above 64 bits), outputs returned by value.\n;\n", md.Name)
	b.WriteString("; Inputs:\n")
	for _, p := range md.Inputs {
		fmt.Fprintf(&b, ";   %-24s %-5s %s\n", p.Name, typeName(p), p.Doc)
	}
	b.WriteString("; Outputs:\n")
	for _, p := range md.Outputs {
		fmt.Fprintf(&b, ";   %-24s %-5s %s\n", p.Name, typeName(p), p.Doc)
	}
	b.WriteString("\n")
	b.WriteString(md.IR.String())
	return []byte(b.String())
}

// File is one generated file.
type File struct {
	Name string // base name
	Data []byte
}

// Files returns every generated file of the model, in a fixed order:
// M.ll, M.h, M_wrap.c, M_check.c, M_dpi.svh, M_dpi_tb.sv.
func (md *Model) Files() []File {
	return []File{
		{md.Name + ".ll", md.LL()},
		{md.Name + ".h", md.Header()},
		{md.Name + "_wrap.c", md.Wrapper()},
		{md.Name + "_check.c", md.Driver()},
		{md.Name + "_dpi.svh", md.SVHeader()},
		{md.Name + "_dpi_tb.sv", md.TestbenchSV()},
	}
}

// Emit writes the model's files into dir (created if missing), each
// atomically, and returns their base names in Files order.
func Emit(dir string, md *Model) ([]string, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("llvmir: %w", err)
	}
	var names []string
	for _, f := range md.Files() {
		if err := atomicfile.WriteBytes(filepath.Join(dir, f.Name), 0o644, f.Data); err != nil {
			return nil, fmt.Errorf("llvmir: %w", err)
		}
		names = append(names, f.Name)
	}
	return names, nil
}
