// Package plan writes the batch jobs that run the shards of an explore
// sweep, a scenario sweep (sim --sweep) or a mutation grading (grade) on
// the engines hardware teams already have, and the merge step after them: a Kubernetes Indexed Job (built with the official API types of
// k8s.io/api/batch/v1; the shard index comes from JOB_COMPLETION_INDEX)
// and a Slurm job array (the shard index from SLURM_ARRAY_TASK_ID). It
// writes files only; it talks to no cluster.
package plan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"regexp"
	"strconv"
	"strings"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
)

// DefaultImage is the container image the Kubernetes job runs when none
// is given: the image deploy/Containerfile builds (tag it and push it to
// a registry the cluster can pull from).
const DefaultImage = "hpccgold:latest"

// Names of the files the plans write.
const (
	SpecFile         = "spec.json"
	ConfigMapFile    = "k8s/configmap.json"
	ShardsJobFile    = "k8s/shards-job.json"
	MergeJobFile     = "k8s/merge-job.json"
	KubernetesScript = "k8s/run.sh"
	ShardsBatchFile  = "slurm/shards.sbatch"
	MergeBatchFile   = "slurm/merge.sbatch"
	SlurmScript      = "slurm/submit.sh"
)

// RunScript returns the script that submits engine's plan.
func RunScript(engine string) string {
	if engine == "slurm" {
		return SlurmScript
	}
	return KubernetesScript
}

// Options describe one plan.
type Options struct {
	// Name names the jobs (a DNS-1123 label of at most 40 characters, so
	// that the derived object names stay valid).
	Name string
	// Command is the sharded command: "explore" (or empty) runs `explore
	// SPEC`, "sim" runs `sim --sweep SPEC` (a scenario sweep), "grade" runs
	// `grade ARGS...` (a mutation grading; no spec). Each shard adds
	// `--shard i/n --out RESULTS/shard-i`; the merge is `COMMAND merge`.
	Command string
	// Args are grade's flags (Command "grade"), without --shard and --out.
	Args []string
	// SpecJSON is the sweep spec as given (the jobs run exactly it); empty
	// for grade.
	SpecJSON []byte
	// Points is the sweep's point count; Shards is in [1, Points].
	Points, Shards int
	// Parallelism is the number of shards running at once (0: all).
	Parallelism int
	// Image is the container image (Kubernetes).
	Image string
	// Results is the directory, shared by every node, that the shards and
	// the merge write to (Kubernetes default /results, the mount of
	// Claim; Slurm default ./explore-results).
	Results string
	// Claim is the Kubernetes PersistentVolumeClaim mounted at Results.
	Claim string
}

// File is one file of a plan.
type File struct {
	Name string
	Data []byte
}

var nonLabel = regexp.MustCompile(`[^a-z0-9-]+`)

// JobName derives a job name from a spec name: "hpccgold-explore-" and
// the name lowercased, runs of other characters replaced by "-", cut to
// 40 characters.
func JobName(spec string) string {
	n := strings.Trim(nonLabel.ReplaceAllString(strings.ToLower(spec), "-"), "-")
	if n == "" {
		n = "sweep"
	}
	n = "hpccgold-explore-" + n
	if len(n) > 40 {
		n = strings.TrimRight(n[:40], "-")
	}
	return n
}

func (o *Options) check(defaultResults string) error {
	if errs := validation.IsDNS1123Label(o.Name); len(errs) > 0 || len(o.Name) > 40 {
		return fmt.Errorf("plan: name %q: must be a DNS-1123 label of at most 40 characters (%s)", o.Name, strings.Join(errs, "; "))
	}
	if o.Points < 1 || o.Shards < 1 || o.Shards > o.Points {
		return fmt.Errorf("plan: shards=%d: must be in [1,%d] (the sweep's points)", o.Shards, o.Points)
	}
	if o.Parallelism < 0 || o.Parallelism > o.Shards {
		return fmt.Errorf("plan: parallelism=%d: must be in [0,%d]", o.Parallelism, o.Shards)
	}
	if o.Parallelism == 0 {
		o.Parallelism = o.Shards
	}
	switch o.Command {
	case "":
		o.Command = "explore"
	case "explore", "sim", "grade":
	default:
		return fmt.Errorf("plan: command %q: want explore, sim or grade", o.Command)
	}
	if o.Command == "grade" {
		if len(o.SpecJSON) > 0 {
			return fmt.Errorf("plan: grade takes its flags (Args), not a spec")
		}
		for _, a := range o.Args {
			if f := strings.TrimLeft(strings.SplitN(a, "=", 2)[0], "-"); f == "shard" || f == "out" {
				return fmt.Errorf("plan: grade args: %s: the plan sets --shard and --out itself", a)
			}
		}
	} else if len(o.Args) > 0 {
		return fmt.Errorf("plan: args apply to grade only, not to %s", o.Command)
	} else if len(bytes.TrimSpace(o.SpecJSON)) == 0 {
		return fmt.Errorf("plan: empty spec")
	}
	if o.Results == "" {
		o.Results = defaultResults
	}
	return nil
}

// shardDir is the output directory of shard i under the results
// directory ("shard-<i>"); merged is the merge's.
func shardDir(results string, i string) string { return path.Join(results, "shard-"+i) }

// mergeArgs are the arguments of the merge step.
func mergeArgs(command, results string, shards int) []string {
	args := []string{command, "merge", "--out", path.Join(results, "merged")}
	for i := 0; i < shards; i++ {
		args = append(args, shardDir(results, strconv.Itoa(i)))
	}
	return args
}

// shardCommand is the shard command before --shard and --out, with spec
// the path of the spec file.
func (o *Options) shardCommand(spec string) []string {
	switch o.Command {
	case "sim":
		return []string{"sim", "--sweep", spec}
	case "grade":
		return append([]string{"grade"}, o.Args...)
	}
	return []string{"explore", spec}
}

func marshal(v any) ([]byte, error) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("plan: %w", err)
	}
	return append(b, '\n'), nil
}

// Kubernetes returns the Kubernetes plan: a ConfigMap holding the spec, an
// Indexed Job of Shards completions (each pod runs `hpccgold explore
// /spec/spec.json --shard $(JOB_COMPLETION_INDEX)/N --out
// RESULTS/shard-$(JOB_COMPLETION_INDEX)`), a Job running the merge, and
// run.sh, which applies them in order with kubectl and waits for the
// shards before the merge. Manifests are JSON (kubectl apply -f takes
// JSON as YAML's subset).
func Kubernetes(o Options) ([]File, error) {
	if err := o.check("/results"); err != nil {
		return nil, err
	}
	if o.Image == "" {
		o.Image = DefaultImage
	}
	if o.Claim == "" {
		return nil, fmt.Errorf("plan: kubernetes needs a PersistentVolumeClaim for the results (claim)")
	}
	if errs := validation.IsDNS1123Subdomain(o.Claim); len(errs) > 0 {
		return nil, fmt.Errorf("plan: claim %q: %s", o.Claim, strings.Join(errs, "; "))
	}
	labels := map[string]string{"app.kubernetes.io/name": "hpccgold", "app.kubernetes.io/component": "explore", "hpccgold/sweep": o.Name}
	cm := corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: o.Name + "-spec", Labels: labels},
		Data:       map[string]string{"spec.json": string(o.SpecJSON)},
	}
	volumes := []corev1.Volume{
		{Name: "results", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: o.Claim}}},
	}
	mounts := []corev1.VolumeMount{{Name: "results", MountPath: o.Results}}
	hasSpec := len(o.SpecJSON) > 0
	if hasSpec {
		volumes = append([]corev1.Volume{{Name: "spec", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: cm.Name}}}}}, volumes...)
		mounts = append([]corev1.VolumeMount{{Name: "spec", MountPath: "/spec", ReadOnly: true}}, mounts...)
	}
	n := strconv.Itoa(o.Shards)
	completions, parallelism := int32(o.Shards), int32(o.Parallelism)
	backoff := int32(2)
	indexed := batchv1.IndexedCompletion
	shard := container(o.Image, mounts, append(o.shardCommand("/spec/spec.json"),
		"--shard", "$(JOB_COMPLETION_INDEX)/"+n, "--out", shardDir(o.Results, "$(JOB_COMPLETION_INDEX)"))...)
	// The Job controller sets JOB_COMPLETION_INDEX itself; declaring it
	// from the pod's completion-index annotation makes the $(...)
	// expansion in the arguments explicit and independent of that.
	shard.Env = []corev1.EnvVar{{Name: "JOB_COMPLETION_INDEX", ValueFrom: &corev1.EnvVarSource{
		FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.annotations['" + batchv1.JobCompletionIndexAnnotation + "']"}}}}
	shards := batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: o.Name + "-shards", Labels: labels},
		Spec: batchv1.JobSpec{
			CompletionMode: &indexed,
			Completions:    &completions,
			Parallelism:    &parallelism,
			BackoffLimit:   &backoff,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Containers: []corev1.Container{shard}, Volumes: volumes},
			},
		},
	}
	one := int32(1)
	merge := batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: metav1.ObjectMeta{Name: o.Name + "-merge", Labels: labels},
		Spec: batchv1.JobSpec{
			Completions:  &one,
			Parallelism:  &one,
			BackoffLimit: &backoff,
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, Volumes: volumes,
					Containers: []corev1.Container{container(o.Image, mounts, mergeArgs(o.Command, o.Results, o.Shards)...)}},
			},
		},
	}
	type obj struct {
		name string
		v    any
	}
	objs := []obj{{ShardsJobFile, shards}, {MergeJobFile, merge}}
	if hasSpec {
		objs = append([]obj{{ConfigMapFile, cm}}, objs...)
	}
	var files []File
	for _, f := range objs {
		b, err := marshal(f.v)
		if err != nil {
			return nil, err
		}
		files = append(files, File{f.name, b})
	}
	var sh strings.Builder
	fmt.Fprintf(&sh, "#!/bin/sh\n# Runs the %s sweep %s on Kubernetes: %d points in %d shards, %d at once,\n", o.Command, o.Name, o.Points, o.Shards, o.Parallelism)
	fmt.Fprintf(&sh, "# then merges them into %s. Needs kubectl, the image %s and the\n", path.Join(o.Results, "merged"), o.Image)
	fmt.Fprintf(&sh, "# ReadWriteMany PersistentVolumeClaim %s in the current namespace.\nset -eu\ncd \"$(dirname \"$0\")\"\n", o.Claim)
	if hasSpec {
		fmt.Fprintf(&sh, "kubectl apply -f configmap.json\n")
	}
	fmt.Fprintf(&sh, "kubectl apply -f shards-job.json\n")
	fmt.Fprintf(&sh, "kubectl wait --for=condition=complete --timeout=24h job/%s\n", shards.Name)
	fmt.Fprintf(&sh, "kubectl apply -f merge-job.json\nkubectl wait --for=condition=complete --timeout=1h job/%s\n", merge.Name)
	fmt.Fprintf(&sh, "kubectl logs job/%s\n", merge.Name)
	files = append(files, File{KubernetesScript, []byte(sh.String())})
	if hasSpec {
		files = append(files, File{SpecFile, o.SpecJSON})
	}
	return files, nil
}

// container is the hpccgold container running args.
func container(image string, mounts []corev1.VolumeMount, args ...string) corev1.Container {
	return corev1.Container{Name: "hpccgold", Image: image, Command: []string{"hpccgold"}, Args: args, VolumeMounts: mounts,
		WorkingDir: "/tmp"}
}

// shellQuote quotes s for a POSIX shell (single quotes).
func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n'\"\\$`;&|<>()*?[]{}~#!") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Slurm returns the Slurm plan: shards.sbatch, a job array of Shards
// tasks (at most Parallelism at once) each running `hpccgold explore
// spec.json --shard $SLURM_ARRAY_TASK_ID/N --out
// RESULTS/shard-$SLURM_ARRAY_TASK_ID`; merge.sbatch; and submit.sh, which
// submits the array and the merge with --dependency=afterok on it.
func Slurm(o Options) ([]File, error) {
	if err := o.check("./explore-results"); err != nil {
		return nil, err
	}
	res := shellQuote(o.Results)
	var a strings.Builder
	fmt.Fprintf(&a, "#!/bin/sh\n#SBATCH --job-name=%s-shards\n#SBATCH --array=0-%d%%%d\n", o.Name, o.Shards-1, o.Parallelism)
	fmt.Fprintf(&a, "#SBATCH --cpus-per-task=1\n#SBATCH --output=%s-shard-%%a.log\n", o.Name)
	fmt.Fprintf(&a, "# Shard $SLURM_ARRAY_TASK_ID of %d of the %s sweep %s (%d points); hpccgold and its tools\n", o.Shards, o.Command, o.Name, o.Points)
	fmt.Fprintf(&a, "# (yosys) must be on PATH on every node (or run this line in the deploy/Containerfile image).\n")
	fmt.Fprintf(&a, "set -eu\n: \"${SLURM_ARRAY_TASK_ID:?not running as a Slurm array task}\"\n")
	a.WriteString("exec hpccgold")
	const specPath = "\x00spec"
	for _, arg := range o.shardCommand(specPath) {
		if arg == specPath {
			a.WriteString(` "${SLURM_SUBMIT_DIR:-.}/spec.json"`)
		} else {
			a.WriteString(" " + shellQuote(arg))
		}
	}
	fmt.Fprintf(&a, " --shard \"$SLURM_ARRAY_TASK_ID/%d\" --out %s/shard-\"$SLURM_ARRAY_TASK_ID\"\n", o.Shards, res)
	var m strings.Builder
	fmt.Fprintf(&m, "#!/bin/sh\n#SBATCH --job-name=%s-merge\n#SBATCH --cpus-per-task=1\n#SBATCH --output=%s-merge.log\n", o.Name, o.Name)
	fmt.Fprintf(&m, "# Merges the %d shards of the %s sweep %s into %s.\nset -eu\nexec hpccgold", o.Shards, o.Command, o.Name, path.Join(o.Results, "merged"))
	for _, arg := range mergeArgs(o.Command, o.Results, o.Shards) {
		m.WriteString(" " + shellQuote(arg))
	}
	m.WriteString("\n")
	var s strings.Builder
	fmt.Fprintf(&s, "#!/bin/sh\n# Submits the %s sweep %s to Slurm: the shard array, then the merge once every shard succeeded.\n", o.Command, o.Name)
	fmt.Fprintf(&s, "set -eu\ncd \"$(dirname \"$0\")\"\nmkdir -p %s\n", res)
	fmt.Fprintf(&s, "jid=$(sbatch --parsable shards.sbatch)\nsbatch --dependency=afterok:\"${jid%%%%;*}\" merge.sbatch\n")
	files := []File{{ShardsBatchFile, []byte(a.String())}, {MergeBatchFile, []byte(m.String())}, {SlurmScript, []byte(s.String())}}
	if len(o.SpecJSON) > 0 {
		files = append(files, File{"slurm/spec.json", o.SpecJSON})
	}
	return files, nil
}
