package binaryrow

import (
	"encoding/binary"

	"github.com/lakesql/lakesql/internal/schema"
)

// SplitSerialized splits the Avro form of a BinaryRow
// (SerializationUtils.serializeBinaryRow: 4-byte big-endian arity, then the
// row bytes) into its arity and row bytes (aliasing data).
func SplitSerialized(data []byte) (arity int, row []byte, err error) {
	if len(data) < 4 {
		return 0, nil, corrupt("serialized row of %d bytes", len(data))
	}
	a := int32(binary.BigEndian.Uint32(data))
	if a < 0 {
		return 0, nil, corrupt("serialized row arity %d", a)
	}
	row = data[4:]
	if len(row) < FixedPartSize(int(a)) {
		return 0, nil, corrupt("serialized row of arity %d has only %d row bytes", a, len(row))
	}
	return int(a), row, nil
}

// DecodeSerialized decodes the Avro form of a BinaryRow; its arity must equal
// the codec's.
func (c *Codec) DecodeSerialized(data []byte) ([]any, error) {
	arity, row, err := SplitSerialized(data)
	if err != nil {
		return nil, err
	}
	if arity != len(c.fields) {
		return nil, corrupt("serialized row has arity %d, want %d", arity, len(c.fields))
	}
	return c.Decode(row)
}

// DecodeSerialized decodes the Avro form of a BinaryRow with these field
// types.
func DecodeSerialized(types []schema.DataType, data []byte) ([]any, error) {
	c, err := NewCodec(types)
	if err != nil {
		return nil, err
	}
	return c.DecodeSerialized(data)
}

// AppendSerialized appends the Avro form of row (RowKind +I) to dst.
func (c *Codec) AppendSerialized(dst []byte, row []any) ([]byte, error) {
	n := len(dst)
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(c.fields)))
	out, err := c.Append(dst, 0, row)
	if err != nil {
		return dst[:n], err
	}
	return out, nil
}

// EncodeSerialized returns the Avro form of row with these field types in a
// new slice.
func EncodeSerialized(types []schema.DataType, row []any) ([]byte, error) {
	c, err := NewCodec(types)
	if err != nil {
		return nil, err
	}
	return c.AppendSerialized(nil, row)
}

// EmptySerialized is the Avro form of the empty row (arity 0), used by
// unpartitioned tables and empty statistics.
var EmptySerialized = []byte{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}

// DecodeSerializedPrefix decodes the Avro form of a BinaryRow whose arity
// may be smaller than len(types) (statistics of an older or "none" stats
// mode, keys of another schema): the fields past its arity are NULL. It
// also returns the row's arity. A larger arity is corrupt.
func DecodeSerializedPrefix(types []schema.DataType, data []byte) (vals []any, arity int, err error) {
	arity, row, err := SplitSerialized(data)
	if err != nil {
		return nil, 0, err
	}
	if arity > len(types) {
		return nil, 0, corrupt("serialized row of arity %d, expected at most %d", arity, len(types))
	}
	out := make([]any, len(types))
	if arity == 0 {
		return out, 0, nil
	}
	got, err := Decode(types[:arity], row)
	if err != nil {
		return nil, 0, err
	}
	copy(out, got)
	return out, arity, nil
}
