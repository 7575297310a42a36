package provider

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/mysql"

	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/metrics"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/lsmread"
	"github.com/lakesql/lakesql/lsmwrite"
	"github.com/lakesql/lakesql/procedures"
	"github.com/lakesql/lakesql/snapshot"
)

// The one mapping of errors to MySQL's error codes and SQLSTATEs. Errors
// are matched by identity (errors.Is, GMS error kinds' Is), first match
// wins. SQLError applies it at the GMS boundary (the server's handlers, the
// session's commit, the statement fronts); mapError applies it to the
// errors a table hands GMS, which passes a *mysql.SQLError through as it is.
var errorCodes = []struct {
	is    func(error) bool
	code  int
	state string
	// msg is the message; nil keeps err.Error().
	msg func(error) string
	// boundary: only SQLError applies it, mapError does not (GMS must
	// still see a cancelled statement's error as itself: a LIMIT cancels
	// its input and ignores that error).
	boundary bool
}{
	// A CALL of a procedure (procedures.CallError names it): its argument
	// errors, and the snapshot package's not-found and exists errors as
	// wrong arguments (1210).
	{inCall(procedures.ErrUnknownProcedure), 1305, mysql.SSClientError, func(err error) string {
		return fmt.Sprintf("PROCEDURE %s does not exist", callName(err))
	}, false},
	{inCall(procedures.ErrArgumentCount), 1318, mysql.SSClientError, func(err error) string {
		return fmt.Sprintf("Incorrect number of arguments for PROCEDURE %s: %s", callName(err), trimSentinel(err))
	}, false},
	{inCall(procedures.ErrUnknownArgument), mysql.ERWrongArguments, mysql.SSUnknownSQLState, wrongCallArguments, false},
	{inCall(procedures.ErrBadValue), mysql.ERWrongValueForVar, mysql.SSClientError, func(err error) string {
		return fmt.Sprintf("%s: %s", callName(err), trimSentinel(err))
	}, false},
	{inCall(procedures.ErrNoDatabase), mysql.ERNoDb, mysql.SSNoDB, trimSentinel, false},
	{inCall(procedures.ErrNotSupported), mysql.ERNotSupportedYet, mysql.SSClientError, func(err error) string {
		return fmt.Sprintf("lakesql: %s: %s", callName(err), trimSentinel(err))
	}, false},
	{inCall(snapshot.ErrConflict), mysql.ERLockDeadlock, "40001", func(err error) string {
		return fmt.Sprintf("%s: %s (retry the call)", callName(err), err.Error())
	}, false},
	{inCall(procedures.ErrInvalidCall, snapshot.ErrTagNotFound, snapshot.ErrTagExists, snapshot.ErrBranchNotFound,
		snapshot.ErrBranchExists, snapshot.ErrSnapshotNotFound, snapshot.ErrInvalidName, snapshot.ErrInvalidConfig),
		mysql.ERWrongArguments, mysql.SSUnknownSQLState, wrongCallArguments, false},
	{isErr(ErrCommitInDoubt), 1180, mysql.SSUnknownSQLState, nil, false}, // ER_ERROR_DURING_COMMIT
	// The commit lock stayed held past commit-lock-timeout: nothing was
	// committed (MySQL's innodb_lock_wait_timeout error).
	{isErr(storage.ErrLockTimeout), mysql.ERLockWaitTimeout, mysql.SSUnknownSQLState, func(err error) string {
		return "Lock wait timeout exceeded; try restarting transaction (" + err.Error() + ")"
	}, false},
	{isErr(ErrConflict), mysql.ERLockDeadlock, mysql.SSLockDeadlock, func(err error) string { return sql.ErrLockDeadlock.New(err.Error()).Error() }, false},
	{isErr(lsmwrite.ErrReadConflict), mysql.ERLockDeadlock, mysql.SSLockDeadlock, func(err error) string { return sql.ErrLockDeadlock.New(err.Error()).Error() }, false},
	{isErr(snapshot.ErrSchemaConflict), mysql.ERLockDeadlock, mysql.SSLockDeadlock, nil, false},
	{isErr(ErrReadOnly), mysql.EROptionPreventsStatement, mysql.SSUnknownSQLState, readOnlyMessage, false},
	{isKind(sql.ErrReadOnly), mysql.EROptionPreventsStatement, mysql.SSUnknownSQLState, readOnlyMessage, false},
	{isKind(sql.ErrReadOnlyTransaction), 1792, "25006", nil, false}, // ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION
	{isErr(ErrInvalidOptionValue), mysql.ERWrongValueForVar, mysql.SSClientError, nil, false},
	// A statement asking for something Paimon or lakesql cannot do
	// (RENAME TABLE, AUTO_INCREMENT, DEFAULT values, a primary-key change,
	// …): MySQL's ER_NOT_SUPPORTED_YET, with lakesql's message naming it.
	{isErr(ErrUnsupportedDDL), mysql.ERNotSupportedYet, mysql.SSClientError, nil, false},
	// Reading a table in the transaction that wrote more than
	// write-buffer-size to it (the records spilled to a local file).
	{isErr(kv.ErrSpilled), mysql.ERNotSupportedYet, mysql.SSClientError, nil, false},
	{isKind(sql.ErrRenameTableNotSupported), mysql.ERNotSupportedYet, mysql.SSClientError, func(error) string { return renameMessage }, false},
	{isKind(sql.ErrTableAlreadyExists), mysql.ERTableExists, "42S01", nil, false},
	{isKind(sql.ErrTableNotFound), mysql.ERNoSuchTable, mysql.SSUnknownTable, nil, false},
	{isErr(snapshot.ErrTableDropped), mysql.ERNoSuchTable, mysql.SSUnknownTable, nil, false}, // a commit raced DROP TABLE: nothing committed
	{isKind(sql.ErrDatabaseNotFound), mysql.ERBadDb, mysql.SSClientError, nil, false},
	{isKind(sql.ErrDatabaseExists), mysql.ERDbCreateExists, mysql.SSUnknownSQLState, nil, false},
	{func(err error) bool { return isKind(sql.ErrColumnExists)(err) || isKind(sql.ErrDuplicateColumn)(err) }, mysql.ERDupFieldName, mysql.SSDupFieldName, nil, false},
	{isKind(sql.ErrTableColumnNotFound), mysql.ERBadFieldError, mysql.SSBadFieldError, nil, false},
	{isErr(lsmread.ErrInvalidScan), mysql.ERBadFieldError, mysql.SSBadFieldError, nil, false},
	{isErr(lsmread.ErrInvalidRange), mysql.ERWrongArguments, mysql.SSClientError, nil, false},
	// A statement stopped (KILL QUERY, a client gone, its time limit,
	// which sqlengine/limits.go tells apart as 3024) or past its memory
	// limit (sqlengine/limits.go adds the figures).
	{isCancel, 1317, "70100", interruptedMessage, true},                 // ER_QUERY_INTERRUPTED
	{isMemoryLimit, 3170, mysql.SSUnknownSQLState, memoryMessage, true}, // ER_CAPACITY_EXCEEDED
	// GMS's own kinds that sql.CastSQLError leaves at 1105, matched by
	// kind where their value reaches lakesql: the statements lakesql runs
	// through the engine itself (the MERGE/OVERWRITE front's engine.Query,
	// the plain-scan front's AnalyzeQuery) and GMS errors a lakesql
	// front wraps. Through GMS's handler only their text arrives
	// (fromGMSText, which gives the same code, state and message).
	// Boundary entries: GMS must see its own kinds as themselves (INSERT
	// IGNORE turns some into warnings).
	{isKind(sql.ErrSyntaxError), mysql.ERParseError, mysql.SSClientError, nil, true},
	{isKind(sql.ErrColumnNotFound), mysql.ERBadFieldError, mysql.SSBadFieldError, nil, true},
	{isKind(sql.ErrAmbiguousColumnName), mysql.ERNonUniq, mysql.SSConstraintViolation, nil, true},
	{isKind(sql.ErrSystemVariableReadOnly), mysql.ERIncorrectGlobalLocalVar, mysql.SSUnknownSQLState, nil, true},
	{isKind(sql.ErrTemporaryTableNotSupported), mysql.ERNotSupportedYet, mysql.SSClientError, func(error) string { return temporaryMessage }, true},
	{isKind(types.ErrLengthBeyondLimit), mysql.ERDataTooLong, mysql.SSDataTooLong, kindMessage(types.ErrLengthBeyondLimit, tooLongMessage), true},
	{isKind(sql.ErrValueOutOfRange), mysql.ERWarnDataOutOfRange, mysql.SSDataOutOfRange, kindMessage(sql.ErrValueOutOfRange, outOfRangeMessage), true},
	{isKind(types.ErrConvertingToTime), mysql.ERTruncatedWrongValue, "22007", kindMessage(types.ErrConvertingToTime, nil), true},
	// A NOT NULL column without a default left out (no_default.go).
	{isKind(sql.ErrInsertIntoNonNullableDefaultNullColumn), mysql.ERNoDefaultForField, mysql.SSUnknownSQLState, kindMessage(sql.ErrInsertIntoNonNullableDefaultNullColumn, nil), true},
	{isKind(sql.ErrInvalidAsOfExpression), mysql.ERWrongArguments, mysql.SSUnknownSQLState, func(error) string { return asOfMessage }, true},
	// GMS's privilege checks (ErrPrivilegeCheckFailed,
	// Err{Database,Table}AccessDeniedForUser): MySQL's 1142 and 1044.
	{isKind(sql.ErrPrivilegeCheckFailed), erTableAccessDenied, mysql.SSClientError, nil, true},
	{isKind(sql.ErrDatabaseAccessDeniedForUser), mysql.ERDBAccessDenied, mysql.SSClientError, nil, true},
	{isKind(sql.ErrTableAccessDeniedForUser), erTableAccessDenied, mysql.SSClientError, nil, true},
	// GMS's other kinds it maps itself (sql.CastSQLError) come after these.
}

// erTableAccessDenied is MySQL's ER_TABLEACCESS_DENIED_ERROR.
const erTableAccessDenied = 1142

// errorKind is a GMS error kind (*errors.Kind of gopkg.in/src-d/go-errors).
type errorKind interface{ Is(error) bool }

// isKind matches an error of GMS kind k, also wrapped (a kind's own Is
// does not unwrap).
func isKind(k errorKind) func(error) bool {
	return func(err error) bool { return kindError(k, err) != nil }
}

// kindError is the error of kind k in err's chain, or nil.
func kindError(k errorKind, err error) error {
	for ; err != nil; err = errors.Unwrap(err) {
		if k.Is(err) {
			return err
		}
	}
	return nil
}

// kindMessage is the message of the error of kind k in err's chain, made
// by format (nil: as it is), as fromGMSText makes it from the same text.
func kindMessage(k errorKind, format func(string) string) func(error) string {
	return func(err error) string {
		msg := kindError(k, err).Error()
		if format == nil {
			return msg
		}
		return format(msg)
	}
}

func isCancel(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

func isMemoryLimit(err error) bool {
	return errors.Is(err, metrics.ErrMemoryLimit) || isKind(sql.ErrNoMemoryAvailable)(err)
}

func interruptedMessage(error) string { return "Query execution was interrupted" }

func memoryMessage(error) string {
	return "Memory capacity exceeded (the statement's memory limit); nothing was changed"
}

func isErr(target error) func(error) bool {
	return func(err error) bool { return errors.Is(err, target) }
}

// inCall matches an error of a procedure call that is one of targets.
func inCall(targets ...error) func(error) bool {
	return func(err error) bool {
		var ce *procedures.CallError
		if !errors.As(err, &ce) {
			return false
		}
		for _, t := range targets {
			if errors.Is(err, t) {
				return true
			}
		}
		return false
	}
}

// callName is the procedure an error of a call names.
func callName(err error) string {
	var ce *procedures.CallError
	if errors.As(err, &ce) {
		return ce.Procedure
	}
	return "procedure"
}

func wrongCallArguments(err error) string {
	return fmt.Sprintf("Incorrect arguments to %s: %s", callName(err), trimSentinel(err))
}

// trimSentinel is an error's message without a leading "procedures:
// sentinel: ".
func trimSentinel(err error) string {
	msg := err.Error()
	for _, s := range []error{procedures.ErrArgumentCount, procedures.ErrUnknownArgument, procedures.ErrInvalidCall,
		procedures.ErrNoDatabase, procedures.ErrNotSupported} {
		if rest, ok := strings.CutPrefix(msg, s.Error()+": "); ok {
			return rest
		}
	}
	return msg
}

func readOnlyMessage(error) string {
	return "The lakesql server is running with the --read-only option so it cannot execute this statement"
}

// sqlStates are MySQL's SQLSTATEs of the error codes lakesql returns, for
// errors sent with the generic HY000 (GMS sets few states).
var sqlStates = map[int]string{
	mysql.ERNoSuchTable:          mysql.SSUnknownTable, // 42S02
	mysql.ERBadTable:             mysql.SSUnknownTable,
	1109:                         mysql.SSUnknownTable, // ER_UNKNOWN_TABLE
	mysql.ERBadDb:                mysql.SSClientError,  // 42000
	mysql.ERBadFieldError:        mysql.SSBadFieldError,
	mysql.ERParseError:           mysql.SSClientError,
	mysql.ERSyntaxError:          mysql.SSClientError,
	mysql.ERNotSupportedYet:      mysql.SSClientError,
	1065:                         mysql.SSClientError, // ER_EMPTY_QUERY
	1305:                         mysql.SSClientError, // ER_SP_DOES_NOT_EXIST
	mysql.ERTableExists:          "42S01",
	mysql.ERDupFieldName:         mysql.SSDupFieldName,
	mysql.ERDupEntry:             mysql.SSDupKey,
	mysql.ERBadNullError:         mysql.SSConstraintViolation,
	mysql.ERLockDeadlock:         mysql.SSLockDeadlock,
	mysql.ERDataTooLong:          mysql.SSDataTooLong,
	mysql.ERDataOutOfRange:       mysql.SSDataOutOfRange,
	1264:                         mysql.SSDataOutOfRange, // ER_WARN_DATA_OUT_OF_RANGE
	mysql.ERTruncatedWrongValue:  "22007",
	mysql.ERWrongValueCountOnRow: mysql.SSWrongValueCountOnRow,
	1792:                         "25006", // ER_CANT_EXECUTE_IN_READ_ONLY_TRANSACTION
}

// fromGMSText recognises the errors GMS converts to 1105 itself before
// lakesql sees them: server/handler.go's errorWrappedDoQuery (COM_QUERY,
// COM_STMT_EXECUTE), ComPrepare/ComPrepareParsed and ComInitDB hand every
// error to sql.CastSQLError, which returns a *mysql.SQLError holding only
// the text for the kinds its switch does not know, so lakesql's handlers,
// which wrap GMS's, get no error value to match. Each text is the message
// of a GMS kind or error, named below; where the value does reach lakesql,
// errorCodes matches the same kinds by identity. Every other error is
// mapped by identity (errorCodes).
func fromGMSText(msg string) (code int, state, newMsg string, ok bool) {
	switch {
	// context.Canceled/DeadlineExceeded from GMS's iterators (KILL QUERY
	// cancels GMS's own query context; errorCodes' isCancel).
	case strings.Contains(msg, context.Canceled.Error()), strings.Contains(msg, context.DeadlineExceeded.Error()):
		return 1317, "70100", interruptedMessage(nil), true
	// metrics.ErrMemoryLimit from a table's rows, sql.ErrNoMemoryAvailable
	// from GMS's caches (errorCodes' isMemoryLimit).
	case strings.Contains(msg, metrics.ErrMemoryLimit.Error()), strings.Contains(msg, sql.ErrNoMemoryAvailable.New().Error()):
		return 3170, mysql.SSUnknownSQLState, memoryMessage(nil), true
	// sql.ErrSyntaxError: planbuilder/parse.go wraps vitess's syntax error.
	case strings.HasPrefix(msg, "syntax error at position"):
		return mysql.ERParseError, mysql.SSClientError, msg, true
	// sql.ErrColumnNotFound ("column %q could not be found in any table in
	// scope") from the planbuilder.
	case strings.Contains(msg, "could not be found in any table in scope"),
		strings.HasPrefix(msg, "column \"") && strings.Contains(msg, "could not be found"):
		return mysql.ERBadFieldError, mysql.SSBadFieldError, msg, true
	case strings.HasPrefix(msg, "expected ON DUPLICATE KEY ... VALUES() to reference a column"):
		// A plain fmt.Errorf of planbuilder/scalar.go (no kind: its text
		// is all there is, on every path). sqlengine/builtins rewrites
		// VALUES(col) of a table column in INSERT … SELECT (GMS binds it
		// only for INSERT … VALUES): what is left names no column of the
		// table.
		return mysql.ERBadFieldError, mysql.SSBadFieldError, msg, true
	// sql.ErrAmbiguousColumnName.
	case strings.HasPrefix(msg, "ambiguous column name"):
		return mysql.ERNonUniq, mysql.SSConstraintViolation, msg, true
	// sql.ErrSystemVariableReadOnly.
	case strings.HasSuffix(msg, "is a read only variable"):
		return mysql.ERIncorrectGlobalLocalVar, mysql.SSUnknownSQLState, msg, true
	// sql.ErrRenameTableNotSupported.
	case strings.HasPrefix(msg, "tables cannot be renamed on database"):
		return mysql.ERNotSupportedYet, mysql.SSClientError, renameMessage, true
	// sql.ErrTemporaryTableNotSupported.
	case msg == sql.ErrTemporaryTableNotSupported.New().Error():
		return mysql.ERNotSupportedYet, mysql.SSClientError, temporaryMessage, true
	// sql.ErrReadOnly.
	case strings.Contains(msg, sql.ErrReadOnly.New().Error()):
		return mysql.EROptionPreventsStatement, mysql.SSUnknownSQLState, readOnlyMessage(nil), true
	// types.ErrLengthBeyondLimit from a string type's Convert.
	case gmsTooLong.MatchString(msg):
		return mysql.ERDataTooLong, mysql.SSDataTooLong, tooLongMessage(msg), true
	// sql.ErrValueOutOfRange ("%v out of range for %v") from a number
	// type's conversion.
	case gmsOutOfRange.MatchString(msg) && !strings.Contains(msg, "\n"):
		return mysql.ERWarnDataOutOfRange, mysql.SSDataOutOfRange, outOfRangeMessage(msg), true
	// types.ErrConvertingToTime ("Incorrect datetime value: '%v'") and the
	// other temporal types' conversion errors.
	case gmsBadTime.MatchString(msg):
		return mysql.ERTruncatedWrongValue, "22007", msg, true
	// sql.ErrInsertIntoNonNullableDefaultNullColumn (no_default.go).
	case gmsNoDefault.MatchString(msg):
		return mysql.ERNoDefaultForField, mysql.SSUnknownSQLState, msg, true
	// sql.ErrInvalidAsOfExpression.
	case gmsAsOfStruct.MatchString(msg):
		return mysql.ERWrongArguments, mysql.SSUnknownSQLState, asOfMessage, true
	// GMS's privilege checks: sql.ErrPrivilegeCheckFailed,
	// sql.ErrDatabaseAccessDeniedForUser, sql.ErrTableAccessDeniedForUser.
	case strings.HasPrefix(msg, "command denied to user"):
		return erTableAccessDenied, mysql.SSClientError, msg, true
	case strings.HasPrefix(msg, "Access denied for user") && strings.Contains(msg, " to database "):
		return mysql.ERDBAccessDenied, mysql.SSClientError, msg, true
	case strings.HasPrefix(msg, "Access denied for user") && strings.Contains(msg, " to table "):
		return erTableAccessDenied, mysql.SSClientError, msg, true
	}
	return 0, "", "", false
}

var (
	gmsAsOfStruct = regexp.MustCompile(`(?s)^expression .* cannot be used in AS OF`)
	gmsOutOfRange = regexp.MustCompile(`(?s)^(.{0,80}).* out of range for (\w+)$`)
	gmsTooLong    = regexp.MustCompile(`(?s)^string '.*' is too large for column '(.*)'$`)
	gmsNoDefault  = regexp.MustCompile(`(?s)^Field '.*' doesn't have a default value$`)
	gmsBadTime    = regexp.MustCompile(`(?s)^Incorrect (date|datetime|time|timestamp) value: `)
)

const (
	temporaryMessage = "lakesql: CREATE TEMPORARY TABLE is not supported: Paimon catalogs have no temporary tables"
	asOfMessage      = "lakesql: the AS OF value cannot be evaluated to a snapshot id, tag name or timestamp; FOR TIMESTAMP AS OF takes epoch seconds (0 to 32536771199) or a 'YYYY-MM-DD hh:mm:ss' literal"
)

// tooLongMessage is MySQL's 1406 message for GMS's "string '…' is too
// large for column '…'".
func tooLongMessage(msg string) string {
	col := ""
	if m := gmsTooLong.FindStringSubmatch(msg); m != nil {
		col = m[1]
	}
	return fmt.Sprintf("Data too long for column '%s'", truncate(col, 64))
}

func outOfRangeMessage(msg string) string { return "Out of range value: " + truncate(msg, 200) }

// maxErrorMessage is MySQL's MYSQL_ERRMSG_SIZE.
const maxErrorMessage = 512

// SQLError returns the error a MySQL client gets for err: a
// *mysql.SQLError with MySQL's code, SQLSTATE and a message of at most 512
// bytes. lakesql's errors are mapped by identity (errorCodes), then GMS's
// own kinds (sql.CastSQLError), then the texts of errors GMS converted
// before lakesql saw them; anything else is 1105. It is idempotent, so
// every layer of the handler chain may apply it.
func SQLError(err error) error {
	if err == nil {
		return nil
	}
	var se *mysql.SQLError
	if !errors.As(err, &se) {
		var ce *procedures.CallError
		if c, ok := codeFor(err, true); ok {
			se = c
		} else if errors.As(err, &ce) {
			// GMS's error kinds know only themselves, not wrapped.
			return SQLError(ce.Err)
		} else {
			se = sql.CastSQLError(err)
		}
	}
	code, state, msg := se.Num, se.State, se.Message
	if code == mysql.ERUnknownError {
		if c, s, m, ok := fromGMSText(msg); ok {
			code, state, msg = c, s, m
		}
	}
	if state == "" || state == mysql.SSUnknownSQLState {
		if s, ok := sqlStates[code]; ok {
			state = s
		}
	}
	if state == "" {
		state = mysql.SSUnknownSQLState
	}
	if len(msg) > maxErrorMessage {
		msg = truncate(msg, maxErrorMessage-3) + "..."
	}
	if code == se.Num && state == se.State && msg == se.Message {
		return se
	}
	return mysql.NewSQLError(code, state, "%s", msg)
}

// codeFor maps err by identity.
func codeFor(err error, boundary bool) (*mysql.SQLError, bool) {
	for _, c := range errorCodes {
		if (boundary || !c.boundary) && c.is(err) {
			msg := err.Error()
			if c.msg != nil {
				msg = c.msg(err)
			}
			return mysql.NewSQLError(c.code, c.state, "%s", msg), true
		}
	}
	return nil, false
}

// mapError gives the errors a table hands GMS (planning, reading) their
// MySQL code when errorCodes knows them; others stay as they are (GMS
// checks some, like a cancelled context, itself).
func mapError(err error) error {
	if err == nil {
		return nil
	}
	if se, ok := codeFor(err, false); ok {
		return se
	}
	return err
}

// renameMessage is the answer to RENAME TABLE and ALTER TABLE … RENAME TO.
const renameMessage = "lakesql: renaming a table is not supported yet (Paimon's filesystem catalog renames the table folder, " +
	"which other servers and engines writing the table would not see); create the new table and copy the rows " +
	"(CREATE TABLE new LIKE old; INSERT INTO new SELECT * FROM old; DROP TABLE old)"

// Unsupported is the error of a statement lakesql parsed but cannot do
// (1235 ER_NOT_SUPPORTED_YET with a "lakesql: …" message saying what); it
// wraps ErrUnsupportedDDL.
func Unsupported(format string, args ...any) error {
	return ddlErr(ErrUnsupportedDDL, format, args...)
}

// Invalid is the error of a statement lakesql parsed whose column, key or
// option is invalid (1105 with a "lakesql: …" message); it wraps
// ErrInvalidDDL.
func Invalid(format string, args ...any) error {
	return ddlErr(ErrInvalidDDL, format, args...)
}

// ErrRenameTable is the error of ALTER TABLE … RENAME TO (1235).
var ErrRenameTable = ddlErr(ErrUnsupportedDDL, "%s", strings.TrimPrefix(renameMessage, "lakesql: "))
