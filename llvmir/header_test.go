package llvmir

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/cc/hpcc"
	"github.com/hpccgold/hpccgold/fieldtable"
	"github.com/hpccgold/hpccgold/internal/testtool"
	"github.com/hpccgold/hpccgold/rtl/hpccrtl"
	"github.com/hpccgold/hpccgold/telemetry"
	"github.com/hpccgold/hpccgold/vectors"
)

// lowerHPCCFields lowers the combinational hpcc_update of cfg with the
// golden field tables and speed codes, as `hpccgold emit llvm` does.
func lowerHPCCFields(t *testing.T, cfg hpcc.Config) (*Model, *vectors.HPCC) {
	t.Helper()
	m, err := hpccrtl.UpdateComb(cfg)
	if err != nil {
		t.Fatal(err)
	}
	vm, err := vectors.NewHPCC(cfg)
	if err != nil {
		t.Fatal(err)
	}
	md, err := Lower(m, Options{Groups: FlowUpdateGroups(), Fields: []fieldtable.Table{vm.Input(), vm.Output()}, Enums: vm.Enums()})
	if err != nil {
		t.Fatal(err)
	}
	return md, vm
}

var (
	reMember = regexp.MustCompile(`(?m)^\t(?:u?int\d+_t) (\w+)(?:\[\d+\])?; /\* (\S+) (\w+): `)
	reFrac   = regexp.MustCompile(`(?m)^#define HPCC_UPDATE_(STATE|EVENT|OUT)_(\w+)_FRAC (-?\d+) /\* (\S+): ([\w, ]+) \*/$`)
	reCEnum  = regexp.MustCompile(`(?m)^\tHPCC_UPDATE_SPEED_(\d+)G = (\d+), /\* (\d+) Gbps`)
	reVHW    = regexp.MustCompile("(?m)^`define (\\w+)_W (\\d+) // (\\S+) (.*)$")
	reVHLSB  = regexp.MustCompile("(?m)^`define (\\w+)_LSB (\\d+)$")
	reVHFrac = regexp.MustCompile("(?m)^`define (\\w+)_FRAC (-?\\d+)$")
	reSVEnum = regexp.MustCompile(`(?m)^  HPCC_UPDATE_SPEED_(\d+)G = (\d+)'d(\d+),? // (\d+) Gbps`)
)

// checkVH checks the field defines of one table in a Verilog include
// (fields.vh, M_dpi.svh) against the table: offset, width, format and
// meaning of every field, and the fraction bits of every fixed-point one.
func checkVH(t *testing.T, what, vh, prefix string, tab fieldtable.Table) {
	t.Helper()
	p := strings.ToUpper(prefix) + "_"
	ws, lsbs, fracs := map[string][]string{}, map[string]string{}, map[string]string{}
	for _, m := range reVHW.FindAllStringSubmatch(vh, -1) {
		ws[m[1]] = m[2:]
	}
	for _, m := range reVHLSB.FindAllStringSubmatch(vh, -1) {
		lsbs[m[1]] = m[2]
	}
	for _, m := range reVHFrac.FindAllStringSubmatch(vh, -1) {
		fracs[m[1]] = m[2]
	}
	for _, f := range tab.Fields {
		n := p + strings.ToUpper(f.Name)
		w := ws[n]
		if w == nil || w[0] != strconv.Itoa(f.Width) || w[1] != f.Format || w[2] != f.Doc {
			t.Errorf("%s: %s_W = %q, want %d // %s %s", what, n, w, f.Width, f.Format, f.Doc)
		}
		if lsbs[n] != strconv.Itoa(f.Offset) {
			t.Errorf("%s: %s_LSB = %q, want %d", what, n, lsbs[n], f.Offset)
		}
		fx, ok := f.Fixed()
		switch {
		case ok && fracs[n] != strconv.Itoa(fx.F()):
			t.Errorf("%s: %s_FRAC = %q, want %d (%s)", what, n, fracs[n], fx.F(), f.Format)
		case !ok && fracs[n] != "":
			t.Errorf("%s: %s_FRAC defined for the integer field %s (%s)", what, n, f.Name, f.Format)
		}
	}
}

// TestHeaderFormats parses hpcc_update.h, hpcc_update_dpi.svh and the
// vector set's fields.vh and checks every field's format, width, offset,
// fraction bits and meaning against the golden field tables, and the speed
// codes against the telemetry encoding's table, in the IFA and Compact
// configurations. The oracle is the field table (cc/hpcc InputTable and
// OutputTable) and telemetry.Encoding.SpeedTable.
func TestHeaderFormats(t *testing.T) {
	for _, cfg := range []hpcc.Config{hpcc.DefaultConfig(), hpcc.DefaultConfigFor(telemetry.Compact)} {
		md, vm := lowerHPCCFields(t, cfg)
		h := string(md.Header())
		tabs := []fieldtable.Table{vm.Input(), vm.Output()}
		field := func(name string) (fieldtable.Field, bool) {
			for _, tb := range tabs {
				if k := tb.Index(name); k >= 0 {
					return tb.Fields[k], true
				}
			}
			return fieldtable.Field{}, false
		}
		// Every struct member names its port and the port's field format.
		seen := map[string]bool{}
		for _, m := range reMember.FindAllStringSubmatch(h, -1) {
			f, ok := field(m[3])
			if !ok {
				t.Errorf("%s: member %s: port %s is no field", cfg.Encoding, m[1], m[3])
				continue
			}
			if m[2] != f.Format {
				t.Errorf("%s: member %s (%s): format %s, want %s", cfg.Encoding, m[1], m[3], m[2], f.Format)
			}
			seen[m[3]] = true
		}
		// Every fixed-point field has its FRAC define naming all its ports.
		fracs := 0
		for _, m := range reFrac.FindAllStringSubmatch(h, -1) {
			for _, port := range strings.Split(m[5], ", ") {
				f, _ := field(port)
				fx, ok := f.Fixed()
				if !ok || m[3] != strconv.Itoa(fx.F()) || m[4] != f.Format {
					t.Errorf("%s: FRAC of %s: %s (%s), want format %s", cfg.Encoding, port, m[3], m[4], f.Format)
				}
				fracs++
			}
		}
		wantFracs := 0
		for _, tb := range tabs {
			for _, f := range tb.Fields {
				if !seen[f.Name] && !strings.HasPrefix(f.Name, "ns_") {
					t.Errorf("%s: field %s has no struct member", cfg.Encoding, f.Name)
				}
				if _, ok := f.Fixed(); ok {
					wantFracs++
				}
			}
		}
		if fracs != wantFracs || fracs == 0 {
			t.Errorf("%s: FRAC defines cover %d ports, want %d fixed-point fields", cfg.Encoding, fracs, wantFracs)
		}
		// Speed codes: the C enum, the SystemVerilog enum and fields.vh.
		want := map[string]string{}
		for code, g := range cfg.Encoding.SpeedTable() {
			if g != 0 {
				want[strconv.Itoa(int(g))] = strconv.Itoa(code)
			}
		}
		checkEnum := func(what string, got [][]string, code int) {
			if len(got) != len(want) {
				t.Errorf("%s %s: %d speed codes, want %d", cfg.Encoding, what, len(got), len(want))
			}
			for _, m := range got {
				if want[m[1]] != m[code] {
					t.Errorf("%s %s: %sG = %s, want code %s", cfg.Encoding, what, m[1], m[code], want[m[1]])
				}
			}
		}
		checkEnum("hpcc_update.h", reCEnum.FindAllStringSubmatch(h, -1), 2)
		sv := string(md.SVHeader())
		checkEnum("hpcc_update_dpi.svh", reSVEnum.FindAllStringSubmatch(sv, -1), 3)
		checkVH(t, "hpcc_update_dpi.svh", sv, "hpcc_update_dpi_in", vm.Input())
		checkVH(t, "hpcc_update_dpi.svh", sv, "hpcc_update_dpi_out", vm.Output())

		dir := t.TempDir()
		if _, err := vectors.GenerateDir(dir, vm, vectors.Options{Level: 1, Count: 1}); err != nil {
			t.Fatal(err)
		}
		vh, err := os.ReadFile(filepath.Join(dir, vectors.FieldsVHFile))
		if err != nil {
			t.Fatal(err)
		}
		checkVH(t, "fields.vh", string(vh), "hpcc_update_in", vm.Input())
		checkVH(t, "fields.vh", string(vh), "hpcc_update_out", vm.Output())
		var vhEnum [][]string
		for _, m := range regexp.MustCompile("(?m)^`define HPCC_UPDATE_SPEED_(\\d+)G \\d+'d(\\d+) // (\\d+) Gbps").FindAllStringSubmatch(string(vh), -1) {
			vhEnum = append(vhEnum, m)
		}
		checkEnum("fields.vh", vhEnum, 2)
	}
}

// TestHeaderConversions compiles a C program against hpcc_update.h and
// checks the raw<->real conversions of the u32.24 window W and u32.8 U
// (hand-worked values: 62500 bytes is raw 62500*2^8; half an LSB rounds
// away from zero; out of range saturates; NaN gives 0).
func TestHeaderConversions(t *testing.T) {
	tools, _ := FindTools() // only clang is needed here
	testtool.Require(t, tools.NeedBuild(), ErrToolMissing, "clang")
	md, _ := lowerHPCCFields(t, hpcc.DefaultConfig())
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "hpcc_update.h"), md.Header(), 0o644); err != nil {
		t.Fatal(err)
	}
	prog := `#include <stdio.h>
#include "hpcc_update.h"
#define CHECK(c) do { if (!(c)) { printf("FAIL line %d: %s\n", __LINE__, #c); fails++; } } while (0)
int main(void)
{
	int fails = 0;
	hpcc_update_state_t st = {0};
	st.w = hpcc_update_state_w_from_real(62500.0);
	CHECK(st.w == 62500u * 256u);
	CHECK(hpcc_update_state_w_to_real(st.w) == 62500.0);
	CHECK(HPCC_UPDATE_STATE_W_FRAC == 8 && HPCC_UPDATE_STATE_U_FRAC == 24);
	CHECK(hpcc_update_state_w_to_real(1) == 1.0 / 256);
	CHECK(hpcc_update_state_w_from_real(0.5 / 256) == 1);            /* tie: away from zero */
	CHECK(hpcc_update_state_w_from_real(0.49 / 256) == 0);
	CHECK(hpcc_update_state_w_from_real(1e30) == 0xffffffffu);        /* saturated */
	CHECK(hpcc_update_state_w_from_real(-5.0) == 0);
	CHECK(hpcc_update_state_w_from_real(0.0 / 0.0) == 0);             /* NaN */
	CHECK(hpcc_update_state_u_from_real(0.95) == 15938355u);          /* 0.95 * 2^24 = 15938355.2 */
	CHECK(HPCC_UPDATE_SPEED_100G == 4 && HPCC_UPDATE_SPEED_10G == 0);
	printf("%d failed\n", fails);
	return fails != 0;
}
`
	if err := os.WriteFile(filepath.Join(dir, "conv.c"), []byte(prog), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, std := range []string{"-std=c99", "-std=c11"} {
		cmd := exec.Command(tools.Clang, std, "-Wall", "-Wextra", "-Werror", "-o", "conv", "conv.c")
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("clang %s: %v\n%s", std, err, out)
		}
		run := exec.Command(filepath.Join(dir, "conv"))
		if out, err := run.CombinedOutput(); err != nil || !strings.Contains(string(out), "0 failed") {
			t.Errorf("%s: %v\n%s", std, err, out)
		}
	}
}
