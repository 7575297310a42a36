package datafile

import (
	"errors"
	"fmt"
	"io"

	"github.com/parquet-go/parquet-go/encoding"

	"github.com/lakesql/lakesql/internal/schema"
)

// Vector is one column of a Batch: Len values with validity. Exactly one
// value slice is used, chosen by the column's type:
//
//	BIGINT           Int64
//	INT              Int32
//	DOUBLE           Float64
//	CHAR, VARCHAR    Str
//	DECIMAL(p ≤ 18)  Int64 (the unscaled value, at the type's scale)
//	anything else    Any (the boxed value model, as FileReader.Next gives it)
//
// The typed slices hold the value of valid entries; an entry i is NULL when
// Nulls != nil && Nulls[i]. Typed vectors are what aggregates and an Arrow
// endpoint consume without boxing (an Int64 vector with Nulls maps onto an
// Arrow Int64 array's value and validity buffers); Value boxes one entry for
// the row path.
type Vector struct {
	Type    schema.DataType
	Len     int
	Nulls   []bool
	Int64   []int64
	Int32   []int32
	Float64 []float64
	Str     []string
	Any     []any
	// Dict, when not nil, is the dictionary of a string vector decoded
	// from one dictionary-encoded column chunk: every valid entry i is
	// Dict[Idx[i]] (aggregates group by the index). Reset and Set drop it.
	Dict []string
	Idx  []int32
}

// VectorKind names which value slice of a Vector a type uses.
type VectorKind uint8

// Vector kinds.
const (
	VectorAny VectorKind = iota
	VectorInt64
	VectorInt32
	VectorFloat64
	VectorString
	VectorDecimal64 // DECIMAL of precision ≤ 18: unscaled values in Int64
)

// KindOf is the vector kind of type t.
func KindOf(t *schema.DataType) VectorKind {
	switch t.Root {
	case schema.TypeBigInt:
		return VectorInt64
	case schema.TypeInt:
		return VectorInt32
	case schema.TypeDouble:
		return VectorFloat64
	case schema.TypeChar, schema.TypeVarChar:
		return VectorString
	case schema.TypeDecimal:
		if t.Precision <= 18 {
			return VectorDecimal64
		}
	}
	return VectorAny
}

// Kind is the vector kind of v's type.
func (v *Vector) Kind() VectorKind { return KindOf(&v.Type) }

// IsNull reports whether entry i is NULL.
func (v *Vector) IsNull(i int) bool {
	if v.Nulls != nil && v.Nulls[i] {
		return true
	}
	return v.Kind() == VectorAny && v.Any[i] == nil
}

// Value returns entry i in the value model (nil for NULL).
func (v *Vector) Value(i int) any {
	if v.Nulls != nil && v.Nulls[i] {
		return nil
	}
	switch v.Kind() {
	case VectorInt64:
		return v.Int64[i]
	case VectorInt32:
		return v.Int32[i]
	case VectorFloat64:
		return v.Float64[i]
	case VectorString:
		return v.Str[i]
	case VectorDecimal64:
		return schema.Decimal{Compact: v.Int64[i], Scale: int32(v.Type.Scale)}
	}
	return v.Any[i]
}

// Reset empties v for n entries of type t, reusing its buffers; the values
// are zero and valid.
func (v *Vector) Reset(t schema.DataType, n int) {
	v.Type, v.Len = t, n
	v.Nulls = nil
	v.Dict = nil
	switch KindOf(&t) {
	case VectorInt64, VectorDecimal64:
		v.Int64 = grow(v.Int64, n)
	case VectorInt32:
		v.Int32 = grow(v.Int32, n)
	case VectorFloat64:
		v.Float64 = grow(v.Float64, n)
	case VectorString:
		v.Str = grow(v.Str, n)
	default:
		v.Any = grow(v.Any, n)
	}
}

// SetNull marks entry i NULL.
func (v *Vector) SetNull(i int) {
	if v.Nulls == nil {
		v.Nulls = make([]bool, v.Len)
	}
	v.Nulls[i] = true
	if v.Kind() == VectorAny {
		v.Any[i] = nil
	}
}

// Set stores a value-model value (nil is NULL) at entry i. A value of the
// wrong Go type is an error wrapping ErrTypeMismatch.
func (v *Vector) Set(i int, x any) error {
	if x == nil {
		v.SetNull(i)
		return nil
	}
	v.Dict = nil
	ok := true
	switch v.Kind() {
	case VectorInt64:
		v.Int64[i], ok = x.(int64)
	case VectorInt32:
		v.Int32[i], ok = x.(int32)
	case VectorFloat64:
		v.Float64[i], ok = x.(float64)
	case VectorString:
		v.Str[i], ok = x.(string)
	case VectorDecimal64:
		var d schema.Decimal
		if d, ok = x.(schema.Decimal); ok {
			if d.Big != nil || int(d.Scale) != v.Type.Scale {
				return fmt.Errorf("%w: DECIMAL value %v of scale %d in a %s vector", ErrTypeMismatch, x, d.Scale, typeName(v.Type))
			}
			v.Int64[i] = d.Compact
		}
	default:
		v.Any[i] = x
	}
	if !ok {
		return fmt.Errorf("%w: %T value in a %s vector", ErrTypeMismatch, x, typeName(v.Type))
	}
	if v.Nulls != nil {
		v.Nulls[i] = false
	}
	return nil
}

func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// Batch is a run of consecutive rows in columns. Vectors are owned by the
// batch and reused by the next fill: a consumer that keeps values copies
// them (strings and Any values may be kept; they are never overwritten).
type Batch struct {
	Cols []Vector
	Len  int
	// FirstRow is the file position of row 0 (deletion vectors).
	FirstRow int64
	// Sel, when not nil, lists the rows of the batch that remain (after
	// deletion vectors and filters), increasing; nil means all Len rows.
	Sel []int32
}

// Rows returns the number of rows that remain (len(Sel), or Len).
func (b *Batch) Rows() int {
	if b.Sel != nil {
		return len(b.Sel)
	}
	return b.Len
}

// Reset sizes b for n rows of the given column types.
func (b *Batch) Reset(types []schema.DataType, n int) {
	if cap(b.Cols) < len(types) {
		b.Cols = make([]Vector, len(types))
	}
	b.Cols = b.Cols[:len(types)]
	for i := range types {
		b.Cols[i].Reset(types[i], n)
	}
	b.Len = n
	b.Sel = nil
}

// Row boxes row i into dst (one value per column).
func (b *Batch) Row(i int, dst []any) {
	for c := range b.Cols {
		dst[c] = b.Cols[c].Value(i)
	}
}

// NextBatch fills b with up to max consecutive rows of the selected row
// groups (never crossing a row group), one vector per requested column in
// the order of the columns passed to OpenParquet. It returns io.EOF, with
// b.Len == 0, at the end. BIGINT, INT, DOUBLE and string columns are decoded
// from the Parquet pages straight into typed vectors; other columns go
// through the row decoder.
func (r *ParquetReader) NextBatch(b *Batch, max int) (err error) {
	if r.err != nil {
		return r.err
	}
	if r.closed {
		return fmt.Errorf("datafile: read after Close")
	}
	defer func() {
		if err != nil && !errors.Is(err, io.EOF) {
			r.err = err
		}
	}()
	defer recoverCorrupt(&err)
	r.started = true
	if r.batch > 0 && max > r.batch {
		max = r.batch
	}
	b.Len = 0
	if max <= 0 {
		return nil
	}
	for r.cur < 0 || r.left == 0 {
		if r.gi >= len(r.groups) {
			r.stopGroup()
			return io.EOF
		}
		r.startGroup(r.groups[r.gi])
		r.gi++
	}
	k := int(min(int64(max), r.left))
	if r.colTypes == nil {
		r.colTypes = make([]schema.DataType, len(r.cols))
		for i := range r.cols {
			r.colTypes[i] = r.cols[i].Type
		}
	}
	b.Reset(r.colTypes, k)
	b.FirstRow = r.pos
	for i, p := range r.plans {
		if p.kind == planAbsent {
			for j := range k {
				b.Cols[i].SetNull(j)
			}
		}
	}
	for _, c := range r.flats {
		if err := c.fillVector(&b.Cols[c.out], k); err != nil {
			return r.ra.wrap("read column "+c.conv.name, err)
		}
	}
	if len(r.nested) > 0 {
		// Nested columns assemble whole values: decode them row-wise into
		// scratch rows, then move them into their Any vectors.
		if cap(r.scratch) < k {
			r.scratch = make([][]any, k)
		}
		rows := r.scratch[:k]
		for j := range rows {
			if cap(rows[j]) < len(r.cols) {
				rows[j] = make([]any, len(r.cols))
			}
			rows[j] = rows[j][:len(r.cols)]
		}
		for _, c := range r.nested {
			if err := c.fill(rows); err != nil {
				return r.ra.wrap("read column "+r.cols[c.out].Name, err)
			}
			vec := &b.Cols[c.out]
			for j, row := range rows {
				if err := vec.Set(j, row[c.out]); err != nil {
					return err
				}
				row[c.out] = nil
			}
		}
	}
	r.left -= int64(k)
	r.pos += int64(k)
	b.Len = k
	return nil
}

// fillVector decodes the next k rows of the column into vec.
func (c *flatCursor) fillVector(vec *Vector, k int) error {
	kind := vec.Kind()
	typed := kind != VectorAny && c.conv.typedKind() == kind && (kind != VectorDecimal64 || int(c.conv.scale) == vec.Type.Scale)
	// dict stays the one dictionary every run of a string column came
	// from (then the vector carries it and the indexes), nil otherwise.
	var dict []string
	dictRuns := kind == VectorString && typed
	err := c.runs(k, func(done, m int, defs []byte, nn int) error {
		if typed && c.pv.idx == nil {
			dictRuns = false
			return c.readTyped(vec, kind, done, defs, nn)
		}
		if typed {
			if err := c.readTypedDict(vec, kind, done, defs, nn); err != nil {
				return err
			}
			if dictRuns {
				switch {
				case dict == nil:
					dict = c.dict.str
				case len(dict) != len(c.dict.str) || len(dict) > 0 && &dict[0] != &c.dict.str[0]:
					dictRuns = false
				}
			}
			return nil
		}
		if cap(c.buf) < nn {
			c.buf = make([]any, nn)
		}
		vals := c.buf[:nn]
		if err := c.pv.read(c.vi, vals, c.conv, &c.dict); err != nil {
			return err
		}
		v := 0
		for j := range m {
			if defs != nil && defs[j] != c.maxDef {
				vec.SetNull(done + j)
				continue
			}
			if err := vec.Set(done+j, vals[v]); err != nil {
				return fmt.Errorf("column %s: %w", c.conv.name, err)
			}
			v++
		}
		clear(vals)
		return nil
	})
	if err == nil && dictRuns && dict != nil {
		vec.Dict = dict
	}
	return err
}

// readTypedDict copies nn dictionary-encoded values from the page into vec
// at [at, at+len(defs) or nn), spreading them over the non-NULL entries; a
// string vector also gets each entry's dictionary index in Idx.
func (c *flatCursor) readTypedDict(vec *Vector, kind VectorKind, at int, defs []byte, nn int) error {
	if nn == 0 {
		for j := range defs {
			vec.SetNull(at + j)
		}
		return nil
	}
	from := c.vi
	if from < 0 || from+nn > c.pv.nvals {
		return fmt.Errorf("%w: column %s: page has %d values, %d needed", ErrCorrupt, c.conv.name, c.pv.nvals, from+nn)
	}
	if err := c.dict.loadTyped(kind); err != nil {
		return fmt.Errorf("column %s: %w", c.conv.name, err)
	}
	idx := c.pv.idx[from : from+nn]
	switch kind {
	case VectorInt64, VectorDecimal64:
		return gatherDict(vec, at, defs, c.maxDef, idx, c.dict.i64, vec.Int64, c.conv.name)
	case VectorInt32:
		return gatherDict(vec, at, defs, c.maxDef, idx, c.dict.i32, vec.Int32, c.conv.name)
	case VectorFloat64:
		return gatherDict(vec, at, defs, c.maxDef, idx, c.dict.f64, vec.Float64, c.conv.name)
	case VectorString:
		if len(vec.Idx) != vec.Len {
			vec.Idx = grow(vec.Idx, vec.Len)
		}
		if defs == nil {
			copy(vec.Idx[at:], idx)
		} else {
			v := 0
			for j, d := range defs {
				if d == c.maxDef {
					vec.Idx[at+j] = idx[v]
					v++
				}
			}
		}
		return gatherDict(vec, at, defs, c.maxDef, idx, c.dict.str, vec.Str, c.conv.name)
	}
	return nil
}

// gatherDict writes dict[idx[v]] over dst[at:], one value per defined entry of
// defs (all entries when defs is nil), marking the others NULL.
func gatherDict[T any](vec *Vector, at int, defs []byte, maxDef byte, idx []int32, dict, dst []T, name string) error {
	if defs == nil {
		out := dst[at : at+len(idx)]
		for j, x := range idx {
			if uint(x) >= uint(len(dict)) {
				return fmt.Errorf("%w: column %s: dictionary index %d out of %d entries", ErrCorrupt, name, x, len(dict))
			}
			out[j] = dict[x]
		}
		return nil
	}
	v := 0
	for j, d := range defs {
		if d != maxDef {
			vec.SetNull(at + j)
			continue
		}
		x := idx[v]
		v++
		if uint(x) >= uint(len(dict)) {
			return fmt.Errorf("%w: column %s: dictionary index %d out of %d entries", ErrCorrupt, name, x, len(dict))
		}
		dst[at+j] = dict[x]
	}
	return nil
}

// typedKind is the vector kind the converter produces without a change of
// representation (physical INT64 → BIGINT, INT32 → INT, DOUBLE → DOUBLE,
// BYTE_ARRAY → STRING, INT64 → DECIMAL unscaled), or VectorAny.
func (c *leafConv) typedKind() VectorKind {
	switch c.kind {
	case convInt64:
		return VectorInt64
	case convInt32:
		return VectorInt32
	case convDouble:
		return VectorFloat64
	case convStringBytes:
		return VectorString
	case convDecimalInt64:
		return VectorDecimal64
	}
	return VectorAny
}

// readTyped copies nn plain-encoded values from the page into vec at
// [at, at+len(defs) or nn), spreading them over the non-NULL entries.
func (c *flatCursor) readTyped(vec *Vector, kind VectorKind, at int, defs []byte, nn int) error {
	v := c.pv.data
	if nn == 0 {
		for j := range defs {
			vec.SetNull(at + j)
		}
		return nil
	}
	if v.Kind() != encoding.Kind(c.conv.phys)+1 {
		return fmt.Errorf("%w: column %s: page holds %s values, schema says %s", ErrCorrupt, c.conv.name, v.Kind(), c.conv.phys)
	}
	from := c.vi
	if from < 0 || from+nn > c.pv.nvals {
		return fmt.Errorf("%w: column %s: page has %d values, %d needed", ErrCorrupt, c.conv.name, c.pv.nvals, from+nn)
	}
	switch kind {
	case VectorInt64, VectorDecimal64:
		spread(vec, at, defs, c.maxDef, v.Int64()[from:from+nn], vec.Int64)
	case VectorInt32:
		spread(vec, at, defs, c.maxDef, v.Int32()[from:from+nn], vec.Int32)
	case VectorFloat64:
		spread(vec, at, defs, c.maxDef, v.Double()[from:from+nn], vec.Float64)
	case VectorString:
		data, offs := v.ByteArray()
		lo, hi := offs[from], offs[from+nn]
		if lo > hi || int(hi) > len(data) {
			return fmt.Errorf("%w: column %s: byte array offsets out of range", ErrCorrupt, c.conv.name)
		}
		// One copy for the whole run: page buffers are released and reused.
		arena := make([]byte, hi-lo)
		copy(arena, data[lo:hi])
		str := func(i int) (string, error) {
			a, b := offs[from+i]-lo, offs[from+i+1]-lo
			if a > b || int(b) > len(arena) {
				return "", fmt.Errorf("%w: column %s: byte array offsets out of order", ErrCorrupt, c.conv.name)
			}
			return bytesToString(arena[a:b]), nil
		}
		// Straight into the vector, spread over the non-NULL entries.
		v := 0
		for j := range max(len(defs), nn) {
			if defs != nil && defs[j] != c.maxDef {
				vec.SetNull(at + j)
				continue
			}
			s, err := str(v)
			if err != nil {
				return err
			}
			vec.Str[at+j] = s
			v++
		}
	}
	return nil
}

// spread writes src over dst[at:], one value per defined entry of defs
// (all entries when defs is nil), marking the others NULL.
func spread[T any](vec *Vector, at int, defs []byte, maxDef byte, src, dst []T) {
	if defs == nil {
		copy(dst[at:], src)
		return
	}
	v := 0
	for j, d := range defs {
		if d == maxDef {
			dst[at+j] = src[v]
			v++
		} else {
			vec.SetNull(at + j)
		}
	}
}

// Box writes entries [0, len(dst)) of v into dst in the value model (nil for
// NULL). Typed entries are copied to a fresh slice and boxed in place (one
// allocation per call, not one per value), so dst stays valid after v is
// reused.
func (v *Vector) Box(dst []any) {
	n := len(dst)
	switch v.Kind() {
	case VectorInt64:
		boxSlice(append([]int64(nil), v.Int64[:n]...), dst)
	case VectorInt32:
		boxSlice(append([]int32(nil), v.Int32[:n]...), dst)
	case VectorFloat64:
		boxSlice(append([]float64(nil), v.Float64[:n]...), dst)
	case VectorString:
		boxSlice(append([]string(nil), v.Str[:n]...), dst)
	case VectorDecimal64:
		scale := int32(v.Type.Scale)
		boxSlice(mapSlice(v.Int64[:n], func(x int64) schema.Decimal { return schema.Decimal{Compact: x, Scale: scale} }), dst)
	default:
		copy(dst, v.Any[:n])
	}
	if v.Nulls != nil {
		for i, null := range v.Nulls[:n] {
			if null {
				dst[i] = nil
			}
		}
	}
}
