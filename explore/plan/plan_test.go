package plan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/hpccgold/hpccgold/explore"
)

func files(t *testing.T, fs []File) map[string][]byte {
	t.Helper()
	m := map[string][]byte{}
	for _, f := range fs {
		if _, dup := m[f.Name]; dup {
			t.Fatalf("file %s written twice", f.Name)
		}
		m[f.Name] = f.Data
	}
	return m
}

// strictDecode decodes a manifest into the API type, refusing fields the
// type does not have (a misspelt field would be silently dropped by a
// cluster).
func strictDecode(t *testing.T, name string, data []byte, v any) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		t.Fatalf("%s does not decode into %T: %v", name, v, err)
	}
}

// shardArgs substitutes the completion index into a container's
// arguments the way the kubelet expands $(VAR) references.
func shardArgs(args []string, index int) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = strings.ReplaceAll(a, "$(JOB_COMPLETION_INDEX)", fmt.Sprint(index))
	}
	return out
}

// TestKubernetesPlan: the manifests parse back into the official API
// types (unknown fields refused) and hold what the API server's Job
// validation requires and what the sweep needs: an Indexed Job with
// completions = shards and 1 <= parallelism <= completions, restartPolicy
// Never, DNS-1123 names, the completion index from the pod annotation the
// Job controller sets, and, for every index, arguments that are exactly
// `explore SPEC --shard i/n --out RESULTS/shard-i`; the merge Job lists
// every shard directory once. Oracle: the Job API's rules
// (k8s.io/api/batch/v1 field documentation) and explore.ParseShard.
func TestKubernetesPlan(t *testing.T) {
	spec := explore.ExampleSpecJSON()
	for _, tc := range []struct{ shards, par, wantPar int }{{4, 0, 4}, {8, 3, 3}, {1, 1, 1}} {
		fs, err := Kubernetes(Options{Name: "hpccgold-explore-t", SpecJSON: spec, Points: 8, Shards: tc.shards, Parallelism: tc.par, Claim: "results"})
		if err != nil {
			t.Fatal(err)
		}
		m := files(t, fs)
		var cm corev1.ConfigMap
		strictDecode(t, ConfigMapFile, m[ConfigMapFile], &cm)
		if cm.Kind != "ConfigMap" || cm.APIVersion != "v1" || cm.Data["spec.json"] != string(spec) {
			t.Fatalf("configmap: kind %q apiVersion %q, spec kept %v", cm.Kind, cm.APIVersion, cm.Data["spec.json"] == string(spec))
		}
		if _, err := explore.LoadSpec(strings.NewReader(cm.Data["spec.json"])); err != nil {
			t.Fatalf("configmap spec: %v", err)
		}
		var job batchv1.Job
		strictDecode(t, ShardsJobFile, m[ShardsJobFile], &job)
		js := job.Spec
		switch {
		case job.Kind != "Job" || job.APIVersion != "batch/v1":
			t.Fatalf("shards job: kind %q apiVersion %q", job.Kind, job.APIVersion)
		case js.CompletionMode == nil || *js.CompletionMode != batchv1.IndexedCompletion:
			t.Fatalf("shards job: completionMode %v, want Indexed", js.CompletionMode)
		case js.Completions == nil || int(*js.Completions) != tc.shards:
			t.Fatalf("shards job: completions %v, want %d", js.Completions, tc.shards)
		case js.Parallelism == nil || int(*js.Parallelism) != tc.wantPar || *js.Parallelism < 1 || *js.Parallelism > *js.Completions:
			t.Fatalf("shards job: parallelism %v, want %d in [1, completions]", js.Parallelism, tc.wantPar)
		case js.BackoffLimit == nil || *js.BackoffLimit < 0:
			t.Fatalf("shards job: backoffLimit %v", js.BackoffLimit)
		case js.Template.Spec.RestartPolicy != corev1.RestartPolicyNever:
			t.Fatalf("shards job: restartPolicy %q (a Job needs Never or OnFailure; Never keeps a failed shard's pod)", js.Template.Spec.RestartPolicy)
		}
		for _, n := range []string{job.Name, cm.Name} {
			if errs := validation.IsDNS1123Subdomain(n); len(errs) > 0 {
				t.Fatalf("name %q: %v", n, errs)
			}
		}
		if len(js.Template.Spec.Containers) != 1 {
			t.Fatalf("shards job: %d containers", len(js.Template.Spec.Containers))
		}
		c := js.Template.Spec.Containers[0]
		if c.Image != DefaultImage || len(c.Command) != 1 || c.Command[0] != "hpccgold" {
			t.Fatalf("shards container: image %q command %v", c.Image, c.Command)
		}
		var env *corev1.EnvVar
		for i := range c.Env {
			if c.Env[i].Name == "JOB_COMPLETION_INDEX" {
				env = &c.Env[i]
			}
		}
		if env == nil || env.ValueFrom == nil || env.ValueFrom.FieldRef == nil ||
			env.ValueFrom.FieldRef.FieldPath != "metadata.annotations['batch.kubernetes.io/job-completion-index']" {
			t.Fatalf("shards container: JOB_COMPLETION_INDEX not from the completion-index annotation: %+v", c.Env)
		}
		mounts := map[string]string{}
		for _, vm := range c.VolumeMounts {
			mounts[vm.Name] = vm.MountPath
		}
		vols := map[string]corev1.Volume{}
		for _, v := range js.Template.Spec.Volumes {
			vols[v.Name] = v
		}
		if vols["spec"].ConfigMap == nil || vols["spec"].ConfigMap.Name != cm.Name || mounts["spec"] != "/spec" ||
			vols["results"].PersistentVolumeClaim == nil || vols["results"].PersistentVolumeClaim.ClaimName != "results" || mounts["results"] != "/results" {
			t.Fatalf("shards job: volumes %+v mounts %v", vols, mounts)
		}
		for i := 0; i < tc.shards; i++ {
			args := shardArgs(c.Args, i)
			want := []string{"explore", "/spec/spec.json", "--shard", fmt.Sprintf("%d/%d", i, tc.shards), "--out", fmt.Sprintf("/results/shard-%d", i)}
			if strings.Join(args, " ") != strings.Join(want, " ") {
				t.Fatalf("shard %d args %q, want %q", i, args, want)
			}
			sh, err := explore.ParseShard(args[3])
			if err != nil || sh.Index != i || sh.Count != tc.shards {
				t.Fatalf("shard %d: --shard %q parses to %v, %v", i, args[3], sh, err)
			}
		}
		var merge batchv1.Job
		strictDecode(t, MergeJobFile, m[MergeJobFile], &merge)
		ms := merge.Spec
		if ms.CompletionMode != nil && *ms.CompletionMode == batchv1.IndexedCompletion || ms.Completions == nil || *ms.Completions != 1 ||
			ms.Template.Spec.RestartPolicy != corev1.RestartPolicyNever {
			t.Fatalf("merge job: %+v", ms)
		}
		margs := ms.Template.Spec.Containers[0].Args
		want := []string{"explore", "merge", "--out", "/results/merged"}
		for i := 0; i < tc.shards; i++ {
			want = append(want, fmt.Sprintf("/results/shard-%d", i))
		}
		if strings.Join(margs, " ") != strings.Join(want, " ") {
			t.Fatalf("merge args %q, want %q", margs, want)
		}
		run := string(m[KubernetesScript])
		for _, w := range []string{"kubectl apply -f shards-job.json", "kubectl wait --for=condition=complete --timeout=24h job/" + job.Name, "kubectl apply -f merge-job.json"} {
			if !strings.Contains(run, w) {
				t.Fatalf("run.sh lacks %q:\n%s", w, run)
			}
		}
		if strings.Index(run, "merge-job.json") < strings.Index(run, "job/"+job.Name) {
			t.Fatalf("run.sh applies the merge before waiting for the shards:\n%s", run)
		}
		shellCheck(t, m[KubernetesScript])
	}
}

// shellCheck parses a script with sh -n when a shell is installed.
func shellCheck(t *testing.T, script []byte) {
	t.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		return
	}
	p := filepath.Join(t.TempDir(), "s.sh")
	if err := os.WriteFile(p, script, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(sh, "-n", p).CombinedOutput(); err != nil {
		t.Fatalf("sh -n: %v\n%s\n%s", err, out, script)
	}
}

// TestSlurmPlan: the array covers indices 0..n-1 with the parallelism
// limit, each task's command is `explore spec.json --shard i/n --out
// RESULTS/shard-i` with i from SLURM_ARRAY_TASK_ID (checked by running the
// script's exec line through sh with a stub hpccgold that prints its
// arguments), and the merge is submitted after the array with afterok.
// Oracle: sbatch's --array syntax and explore.ParseShard.
func TestSlurmPlan(t *testing.T) {
	fs, err := Slurm(Options{Name: "hpccgold-explore-t", SpecJSON: explore.ExampleSpecJSON(), Points: 8, Shards: 5, Parallelism: 2, Results: "/scratch/my results"})
	if err != nil {
		t.Fatal(err)
	}
	m := files(t, fs)
	a := string(m[ShardsBatchFile])
	if !regexp.MustCompile(`(?m)^#SBATCH --array=0-4%2$`).MatchString(a) {
		t.Fatalf("shards.sbatch: no --array=0-4%%2:\n%s", a)
	}
	sub := string(m[SlurmScript])
	if !strings.Contains(sub, "sbatch --parsable shards.sbatch") || !strings.Contains(sub, `--dependency=afterok:"${jid%%;*}" merge.sbatch`) {
		t.Fatalf("submit.sh:\n%s", sub)
	}
	for _, s := range []string{a, sub, string(m[MergeBatchFile])} {
		shellCheck(t, []byte(s))
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh: the task commands are not executed")
	}
	dir := t.TempDir()
	stub := filepath.Join(dir, "hpccgold")
	if err := os.WriteFile(stub, []byte("#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "shards.sbatch")
	if err := os.WriteFile(script, []byte(a), 0o644); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		cmd := exec.Command(sh, script)
		cmd.Env = append(os.Environ(), "PATH="+dir+":"+os.Getenv("PATH"), fmt.Sprintf("SLURM_ARRAY_TASK_ID=%d", i), "SLURM_SUBMIT_DIR=/sub")
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("task %d: %v", i, err)
		}
		want := fmt.Sprintf("explore\n/sub/spec.json\n--shard\n%d/5\n--out\n/scratch/my results/shard-%d\n", i, i)
		if string(out) != want {
			t.Fatalf("task %d runs %q, want %q", i, out, want)
		}
	}
	// Outside an array task the script refuses to run.
	cmd := exec.Command(sh, script)
	cmd.Env = append(os.Environ(), "PATH="+dir+":"+os.Getenv("PATH"))
	cmd.Env = slicesWithout(cmd.Env, "SLURM_ARRAY_TASK_ID=")
	if err := cmd.Run(); err == nil {
		t.Fatal("shards.sbatch ran without SLURM_ARRAY_TASK_ID")
	}
	mcmd := exec.Command(sh, filepath.Join(dir, "merge.sbatch"))
	if err := os.WriteFile(filepath.Join(dir, "merge.sbatch"), m[MergeBatchFile], 0o644); err != nil {
		t.Fatal(err)
	}
	mcmd.Env = append(os.Environ(), "PATH="+dir+":"+os.Getenv("PATH"))
	out, err := mcmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	want := "explore\nmerge\n--out\n/scratch/my results/merged\n"
	for i := 0; i < 5; i++ {
		want += fmt.Sprintf("/scratch/my results/shard-%d\n", i)
	}
	if string(out) != want {
		t.Fatalf("merge runs %q, want %q", out, want)
	}
}

func slicesWithout(env []string, prefix string) []string {
	var out []string
	for _, e := range env {
		if !strings.HasPrefix(e, prefix) {
			out = append(out, e)
		}
	}
	return out
}

// TestPlanRefuses: bad options are refused naming the option.
func TestPlanRefuses(t *testing.T) {
	ok := Options{Name: "a", SpecJSON: []byte("{}"), Points: 4, Shards: 2, Claim: "c"}
	for _, tc := range []struct {
		name string
		edit func(*Options)
		want string
	}{
		{"name", func(o *Options) { o.Name = "Bad_Name" }, "name"},
		{"long name", func(o *Options) { o.Name = strings.Repeat("a", 41) }, "name"},
		{"shards 0", func(o *Options) { o.Shards = 0 }, "shards=0"},
		{"shards > points", func(o *Options) { o.Shards = 5 }, "shards=5"},
		{"parallelism", func(o *Options) { o.Parallelism = 3 }, "parallelism=3"},
		{"claim", func(o *Options) { o.Claim = "" }, "claim"},
	} {
		o := ok
		tc.edit(&o)
		if _, err := Kubernetes(o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: Kubernetes = %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
	for _, tc := range []struct{ in, want string }{
		{"example-u-recip", "hpccgold-explore-example-u-recip"},
		{"My Sweep!", "hpccgold-explore-my-sweep"},
		{"", "hpccgold-explore-sweep"},
		{strings.Repeat("x", 60), "hpccgold-explore-" + strings.Repeat("x", 23)},
	} {
		if got := JobName(tc.in); got != tc.want || len(validation.IsDNS1123Label(got)) > 0 {
			t.Errorf("JobName(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
