package procedures

import (
	"errors"
	"fmt"
)

// Sentinel errors of the package; the one error table (provider/errors.go)
// maps each to a MySQL error code.
var (
	// ErrUnknownProcedure: no procedure of that name (MySQL 1305).
	ErrUnknownProcedure = errors.New("procedures: unknown procedure")
	// ErrArgumentCount: a required argument is missing, or there are more
	// positional arguments than parameters (MySQL 1318).
	ErrArgumentCount = errors.New("procedures: wrong number of arguments")
	// ErrUnknownArgument: a named argument the procedure does not have, an
	// argument given twice, or a positional argument after a named one
	// (MySQL 1210).
	ErrUnknownArgument = errors.New("procedures: unknown argument")
	// ErrBadValue: an argument value of the wrong type, or out of range, or
	// not in the accepted form (MySQL 1231).
	ErrBadValue = errors.New("procedures: bad argument value")
	// ErrInvalidCall: the arguments are well-formed but the call cannot be
	// done on this table (MySQL 1210): no snapshot to tag, a branch that
	// cannot be fast-forwarded, …
	ErrInvalidCall = errors.New("procedures: invalid call")
	// ErrNotSupported: a Paimon feature lakesql does not have (MySQL 1235).
	ErrNotSupported = errors.New("procedures: not supported")
)

// ErrNoDatabase: a table argument without a database while the session
// has none selected (MySQL 1046).
var ErrNoDatabase = errors.New("procedures: no database selected")

func invalidCall(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalidCall}, args...)...)
}

func notSupported(what string) error {
	return fmt.Errorf("%w: %s is not supported", ErrNotSupported, what)
}

// CallError is the error of a call of procedure Procedure ("sys.<name>"):
// it names the procedure for the messages of MySQL's codes
// (provider/errors.go) and unwraps to Err.
type CallError struct {
	Procedure string
	Err       error
}

func (e *CallError) Error() string { return e.Err.Error() }
func (e *CallError) Unwrap() error { return e.Err }
