package lsmread

import (
	"github.com/lakesql/lakesql/internal/datafile"
	"github.com/lakesql/lakesql/internal/schema"
)

// The column batch of a columnar read, as the layers above lsmread see it:
// the types are datafile's (one home), named here so that the GMS adapter
// reads batches without reaching into the file readers.
type (
	// Batch is a set of typed column vectors and a row selection.
	Batch = datafile.Batch
	// VectorKind names which value slice of a vector a type uses.
	VectorKind = datafile.VectorKind
)

// Vector kinds.
const (
	VectorAny     = datafile.VectorAny
	VectorInt64   = datafile.VectorInt64
	VectorInt32   = datafile.VectorInt32
	VectorFloat64 = datafile.VectorFloat64
	VectorString  = datafile.VectorString
	// VectorDecimal64 holds DECIMAL(p ≤ 18) values unscaled in Int64.
	VectorDecimal64 = datafile.VectorDecimal64
)

// KindOf is the vector kind of type t.
func KindOf(t *schema.DataType) VectorKind { return datafile.KindOf(t) }
