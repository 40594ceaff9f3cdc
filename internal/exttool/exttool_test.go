package exttool

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNeed checks the missing-tool error against hand-written messages:
// only programs without a path are named, in the order given; packages come
// from Package (vvp is in iverilog, opt in llvm), each once; an unknown
// program is named without an install clause.
func TestNeed(t *testing.T) {
	for _, tc := range []struct {
		name    string
		progs   []Program
		want    string // "" for nil
		install string
	}{
		{"all present", []Program{{"verilator", "/usr/bin/verilator"}, {"make", "/usr/bin/make"}}, "", ""},
		{"none asked", nil, "", ""},
		{"one missing", []Program{{"verilator", ""}, {"make", "/usr/bin/make"}, {"g++", "/usr/bin/g++"}},
			"verilog: verilator: tool not found (install with: apt-get install -y verilator)", "apt-get install -y verilator"},
		{"one package twice", []Program{{"iverilog", ""}, {"vvp", ""}},
			"verilog: iverilog, vvp: tool not found (install with: apt-get install -y iverilog)", "apt-get install -y iverilog"},
		{"opt is llvm", []Program{{"clang", ""}, {"opt", ""}},
			"verilog: clang, opt: tool not found (install with: apt-get install -y clang llvm)", "apt-get install -y clang llvm"},
		{"unknown program", []Program{{"no-such-tool", ""}}, "verilog: no-such-tool: tool not found", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Need("verilog", tc.progs...)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("Need = %v, want nil", err)
				}
				return
			}
			if err == nil || err.Error() != tc.want {
				t.Fatalf("Need = %v, want %q", err, tc.want)
			}
			if !errors.Is(err, ErrMissing) {
				t.Errorf("Need error does not wrap ErrMissing")
			}
			var me *MissingError
			if !errors.As(err, &me) || me.InstallCommand() != tc.install {
				t.Errorf("InstallCommand = %q, want %q", me.InstallCommand(), tc.install)
			}
		})
	}
}

// TestLook checks that the first name found wins and that nothing found is
// "", on a PATH of one temporary directory.
func TestLook(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"clang-14", "opt"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir)
	for _, tc := range []struct {
		names []string
		want  string
	}{
		{[]string{"clang", "clang-14"}, filepath.Join(dir, "clang-14")},
		{[]string{"opt", "opt-14"}, filepath.Join(dir, "opt")},
		{[]string{"yosys"}, ""},
	} {
		if got := Look(tc.names...); got != tc.want {
			t.Errorf("Look(%v) = %q, want %q", tc.names, got, tc.want)
		}
	}
}

// TestCommandRelative runs a program given by a relative path in a
// directory given by a relative path, from a working directory holding
// both: the program must start (Go would resolve the program against the
// directory otherwise) and run in that directory.
func TestCommandRelative(t *testing.T) {
	root := t.TempDir()
	t.Chdir(root)
	for _, d := range []string{"bin", filepath.Join("work", "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join("bin", "where"), []byte("#!/bin/sh\npwd -P\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd, err := Command(context.Background(), filepath.Join("work", "sub"), filepath.Join("bin", "where"))
	if err != nil {
		t.Fatal(err)
	}
	if !filepath.IsAbs(cmd.Dir) || !filepath.IsAbs(cmd.Path) {
		t.Errorf("Dir %q, Path %q: want both absolute", cmd.Dir, cmd.Path)
	}
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.TrimSpace(string(out)), filepath.Join(realRoot, "work", "sub"); got != want {
		t.Errorf("ran in %q, want %q", got, want)
	}
}
