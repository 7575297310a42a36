package kv

import "errors"

// Sentinel errors of package kv. Errors returned by this package wrap one of
// them, so callers can test with errors.Is.
var (
	// ErrCorrupt marks unparsable KeyValue text or values of the wrong Go
	// type for their declared Paimon type (a sign of a corrupt file).
	ErrCorrupt = errors.New("kv: corrupt")
	// ErrInvalidOption marks a table option the merge engines cannot use:
	// an unparsable value, an unknown field, or conflicting options.
	ErrInvalidOption = errors.New("kv: invalid option")
	// ErrUnsupported marks a feature Paimon has but lakesql does not
	// implement (for example the rbm32 or nested_update aggregate functions).
	ErrUnsupported = errors.New("kv: unsupported")
	// ErrRetract marks a retract record (-U/-D) that a merge engine or an
	// aggregate function does not accept; the message names the option that
	// allows it, as Java does.
	ErrRetract = errors.New("kv: retract not accepted")
	// ErrNullField marks a NULL in a NOT NULL field during a merge.
	ErrNullField = errors.New("kv: null in non-null field")
	// ErrArithmetic marks an arithmetic failure Java reports as an
	// ArithmeticException (division by zero, non-terminating decimal
	// division) or a comparison of an incomparable type.
	ErrArithmetic = errors.New("kv: arithmetic error")
)
