package kv

import "fmt"

// RowKind mirrors org.apache.paimon.types.RowKind, as stored in _VALUE_KIND.
type RowKind int8

// The row kinds, with the byte values Paimon stores.
const (
	Insert       RowKind = 0 // +I
	UpdateBefore RowKind = 1 // -U
	UpdateAfter  RowKind = 2 // +U
	Delete       RowKind = 3 // -D
)

// IsAdd reports whether the kind adds a row (+I, +U); -U and -D retract.
func (k RowKind) IsAdd() bool { return k == Insert || k == UpdateAfter }

func (k RowKind) String() string {
	switch k {
	case Insert:
		return "+I"
	case UpdateBefore:
		return "-U"
	case UpdateAfter:
		return "+U"
	case Delete:
		return "-D"
	}
	return fmt.Sprintf("RowKind(%d)", int8(k))
}

// SeqNum is a record's _SEQUENCE_NUMBER, assigned per (partition, bucket).
type SeqNum int64

func (s SeqNum) String() string { return fmt.Sprintf("%d", int64(s)) }

// KeyValue mirrors org.apache.paimon.KeyValue: one record of a primary-key
// table. Key holds the trimmed primary key columns, Value all table columns,
// both in the value model of package schema.
type KeyValue struct {
	Key   []any
	Seq   SeqNum
	Kind  RowKind
	Value []any
	// Level is the LSM level of the file the record came from (-1 when not
	// from a file). Merge functions may use it (first-row, lookup).
	Level int
}
