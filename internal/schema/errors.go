package schema

import (
	"errors"
	"fmt"
)

// Sentinel errors of package schema. Every decoder wraps ErrCorrupt, so
// errors.Is(err, ErrCorrupt) identifies bad schema files and type strings.
var (
	// ErrCorrupt marks malformed schema JSON or an unparsable data type.
	ErrCorrupt = errors.New("schema: corrupt")
	// ErrUnsupportedType marks a data type lakesql does not know (a newer
	// Paimon's VECTOR, …): the file is well-formed, so it is not ErrCorrupt.
	ErrUnsupportedType = errors.New("schema: unsupported data type")
	// ErrInvalidOption marks a table option whose value cannot be parsed.
	ErrInvalidOption = errors.New("schema: invalid option")
	// ErrInvalidOptionValue marks a table option set to a value outside
	// what Paimon allows for it (TableSchema.CheckOptions).
	ErrInvalidOptionValue = fmt.Errorf("%w value", ErrInvalidOption)
	// ErrInvalidValue marks a value that does not fit its type (bad decimal
	// text, overflow, wrong Go type for a Paimon type).
	ErrInvalidValue = errors.New("schema: invalid value")
	// ErrUnsupportedCast marks a cast Paimon does not allow.
	ErrUnsupportedCast = errors.New("schema: unsupported cast")
	// ErrInvalidSchema marks a schema that violates Paimon's rules (unknown
	// key column, primary key equal to the partition keys...).
	ErrInvalidSchema = errors.New("schema: invalid schema")
)
