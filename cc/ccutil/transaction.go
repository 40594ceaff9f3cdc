package ccutil

import (
	"fmt"

	"github.com/hpccgold/hpccgold/fieldtable"
)

// Binding ties one field of a transaction table to a Go value: Get reads it
// from the state S, the event E or the output O of one update, Set writes it
// back. A binding reads and writes only the value its Spec names; the other
// pointers may be nil (an input table has no output, an output table no
// event).
type Binding[S, E, O any] struct {
	Spec fieldtable.Spec                   // field name, width in bits, format, doc
	Get  func(st *S, ev *E, out *O) uint64 // the field's value (fits Spec.Width)
	Set  func(st *S, ev *E, out *O, v uint64)
}

// Transaction is a laid-out field table with the bindings of its fields, in
// the same order (fieldtable lays fields out LSB-first in that order).
type Transaction[S, E, O any] struct {
	Table    fieldtable.Table
	pkg      string
	bindings []Binding[S, E, O]
}

// NewTransaction lays out the table name from the bindings' specs. pkg (e.g.
// "hpcc") prefixes every error of the transaction.
func NewTransaction[S, E, O any](pkg, name string, bs []Binding[S, E, O]) (Transaction[S, E, O], error) {
	specs := make([]fieldtable.Spec, len(bs))
	for i, b := range bs {
		specs[i] = b.Spec
	}
	t, err := fieldtable.New(name, specs)
	if err != nil {
		return Transaction[S, E, O]{}, fmt.Errorf("%s: %w", pkg, err)
	}
	return Transaction[S, E, O]{Table: t, pkg: pkg, bindings: bs}, nil
}

// Pack clears the first Table.Words() words of word and writes every bound
// value into its field. A word slice too short, or a value too wide for its
// field, is an error naming the table (and the field).
func (t Transaction[S, E, O]) Pack(st *S, ev *E, out *O, word []uint64) error {
	if err := t.checkLen(word); err != nil {
		return err
	}
	for i := range word[:t.Table.Words()] {
		word[i] = 0
	}
	for i, b := range t.bindings {
		if err := fieldtable.Put(word, t.Table.Fields[i], b.Get(st, ev, out)); err != nil {
			return fmt.Errorf("%s: %s: %w", t.pkg, t.Table.Name, err)
		}
	}
	return nil
}

// Unpack reads every field of word into its bound value. A word slice too
// short is an error naming the table.
func (t Transaction[S, E, O]) Unpack(st *S, ev *E, out *O, word []uint64) error {
	if err := t.checkLen(word); err != nil {
		return err
	}
	for i, b := range t.bindings {
		b.Set(st, ev, out, fieldtable.Get(word, t.Table.Fields[i]))
	}
	return nil
}

func (t Transaction[S, E, O]) checkLen(word []uint64) error {
	if len(word) < t.Table.Words() {
		return fmt.Errorf("%s: %s: word has %d uint64s, need %d", t.pkg, t.Table.Name, len(word), t.Table.Words())
	}
	return nil
}

// B2U is 1 for true and 0 for false: a bool field's value.
func B2U(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}
