package network

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The built-in CDFs load and have the means of their tables (computed by
// hand from testdata/*.cdf: a point mass at the first size plus the
// midpoint of each segment times its probability).
func TestBuiltinCDFs(t *testing.T) {
	for _, c := range []struct {
		name string
		mean float64
	}{{"websearch", 1711250}, {"hadoop", 120420.75}} {
		cdf, err := LoadCDF(c.name)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(cdf.Mean()-c.mean) > 1e-6 {
			t.Errorf("%s: mean %v, want %v", c.name, cdf.Mean(), c.mean)
		}
		// Inverse CDF at the table points returns the table sizes.
		for i := 1; i < len(cdf.Prob); i++ {
			if cdf.Prob[i] > cdf.Prob[i-1] {
				if q := cdf.Quantile(cdf.Prob[i]); q != cdf.Size[i] {
					t.Errorf("%s: Quantile(%v) = %v, want %v", c.name, cdf.Prob[i], q, cdf.Size[i])
				}
			}
		}
	}
}

// Bad CDF files are rejected naming the line, the field and the value.
func TestCDFErrors(t *testing.T) {
	cases := []struct{ text, want string }{
		{"0 0\n100 0.5\n50 1\n", "line 3: size=50: less than the previous size 100 (not monotonic)"},
		{"0 0\n100 0.6\n200 0.5\n300 1\n", "line 3: probability=0.5: less than the previous probability 0.6 (not monotonic)"},
		{"0 0\n100 0.5\n200 0.9\n", "last probability=0.9: must be 1"},
		{"0 0\n100 x\n", `line 2: probability="x"`},
		{"abc 0\n", `line 1: size="abc"`},
		{"-5 0\n10 1\n", `line 1: size="-5"`},
		{"0 0\n100 1.5\n", `line 2: probability="1.5"`},
		{"# only a comment\n", "no points"},
		{"0 0 0\n", "want \"size probability\""},
		{"0 1\n", "largest size=0"},
	}
	for _, c := range cases {
		_, err := ParseCDF("f", strings.NewReader(c.text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseCDF(%q) err = %v, want it to contain %q", c.text, err, c.want)
		}
	}
	// Comma separation and comments are accepted; a point mass at the first size.
	c, err := ParseCDF("ok", strings.NewReader("# x\n1000, 0.5\n\n3000,1\n"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Mean() != 0.5*1000+0.5*2000 || c.Bytes(0.2) != 1000 || c.Bytes(0.75) != 2000 {
		t.Errorf("mean %v, Bytes(0.2)=%d, Bytes(0.75)=%d", c.Mean(), c.Bytes(0.2), c.Bytes(0.75))
	}
	// A file path works and a missing file names the built-ins.
	p := filepath.Join(t.TempDir(), "x.cdf")
	if err := os.WriteFile(p, []byte("10 0\n20 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadCDF(p); err != nil {
		t.Error(err)
	}
	if _, err := LoadCDF(p + ".missing"); err == nil || !strings.Contains(err.Error(), "websearch") {
		t.Errorf("missing file: err = %v", err)
	}
}

// Random load: the same seed gives the same flows; the offered load over a
// long window is the configured load within a few percent (the number of
// flows is Poisson, so with N flows the relative error of the count is
// about 1/sqrt(N); with heavy-tailed sizes the byte total varies more, so
// the check uses a light-tailed CDF and 5 standard deviations).
func TestRandomLoad(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "u.cdf")
	if err := os.WriteFile(p, []byte("1000 0\n3000 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gbps := []uint32{100, 100, 100, 100}
	tr := Traffic{Random: &RandomLoad{CDF: p, Load: 0.4, DurationNs: 2_000_000, Seed: 7}}
	a, err := tr.Generate(gbps)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := tr.Generate(gbps)
	if !reflect.DeepEqual(a, b) {
		t.Fatal("same seed, different flows")
	}
	var bytes float64
	per := make([]int, 4)
	for i, f := range a {
		if f.Src == f.Dst || f.StartNs >= 2_000_000 || (i > 0 && f.StartNs < a[i-1].StartNs) {
			t.Fatalf("flow %d: %+v", i, f)
		}
		per[f.Src]++
		bytes += float64(f.Bytes)
	}
	// Expected bytes: load * 4 hosts * 100 Gbit/s * 2 ms / 8.
	want := 0.4 * 4 * 100e9 * 2e-3 / 8
	n := float64(len(a))
	if rel := math.Abs(bytes-want) / want; rel > 5/math.Sqrt(n) {
		t.Errorf("offered %v bytes in %d flows, want %v (rel err %.3f > %.3f)", bytes, len(a), want, rel, 5/math.Sqrt(n))
	}
	for h, c := range per {
		if c == 0 {
			t.Errorf("host %d sent no flow", h)
		}
	}
	tr.Random.Seed = 8
	c, _ := tr.Generate(gbps)
	if reflect.DeepEqual(a, c) {
		t.Error("different seeds, same flows")
	}
}

// Incasts and explicit flows expand and sort by start; bad fields are
// named.
func TestTrafficGenerate(t *testing.T) {
	tr := Traffic{
		Flows:  []Flow{{Src: 0, Dst: 3, Bytes: 10, StartNs: 500}},
		Incast: []Incast{{Senders: []int{1, 2}, Receiver: 3, Bytes: 100, StartNs: 100, Repeat: 2, PeriodNs: 1000, Class: 2}},
	}
	fl, err := tr.Generate([]uint32{25, 25, 25, 25})
	if err != nil {
		t.Fatal(err)
	}
	want := []Flow{
		{1, 3, 100, 100, 2, "incast0"}, {2, 3, 100, 100, 2, "incast0"}, {0, 3, 10, 500, 0, "flows"},
		{1, 3, 100, 1100, 2, "incast0"}, {2, 3, 100, 1100, 2, "incast0"},
	}
	if !reflect.DeepEqual(fl, want) {
		t.Errorf("flows %+v, want %+v", fl, want)
	}
	bad := []struct {
		tr   Traffic
		want string
	}{
		{Traffic{Flows: []Flow{{Src: 0, Dst: 0, Bytes: 1}}}, "src=dst=0"},
		{Traffic{Flows: []Flow{{Src: 0, Dst: 9, Bytes: 1}}}, "traffic.flows[0].dst=9"},
		{Traffic{Flows: []Flow{{Src: 0, Dst: 1, Bytes: 0}}}, "traffic.flows[0].bytes=0"},
		{Traffic{Incast: []Incast{{Senders: []int{1, 1}, Receiver: 0, Bytes: 1}}}, "senders[1]=1: listed twice"},
		{Traffic{Incast: []Incast{{Senders: []int{0}, Receiver: 0, Bytes: 1}}}, "senders[0]=0: is the receiver"},
		{Traffic{Incast: []Incast{{Senders: []int{1}, Receiver: 0, Bytes: 1, Repeat: 3}}}, "period_ns=0"},
		{Traffic{Random: &RandomLoad{CDF: "websearch", Load: 0, DurationNs: 1}}, "traffic.random.load=0"},
		{Traffic{Random: &RandomLoad{CDF: "nosuch", Load: 0.5, DurationNs: 1}}, "traffic.random.cdf"},
		{Traffic{Random: &RandomLoad{CDF: "hadoop", Load: 0.5, DurationNs: 1e9, MaxFlows: 10}}, "max_flows=10"},
		{Traffic{Flows: []Flow{{Src: 0, Dst: 1, Bytes: 1, Class: -1}}}, "traffic.flows[0].class=-1"},
		{Traffic{Incast: []Incast{{Senders: []int{1}, Receiver: 0, Bytes: 1, Class: MaxClasses}}}, "traffic.incast[0].class=8"},
		{Traffic{Random: &RandomLoad{CDF: "hadoop", Load: 0.5, DurationNs: 1e6, Class: -2}}, "traffic.random.class=-2"},
	}
	rnd := Traffic{Random: &RandomLoad{CDF: "hadoop", Load: 0.5, DurationNs: 100_000, Seed: 3, Class: 2}}
	fl, err = rnd.Generate([]uint32{25, 25, 25, 25})
	if err != nil || len(fl) == 0 {
		t.Fatalf("random with a class: %d flows, %v", len(fl), err)
	}
	for _, f := range fl {
		if f.Class != 2 {
			t.Fatalf("random flow %+v: class %d, want 2", f, f.Class)
		}
	}
	if f, c := rnd.MaxClassOf(); f != "traffic.random.class" || c != 2 {
		t.Errorf("MaxClassOf = %q, %d", f, c)
	}
	for _, c := range bad {
		_, err := c.tr.Generate([]uint32{25, 25, 25, 25})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("err = %v, want it to contain %q", err, c.want)
		}
	}
}
