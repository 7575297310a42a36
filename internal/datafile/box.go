package datafile

import (
	"unsafe"

	"github.com/lakesql/lakesql/internal/schema"
)

// Batch boxing.
//
// Storing a non-pointer value in an `any` allocates a copy of it on the heap
// (runtime.convT64, convTstring, ...): one allocation per value, which
// dominates the cost of producing rows of `any`. boxSlice instead makes each
// interface point into one slice allocated for the whole run, so a run of n
// values costs one allocation instead of n.
//
// This relies on the runtime layout of an empty interface (a type word and a
// data word that points to the value for every type that is not
// pointer-shaped) — the layout reflect and the runtime share and that has
// been stable since Go 1.4. It is only instantiated for the fixed set of
// value types below, none of which is pointer-shaped (a single pointer or a
// struct/array holding exactly one pointer), and the backing slice is never
// written again after boxing, exactly like the runtime's own heap copies.
// TestBoxSlice checks the result against ordinary boxing, across GCs.

type eface struct {
	typ  unsafe.Pointer
	data unsafe.Pointer
}

// boxable lists the types boxSlice may be used with.
type boxable interface {
	int16 | int32 | int64 | float32 | float64 | string | []byte |
		schema.Decimal | schema.Date | schema.Time | schema.Timestamp
}

// boxSlice sets dst[i] to vals[i] as an `any` without a per-value
// allocation. vals must be freshly allocated and never modified afterwards.
func boxSlice[T boxable](vals []T, dst []any) {
	if len(vals) == 0 {
		return
	}
	var proto any = vals[0]
	typ := (*eface)(unsafe.Pointer(&proto)).typ
	dst = dst[:len(vals)]
	for i := range vals {
		e := (*eface)(unsafe.Pointer(&dst[i]))
		e.typ = typ
		e.data = unsafe.Pointer(&vals[i])
	}
}
