package datafile

import (
	"fmt"
	"math"
	"math/big"
	"reflect"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	"github.com/parquet-go/parquet-go/deprecated"
	"github.com/parquet-go/parquet-go/encoding"
	"github.com/parquet-go/parquet-go/format"

	"github.com/lakesql/lakesql/internal/schema"
)

// The Parquet schema a writer produces mirrors
// org.apache.paimon.format.parquet.ParquetSchemaConverter (1.3): message
// paimon_schema, one field per column with field_id = the Paimon field id,
// REQUIRED/OPTIONAL from nullability, the logical (and legacy converted)
// annotations parquet-mr writes, 3-level LIST, MAP with a repeated key_value
// group and REQUIRED keys.
//
// parquet.Group sorts its fields by name, so the writer builds its own
// ordered nodes instead.

// MessageName is the name of the root of the Parquet schema of Paimon data
// files.
const MessageName = "paimon_schema"

// Field ids Paimon gives the nested fields of ARRAY and MAP columns
// (org.apache.paimon.table.SpecialFields).
const (
	structuredTypeFieldIDBase = 536870911 // Integer.MAX_VALUE / 4
	structuredTypeFieldIDStep = 1024
)

// listElementFieldID is the field id of the element of an ARRAY (or the value
// of a MAP) whose own field id is id, at nesting depth depth (1 for a
// top-level column).
func listElementFieldID(id, depth int) int {
	return structuredTypeFieldIDBase + id*structuredTypeFieldIDStep + depth
}

// mapKeyFieldID is the field id of the key of a MAP whose own field id is id.
func mapKeyFieldID(id, depth int) int {
	return structuredTypeFieldIDBase - id*structuredTypeFieldIDStep - depth
}

// pqField is an ordered parquet-go schema node (leaf or group) with a name.
type pqField struct {
	name     string
	id       int
	rep      format.FieldRepetitionType
	typ      parquet.Type // leaf type, or an annotated group type
	enc      encoding.Encoding
	children []parquet.Field
}

var _ parquet.Field = (*pqField)(nil)

func (n *pqField) Name() string                      { return n.name }
func (n *pqField) Value(reflect.Value) reflect.Value { return reflect.Value{} }
func (n *pqField) ID() int                           { return n.id }
func (n *pqField) Type() parquet.Type                { return n.typ }
func (n *pqField) Optional() bool                    { return n.rep == format.Optional }
func (n *pqField) Repeated() bool                    { return n.rep == format.Repeated }
func (n *pqField) Required() bool                    { return n.rep == format.Required }
func (n *pqField) Leaf() bool                        { return n.children == nil }
func (n *pqField) Fields() []parquet.Field           { return n.children }
func (n *pqField) Encoding() encoding.Encoding       { return n.enc }
func (n *pqField) Compression() compress.Codec       { return nil }
func (n *pqField) String() string                    { return n.name }
func (n *pqField) GoType() reflect.Type              { return goTypeOf(n) }

// goTypeOf is only used by parquet-go's reflection paths, which the writer
// does not take; it still answers sensibly.
func goTypeOf(n *pqField) reflect.Type {
	var t reflect.Type
	if n.children != nil {
		t = reflect.TypeFor[map[string]any]()
	} else {
		switch n.typ.Kind() {
		case parquet.Boolean:
			t = reflect.TypeFor[bool]()
		case parquet.Int32:
			t = reflect.TypeFor[int32]()
		case parquet.Int64:
			t = reflect.TypeFor[int64]()
		case parquet.Int96:
			t = reflect.TypeFor[deprecated.Int96]()
		case parquet.Float:
			t = reflect.TypeFor[float32]()
		case parquet.Double:
			t = reflect.TypeFor[float64]()
		default:
			t = reflect.TypeFor[[]byte]()
		}
	}
	switch n.rep {
	case format.Optional:
		return reflect.PointerTo(t)
	case format.Repeated:
		return reflect.SliceOf(t)
	}
	return t
}

// annotatedType is a parquet-go physical type carrying exactly the logical
// and converted annotations parquet-mr writes for a Paimon type.
type annotatedType struct {
	parquet.Type
	logical   *format.LogicalType
	converted *deprecated.ConvertedType
}

func (t *annotatedType) LogicalType() *format.LogicalType         { return t.logical }
func (t *annotatedType) ConvertedType() *deprecated.ConvertedType { return t.converted }

// Length is only set for FIXED_LEN_BYTE_ARRAY: parquet-go would otherwise
// write the bit width of numeric types as type_length, which parquet-mr
// never does.
func (t *annotatedType) Length() int {
	if t.Type == groupType || t.Type.Kind() != parquet.FixedLenByteArray {
		return 0
	}
	return t.Type.Length()
}

func annotate(base parquet.Type, lt format.LogicalTypeValue, ct deprecated.ConvertedType, hasCT bool) parquet.Type {
	a := &annotatedType{Type: base}
	if lt != nil {
		a.logical = &format.LogicalType{Value: lt}
	}
	if hasCT {
		c := ct
		a.converted = &c
	}
	return a
}

// groupType is the type of group nodes (parquet-go's own group type, reached
// through an empty parquet.Group).
var groupType = parquet.Group{}.Type()

// decimalBytes is the FIXED_LEN_BYTE_ARRAY length of a DECIMAL of the given
// precision (ParquetSchemaConverter.computeMinBytesForDecimalPrecision).
func decimalBytes(precision int) int {
	n := 1
	for math.Pow(2, float64(8*n-1)) < math.Pow(10, float64(precision)) {
		n++
	}
	return n
}

// maxDecimalPrecision is the largest DECIMAL precision Paimon supports.
const maxDecimalPrecision = 38

// leafKind says how values of the value model become Parquet values.
type leafKind uint8

const (
	leafBool leafKind = iota + 1
	leafInt8
	leafInt16
	leafInt32
	leafInt64
	leafFloat
	leafDouble
	leafDecimal32
	leafDecimal64
	leafDecimalFixed
	leafString
	leafBinary
	leafDate
	leafTime
	leafTimestampMillis
	leafTimestampMicros
	leafTimestampInt96
)

// wnode is a node of the write plan: one per Paimon field (and per nested
// element, key, value and row field).
type wnode struct {
	path     string // column path for errors, e.g. f3.element.x
	t        schema.DataType
	optional bool
	// def is the definition level reached when this node is present.
	def int
	// rep is the repetition level of the repeated group under an ARRAY or
	// MAP node (its elements' level).
	rep int
	// kind of a leaf; 0 for groups.
	kind leafKind
	leaf int // leaf column index of a leaf
	// scale and width of decimals; pow is 10^precision for DECIMAL(p>18)
	// overflow checks.
	scale  int32
	prec   int
	width  int
	limit  *big.Int
	nested []*wnode // ROW fields; ARRAY [element]; MAP/MULTISET [key, value]
	// leaves [lo, hi) below this node, for NULL propagation.
	lo, hi int
}

// planBuilder turns Paimon columns into Parquet nodes and the write plan.
type planBuilder struct {
	leaves []*wnode
	// fields are the Parquet nodes of leaves, index for index: a writer
	// picks each flat leaf's encoding (dictionary or PLAIN, writer_dict.go)
	// before it builds the Parquet schema from them.
	fields []*pqField
}

func (b *planBuilder) column(c Column) (*pqField, *wnode, error) {
	if c.Name == "" {
		return nil, nil, fmt.Errorf("%w: column with field id %d has no name", ErrInvalidSchema, c.ID)
	}
	return b.field(c.Name, c.ID, c.ID, c.Type, c.Type.Nullable, nil, 0, 0, 1, c.Name)
}

// field builds the node of one field with Parquet field id id. base is the
// id of the nearest enclosing Paimon DataField and depth the ARRAY/MAP
// nesting depth below it (1 for the field's own elements), as the
// element/key/value id formulas use them: an ARRAY key of MAP field 9 has
// elements with id 536870911 + 9*1024 + 2.
func (b *planBuilder) field(name string, id, base int, t schema.DataType, nullable bool, parentPath []string, def, rep, depth int, path string) (*pqField, *wnode, error) {
	n := &pqField{name: name, id: id, rep: format.Required}
	w := &wnode{path: path, t: t, optional: nullable, def: def, rep: rep}
	if nullable {
		n.rep = format.Optional
		w.def++
	}
	colPath := append(append([]string(nil), parentPath...), name)
	w.lo = len(b.leaves)
	switch t.Root {
	case schema.TypeArray:
		if t.Elem == nil {
			return nil, nil, fmt.Errorf("%w: column %s: ARRAY without element type", ErrInvalidSchema, path)
		}
		w.rep = rep + 1
		elem, we, err := b.field("element", listElementFieldID(base, depth), base, *t.Elem, t.Elem.Nullable,
			append(colPath, "list"), w.def+1, w.rep, depth+1, path+".element")
		if err != nil {
			return nil, nil, err
		}
		list := &pqField{name: "list", rep: format.Repeated, typ: groupType, children: []parquet.Field{elem}}
		n.typ = annotate(groupType, &format.ListType{}, deprecated.List, true)
		n.children = []parquet.Field{list}
		w.nested = []*wnode{we}
	case schema.TypeMap, schema.TypeMultiset:
		var kt, vt schema.DataType
		if t.Root == schema.TypeMap {
			if t.Key == nil || t.Value == nil {
				return nil, nil, fmt.Errorf("%w: column %s: MAP without key or value type", ErrInvalidSchema, path)
			}
			kt, vt = *t.Key, *t.Value
		} else {
			if t.Elem == nil {
				return nil, nil, fmt.Errorf("%w: column %s: MULTISET without element type", ErrInvalidSchema, path)
			}
			kt, vt = *t.Elem, schema.DataType{Root: schema.TypeInt}
		}
		// Parquet keys are never null: Paimon forces them NOT NULL.
		kt.Nullable = false
		w.rep = rep + 1
		kvPath := append(colPath, "key_value")
		key, wk, err := b.field("key", mapKeyFieldID(base, depth), base, kt, false, kvPath, w.def+1, w.rep, depth+1, path+".key")
		if err != nil {
			return nil, nil, err
		}
		val, wv, err := b.field("value", listElementFieldID(base, depth), base, vt, vt.Nullable, kvPath, w.def+1, w.rep, depth+1, path+".value")
		if err != nil {
			return nil, nil, err
		}
		kv := &pqField{name: "key_value", rep: format.Repeated,
			typ: annotate(groupType, nil, deprecated.MapKeyValue, true), children: []parquet.Field{key, val}}
		n.typ = annotate(groupType, &format.MapType{}, deprecated.Map, true)
		n.children = []parquet.Field{kv}
		w.nested = []*wnode{wk, wv}
	case schema.TypeRow:
		if len(t.Fields) == 0 {
			return nil, nil, fmt.Errorf("%w: column %s: ROW without fields", ErrInvalidSchema, path)
		}
		n.typ = groupType
		n.children = make([]parquet.Field, 0, len(t.Fields))
		for _, f := range t.Fields {
			c, wc, err := b.field(f.Name, f.ID, f.ID, f.Type, f.Type.Nullable, colPath, w.def, rep, 1, path+"."+f.Name)
			if err != nil {
				return nil, nil, err
			}
			n.children = append(n.children, c)
			w.nested = append(w.nested, wc)
		}
	default:
		if err := b.leaf(n, w, t, colPath); err != nil {
			return nil, nil, err
		}
		w.leaf = len(b.leaves)
		b.leaves = append(b.leaves, w)
		b.fields = append(b.fields, n)
	}
	w.hi = len(b.leaves)
	return n, w, nil
}

func (b *planBuilder) leaf(n *pqField, w *wnode, t schema.DataType, colPath []string) error {
	var plain encoding.Encoding = &parquet.Plain
	n.enc = plain
	switch t.Root {
	case schema.TypeBoolean:
		n.typ, w.kind, n.enc = annotate(parquet.BooleanType, nil, 0, false), leafBool, plain
	case schema.TypeTinyInt:
		n.typ, w.kind = annotate(parquet.Int32Type, &format.IntType{BitWidth: 8, IsSigned: true}, deprecated.Int8, true), leafInt8
	case schema.TypeSmallInt:
		n.typ, w.kind = annotate(parquet.Int32Type, &format.IntType{BitWidth: 16, IsSigned: true}, deprecated.Int16, true), leafInt16
	case schema.TypeInt:
		n.typ, w.kind = annotate(parquet.Int32Type, nil, 0, false), leafInt32
	case schema.TypeBigInt:
		n.typ, w.kind = annotate(parquet.Int64Type, nil, 0, false), leafInt64
	case schema.TypeFloat:
		n.typ, w.kind = annotate(parquet.FloatType, nil, 0, false), leafFloat
	case schema.TypeDouble:
		n.typ, w.kind = annotate(parquet.DoubleType, nil, 0, false), leafDouble
	case schema.TypeDecimal:
		p, s := t.Precision, t.Scale
		if p < 1 || p > maxDecimalPrecision || s < 0 || s > p {
			return fmt.Errorf("%w: column %s: %s", ErrInvalidSchema, w.path, typeName(t))
		}
		w.scale, w.prec = int32(s), p
		lt := &format.DecimalType{Scale: int32(s), Precision: int32(p)}
		switch {
		case p <= 9:
			n.typ, w.kind = annotate(parquet.Int32Type, lt, deprecated.Decimal, true), leafDecimal32
		case p <= 18:
			n.typ, w.kind = annotate(parquet.Int64Type, lt, deprecated.Decimal, true), leafDecimal64
		default:
			w.width = decimalBytes(p)
			w.limit = new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(p)), nil)
			n.typ = &signedFixedType{annotatedType: annotatedType{
				Type:      parquet.FixedLenByteArrayType(w.width),
				logical:   &format.LogicalType{Value: lt},
				converted: ptr(deprecated.Decimal),
			}}
			w.kind, n.enc = leafDecimalFixed, plain
		}
	case schema.TypeChar, schema.TypeVarChar:
		n.typ, w.kind = annotate(parquet.ByteArrayType, &format.StringType{}, deprecated.UTF8, true), leafString
	case schema.TypeBinary, schema.TypeVarBinary:
		n.typ, w.kind = annotate(parquet.ByteArrayType, nil, 0, false), leafBinary
	case schema.TypeDate:
		n.typ, w.kind = annotate(parquet.Int32Type, &format.DateType{}, deprecated.Date, true), leafDate
	case schema.TypeTime:
		n.typ = annotate(parquet.Int32Type, &format.TimeType{IsAdjustedToUTC: true, Unit: format.TimeUnit{Value: &format.MilliSeconds{}}}, deprecated.TimeMillis, true)
		w.kind = leafTime
	case schema.TypeTimestamp, schema.TypeLocalZonedTimestamp:
		utc := t.Root == schema.TypeLocalZonedTimestamp
		switch {
		case t.Precision <= 3:
			n.typ = annotate(parquet.Int64Type, &format.TimestampType{IsAdjustedToUTC: utc, Unit: format.TimeUnit{Value: &format.MilliSeconds{}}}, deprecated.TimestampMillis, true)
			w.kind = leafTimestampMillis
		case t.Precision <= 6:
			n.typ = annotate(parquet.Int64Type, &format.TimestampType{IsAdjustedToUTC: utc, Unit: format.TimeUnit{Value: &format.MicroSeconds{}}}, deprecated.TimestampMicros, true)
			w.kind = leafTimestampMicros
		default:
			n.typ, w.kind = annotate(parquet.Int96Type, nil, 0, false), leafTimestampInt96
		}
	default:
		return fmt.Errorf("%w: column %s: writing %s to Parquet", ErrUnsupported, w.path, typeName(t))
	}
	return nil
}

func ptr[T any](v T) *T { return &v }

func (b *planBuilder) message(fields []parquet.Field) *parquet.Schema {
	root := &pqField{name: MessageName, rep: format.Required, typ: groupType, children: fields}
	return parquet.NewSchema(MessageName, root)
}
