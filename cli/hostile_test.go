package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// normField lowercases s and drops '_', so the HPCC++ field "MaxStage" and
// the scenario key "hpcc.max_stage" both contain "maxstage".
func normField(s string) string { return strings.ReplaceAll(strings.ToLower(s), "_", "") }

// TestConfigVerdictEveryCommand feeds the same bad configuration to every
// command that reads one and requires the same verdict: exit 2 and the same
// field (or rule) named. The HPCC++ commands (replay, emit verilog, emit
// llvm, vectors gen, cosim) read the hpcc.LoadConfig form; the scenario
// commands (sim, compare, vectors gen --from-sim) the scenario overlay,
// where the same parameter sits under "hpcc". Oracle: docs/cli.md, one
// validation per configuration form.
func TestConfigVerdictEveryCommand(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "t.jsonl")
	if err := os.WriteFile(trace, []byte(replayTrace), 0o644); err != nil {
		t.Fatal(err)
	}
	rows := []struct {
		name     string
		hpcc     string // hpcc.LoadConfig form
		scenario string // scenario overlay form
		want     string // normalized field or rule named in every verdict
	}{
		{"max_stage 0", `{"max_stage":0}`, `{"hpcc":{"max_stage":0}}`, "maxstage=0"},
		{"eta 1.5", `{"eta":1.5}`, `{"hpcc":{"eta":1.5}}`, "eta=1.5"},
		{"negative w_ai", `{"w_ai_bytes":-1}`, `{"hpcc":{"w_ai_bytes":-1}}`, "waibytes=-1"},
		{"null file", `null`, `null`, "the input is null"},
		{"array", `[]`, `[]`, "want a json object"},
		{"empty file", ``, ``, "empty input"},
		{"key in another case", `{"MAX_STAGE":5}`, `{"hpcc":{"MAX_STAGE":5}}`, `unknown field "maxstage"`},
		{"key twice", `{"eta":0.9,"eta":0.8}`, `{"hpcc":{"eta":0.9,"eta":0.8}}`, "eta: given twice"},
		{"unknown key", `{"etta":0.9}`, `{"hpcc":{"etta":0.9}}`, `unknown field "etta"`},
		{"trailing data", `{} {}`, `{} {}`, "trailing data"},
		{"wrong type", `{"max_stage":"5"}`, `{"hpcc":{"max_stage":"5"}}`, "maxstage"},
	}
	for i, r := range rows {
		hp := filepath.Join(dir, "h"+string(rune('a'+i))+".json")
		sc := filepath.Join(dir, "s"+string(rune('a'+i))+".json")
		if err := os.WriteFile(hp, []byte(r.hpcc), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(sc, []byte(r.scenario), 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "out")
		for _, args := range [][]string{
			{"replay", "--trace", trace, "--config", hp},
			{"emit", "verilog", "--out", out, "--config", hp},
			{"emit", "llvm", "--out", out, "--config", hp},
			{"vectors", "gen", "--out", out, "--count", "0", "--config", hp},
			{"cosim", "--config", hp, "--work", out},
			{"sim", "--scenario", "demo-incast-4to1", "--config", sc},
			{"compare", "--scenario", "demo-incast-4to1", "--config", sc},
			{"vectors", "gen", "--from-sim", "demo-incast-4to1", "--out", out, "--config", sc},
		} {
			var o, e bytes.Buffer
			code := Run(context.Background(), args, nil, &o, &e)
			if code != ExitUsage || !strings.Contains(normField(e.String()), r.want) {
				t.Errorf("%s: %q = exit %d, stderr %q; want exit 2 naming %q", r.name, args, code, e.String(), r.want)
			}
		}
	}
}

// TestHostileCLI is the hostile campaign over the command line: each row
// is arguments, stdin and files, and the exit status and stderr substring
// docs/cli.md promises. Files named in args as @name are created in a
// temporary directory from the row's files map.
func TestHostileCLI(t *testing.T) {
	good := replayTrace
	rows := []struct {
		name   string
		args   []string
		stdin  string
		files  map[string]string
		code   int
		stderr string
	}{
		// Flags of every command: negative, zero, out of range, duplicates.
		{"vectors gen --level 0", []string{"vectors", "gen", "--out", "@o", "--level", "0"}, "", nil, 2, "--level=0: must be 1 or 2"},
		{"vectors gen --level 3", []string{"vectors", "gen", "--out", "@o", "--level", "3"}, "", nil, 2, "--level=3"},
		{"cosim --level 0", []string{"cosim", "--level", "0"}, "", nil, 2, "--level=0: must be 1 or 2"},
		{"vectors gen --count -1", []string{"vectors", "gen", "--out", "@o", "--count", "-1"}, "", nil, 2, "--count=-1"},
		{"vectors gen --count 10^12", []string{"vectors", "gen", "--out", "@o", "--count", "1000000000000"}, "", nil, 2, "the set needs about"},
		{"vectors gen --workers -3", []string{"vectors", "gen", "--out", "@o", "--workers", "-3"}, "", nil, 2, "--workers=-3"},
		{"vectors gen --workers 100000", []string{"vectors", "gen", "--out", "@o", "--workers", "100000"}, "", nil, 2, "--workers=100000"},
		{"vectors gen --shard 5/1000000", []string{"vectors", "gen", "--out", "@o", "--shard", "5/1000000", "--count", "0"}, "", nil, 2, "holds no vector"},
		{"vectors gen --shard 1/0", []string{"vectors", "gen", "--out", "@o", "--shard", "1/0"}, "", nil, 2, "--shard"},
		{"vectors gen --shard -1/2", []string{"vectors", "gen", "--out", "@o", "--shard", "-1/2"}, "", nil, 2, "--shard"},
		{"vectors gen --class twice", []string{"vectors", "gen", "--out", "@o", "--class", "first,first"}, "", nil, 2, "listed twice"},
		{"vectors gen --class empty entry", []string{"vectors", "gen", "--out", "@o", "--class", "first,"}, "", nil, 2, "empty entry"},
		{"vectors gen --from-sim --count -1", []string{"vectors", "gen", "--from-sim", "demo-incast-4to1", "--out", "@o", "--count", "-1"}, "", nil, 2, "--count=-1"},
		{"vectors gen --from-sim --workers 100000", []string{"vectors", "gen", "--from-sim", "demo-incast-4to1", "--out", "@o", "--workers", "100000"}, "", nil, 2, "--workers=100000"},
		{"vectors check --max-diffs -1", []string{"vectors", "check", "--golden", "@o", "--dut", "@o", "--max-diffs", "-1"}, "", nil, 2, "--max-diffs=-1"},
		{"vectors verify no such dir", []string{"vectors", "verify", "@o"}, "", nil, 2, "no such file or directory"},
		{"vectors verify no set", []string{"vectors", "verify", "@"}, "", nil, 2, "not a vector set"},
		{"vectors verify two dirs", []string{"vectors", "verify", "@o", "@o"}, "", nil, 2, "exactly one directory"},
		{"compare --ccs twice", []string{"compare", "--scenario", "demo-incast-4to1", "--ccs", "hpcc,hpcc"}, "", nil, 2, "listed twice"},
		{"compare --ccs unknown", []string{"compare", "--scenario", "demo-incast-4to1", "--ccs", "hpcc,tcp"}, "", nil, 2, `"tcp"`},
		{"sim --trace-hosts twice", []string{"sim", "--scenario", "demo-incast-4to1", "--out", "@o", "--trace-hosts", "0,0"}, "", nil, 2, "listed twice"},
		{"sim --trace-hosts negative", []string{"sim", "--scenario", "demo-incast-4to1", "--out", "@o", "--trace-hosts", "-1"}, "", nil, 2, "trace host -1"},
		{"sim unknown scenario", []string{"sim", "--scenario", "nosuch"}, "", nil, 2, "nosuch"},
		{"replay --base-rtt-ns 2^32", []string{"replay", "--trace", "-", "--base-rtt-ns", "4294967296"}, good, nil, 2, "--base-rtt-ns=4294967296"},
		{"replay --max-stage 0", []string{"replay", "--trace", "-", "--max-stage", "0"}, good, nil, 2, "MaxStage=0"},
		{"replay --max-stage -1", []string{"replay", "--trace", "-", "--max-stage", "-1"}, good, nil, 2, "MaxStage=-1"},
		{"replay --eta 0", []string{"replay", "--trace", "-", "--eta", "0"}, good, nil, 2, "Eta=0"},
		{"replay missing trace file", []string{"replay", "--trace", "@nosuch"}, "", nil, 2, "--trace"},
		// cosim: a flag the run does not use is refused, never ignored.
		{"cosim --design module --vectors, no set", []string{"cosim", "--design", "module", "--vectors", "@o"}, "", nil, 2, "manifest.json: no such file"},
		{"cosim --design module --vectors --events", []string{"cosim", "--design", "module", "--vectors", "@o", "--events", "5"}, "", nil, 2, "--events: not used by a --design=module run with --vectors"},
		{"cosim --vectors --count", []string{"cosim", "--vectors", "@o", "--count", "5"}, "", nil, 2, "--count: not used by a --design=update run with --vectors"},
		{"cosim --design update --events", []string{"cosim", "--events", "5"}, "", nil, 2, "--events: not used by a --design=update run"},
		{"cosim --rtl without --top", []string{"cosim", "--rtl", "@x.v"}, "", nil, 2, "--top NAME"},
		{"cosim --top without --rtl", []string{"cosim", "--top", "x"}, "", nil, 2, "--top: only with --rtl"},
		{"cosim --rtl --stages --lint", []string{"cosim", "--rtl", "@x.v", "--top", "x", "--stages", "2", "--lint"}, "", nil, 2, "--stages, --lint: not used by a --rtl run"},
		{"cosim --rtl --vectors --config", []string{"cosim", "--rtl", "@x.v", "--top", "x", "--vectors", "@o", "--config", "@c"}, "", nil, 2, "--config: not used by a --rtl run with --vectors"},
		// Traces: empty, case-insensitive keys, going backwards.
		{"replay empty stdin", []string{"replay", "--trace", "-"}, "", nil, 2, "no event"},
		{"replay empty file", []string{"replay", "--trace", "@t"}, "", map[string]string{"t": "\n \n"}, 2, "no event"},
		{"replay Flow overrides flow", []string{"replay", "--trace", "-"},
			`{"flow":1,"Flow":7,"seq":0,"snd_nxt":5000,"hops":[]}` + "\n", nil, 2, `unknown field "Flow"`},
		{"replay FLOW", []string{"replay", "--trace", "-"}, `{"FLOW":1,"seq":0,"snd_nxt":5000,"hops":[]}` + "\n", nil, 2, `unknown field "FLOW"`},
		{"replay tx_bytes backwards", []string{"replay", "--trace", "-"}, good + strings.Replace(strings.SplitAfter(good, "\n")[1], `"tx_bytes":1011000`, `"tx_bytes":5`, 1), nil, 2, "line 3: field hops[0].tx_bytes: 5 is below 1011000"},
		{"replay ts backwards", []string{"replay", "--trace", "-"}, good + strings.Replace(strings.SplitAfter(good, "\n")[0], `"tx_bytes":1000000`, `"tx_bytes":2000000`, 1), nil, 2, "line 3: field hops[0].ts_ns: 5000000 is before 5001000"},
		{"replay good", []string{"replay", "--trace", "-"}, good, nil, 0, ""},
		// Runs in which nothing can happen.
		{"sim window below one packet", []string{"sim", "--scenario", "demo-incast-4to1", "--config", "@c"}, "", map[string]string{"c": `{"hpcc":{"base_rtt_ns":50}}`}, 2, "hpcc.base_rtt_ns=50"},
		{"sim flow after the horizon", []string{"sim", "--scenario", "demo-incast-4to1", "--config", "@c"}, "",
			map[string]string{"c": `{"traffic":{"flows":[{"src":0,"dst":4,"bytes":1000,"start_ns":18446744073709551615}]}}`}, 2, "traffic.flows[0].start_ns=18446744073709551615"},
		{"sim incast burst after the horizon", []string{"sim", "--scenario", "demo-incast-4to1", "--config", "@c"}, "",
			map[string]string{"c": `{"traffic":{"incast":[{"senders":[0,1],"receiver":4,"bytes":1000,"start_ns":0,"repeat":3,"period_ns":9223372036854775808}]}}`}, 2, "traffic.incast[0].period_ns=9223372036854775808"},
		{"sim flows incomplete at the limit", []string{"sim", "--scenario", "demo-incast-4to1", "--config", "@c"}, "",
			map[string]string{"c": `{"run":{"limit_ns":20000,"sample_ns":1000}}`}, 1, "4 of 4 flows incomplete at run.limit_ns=20000"},
		{"compare flows incomplete at the limit", []string{"compare", "--scenario", "demo-incast-4to1", "--ccs", "hpcc,dcqcn", "--quiet", "--config", "@c"}, "",
			map[string]string{"c": `{"run":{"limit_ns":20000,"sample_ns":1000}}`}, 1, "cc=hpcc: scenario: the run did not complete its flows"},
		// Usage.
		{"no command", nil, "", nil, 2, ""},
		{"unknown command", []string{"nosuch"}, "", nil, 2, `unknown command "nosuch"`},
		{"vectors no subcommand", []string{"vectors"}, "", nil, 2, "missing subcommand"},
		{"emit no target", []string{"emit"}, "", nil, 2, "missing target"},
	}
	for _, r := range rows {
		dir := t.TempDir()
		for name, body := range r.files {
			if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		args := make([]string, len(r.args))
		for i, a := range r.args {
			if strings.HasPrefix(a, "@") {
				a = filepath.Join(dir, a[1:]) // "@" alone: the directory
			}
			args[i] = a
		}
		var o, e bytes.Buffer
		code := Run(context.Background(), args, strings.NewReader(r.stdin), &o, &e)
		if code != r.code || !strings.Contains(e.String(), r.stderr) {
			t.Errorf("%s: %q = exit %d, stderr %q; want exit %d, stderr containing %q", r.name, r.args, code, e.String(), r.code, r.stderr)
		}
	}
}
