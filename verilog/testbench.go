package verilog

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/hpccgold/hpccgold/buildinfo"
	"github.com/hpccgold/hpccgold/fieldtable"
	"github.com/hpccgold/hpccgold/rtl"
)

// Bench describes a co-simulation testbench for one DUT. Every field of In
// is a DUT input port of the same name and width (driven from the stimulus
// line); every field of Out is a DUT output port (compared with the expected
// line). The DUT's remaining ports must be the valid/ready handshake named
// here and, optionally, clk and rst (or rst_n).
//
// The DUT is either an rtl module hpccgold prints (DUT) or RTL it did not
// write (DUT nil, Ports its interface read from the user's files, Files the
// file names printed in the testbench's build commands).
type Bench struct {
	DUT      *rtl.Module
	Ports    *Interface // the DUT's interface when DUT is nil
	Files    []string   // with Ports: the DUT's source files, for the build commands in the header
	In, Out  fieldtable.Table
	ValidIn  string // DUT input: a transaction is offered
	ValidOut string // DUT output: Out fields hold the next result
	Ready    string // DUT output: the offered transaction is taken this cycle ("" = always)
	// MaxVectors is the default depth of the stimulus/expected arrays (the
	// MAXVEC parameter; simulators can override it at build time).
	MaxVectors int
}

// Interface returns the DUT's ports: ModuleInterface(DUT), or *Ports.
func (b Bench) Interface() Interface {
	if b.DUT != nil {
		return ModuleInterface(b.DUT)
	}
	if b.Ports != nil {
		return *b.Ports
	}
	return Interface{}
}

// Name returns the testbench module name, "tb_" + the DUT's name.
func (b Bench) Name() string { return "tb_" + b.Interface().Name }

// MaxClasses is the default number of class ranges the testbench reads
// from its classes file (the MAXCLASS parameter); classNameLen is the
// longest class name it holds (vectors.MaxClassNameLen).
const (
	MaxClasses   = 1024
	classNameLen = 128
)

// Timeout is the number of consecutive cycles without a DUT output, once
// reset is over, after which the testbench gives up (every transaction not
// yet compared counts as failed).
const Timeout = 100000

// Contract compares the DUT's ports with the bench's field tables and
// handshake, by name: every In field must be an input and every Out field
// an output of the field's width, ValidIn a 1-bit input, ValidOut and Ready
// 1-bit outputs; clk, rst and rst_n are optional 1-bit inputs (rst and
// rst_n not both). It returns one line per problem, naming the port: a
// missing port, an extra one, one of the wrong width or direction. nil
// means the DUT fits.
func (b Bench) Contract() []string {
	it := b.Interface()
	var probs []string
	want := map[string]Port{}
	var order []string
	add := func(p Port) {
		want[p.Name] = p
		order = append(order, p.Name)
	}
	for _, f := range b.In.Fields {
		add(Port{Name: f.Name, Width: f.Width})
	}
	add(Port{Name: b.ValidIn, Width: 1})
	for _, f := range b.Out.Fields {
		add(Port{Name: f.Name, Width: f.Width, Output: true})
	}
	add(Port{Name: b.ValidOut, Width: 1, Output: true})
	if b.Ready != "" {
		add(Port{Name: b.Ready, Width: 1, Output: true})
	}
	optional := map[string]bool{ClockPort: true, ResetPort: true, ResetNPort: true}
	seen := map[string]bool{}
	for _, p := range it.Ports {
		if seen[p.Name] {
			probs = append(probs, fmt.Sprintf("port %s: declared twice", p.Name))
			continue
		}
		seen[p.Name] = true
		w, ok := want[p.Name]
		switch {
		case !ok && optional[p.Name]:
			if p.Output || p.Width != 1 {
				probs = append(probs, fmt.Sprintf("port %s: is %s, want input %s (1 bit)", p.Name, p, p.Name))
			}
		case !ok:
			probs = append(probs, fmt.Sprintf("extra port %s: not a field of %s or %s, nor %s, %s, %s/%s", p, b.In.Name, b.Out.Name, b.ValidIn, b.ValidOut, ClockPort, ResetPort))
		case w.Output != p.Output:
			probs = append(probs, fmt.Sprintf("port %s: is %s, want %s", p.Name, p, w))
		case w.Width != p.Width:
			probs = append(probs, fmt.Sprintf("port %s: %d bits, want %d (%s)", p.Name, p.Width, w.Width, w))
		}
	}
	if seen[ResetPort] && seen[ResetNPort] {
		probs = append(probs, fmt.Sprintf("ports %s and %s: at most one reset", ResetPort, ResetNPort))
	}
	for _, n := range order {
		if !seen[n] {
			probs = append(probs, fmt.Sprintf("missing port %s", want[n]))
		}
	}
	return probs
}

func (b Bench) check() error {
	if b.DUT == nil && b.Ports == nil {
		return fmt.Errorf("verilog: bench: no DUT")
	}
	if b.DUT != nil {
		if err := b.DUT.Check(); err != nil {
			return err
		}
	}
	if b.ValidOut == "" {
		return fmt.Errorf("verilog: bench %s: ValidOut is required", b.Name())
	}
	if p := b.Contract(); len(p) > 0 {
		return fmt.Errorf("verilog: bench %s: the DUT's ports do not fit the field tables:\n  %s", b.Name(), strings.Join(p, "\n  "))
	}
	return nil
}

// BuildCommands returns the shell commands that build and run the
// testbench under Icarus Verilog and under Verilator, from the directory
// holding the files (the emitted modules, or Files, and tb_<dut>.v).
func (b Bench) BuildCommands() (icarus, verilator []string) {
	var files []string
	if b.DUT != nil {
		files = ModuleFiles(b.DUT)
	} else {
		files = append(files, b.Files...)
	}
	files = append(files, b.Name()+".v")
	src := strings.Join(files, " ")
	run := "+stim=stimulus.hex +exp=expected.hex +classes=classes.txt"
	icarus = []string{
		fmt.Sprintf("iverilog -g2005 -s %s -o %s.vvp %s", b.Name(), b.Name(), src),
		fmt.Sprintf("vvp -n %s.vvp %s", b.Name(), run),
	}
	verilator = []string{
		fmt.Sprintf("verilator --binary -Wno-fatal -Wno-lint -Wno-style -Wno-TIMESCALEMOD --top-module %s -o V%s %s", b.Name(), b.Name(), src),
		fmt.Sprintf("obj_dir/V%s %s", b.Name(), run),
	}
	return icarus, verilator
}

// Testbench returns the Verilog testbench. It reads +stim=FILE and
// +exp=FILE (default stimulus.hex, expected.hex) with $readmemh, and the
// set's class ranges from +classes=FILE (default classes.txt, see
// vectors.ClassesFile; without it failing vectors are named by index
// only); the vector
// count is +n=COUNT, or, without it, the number of lines of the stimulus
// file (which must equal the expected file's). It resets the DUT for three
// cycles, then offers one transaction per cycle (holding it while Ready is
// low; +gap=K inserts one idle cycle after every K transactions). Each
// cycle with ValidOut high compares every Out field of the next expected
// line; it prints the first +maxrep=M (default 10) mismatching vectors
// ("MISMATCH vector K (class NAME):") field by field, then "N passed, M failed" and the number of stall
// cycles, and finishes: with $finish (exit status 0) when every vector
// passed, else with $fatal (non-zero exit status under Icarus and
// Verilator). Its header comment gives the build commands.
func (b Bench) Testbench() ([]byte, error) {
	if err := b.check(); err != nil {
		return nil, err
	}
	maxv := b.MaxVectors
	if maxv <= 0 {
		maxv = 1 << 20
	}
	var s bytes.Buffer
	f := func(format string, args ...any) { fmt.Fprintf(&s, format, args...) }
	it := b.Interface()
	f("// Code generated by %s (package verilog); DO NOT EDIT.\n//\n", buildinfo.String())
	f("// Testbench for %s: stimulus lines are %s (%d bits), expected lines %s (%d bits),\n", it.Name, b.In.Name, b.In.Width, b.Out.Name, b.Out.Width)
	f("// both as $readmemh hex, fields LSB first (see the field tables).\n")
	f("// Plusargs: [+stim=FILE] [+exp=FILE] [+classes=FILE] [+n=COUNT] [+gap=K] [+maxrep=M] [+progress=K];\n")
	f("// +n defaults to the stimulus file's line count, MAXVEC (parameter, default %d) bounds it.\n", maxv)
	f("// +classes (default classes.txt, the set's class ranges: FIRST COUNT NAME per line) names the\n")
	f("// class of each failing vector; without the file failures name the vector's index only.\n//\n")
	icarus, verilator := b.BuildCommands()
	f("// Build and run under Icarus Verilog (11 or later):\n")
	for _, c := range icarus {
		f("//   $ %s\n", c)
	}
	f("// Build and run under Verilator (5.006 or later):\n")
	for _, c := range verilator {
		f("//   $ %s\n", c) // "$ ": a comment starting "verilator" is a Verilator metacomment
	}
	f("//\n// Exit status: 0 when every vector passed; non-zero ($fatal) on any mismatch, a\n")
	f("// missing result (TIMEOUT after %d idle cycles) or a bad vector count. The inputs and\n", Timeout)
	f("// expected outputs of a failing vector K: hpccgold vectors show <set> --index K\n\n")
	f("`timescale 1ns/1ps\n`default_nettype none\n\n")
	f("module %s;\n", b.Name())
	f("  parameter MAXVEC = %d;\n", maxv)
	f("  parameter MAXCLASS = %d;\n", MaxClasses)
	f("  localparam IW = %d;\n  localparam OW = %d;\n  localparam TIMEOUT = %d;\n\n", b.In.Width, b.Out.Width, Timeout)
	f("  reg clk = 1'b0;\n  reg rst = 1'b1;\n")
	f("  reg [IW-1:0] stim [0:MAXVEC-1];\n  reg [OW-1:0] expv [0:MAXVEC-1];\n")
	f("  reg [8*1024-1:0] stim_file;\n  reg [8*1024-1:0] exp_file;\n  reg [8*1024-1:0] class_file;\n")
	f("  // Class ranges (+classes): vectors [cfirst[i], cfirst[i]+ccount[i]) are of class cname[i].\n")
	f("  integer nclass, cfd, cr, cfirst [0:MAXCLASS-1], ccount [0:MAXCLASS-1];\n")
	f("  reg [8*%d-1:0] cname [0:MAXCLASS-1];\n  reg [8*%d-1:0] cword;\n", classNameLen, classNameLen)
	f("  integer nvec, gap, maxrep, progress, sent, recv, passed, failed, idle, stalls, cycle, since_gap, nexp;\n")
	f("  reg [IW-1:0] cur = {IW{1'b0}};\n  reg cur_valid = 1'b0;\n  reg done = 1'b0;\n")
	f("  wire [OW-1:0] got;\n  wire out_valid;\n  wire in_ready;\n\n")
	if b.Ready == "" {
		f("  assign in_ready = 1'b1;\n\n")
	}
	conns := b.connections()
	f("  %s dut (\n    %s\n  );\n\n", it.Name, strings.Join(conns, ",\n    "))
	f("  always #5 clk = ~clk;\n\n")
	f(`  // lines returns the number of hex words in a $readmemh file (0 if it
  // cannot be opened).
  function integer lines;
    input [8*1024-1:0] name;
    integer fd, r, k;
    reg [IW+OW-1:0] word;
    begin
      k = 0;
      fd = $fopen(name, "r");
      if (fd != 0) begin
        r = $fscanf(fd, "%%h", word);
        while (r == 1) begin
          k = k + 1;
          r = $fscanf(fd, "%%h", word);
        end
        $fclose(fd);
      end
      lines = k;
    end
  endfunction

`)
	f(`  // class_of returns the index of the class range holding vector k, or
  // nclass when none does (no classes file).
  function integer class_of;
    input integer k;
    integer i;
    begin
      class_of = nclass;
      for (i = 0; i < nclass; i = i + 1)
        if (k >= cfirst[i] && k < cfirst[i] + ccount[i]) class_of = i;
    end
  endfunction

  initial begin
    if (!$value$plusargs("stim=%%s", stim_file)) stim_file = "stimulus.hex";
    if (!$value$plusargs("classes=%%s", class_file)) class_file = "classes.txt";
    nclass = 0;
    cfd = $fopen(class_file, "r");
    if (cfd != 0) begin
      cr = $fscanf(cfd, "%%d %%d %%s", cfirst[0], ccount[0], cword);
      while (cr == 3 && nclass < MAXCLASS) begin
        cname[nclass] = cword;
        nclass = nclass + 1;
        if (nclass < MAXCLASS) cr = $fscanf(cfd, "%%d %%d %%s", cfirst[nclass], ccount[nclass], cword);
      end
      $fclose(cfd);
    end
    if (!$value$plusargs("exp=%%s", exp_file)) exp_file = "expected.hex";
    if (!$value$plusargs("gap=%%d", gap)) gap = 0;
    if (!$value$plusargs("maxrep=%%d", maxrep)) maxrep = 10;
    if (!$value$plusargs("progress=%%d", progress)) progress = 0;
    sent = 0; recv = 0; passed = 0; failed = 0; idle = 0; stalls = 0; cycle = 0; since_gap = 0;
    if (!$value$plusargs("n=%%d", nvec)) begin
      nvec = lines(stim_file);
      nexp = lines(exp_file);
      if (nvec != nexp) begin
        $display("ERROR: %%0s has %%0d lines, %%0s has %%0d: give +n=COUNT", stim_file, nvec, exp_file, nexp);
        $display("0 passed, 1 failed");
        $fatal(1, "vector files of different lengths");
      end
    end
    if (nvec < 1 || nvec > MAXVEC) begin
      $display("ERROR: +n=%%0d: must be in [1,%%0d] (rebuild with a larger MAXVEC)", nvec, MAXVEC);
      $display("0 passed, 1 failed");
      $fatal(1, "bad vector count");
    end
    $readmemh(stim_file, stim, 0, nvec - 1);
    $readmemh(exp_file, expv, 0, nvec - 1);
    $display("loaded %%0d vectors", nvec);
    $fflush;
  end

  always @(posedge clk) begin
    cycle = cycle + 1;
    if (cycle == 3) rst <= 1'b0;
    if (!rst && !done) begin
      // Compare the result the DUT presents in the cycle that just ended.
      if (out_valid) begin
        idle = 0;
        if (recv >= nvec) begin
          failed = failed + 1;
          $display("MISMATCH: output %%0d beyond the %%0d expected", recv, nvec);
        end else if (got !== expv[recv]) begin
          failed = failed + 1;
          if (failed <= maxrep) begin
            if (class_of(recv) < nclass) $display("MISMATCH vector %%0d (class %%0s):", recv, cname[class_of(recv)]);
            else $display("MISMATCH vector %%0d:", recv);
`)
	for _, fl := range b.Out.Fields {
		sl := fmt.Sprintf("[%d:%d]", fl.Offset+fl.Width-1, fl.Offset)
		f("            if (got%s !== expv[recv]%s) $display(\"  %s: got %%h want %%h\", got%s, expv[recv]%s);\n", sl, sl, fl.Name, sl, sl)
	}
	f(`          end
        end else begin
          passed = passed + 1;
        end
        recv = recv + 1;
        if (progress > 0 && recv %% progress == 0) begin
          $display("progress %%0d", recv);
          $fflush;
        end
      end else begin
        idle = idle + 1;
      end
      // Offer the next transaction once the current one was taken.
      if (cur_valid && !in_ready) begin
        stalls = stalls + 1;
      end else if (sent < nvec && !(gap > 0 && since_gap == gap)) begin
        cur <= stim[sent];
        cur_valid <= 1'b1;
        sent = sent + 1;
        since_gap = since_gap + 1;
      end else begin
        cur_valid <= 1'b0;
        since_gap = 0;
      end
      if (recv >= nvec || idle > TIMEOUT) begin
        if (recv < nvec) begin
          $display("TIMEOUT: no output for %%0d cycles; %%0d of %%0d results missing", TIMEOUT, nvec - recv, nvec);
          failed = failed + (nvec - recv);
        end
        $display("stall cycles: %%0d", stalls);
        $display("%%0d passed, %%0d failed", passed, failed);
        $fflush;
        done <= 1'b1;
        if (failed > 0) $fatal(1, "%%0d of %%0d vectors failed", failed, nvec);
        $finish;
      end
    end
  end

endmodule

`)
	f("`default_nettype wire\n")
	return s.Bytes(), nil
}
