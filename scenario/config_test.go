package scenario

import (
	"reflect"
	"sort"
	"strings"
	"testing"
)

// jsonKeys lists the JSON paths of every leaf field of t (lists of
// structs as "name[]."), skipping fields tagged "-".
func jsonKeys(t reflect.Type, prefix string, out *[]string) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := strings.Split(f.Tag.Get("json"), ",")[0]
		if tag == "-" || tag == "" {
			continue
		}
		key := prefix + tag
		ft := f.Type
		if ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		switch {
		case ft.Kind() == reflect.Struct && ft.NumField() > 0 && ft.Field(0).IsExported() && ft.PkgPath() != "" && !strings.HasSuffix(ft.Name(), "Freq"):
			jsonKeys(ft, key+".", out)
		case ft.Kind() == reflect.Slice && ft.Elem().Kind() == reflect.Struct:
			jsonKeys(ft.Elem(), key+"[].", out)
		default:
			*out = append(*out, key)
		}
	}
}

// Parameters (what sim --list prints) names exactly the keys of Config.
// Oracle: reflection over Config's JSON tags.
func TestParametersMatchConfig(t *testing.T) {
	var keys []string
	jsonKeys(reflect.TypeOf(Config{}), "", &keys)
	var listed []string
	for _, p := range Parameters() {
		listed = append(listed, p.Key)
	}
	sort.Strings(keys)
	sort.Strings(listed)
	if !reflect.DeepEqual(keys, listed) {
		t.Errorf("Config keys %v\nParameters %v", keys, listed)
	}
}

// Every built-in scenario validates, and Lookup rejects unknown names.
func TestBuiltinsValid(t *testing.T) {
	for _, n := range Names() {
		c, err := Lookup(n)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Validate(); err != nil {
			t.Errorf("%s: %v", n, err)
		}
		if c.Network.Encoding != c.HPCC.Encoding {
			t.Errorf("%s: network encoding %v != hpcc %v", n, c.Network.Encoding, c.HPCC.Encoding)
		}
	}
	if _, err := Lookup("nosuch"); err == nil || !strings.Contains(err.Error(), `unknown scenario "nosuch"`) {
		t.Errorf("Lookup(nosuch) err = %v", err)
	}
}

// A config file overlays a scenario: present keys change, absent keys
// keep their values; unknown keys and bad values are errors naming the
// key and value.
func TestOverlay(t *testing.T) {
	base, _ := Lookup("hpcc-incast-16to1")
	c, err := Overlay(base, strings.NewReader(`{"hpcc": {"eta": 0.9}, "topology": {"host_link": {"delay_ns": 500}}, "nic": {"ack_every": 4}}`))
	if err != nil {
		t.Fatal(err)
	}
	if c.HPCC.Eta != 0.9 || c.Topology.HostLink.DelayNs != 500 || c.Topology.HostLink.Gbps != 100 || c.NIC.AckEvery != 4 ||
		c.HPCC.MaxStage != base.HPCC.MaxStage || len(c.Traffic.Incast) != 1 {
		t.Errorf("overlay: %+v", c)
	}
	bad := []struct{ in, want string }{
		{`{"hpcc": {"etaa": 0.9}}`, `unknown field "etaa"`},
		{`{"hpcc": {"eta": 1.5}}`, "hpcc.eta=1.5"},
		{`{"topology": {"kind": "ring"}}`, `topology.kind="ring"`},
		{`{"nic": {"mtu": 10}}`, "nic.mtu=10"},
		{`{"cc": "timely"}`, `cc="timely"`},
		{`{"cc": "none"}`, `cc=none: must be hpcc, hpcc-rx, ldcp or dcqcn`},
		{`{"cc": "ldcp", "ldcp": {"k_max_bytes": 10}}`, "ldcp.k_max_bytes=10"},
		{`{"cc": "ldcp", "ldcp": {"p_max": 0}}`, "ldcp.p_max=0"},
		{`{"cc": "ldcp", "ldcp": {"k_bytes": 0}}`, "ldcp.k_bytes=0"},
		{`{"cc": "ldcp", "ldcp": {"buf_max_bytes": 10}}`, "ldcp.buf_max_bytes=10"},
		{`{"cc": "dcqcn", "dcqcn": {"variant": "qcn"}}`, `variant="qcn": must be paper or mellanox`},
		{`{"cc": "dcqcn", "dcqcn": {"k_min_bytes": 5000}}`, "dcqcn.k_max_bytes=0"},
		{`{"nic": {"rto_ns": 10}}`, "nic.rto_ns=10"},
		{`{"run": {"sample_ns": 1}}`, "run.sample_ns=1"},
		{`{"run": {"bottleneck_host": 99}}`, "run.bottleneck_host=99"},
		{`{"network": {"switch": {"buffer_bytes": 1}}}`, "switch.buffer_bytes=1"},
		{`{"traffic": {"incast": [{"senders": [0], "receiver": 16, "bytes": 9, "class": 1}]}}`, "traffic.incast[0].class=1: must be a class of network.switch.qos.classes (0 configured)"},
		{`{"network": {"switch": {"qos": {"classes": [{"dscp": 1, "weight": 1}, {"dscp": 2, "weight": 1}], "quantum_bytes": 1500}}},
		  "traffic": {"flows": [{"src": 0, "dst": 1, "bytes": 9, "class": 2}]}}`, "traffic.flows[0].class=2: must be a class of network.switch.qos.classes (2 configured)"},
		{`{"traffic": {"random": {"cdf": "hadoop", "load": 0.3, "duration_ns": 1000, "class": 3}}}`, "traffic.random.class=3: must be a class of network.switch.qos.classes (0 configured)"},
		{`{"hpcc": {"sojourn": true}}`, "hpcc.sojourn=true: needs network.switch.sojourn=true"},
		{`{"cc": "ldcp", "hpcc": {"multiq": true}}`, "hpcc.multiq=true: needs cc=hpcc (cc=ldcp)"},
		{`{"network": {"switch": {"sample": {"mode": "sometimes"}}}}`, `sample mode "sometimes": must be every, interval or congestion`},
		{`{} {}`, "trailing data"},
	}
	for _, b := range bad {
		_, err := Overlay(base, strings.NewReader(b.in))
		if err == nil || !strings.Contains(err.Error(), b.want) {
			t.Errorf("Overlay(%s) err = %v, want %q", b.in, err, b.want)
		}
	}
	// The base is not modified through shared lists.
	c.Traffic.Incast[0].Senders[0] = 99
	if base.Traffic.Incast[0].Senders[0] != 0 {
		t.Error("Overlay aliases the base's lists")
	}
}
