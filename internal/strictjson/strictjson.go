package strictjson

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
)

// Decode decodes the JSON object in data into v (a non-nil pointer,
// typically to a struct already holding the defaults that keys absent from
// data keep), after CheckKeys accepted it. Unknown keys are errors, as are
// values of the wrong type (naming the key).
func Decode(data []byte, v any) error {
	if err := CheckKeys(data, reflect.TypeOf(v)); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) && ute.Field != "" {
			return fmt.Errorf("key %s: %s is not a valid %s", ute.Field, ute.Value, ute.Type)
		}
		return err
	}
	return nil
}

var (
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// CheckKeys checks that data is exactly one JSON object (not null, not an
// array, nothing after it) whose keys, at every level, are json keys of
// type t (a struct, or a pointer to one) given at most once each. A value
// of a type that decodes itself (json.Unmarshaler, encoding.TextUnmarshaler)
// and the values of maps are not looked into beyond their own keys' rules.
// Syntax errors are reported with the byte offset.
func CheckKeys(data []byte, t reflect.Type) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return errors.New("empty input: want a JSON object")
		}
		return syntaxErr(err)
	}
	if tok != json.Delim('{') {
		return fmt.Errorf("the input is %s: want a JSON object", describe(tok))
	}
	c := &checker{dec: dec}
	if err := c.object(t, ""); err != nil {
		return err
	}
	if _, err := dec.Token(); err == nil {
		return errors.New("trailing data after the JSON object")
	} else if !errors.Is(err, io.EOF) {
		return syntaxErr(err)
	}
	return nil
}

func syntaxErr(err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Errorf("invalid JSON at byte %d: %v", se.Offset, se)
	}
	return fmt.Errorf("invalid JSON: %w", err)
}

func describe(tok json.Token) string {
	switch x := tok.(type) {
	case nil:
		return "null"
	case json.Delim:
		return "an array"
	case string:
		return fmt.Sprintf("the string %q", x)
	case bool:
		return fmt.Sprintf("the boolean %v", x)
	default:
		return fmt.Sprintf("the number %v", x)
	}
}

type checker struct {
	dec *json.Decoder
}

// selfDecoding reports whether values of t decode themselves.
func selfDecoding(t reflect.Type) bool {
	return t.Implements(jsonUnmarshaler) || t.Implements(textUnmarshaler) ||
		reflect.PointerTo(t).Implements(jsonUnmarshaler) || reflect.PointerTo(t).Implements(textUnmarshaler)
}

// fields returns struct t's JSON keys and their types, embedded structs
// flattened as encoding/json does.
// A shallower field wins over one of an embedded struct, as in
// encoding/json.
func fields(t reflect.Type, into map[string]reflect.Type) {
	var embedded []reflect.Type
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		ft := f.Type
		if f.Anonymous && name == "" {
			et := ft
			if et.Kind() == reflect.Pointer {
				et = et.Elem()
			}
			if et.Kind() == reflect.Struct {
				embedded = append(embedded, et)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		into[name] = ft
	}
	for _, et := range embedded {
		sub := map[string]reflect.Type{}
		fields(et, sub)
		for name, ft := range sub {
			if _, shadowed := into[name]; !shadowed {
				into[name] = ft
			}
		}
	}
}

// value checks the next value in the stream, of type t, at path.
func (c *checker) value(t reflect.Type, path string) error {
	for t != nil && t.Kind() == reflect.Pointer && !selfDecoding(t) {
		t = t.Elem()
	}
	tok, err := c.dec.Token()
	if err != nil {
		return syntaxErr(err)
	}
	d, isDelim := tok.(json.Delim)
	if !isDelim {
		return nil // a scalar or null: the decoder checks its type
	}
	if t == nil || selfDecoding(t) || t.Kind() == reflect.Interface {
		return c.skipRest(d)
	}
	switch {
	case d == '{' && (t.Kind() == reflect.Struct || t.Kind() == reflect.Map):
		return c.object(t, path)
	case d == '[' && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array):
		for i := 0; c.dec.More(); i++ {
			if err := c.value(t.Elem(), fmt.Sprintf("%s[%d]", path, i)); err != nil {
				return err
			}
		}
		_, err := c.dec.Token()
		return syntaxErrOrNil(err)
	}
	// The wrong kind of value: the decoder reports the type error.
	return c.skipRest(d)
}

func syntaxErrOrNil(err error) error {
	if err != nil {
		return syntaxErr(err)
	}
	return nil
}

// object checks the rest of an object (after its '{') of type t at path.
func (c *checker) object(t reflect.Type, path string) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var known map[string]reflect.Type
	if t.Kind() == reflect.Struct {
		known = map[string]reflect.Type{}
		fields(t, known)
	}
	seen := map[string]bool{}
	for c.dec.More() {
		tok, err := c.dec.Token()
		if err != nil {
			return syntaxErr(err)
		}
		k, _ := tok.(string)
		kp := k
		if path != "" {
			kp = path + "." + k
		}
		if seen[k] {
			return fmt.Errorf("key %s: given twice", kp)
		}
		seen[k] = true
		var vt reflect.Type
		if t.Kind() == reflect.Map {
			vt = t.Elem()
		} else {
			var ok bool
			if vt, ok = known[k]; !ok {
				return unknown(kp, k, known)
			}
		}
		if err := c.value(vt, kp); err != nil {
			return err
		}
	}
	_, err := c.dec.Token()
	return syntaxErrOrNil(err)
}

// unknown is the error for key k (path kp) that is not a key of the
// struct whose keys are known; it suggests the key that differs only in
// case.
func unknown(kp, k string, known map[string]reflect.Type) error {
	for name := range known {
		if strings.EqualFold(name, k) {
			return fmt.Errorf("key %s: unknown field %q (keys are case-sensitive: did you mean %q?)", kp, k, name)
		}
	}
	return fmt.Errorf("key %s: unknown field %q", kp, k)
}

// skipRest skips the rest of a value that began with delimiter d.
func (c *checker) skipRest(d json.Delim) error {
	if d != '{' && d != '[' {
		return nil
	}
	depth := 1
	for depth > 0 {
		tok, err := c.dec.Token()
		if err != nil {
			return syntaxErr(err)
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
	}
	return nil
}
