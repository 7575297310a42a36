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

// Sentinels of schema changes and new tables' schemas (SchemaChange,
// NewTableSchema). Their errors are *ChangeError values wrapping one of
// them; the GMS boundary maps each to its MySQL code.
var (
	// ErrUnsupportedChange: the change asks for something Paimon (or
	// lakesql) cannot do (drop a key column, change 'bucket', …).
	ErrUnsupportedChange = errors.New("schema: unsupported change")
	// ErrColumnExists: an added or renamed column's name is taken.
	ErrColumnExists = errors.New("schema: column exists")
	// ErrColumnNotFound: a change names a column the table does not have.
	ErrColumnNotFound = errors.New("schema: column not found")
	// ErrDuplicateColumn: a new table lists a column twice.
	ErrDuplicateColumn = errors.New("schema: duplicate column")
	// ErrNameTooLong: a column name is longer than MaxNameLength
	// characters.
	ErrNameTooLong = errors.New("schema: name too long")
)

// ChangeError is an error of a schema change or of a new table's schema.
// Kind is one of the sentinels above, ErrInvalidSchema or
// ErrInvalidOptionValue; Name is the column it concerns, when one does.
// Msg says what is wrong, for a user.
type ChangeError struct {
	Kind error
	Name string
	Msg  string
}

func (e *ChangeError) Error() string { return "schema: " + e.Msg }
func (e *ChangeError) Unwrap() error { return e.Kind }

// changeErr builds a *ChangeError of kind with a formatted message.
func changeErr(kind error, format string, args ...any) error {
	return &ChangeError{Kind: kind, Msg: fmt.Sprintf(format, args...)}
}

// nameErr builds a *ChangeError of kind about column name.
func nameErr(kind error, name, format string, args ...any) error {
	return &ChangeError{Kind: kind, Name: name, Msg: fmt.Sprintf(format, args...)}
}
