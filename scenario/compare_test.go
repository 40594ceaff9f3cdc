package scenario

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/hpccgold/hpccgold/nicmodel"
)

func readCompareManifest(t *testing.T, dir string) compareManifest {
	t.Helper()
	var m compareManifest
	b, err := os.ReadFile(filepath.Join(dir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// TestCompareDeterministic runs the four congestion controls twice on a
// 4:1 incast of 50 KB per sender: the tables and every written file are
// byte-identical (the manifests, which hold each file's SHA-256, are
// equal), the table has one row per congestion control in the order run,
// the runs differ only in cc (and the marking that follows from it), and
// an interrupted write leaves complete files and no manifest.
func TestCompareDeterministic(t *testing.T) {
	var tables [2]string
	var ms [2]compareManifest
	var last *Comparison
	for i := range tables {
		cmp, err := Compare(context.Background(), small(t), CompareOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := cmp.WriteTable(&b); err != nil {
			t.Fatal(err)
		}
		tables[i] = b.String()
		dir := t.TempDir()
		if _, err := cmp.Write(context.Background(), dir); err != nil {
			t.Fatal(err)
		}
		ms[i] = readCompareManifest(t, dir)
		last = cmp
	}
	if tables[0] != tables[1] {
		t.Errorf("tables differ:\n%s\n%s", tables[0], tables[1])
	}
	if !reflect.DeepEqual(ms[0], ms[1]) {
		t.Errorf("manifests differ:\n%+v\n%+v", ms[0], ms[1])
	}
	var names []string
	for _, f := range ms[0].Files {
		names = append(names, f.Name)
	}
	if want := []string{"compare.txt", "compare.csv", "config.json", "queue.png", "queue.svg", "utilization.png",
		"utilization.svg"}; !reflect.DeepEqual(names, want) {
		t.Errorf("files %v, want %v", names, want)
	}
	if !reflect.DeepEqual(ms[0].CCs, []string{"hpcc", "hpcc-rx", "ldcp", "dcqcn"}) {
		t.Errorf("ccs %v", ms[0].CCs)
	}
	pos := -1
	for _, cc := range []string{"| hpcc ", "| hpcc-rx ", "| ldcp ", "| dcqcn "} {
		p := strings.Index(tables[0], cc)
		if p <= pos {
			t.Errorf("row %q missing or out of order:\n%s", cc, tables[0])
		}
		pos = p
	}
	for i, r := range last.Results {
		if r.Config.CC != CCs[i] || r.Summary.Completed != r.Summary.Flows {
			t.Errorf("run %d: cc %v, %d of %d flows", i, r.Config.CC, r.Summary.Completed, r.Summary.Flows)
		}
		a, b := r.Config, last.Results[0].Config
		a.CC, b.CC = 0, 0
		ja, err := a.JSON()
		if err != nil {
			t.Fatal(err)
		}
		jb, err := b.JSON()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(ja, jb) {
			t.Errorf("run %d: configuration differs beyond cc", i)
		}
	}
	dir := t.TempDir()
	files, err := last.Write(&countdown{context.Background(), 4}, dir)
	if !errors.Is(err, ErrInterrupted) || len(files) != 4 {
		t.Errorf("interrupted write: %d files, err %v; want 4 and ErrInterrupted", len(files), err)
	}
	if _, err := os.Stat(filepath.Join(dir, "manifest.json")); err == nil {
		t.Error("manifest written by an interrupted write")
	}
}

// TestParseCCs checks the --ccs list: names in order, errors naming the
// bad entry (none is not a congestion control a scenario runs).
func TestParseCCs(t *testing.T) {
	got, err := ParseCCs("ldcp, hpcc")
	if err != nil || !reflect.DeepEqual(got, []nicmodel.CCMode{nicmodel.CCLDCP, nicmodel.CCHPCC}) {
		t.Errorf("ParseCCs = %v, %v", got, err)
	}
	for _, s := range []string{"none", "ldcp,timely", ""} {
		if _, err := ParseCCs(s); err == nil || !strings.Contains(err.Error(), "must be hpcc, hpcc-rx, ldcp or dcqcn") {
			t.Errorf("ParseCCs(%q) err = %v", s, err)
		}
	}
}
