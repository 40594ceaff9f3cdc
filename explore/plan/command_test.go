package plan

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
)

// TestPlanCommands: plans of a scenario sweep (sim --sweep SPEC) and of a
// grading (grade FLAGS, no spec) run, for every index, exactly `COMMAND
// ... --shard i/n --out RESULTS/shard-i` (Kubernetes: the Job's arguments
// with the completion index substituted; Slurm: the task script executed
// by sh with a stub hpccgold that prints its arguments) and merge with
// `COMMAND merge`; a grade plan has no ConfigMap, spec volume or spec
// file. Oracle: the command lines written out by hand.
func TestPlanCommands(t *testing.T) {
	sweepSpec := []byte(`{"name":"s","scenario":"demo-incast-4to1","grid":[{"key":"hpcc.eta","values":[0.9,0.95]}]}`)
	for _, tc := range []struct {
		command string
		args    []string
		spec    []byte
		k8sWant string // the shard command before --shard
		slurm   string // the same under Slurm, one argument per line
	}{
		{"sim", nil, sweepSpec, "sim --sweep /spec/spec.json", "sim\n--sweep\n/sub/spec.json\n"},
		{"grade", []string{"--cc", "ldcp", "--mutants", "40", "--vectors", "/data/my set"}, nil, "grade --cc ldcp --mutants 40 --vectors /data/my set", "grade\n--cc\nldcp\n--mutants\n40\n--vectors\n/data/my set\n"},
	} {
		t.Run(tc.command, func(t *testing.T) {
			o := Options{Name: "hpccgold-" + tc.command, Command: tc.command, Args: tc.args, SpecJSON: tc.spec, Points: 40, Shards: 3, Claim: "results"}
			fs, err := Kubernetes(o)
			if err != nil {
				t.Fatal(err)
			}
			m := files(t, fs)
			if _, has := m[ConfigMapFile]; has != (tc.spec != nil) {
				t.Fatalf("configmap written: %v, want %v", has, tc.spec != nil)
			}
			if _, has := m[SpecFile]; has != (tc.spec != nil) {
				t.Fatalf("spec file written: %v, want %v", has, tc.spec != nil)
			}
			var job batchv1.Job
			strictDecode(t, ShardsJobFile, m[ShardsJobFile], &job)
			c := job.Spec.Template.Spec.Containers[0]
			if len(c.VolumeMounts) != map[bool]int{true: 2, false: 1}[tc.spec != nil] {
				t.Fatalf("mounts %+v", c.VolumeMounts)
			}
			for i := 0; i < 3; i++ {
				got := strings.Join(shardArgs(c.Args, i), " ")
				want := fmt.Sprintf("%s --shard %d/3 --out /results/shard-%d", tc.k8sWant, i, i)
				if got != want {
					t.Fatalf("shard %d: %q, want %q", i, got, want)
				}
			}
			var merge batchv1.Job
			strictDecode(t, MergeJobFile, m[MergeJobFile], &merge)
			if got, want := strings.Join(merge.Spec.Template.Spec.Containers[0].Args, " "),
				tc.command+" merge --out /results/merged /results/shard-0 /results/shard-1 /results/shard-2"; got != want {
				t.Fatalf("merge %q, want %q", got, want)
			}
			if strings.Contains(string(m[KubernetesScript]), "configmap") != (tc.spec != nil) {
				t.Fatalf("run.sh:\n%s", m[KubernetesScript])
			}
			shellCheck(t, m[KubernetesScript])

			o.Results = "/scratch/r"
			sf, err := Slurm(o)
			if err != nil {
				t.Fatal(err)
			}
			sm := files(t, sf)
			sh, err := exec.LookPath("sh")
			if err != nil {
				t.Skip("no sh")
			}
			dir := t.TempDir()
			stub := filepath.Join(dir, "hpccgold")
			if err := os.WriteFile(stub, []byte("#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			script := filepath.Join(dir, "shards.sbatch")
			if err := os.WriteFile(script, sm[ShardsBatchFile], 0o644); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 3; i++ {
				cmd := exec.Command(sh, script)
				cmd.Env = append(os.Environ(), "PATH="+dir+":"+os.Getenv("PATH"), fmt.Sprintf("SLURM_ARRAY_TASK_ID=%d", i), "SLURM_SUBMIT_DIR=/sub")
				out, err := cmd.Output()
				if err != nil {
					t.Fatalf("task %d: %v", i, err)
				}
				if want := tc.slurm + fmt.Sprintf("--shard\n%d/3\n--out\n/scratch/r/shard-%d\n", i, i); string(out) != want {
					t.Fatalf("task %d runs %q, want %q", i, out, want)
				}
			}
			if !strings.Contains(string(sm[MergeBatchFile]), "exec hpccgold "+tc.command+" merge --out /scratch/r/merged /scratch/r/shard-0") {
				t.Fatalf("merge.sbatch:\n%s", sm[MergeBatchFile])
			}
		})
	}
	for _, tc := range []struct {
		o    Options
		want string
	}{
		{Options{Name: "a", Command: "bench", SpecJSON: []byte("{}"), Points: 4, Shards: 2, Claim: "c"}, `command "bench"`},
		{Options{Name: "a", Command: "grade", SpecJSON: []byte("{}"), Points: 4, Shards: 2, Claim: "c"}, "not a spec"},
		{Options{Name: "a", Command: "grade", Args: []string{"--shard", "0/2"}, Points: 4, Shards: 2, Claim: "c"}, "--shard"},
		{Options{Name: "a", Command: "grade", Args: []string{"--out=x"}, Points: 4, Shards: 2, Claim: "c"}, "--out=x"},
		{Options{Name: "a", Command: "sim", Args: []string{"--x"}, SpecJSON: []byte("{}"), Points: 4, Shards: 2, Claim: "c"}, "grade only"},
		{Options{Name: "a", Command: "sim", Points: 4, Shards: 2, Claim: "c"}, "empty spec"},
	} {
		if _, err := Slurm(tc.o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want an error containing %q", tc.o, err, tc.want)
		}
	}
}
