package binaryrow

import (
	"fmt"

	"github.com/lakesql/lakesql/internal/schema"
)

// kind is how one value is laid out; several type roots share a layout but
// differ in their Go value type, so each gets its own kind.
type kind uint8

const (
	kBool kind = iota + 1
	kTinyInt
	kSmallInt
	kInt
	kDate
	kTime
	kBigInt
	kFloat
	kDouble
	kString
	kBinary
	kDecimalCompact
	kDecimalWide
	kTimestampCompact
	kTimestampWide
	kArray
	kMap
	kRow
)

// field is the precomputed encoding plan of one type.
type field struct {
	kind      kind
	root      schema.TypeRoot
	precision int
	scale     int
	// elemSize is the width of this type as a BinaryArray element
	// (BinaryArray.calculateFixLengthPartSize).
	elemSize int
	// elem is the element type of ARRAY; key/value of MAP and MULTISET.
	elem       *field
	key, value *field
	// fields of a ROW.
	fields []field
}

var multisetCount = field{kind: kInt, root: schema.TypeInt, elemSize: 4}

func newField(t *schema.DataType) (field, error) {
	f := field{root: t.Root, precision: t.Precision, scale: t.Scale, elemSize: 8}
	switch t.Root {
	case schema.TypeBoolean:
		f.kind, f.elemSize = kBool, 1
	case schema.TypeTinyInt:
		f.kind, f.elemSize = kTinyInt, 1
	case schema.TypeSmallInt:
		f.kind, f.elemSize = kSmallInt, 2
	case schema.TypeInt:
		f.kind, f.elemSize = kInt, 4
	case schema.TypeDate:
		f.kind, f.elemSize = kDate, 4
	case schema.TypeTime:
		f.kind, f.elemSize = kTime, 4
	case schema.TypeBigInt:
		f.kind = kBigInt
	case schema.TypeFloat:
		f.kind, f.elemSize = kFloat, 4
	case schema.TypeDouble:
		f.kind = kDouble
	case schema.TypeChar, schema.TypeVarChar:
		f.kind = kString
	case schema.TypeBinary, schema.TypeVarBinary:
		f.kind = kBinary
	case schema.TypeDecimal:
		if t.Precision < 1 || t.Precision > MaxDecimalPrecision || t.Scale < 0 || t.Scale > t.Precision {
			return f, fmt.Errorf("%w: DECIMAL(%d, %d)", ErrUnsupported, t.Precision, t.Scale)
		}
		f.kind = kDecimalWide
		if IsCompactDecimal(t.Precision) {
			f.kind = kDecimalCompact
		}
	case schema.TypeTimestamp, schema.TypeLocalZonedTimestamp:
		if t.Precision < 0 || t.Precision > 9 {
			return f, fmt.Errorf("%w: TIMESTAMP(%d)", ErrUnsupported, t.Precision)
		}
		f.kind = kTimestampWide
		if IsCompactTimestamp(t.Precision) {
			f.kind = kTimestampCompact
		}
	case schema.TypeArray:
		if t.Elem == nil {
			return f, fmt.Errorf("%w: ARRAY without element type", ErrUnsupported)
		}
		e, err := newField(t.Elem)
		if err != nil {
			return f, err
		}
		f.kind, f.elem = kArray, &e
	case schema.TypeMultiset:
		if t.Elem == nil {
			return f, fmt.Errorf("%w: MULTISET without element type", ErrUnsupported)
		}
		e, err := newField(t.Elem)
		if err != nil {
			return f, err
		}
		f.kind, f.key, f.value = kMap, &e, &multisetCount
	case schema.TypeMap:
		if t.Key == nil || t.Value == nil {
			return f, fmt.Errorf("%w: MAP without key or value type", ErrUnsupported)
		}
		k, err := newField(t.Key)
		if err != nil {
			return f, err
		}
		v, err := newField(t.Value)
		if err != nil {
			return f, err
		}
		f.kind, f.key, f.value = kMap, &k, &v
	case schema.TypeRow:
		fs, err := newFields(t.Fields, nil)
		if err != nil {
			return f, err
		}
		f.kind, f.fields = kRow, fs
	case schema.TypeVariant:
		return f, fmt.Errorf("%w: VARIANT in BinaryRow", ErrUnsupported)
	case schema.TypeBlob:
		return f, fmt.Errorf("%w: BLOB in BinaryRow", ErrUnsupported)
	default:
		return f, fmt.Errorf("%w: type root %d", ErrUnsupported, t.Root)
	}
	return f, nil
}

func newFields(dfs []schema.DataField, types []schema.DataType) ([]field, error) {
	n := len(types)
	if dfs != nil {
		n = len(dfs)
	}
	out := make([]field, n)
	for i := range out {
		t := (*schema.DataType)(nil)
		if dfs != nil {
			t = &dfs[i].Type
		} else {
			t = &types[i]
		}
		f, err := newField(t)
		if err != nil {
			return nil, fmt.Errorf("field %d: %w", i, err)
		}
		out[i] = f
	}
	return out, nil
}

// Codec encodes and decodes BinaryRows of one list of field types. It is
// immutable and safe for concurrent use.
type Codec struct {
	fields []field
}

// NewCodec builds the codec of rows with these field types (in field order).
// It fails with ErrUnsupported for VARIANT or BLOB fields (at any depth) and
// for invalid DECIMAL or TIMESTAMP precisions.
func NewCodec(types []schema.DataType) (*Codec, error) {
	fs, err := newFields(nil, types)
	if err != nil {
		return nil, err
	}
	return &Codec{fields: fs}, nil
}

// Arity is the number of fields.
func (c *Codec) Arity() int { return len(c.fields) }

// FixedPartSize is the size of the header and slots of this codec's rows.
func (c *Codec) FixedPartSize() int { return FixedPartSize(len(c.fields)) }
