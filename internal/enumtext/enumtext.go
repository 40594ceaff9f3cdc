// Package enumtext is the one text form of hpccgold's small enumerations
// (configuration modes, policies, arbiters): a value reads and writes as its
// String() name, matched exactly (case-sensitive, as every configuration key
// is), and a name not in the list is an error that names the field, the
// value and every accepted name.
package enumtext

import (
	"fmt"
	"strings"
)

// Parse returns the value among vals whose String() is text. Otherwise the
// error reads `<what>=<text quoted>: must be a, b or c`, what naming the
// field as its package's errors do (e.g. "scheduler: WindowMode").
func Parse[T interface {
	comparable
	String() string
}](what string, text []byte, vals ...T) (T, error) {
	for _, v := range vals {
		if v.String() == string(text) {
			return v, nil
		}
	}
	var zero T
	return zero, fmt.Errorf("%s=%q: must be %s", what, text, Names(vals...))
}

// Names lists the values' names for messages and usage: "a", "a or b",
// "a, b or c".
func Names[T interface{ String() string }](vals ...T) string {
	names := make([]string, len(vals))
	for i, v := range vals {
		names[i] = v.String()
	}
	switch len(names) {
	case 0:
		return "(none)"
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}
