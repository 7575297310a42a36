package schema

// Constructors for common types (nullable unless stated), mirroring
// org.apache.paimon.types.DataTypes.

// RowType returns a nullable ROW of the given fields.
func RowType(fields ...DataField) DataType {
	if fields == nil {
		fields = []DataField{}
	}
	return DataType{Root: TypeRow, Nullable: true, Fields: fields}
}

// ArrayType returns a nullable ARRAY<elem>.
func ArrayType(elem DataType) DataType {
	return DataType{Root: TypeArray, Nullable: true, Elem: &elem}
}

// MultisetType returns a nullable MULTISET<elem>.
func MultisetType(elem DataType) DataType {
	return DataType{Root: TypeMultiset, Nullable: true, Elem: &elem}
}

// MapType returns a nullable MAP<key, value>.
func MapType(key, value DataType) DataType {
	return DataType{Root: TypeMap, Nullable: true, Key: &key, Value: &value}
}

// AtomicType returns a nullable type of a parameterless root (BOOLEAN,
// TINYINT, SMALLINT, INT, BIGINT, FLOAT, DOUBLE, DATE, VARIANT, BLOB).
func AtomicType(root TypeRoot) DataType { return DataType{Root: root, Nullable: true} }

// StringType returns a nullable STRING (VARCHAR(2147483647)).
func StringType() DataType { return DataType{Root: TypeVarChar, Nullable: true, Length: MaxLength} }

// BytesType returns a nullable BYTES (VARBINARY(2147483647)).
func BytesType() DataType { return DataType{Root: TypeVarBinary, Nullable: true, Length: MaxLength} }

// DecimalType returns a nullable DECIMAL(precision, scale).
func DecimalType(precision, scale int) DataType {
	return DataType{Root: TypeDecimal, Nullable: true, Precision: precision, Scale: scale}
}

// TimestampType returns a nullable TIMESTAMP(precision).
func TimestampType(precision int) DataType {
	return DataType{Root: TypeTimestamp, Nullable: true, Precision: precision}
}

// LocalZonedTimestampType returns a nullable TIMESTAMP(precision) WITH LOCAL TIME ZONE.
func LocalZonedTimestampType(precision int) DataType {
	return DataType{Root: TypeLocalZonedTimestamp, Nullable: true, Precision: precision}
}

// WithNullable returns a copy of t with the given top-level nullability
// (DataType.copy(boolean)).
func (t DataType) WithNullable(nullable bool) DataType {
	t.Nullable = nullable
	return t
}

// Equal reports whether two types are equal like Java's DataType.equals:
// same root, nullability and parameters; ROW fields equal in id, name, type,
// description and default value.
func (t DataType) Equal(o DataType) bool { return t.equal(o, false, false) }

// EqualIgnoreNullability is Equal after copy(true) on both top levels
// (nested nullability still counts).
func (t DataType) EqualIgnoreNullability(o DataType) bool { return t.equal(o, true, false) }

// EqualIgnoreFieldIDs is Java's equalsIgnoreFieldId.
func (t DataType) EqualIgnoreFieldIDs(o DataType) bool { return t.equal(o, false, true) }

func (t DataType) equal(o DataType, ignoreTopNull, ignoreIDs bool) bool {
	if t.Root != o.Root || (!ignoreTopNull && t.Nullable != o.Nullable) {
		return false
	}
	switch t.Root {
	case TypeDecimal:
		return t.Precision == o.Precision && t.Scale == o.Scale
	case TypeChar, TypeVarChar, TypeBinary, TypeVarBinary:
		return t.Length == o.Length
	case TypeTime, TypeTimestamp, TypeLocalZonedTimestamp:
		return t.Precision == o.Precision
	case TypeArray, TypeMultiset:
		return ptrTypeEqual(t.Elem, o.Elem, ignoreIDs)
	case TypeMap:
		return ptrTypeEqual(t.Key, o.Key, ignoreIDs) && ptrTypeEqual(t.Value, o.Value, ignoreIDs)
	case TypeRow:
		if len(t.Fields) != len(o.Fields) {
			return false
		}
		for i := range t.Fields {
			a, b := t.Fields[i], o.Fields[i]
			if (!ignoreIDs && a.ID != b.ID) || a.Name != b.Name || !strPtrEqual(a.Description, b.Description) ||
				!strPtrEqual(a.DefaultValue, b.DefaultValue) || !a.Type.equal(b.Type, false, ignoreIDs) {
				return false
			}
		}
	}
	return true
}

func ptrTypeEqual(a, b *DataType, ignoreIDs bool) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.equal(*b, false, ignoreIDs)
}

func strPtrEqual(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// HighestFieldID returns the largest field id in fields, nested ROW fields
// included (RowType.currentHighestFieldId), or -1 when there are none.
func HighestFieldID(fields []DataField) int {
	hi := -1
	var walk func(t *DataType)
	walkFields := func(fs []DataField) {
		for i := range fs {
			if fs[i].ID > hi {
				hi = fs[i].ID
			}
			walk(&fs[i].Type)
		}
	}
	walk = func(t *DataType) {
		if t == nil {
			return
		}
		switch t.Root {
		case TypeArray, TypeMultiset:
			walk(t.Elem)
		case TypeMap:
			walk(t.Key)
			walk(t.Value)
		case TypeRow:
			walkFields(t.Fields)
		}
	}
	walkFields(fields)
	return hi
}

// IsCompactDecimal reports whether a DECIMAL of this precision is stored as
// a long (precision <= 18, Decimal.isCompact).
func IsCompactDecimal(precision int) bool { return precision <= 18 }

// IsCompactTimestamp reports whether a TIMESTAMP of this precision is stored
// as epoch millis only (precision <= 3, Timestamp.isCompact).
func IsCompactTimestamp(precision int) bool { return precision <= 3 }
