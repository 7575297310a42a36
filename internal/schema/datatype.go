package schema

// TypeRoot is the family of a Paimon DataType (org.apache.paimon.types.DataTypeRoot).
type TypeRoot uint8

// The type roots lakesql knows. The zero value is invalid.
const (
	_ TypeRoot = iota
	TypeBoolean
	TypeTinyInt
	TypeSmallInt
	TypeInt
	TypeBigInt
	TypeFloat
	TypeDouble
	TypeDecimal
	TypeChar
	TypeVarChar // VARCHAR(n); STRING is VARCHAR(2147483647)
	TypeBinary
	TypeVarBinary // VARBINARY(n); BYTES is VARBINARY(2147483647)
	TypeDate
	TypeTime
	TypeTimestamp           // TIMESTAMP(p), wall clock without zone
	TypeLocalZonedTimestamp // TIMESTAMP(p) WITH LOCAL TIME ZONE, an instant
	TypeArray
	TypeMap
	TypeMultiset
	TypeRow
	TypeVariant
	TypeBlob
)

// MaxLength is the length of STRING and BYTES (VARCHAR/VARBINARY of Integer.MAX_VALUE).
const MaxLength = 2147483647

// DataType mirrors org.apache.paimon.types.DataType. It is a value type; nested
// types hang off pointers/slices and must be treated as immutable once built.
type DataType struct {
	Root     TypeRoot
	Nullable bool
	// Length for CHAR, VARCHAR, BINARY, VARBINARY.
	Length int
	// Precision for DECIMAL, TIME, TIMESTAMP, TIMESTAMP_LTZ; Scale for DECIMAL.
	Precision int
	Scale     int
	// Elem is the element type of ARRAY and MULTISET.
	Elem *DataType
	// Key and Value are the types of a MAP.
	Key, Value *DataType
	// Fields are the fields of a ROW; each carries its own field id.
	Fields []DataField
}

// DataField mirrors org.apache.paimon.types.DataField.
type DataField struct {
	ID           int
	Name         string
	Type         DataType
	Description  *string
	DefaultValue *string
}
