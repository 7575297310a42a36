package manifest

import (
	"fmt"

	"github.com/hamba/avro/v2"
)

// This file resolves a file's writer schema against the Go records of this
// package by field name, as Java Paimon does (paimon-format.md §4.1): it
// compiles the writer schema into a list of field operations, each either
// storing a value into the Go record or skipping a field unknown to Go.
// Missing Go fields stay zero; ["null", X] unions are accepted wherever X is
// expected.

// reader decodes one value of a writer schema; ok is false for an Avro null.
type reader[V any] func(d *dec) (v V, ok bool)

// fieldOp decodes one writer field into the record under construction.
type fieldOp[T any] func(d *dec, t *T)

// fieldSpec compiles the operation for a known field from its writer type.
type fieldSpec[T any] func(name string, w avro.Schema) (fieldOp[T], error)

// recordSpec describes a Go record: its known fields and the ones a file
// must contain.
type recordSpec[T any] struct {
	fields   map[string]fieldSpec[T]
	required []string
}

// unionOf accepts w itself or a union of w with null (any branch order;
// every non-null branch must be compatible).
func unionOf[V any](w avro.Schema, base func(avro.Schema) (reader[V], error)) (reader[V], error) {
	u, ok := w.(*avro.UnionSchema)
	if !ok {
		return base(w)
	}
	types := u.Types()
	branches := make([]reader[V], len(types))
	for i, bt := range types {
		if bt.Type() == avro.Null {
			continue
		}
		r, err := base(bt)
		if err != nil {
			return nil, err
		}
		branches[i] = r
	}
	return func(d *dec) (V, bool) {
		var zero V
		i := d.long()
		if d.err != nil {
			return zero, false
		}
		if i < 0 || i >= int64(len(branches)) {
			d.fail("union branch %d out of range", i)
			return zero, false
		}
		if branches[i] == nil {
			return zero, false
		}
		return branches[i](d)
	}, nil
}

func typeErr(w avro.Schema, want string) error {
	return fmt.Errorf("writer type %s where %s is expected", w.Type(), want)
}

func intReader(w avro.Schema) (reader[int32], error) {
	if w.Type() != avro.Int {
		return nil, typeErr(w, "int")
	}
	return func(d *dec) (int32, bool) { return d.int(), true }, nil
}

func longReader(w avro.Schema) (reader[int64], error) {
	switch w.Type() {
	case avro.Long, avro.Int: // int promotes to long
		return func(d *dec) (int64, bool) { return d.long(), true }, nil
	}
	return nil, typeErr(w, "long")
}

func stringReader(w avro.Schema) (reader[string], error) {
	switch w.Type() {
	case avro.String, avro.Bytes: // bytes promotes to string
		return func(d *dec) (string, bool) { return d.str(), true }, nil
	}
	return nil, typeErr(w, "string")
}

func bytesReader(w avro.Schema) (reader[[]byte], error) {
	switch w.Type() {
	case avro.Bytes, avro.String: // string promotes to bytes
		return func(d *dec) ([]byte, bool) { return d.rawBytes(), true }, nil
	}
	return nil, typeErr(w, "bytes")
}

// arrayReader reads an array whose items are read by elem. A null item is an
// error. The result is non-nil (empty for an empty array).
func arrayReader[V any](elem func(avro.Schema) (reader[V], error), nullItems bool) func(avro.Schema) (reader[[]V], error) {
	return func(w avro.Schema) (reader[[]V], error) {
		a, ok := w.(*avro.ArraySchema)
		if !ok {
			return nil, typeErr(w, "array")
		}
		items := a.Items()
		er, err := unionOf(items, elem)
		if err != nil {
			return nil, err
		}
		minSize := max(minEncodedSize(items), 1)
		return func(d *dec) ([]V, bool) {
			out := []V{}
			for {
				n := d.blockCount(minSize)
				if n == 0 || d.err != nil {
					return out, true
				}
				out = growTo(out, len(out)+n)
				for range n {
					v, ok := er(d)
					if d.err != nil {
						return out, true
					}
					if !ok && !nullItems {
						d.fail("null array item")
						return out, true
					}
					out = append(out, v)
				}
			}
		}, nil
	}
}

func growTo[V any](s []V, n int) []V {
	if cap(s) >= n {
		return s
	}
	t := make([]V, len(s), n)
	copy(t, s)
	return t
}

// nullableLongArrayReader reads an array of ["null","long"] into []*int64.
func nullableLongArrayReader(w avro.Schema) (reader[[]*int64], error) {
	a, ok := w.(*avro.ArraySchema)
	if !ok {
		return nil, typeErr(w, "array")
	}
	er, err := unionOf(a.Items(), longReader)
	if err != nil {
		return nil, err
	}
	return func(d *dec) ([]*int64, bool) {
		out := []*int64{}
		for {
			n := d.blockCount(1)
			if n == 0 || d.err != nil {
				return out, true
			}
			out = growTo(out, len(out)+n)
			// One backing array per block for the non-null values.
			vals := make([]int64, n)
			for i := range n {
				v, ok := er(d)
				if d.err != nil {
					return out, true
				}
				if ok {
					vals[i] = v
					out = append(out, &vals[i])
				} else {
					out = append(out, nil)
				}
			}
		}
	}, nil
}

// recordReader compiles spec against the writer record schema w.
func recordReader[T any](spec *recordSpec[T]) func(avro.Schema) (reader[T], error) {
	return func(w avro.Schema) (reader[T], error) {
		rs, ok := w.(*avro.RecordSchema)
		if !ok {
			return nil, typeErr(w, "record")
		}
		ops := make([]fieldOp[T], 0, len(rs.Fields()))
		seen := make(map[string]bool, len(rs.Fields()))
		for _, f := range rs.Fields() {
			seen[f.Name()] = true
			if fs, ok := spec.fields[f.Name()]; ok {
				op, err := fs(f.Name(), f.Type())
				if err != nil {
					return nil, fmt.Errorf("field %s of %s: %w", f.Name(), rs.FullName(), err)
				}
				ops = append(ops, op)
				continue
			}
			sk, err := skipper(f.Type(), 0)
			if err != nil {
				return nil, fmt.Errorf("field %s of %s: %w", f.Name(), rs.FullName(), err)
			}
			ops = append(ops, func(d *dec, _ *T) { sk(d) })
		}
		for _, r := range spec.required {
			if !seen[r] {
				return nil, fmt.Errorf("record %s lacks required field %s", rs.FullName(), r)
			}
		}
		return func(d *dec) (T, bool) {
			var t T
			for _, op := range ops {
				op(d, &t)
				if d.err != nil {
					break
				}
			}
			return t, true
		}, nil
	}
}

// field builds a fieldSpec from a value reader and a setter. A null value is
// an error for required fields and leaves the Go field zero otherwise.
func field[T, V any](base func(avro.Schema) (reader[V], error), nullable bool, set func(t *T, v V) error) fieldSpec[T] {
	return func(name string, w avro.Schema) (fieldOp[T], error) {
		r, err := unionOf(w, base)
		if err != nil {
			return nil, err
		}
		return func(d *dec, t *T) {
			v, ok := r(d)
			if d.err != nil {
				return
			}
			if !ok {
				if !nullable {
					d.fail("null value in NOT NULL field %s", name)
				}
				return
			}
			if err := set(t, v); err != nil {
				d.fail("field %s: %v", name, err)
			}
		}, nil
	}
}

// skipper compiles a decoder that skips a value of writer type w.
func skipper(w avro.Schema, depth int) (func(d *dec), error) {
	if depth > 32 {
		return nil, fmt.Errorf("%w: schema nested deeper than 32 levels", ErrUnsupported)
	}
	switch s := w.(type) {
	case *avro.NullSchema:
		return func(*dec) {}, nil
	case *avro.PrimitiveSchema:
		switch s.Type() {
		case avro.Boolean:
			return func(d *dec) { d.skip(1) }, nil
		case avro.Int, avro.Long:
			return func(d *dec) { d.long() }, nil
		case avro.Float:
			return func(d *dec) { d.skip(4) }, nil
		case avro.Double:
			return func(d *dec) { d.skip(8) }, nil
		case avro.String, avro.Bytes:
			return func(d *dec) { d.skip(d.length()) }, nil
		}
	case *avro.FixedSchema:
		n := s.Size()
		return func(d *dec) { d.skip(n) }, nil
	case *avro.EnumSchema:
		return func(d *dec) { d.long() }, nil
	case *avro.RecordSchema:
		var subs []func(*dec)
		for _, f := range s.Fields() {
			sk, err := skipper(f.Type(), depth+1)
			if err != nil {
				return nil, err
			}
			subs = append(subs, sk)
		}
		return func(d *dec) {
			for _, sk := range subs {
				sk(d)
			}
		}, nil
	case *avro.UnionSchema:
		var subs []func(*dec)
		for _, t := range s.Types() {
			sk, err := skipper(t, depth+1)
			if err != nil {
				return nil, err
			}
			subs = append(subs, sk)
		}
		return func(d *dec) {
			i := d.long()
			if d.err != nil {
				return
			}
			if i < 0 || i >= int64(len(subs)) {
				d.fail("union branch %d out of range", i)
				return
			}
			subs[i](d)
		}, nil
	case *avro.ArraySchema:
		return blockSkipper(s.Items(), 0, depth)
	case *avro.MapSchema:
		return blockSkipper(s.Values(), 1, depth)
	}
	return nil, fmt.Errorf("%w: cannot skip Avro type %s", ErrUnsupported, w.Type())
}

// blockSkipper skips an array (keyBytes 0) or map (keyBytes 1: each item has
// a string key) of items of type items.
func blockSkipper(items avro.Schema, keyBytes, depth int) (func(d *dec), error) {
	sk, err := skipper(items, depth+1)
	if err != nil {
		return nil, err
	}
	minSize := minEncodedSize(items) + keyBytes
	if minSize < 1 {
		return nil, fmt.Errorf("%w: array of zero-size items (%s)", ErrUnsupported, items.Type())
	}
	return func(d *dec) {
		for d.err == nil {
			n := d.blockCount(minSize)
			if n == 0 {
				return
			}
			for range n {
				if keyBytes > 0 {
					d.skip(d.length())
				}
				sk(d)
				if d.err != nil {
					return
				}
			}
		}
	}, nil
}

// minEncodedSize is the fewest bytes a value of type w takes.
func minEncodedSize(w avro.Schema) int {
	switch s := w.(type) {
	case *avro.NullSchema:
		return 0
	case *avro.PrimitiveSchema:
		switch s.Type() {
		case avro.Float:
			return 4
		case avro.Double:
			return 8
		}
		return 1
	case *avro.FixedSchema:
		return s.Size()
	case *avro.RecordSchema:
		n := 0
		for _, f := range s.Fields() {
			n += minEncodedSize(f.Type())
			if n > 1<<20 {
				return n
			}
		}
		return n
	}
	return 1 // enum, union, array, map: at least one varint byte
}
