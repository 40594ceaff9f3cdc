package strictjson

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

type inner struct {
	Bits int `json:"bits"`
}

type level string

func (l *level) UnmarshalText(b []byte) error { *l = level(b); return nil }

type Embedded struct {
	Shared int `json:"shared"`
}

type target struct {
	Embedded
	MaxStage int                `json:"max_stage"`
	Eta      float64            `json:"eta"`
	Inner    inner              `json:"inner"`
	List     []inner            `json:"list"`
	Ptr      *inner             `json:"ptr"`
	Map      map[string]inner   `json:"map"`
	Raw      json.RawMessage    `json:"raw"`
	Level    level              `json:"level"`
	Skip     int                `json:"-"`
	NoTag    int                //nolint:unused // keyed by its Go name
	Any      map[string]any     `json:"any"`
	Arr      [2]inner           `json:"arr"`
	Nested   map[string][]inner `json:"nested"`
}

// TestDecode: the strict rules, each with an input that breaks it and the
// key path the error must name (oracle: the package doc's rules), and
// inputs that obey them decoding as encoding/json would.
func TestDecode(t *testing.T) {
	cases := []struct {
		in   string
		want string // error substring; "" = accepted
	}{
		{`{"max_stage":3,"eta":0.5}`, ""},
		{`{"shared":1,"NoTag":2,"raw":{"ANY":[1,{"x":1,"x":2}]},"level":"x","any":{"k":{"K":1}}}`, ""},
		{`{"inner":{"bits":1},"list":[{"bits":2}],"ptr":{"bits":3},"map":{"a":{"bits":4}},"arr":[{"bits":5}],"nested":{"a":[{"bits":6}]}}`, ""},
		{`{"inner":null,"ptr":null,"list":null}`, ""},
		{`null`, "the input is null: want a JSON object"},
		{`[]`, "the input is an array"},
		{`3`, "the input is the number 3"},
		{``, "empty input"},
		{`   `, "empty input"},
		{`{"MAX_STAGE":0}`, `key MAX_STAGE: unknown field "MAX_STAGE" (keys are case-sensitive: did you mean "max_stage"?)`},
		{`{"Max_Stage":0}`, `did you mean "max_stage"?`},
		{`{"nosuch":0}`, "key nosuch: unknown"},
		{`{"max_stage":1,"max_stage":0}`, "key max_stage: given twice"},
		{`{"inner":{"Bits":1}}`, `key inner.Bits: unknown field "Bits" (keys are case-sensitive: did you mean "bits"?)`},
		{`{"inner":{"bits":1,"bits":2}}`, "key inner.bits: given twice"},
		{`{"list":[{"bits":1},{"BITS":2}]}`, "key list[1].BITS: unknown"},
		{`{"ptr":{"x":1}}`, "key ptr.x: unknown"},
		{`{"map":{"a":{"bitz":1}}}`, "key map.a.bitz: unknown"},
		{`{"map":{"a":{},"a":{}}}`, "key map.a: given twice"},
		{`{"arr":[{},{"q":1}]}`, "key arr[1].q: unknown"},
		{`{"nested":{"a":[{"bits":1,"z":0}]}}`, "key nested.a[0].z: unknown"},
		{`{"Skip":1}`, "key Skip: unknown"},
		{`{"notag":1}`, `did you mean "NoTag"?`},
		{`{"max_stage":1} {}`, "trailing data"},
		{`{"max_stage":1}x`, "invalid JSON"},
		{`{"max_stage":`, "invalid JSON"},
		{`{"max_stage":"x"}`, "key max_stage: string is not a valid int"},
		{`{"inner":[1]}`, "inner"},
	}
	for _, c := range cases {
		var v target
		err := Decode([]byte(c.in), &v)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("Decode(%s) = %v, want accepted", c.in, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("Decode(%s) = %v, want an error containing %q", c.in, err, c.want)
		case c.want == "":
			var w target
			if err := json.Unmarshal([]byte(c.in), &w); err != nil || !reflect.DeepEqual(v, w) {
				t.Errorf("Decode(%s) = %+v, encoding/json gives %+v (%v)", c.in, v, w, err)
			}
		}
	}
}

// FuzzDecode: Decode never panics, and what it accepts encoding/json
// decodes to the same value, which re-encodes to input Decode accepts.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{`{"max_stage":3}`, `{"inner":{"bits":1},"list":[{"bits":2}]}`, `null`, `{"a":1,"a":2}`,
		`{"map":{"x":{"bits":1}}}`, `{"raw":[1,2,{"k":[]}]}`, `{"MAX_STAGE":1}`, `{"ptr":{"bits":-1}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var v target
		if err := Decode(data, &v); err != nil {
			return
		}
		var w target
		if err := json.Unmarshal(data, &w); err != nil {
			t.Fatalf("Decode accepted %q, encoding/json refuses it: %v", data, err)
		}
		if !reflect.DeepEqual(v, w) {
			t.Fatalf("Decode(%q) = %+v, encoding/json %+v", data, v, w)
		}
		b, err := json.Marshal(v)
		if err != nil {
			return // e.g. a RawMessage that is not valid on its own
		}
		var u target
		if err := Decode(b, &u); err != nil {
			t.Fatalf("re-encoded %s refused: %v", b, err)
		}
	})
}
