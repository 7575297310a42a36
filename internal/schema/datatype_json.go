package schema

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/lakesql/lakesql/internal/jackson"
)

// This file holds the JSON codec of DataType and DataField, mirroring Java's
// DataType.serializeJson / DataField.serializeJson and DataTypeJsonParser:
// atomic types are JSON strings in their SQL spelling, nested types are
// objects {"type": "ARRAY"|"ARRAY NOT NULL", "element": ...},
// {"type": "MULTISET", "element": ...}, {"type": "MAP", "key": ..., "value": ...},
// {"type": "ROW", "fields": [DataField...]}; a DataField is
// {"id", "name", "type", "description"?, "defaultValue"?}.

// IsNested reports whether the type is ARRAY, MAP, MULTISET or ROW (written
// as a JSON object).
func (t DataType) IsNested() bool {
	switch t.Root {
	case TypeArray, TypeMap, TypeMultiset, TypeRow:
		return true
	}
	return false
}

// jacksonWriter is the one Jackson writer (package jackson) with the
// encoders of schema files and data types.
type jacksonWriter struct{ *jackson.Writer }

func (w *jacksonWriter) dataType(t DataType) {
	if !t.IsNested() {
		w.String(t.String())
		return
	}
	name := t.Root.String()
	if !t.Nullable {
		name += " NOT NULL"
	}
	w.BeginObject()
	w.Field("type")
	w.String(name)
	switch t.Root {
	case TypeArray, TypeMultiset:
		w.Field("element")
		w.dataType(derefType(t.Elem))
	case TypeMap:
		w.Field("key")
		w.dataType(derefType(t.Key))
		w.Field("value")
		w.dataType(derefType(t.Value))
	case TypeRow:
		w.Field("fields")
		w.BeginArray()
		for _, f := range t.Fields {
			w.dataField(f)
		}
		w.EndArray()
	}
	w.EndObject()
}

func derefType(t *DataType) DataType {
	if t == nil {
		return DataType{}
	}
	return *t
}

func (w *jacksonWriter) dataField(f DataField) {
	w.BeginObject()
	w.Field("id")
	w.Int(int64(f.ID))
	w.Field("name")
	w.String(f.Name)
	w.Field("type")
	w.dataType(f.Type)
	if f.Description != nil {
		w.Field("description")
		w.String(*f.Description)
	}
	if f.DefaultValue != nil {
		w.Field("defaultValue")
		w.String(*f.DefaultValue)
	}
	w.EndObject()
}

// MarshalJSON writes the type in Java's flat JSON form (JsonSerdeUtil.toFlatJson):
// "INT NOT NULL" or {"type":"ARRAY","element":"INT"}.
func (t DataType) MarshalJSON() ([]byte, error) {
	if err := t.Validate(); err != nil {
		return nil, err
	}
	w := &jacksonWriter{jackson.NewCompact()}
	w.dataType(t)
	return w.Bytes(), nil
}

// UnmarshalJSON reads a type in Java's JSON form; errors wrap ErrCorrupt.
func (t *DataType) UnmarshalJSON(data []byte) error {
	v, err := ParseDataTypeJSON(data)
	if err != nil {
		return err
	}
	*t = v
	return nil
}

// MarshalJSON writes the field in Java's flat JSON form.
func (f DataField) MarshalJSON() ([]byte, error) {
	if err := f.Type.Validate(); err != nil {
		return nil, err
	}
	w := &jacksonWriter{jackson.NewCompact()}
	w.dataField(f)
	return w.Bytes(), nil
}

// UnmarshalJSON reads a field in Java's JSON form; errors wrap ErrCorrupt.
func (f *DataField) UnmarshalJSON(data []byte) error {
	n, err := jackson.Parse(data, jackson.Strict)
	if err != nil {
		return fmt.Errorf("%w: data field: %v", ErrCorrupt, err)
	}
	v, err := decodeDataField(&n, "field", nil, 0)
	if err != nil {
		return err
	}
	*f = v
	return nil
}

// ParseDataTypeJSON parses a type from its JSON form (a JSON string holding
// an atomic SQL spelling, or a nested-type object). Nested ROW fields
// without "id" are numbered from 0 depth-first, as Java does; a mix of
// fields with and without ids is rejected. Errors wrap ErrCorrupt.
func ParseDataTypeJSON(data []byte) (DataType, error) {
	n, err := jackson.Parse(data, jackson.Strict)
	if err != nil {
		return DataType{}, fmt.Errorf("%w: data type: %v", ErrCorrupt, err)
	}
	ids := &fieldIDCounter{next: -1}
	return decodeDataType(&n, "type", ids, 0)
}

// fieldIDCounter assigns ids to ROW fields written without one
// (DataTypeJsonParser's AtomicInteger); nil means ids are mandatory.
type fieldIDCounter struct {
	next     int
	explicit bool
}

func corruptf(path, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrCorrupt, path, fmt.Sprintf(format, args...))
}

func decodeDataType(n *jackson.Node, path string, ids *fieldIDCounter, depth int) (DataType, error) {
	if depth > maxTypeDepth {
		return DataType{}, corruptf(path, "type nested deeper than %d", maxTypeDepth)
	}
	if n == nil {
		return DataType{}, corruptf(path, "missing type")
	}
	switch n.Kind {
	case jackson.String:
		t, err := ParseDataType(n.Text)
		if err != nil {
			return DataType{}, fmt.Errorf("%s: %w", path, err)
		}
		return t, nil
	case jackson.Object:
	default:
		return DataType{}, corruptf(path, "type must be a string or an object, got %s", n.Kind)
	}
	tn := n.Get("type")
	if tn == nil || tn.Kind != jackson.String {
		return DataType{}, corruptf(path, "nested type object without a string \"type\"")
	}
	s := tn.Text
	nullable := !strings.Contains(s, "NOT NULL")
	switch {
	case strings.HasPrefix(s, "ARRAY"), strings.HasPrefix(s, "MULTISET"):
		root := TypeArray
		if strings.HasPrefix(s, "MULTISET") {
			root = TypeMultiset
		}
		elem, err := decodeDataType(n.Get("element"), path+".element", ids, depth+1)
		if err != nil {
			return DataType{}, err
		}
		return DataType{Root: root, Nullable: nullable, Elem: &elem}, nil
	case strings.HasPrefix(s, "MAP"):
		k, err := decodeDataType(n.Get("key"), path+".key", ids, depth+1)
		if err != nil {
			return DataType{}, err
		}
		v, err := decodeDataType(n.Get("value"), path+".value", ids, depth+1)
		if err != nil {
			return DataType{}, err
		}
		return DataType{Root: TypeMap, Nullable: nullable, Key: &k, Value: &v}, nil
	case strings.HasPrefix(s, "ROW"):
		fa := n.Get("fields")
		if fa == nil || fa.Kind != jackson.Array {
			return DataType{}, corruptf(path, "ROW without a \"fields\" array")
		}
		t := DataType{Root: TypeRow, Nullable: nullable, Fields: make([]DataField, 0, len(fa.Elems))}
		for i := range fa.Elems {
			f, err := decodeDataField(&fa.Elems[i], path+".fields["+strconv.Itoa(i)+"]", ids, depth+1)
			if err != nil {
				return DataType{}, err
			}
			t.Fields = append(t.Fields, f)
		}
		return t, nil
	}
	return DataType{}, corruptf(path, "unsupported nested type %q", s)
}

func decodeDataField(n *jackson.Node, path string, ids *fieldIDCounter, depth int) (DataField, error) {
	if n == nil || n.Kind != jackson.Object {
		return DataField{}, corruptf(path, "data field must be an object")
	}
	var f DataField
	if idn := n.Get("id"); idn != nil {
		id, err := idn.Int(32)
		if err != nil {
			return DataField{}, corruptf(path, "field id: %v", err)
		}
		if ids != nil {
			if ids.next != -1 {
				return DataField{}, corruptf(path, "partial field id is not allowed")
			}
			ids.explicit = true
		}
		f.ID = int(id)
	} else {
		if ids == nil {
			return DataField{}, corruptf(path, "field without \"id\"")
		}
		if ids.explicit {
			return DataField{}, corruptf(path, "partial field id is not allowed")
		}
		ids.next++
		f.ID = ids.next
	}
	nn := n.Get("name")
	if nn == nil || nn.Kind != jackson.String {
		return DataField{}, corruptf(path, "field without a string \"name\"")
	}
	f.Name = nn.Text
	t, err := decodeDataType(n.Get("type"), path+"("+f.Name+").type", ids, depth)
	if err != nil {
		return DataField{}, err
	}
	f.Type = t
	if d := n.Get("description"); d != nil && d.Kind != jackson.Null {
		s, err := d.AsText()
		if err != nil {
			return DataField{}, corruptf(path, "description: %v", err)
		}
		f.Description = &s
	}
	if d := n.Get("defaultValue"); d != nil && d.Kind != jackson.Null {
		s, err := d.AsText()
		if err != nil {
			return DataField{}, corruptf(path, "defaultValue: %v", err)
		}
		f.DefaultValue = &s
	}
	return f, nil
}

// Validate checks that the type is well formed: a known root, parameters in
// range, nested parts present. Errors wrap ErrCorrupt.
func (t DataType) Validate() error {
	return t.validate(0)
}

func (t DataType) validate(depth int) error {
	if depth > maxTypeDepth {
		return fmt.Errorf("%w: type nested deeper than %d", ErrCorrupt, maxTypeDepth)
	}
	switch t.Root {
	case TypeBoolean, TypeTinyInt, TypeSmallInt, TypeInt, TypeBigInt, TypeFloat, TypeDouble,
		TypeDate, TypeVariant, TypeBlob:
	case TypeDecimal:
		if t.Precision < 1 || t.Precision > MaxDecimalPrecision || t.Scale < 0 || t.Scale > t.Precision {
			return fmt.Errorf("%w: invalid DECIMAL(%d, %d)", ErrCorrupt, t.Precision, t.Scale)
		}
	case TypeChar, TypeVarChar, TypeBinary, TypeVarBinary:
		if t.Length < 1 {
			return fmt.Errorf("%w: invalid %s length %d", ErrCorrupt, t.Root, t.Length)
		}
	case TypeTime, TypeTimestamp, TypeLocalZonedTimestamp:
		if t.Precision < 0 || t.Precision > MaxTimestampPrecision {
			return fmt.Errorf("%w: invalid %s precision %d", ErrCorrupt, t.Root, t.Precision)
		}
	case TypeArray, TypeMultiset:
		if t.Elem == nil {
			return fmt.Errorf("%w: %s without element type", ErrCorrupt, t.Root)
		}
		return t.Elem.validate(depth + 1)
	case TypeMap:
		if t.Key == nil || t.Value == nil {
			return fmt.Errorf("%w: MAP without key or value type", ErrCorrupt)
		}
		if err := t.Key.validate(depth + 1); err != nil {
			return err
		}
		return t.Value.validate(depth + 1)
	case TypeRow:
		for _, f := range t.Fields {
			if err := f.Type.validate(depth + 1); err != nil {
				return fmt.Errorf("field %s: %w", f.Name, err)
			}
		}
	default:
		return fmt.Errorf("%w: unknown type root %d", ErrCorrupt, t.Root)
	}
	return nil
}
