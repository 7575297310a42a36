package schema

import "math/big"

// The Go value model: how a value of each Paimon type is held in memory
// throughout lakesql (binaryrow, datafile, kv, lsmread, lsmwrite). NULL is nil.
//
//	BOOLEAN                  bool
//	TINYINT                  int8
//	SMALLINT                 int16
//	INT                      int32
//	BIGINT                   int64
//	FLOAT                    float32
//	DOUBLE                   float64
//	CHAR, VARCHAR, STRING    string
//	BINARY, VARBINARY, BYTES []byte
//	DECIMAL(p,s)             Decimal
//	DATE                     Date (days since 1970-01-01)
//	TIME(p)                  Time (milliseconds of the day)
//	TIMESTAMP(p)             Timestamp (wall clock read as UTC)
//	TIMESTAMP_LTZ(p)         Timestamp (the instant, UTC)
//	ARRAY<T>                 []any
//	MAP<K,V>, MULTISET<T>    Map (MULTISET values are int32 counts)
//	ROW<...>                 []any, one element per field
//	VARIANT, BLOB            []byte (raw bytes; not interpreted yet)

// Date is a DATE: days since 1970-01-01.
type Date int32

// Time is a TIME: milliseconds since midnight.
type Time int32

// Timestamp mirrors org.apache.paimon.data.Timestamp: epoch milliseconds plus
// the nanoseconds within that millisecond (0..999999). For TIMESTAMP it is the
// wall clock read as UTC; for TIMESTAMP_LTZ it is the instant.
type Timestamp struct {
	Millis      int64
	NanoOfMilli int32
}

// Decimal is an exact decimal number Unscaled × 10^-Scale. When the unscaled
// value fits an int64, Big is nil and Compact holds it (no allocation);
// otherwise Big holds it and Compact is 0.
type Decimal struct {
	Compact int64
	Big     *big.Int
	Scale   int32
}

// Map holds MAP and MULTISET values as parallel key and value slices, in the
// order they were stored.
type Map struct {
	Keys   []any
	Values []any
}
