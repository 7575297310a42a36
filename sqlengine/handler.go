package sqlengine

import (
	"context"
	"errors"
	"regexp"
	"strings"

	"github.com/dolthub/vitess/go/mysql"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
)

// handler wraps GMS's MySQL protocol handler with lakesql's query front:
// time-travel spellings GMS's parser lacks are rewritten, and statements GMS
// would crash on are rejected with an error.
type handler struct {
	mysql.Handler
}

func wrapHandler(h mysql.Handler) (mysql.Handler, error) { return &handler{Handler: h}, nil }

var (
	// FOR TIMESTAMP AS OF '2026-01-01 00:00:00' (Spark/StarRocks spelling).
	forTimestampLiteral = regexp.MustCompile(`(?i)\bFOR\s+TIMESTAMP\s+AS\s+OF\s+('[^']*')`)
	// FOR TIMESTAMP AS OF 1767225600 (epoch seconds, Spark).
	forTimestampEpoch = regexp.MustCompile(`(?i)\bFOR\s+TIMESTAMP\s+AS\s+OF\s+(\d+)\b`)
	// AS OF TIMESTAMP '…' (typed literal).
	asOfTimestampLiteral = regexp.MustCompile(`(?i)\bAS\s+OF\s+TIMESTAMP\s+('[^']*')`)
	// VERSION AS OF x and TIMESTAMP AS OF x without FOR (Spark).
	versionAsOf   = regexp.MustCompile(`(?i)(\bFOR\s+)?\bVERSION\s+AS\s+OF\b`)
	timestampAsOf = regexp.MustCompile(`(?i)(\bFOR\s+|\bAS\s+OF\s+)?\bTIMESTAMP\s+AS\s+OF\b`)
	// An AS OF placeholder in a server-side prepared statement crashes GMS.
	asOfPlaceholder = regexp.MustCompile(`(?i)\bAS\s+OF\s+(TIMESTAMP\s*)?\(?\s*\?`)
)

// rewriteQuery turns the time-travel spellings of other MySQL-protocol
// Paimon engines into ones GMS parses.
func rewriteQuery(q string) string {
	q = versionAsOf.ReplaceAllString(q, "FOR VERSION AS OF")
	q = timestampAsOf.ReplaceAllStringFunc(q, func(m string) string {
		return "FOR TIMESTAMP AS OF"
	})
	q = forTimestampLiteral.ReplaceAllString(q, "FOR SYSTEM_TIME AS OF TIMESTAMP($1)")
	q = forTimestampEpoch.ReplaceAllString(q, "FOR SYSTEM_TIME AS OF FROM_UNIXTIME($1)")
	q = asOfTimestampLiteral.ReplaceAllString(q, "AS OF TIMESTAMP($1)")
	return q
}

func (h *handler) ComQuery(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn) error {
	return mysqlError(h.Handler.ComQuery(ctx, c, rewriteQuery(query), callback))
}

func (h *handler) ComMultiQuery(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn) (string, error) {
	rest, err := h.Handler.ComMultiQuery(ctx, c, rewriteQuery(query), callback)
	return rest, mysqlError(err)
}

// mysqlError gives errors that GMS v0.20.0 reports as 1105 the codes MySQL
// uses: syntax errors 1064, unknown columns 1054.
func mysqlError(err error) error {
	var se *mysql.SQLError
	if err == nil || !errors.As(err, &se) || se.Num != mysql.ERUnknownError {
		return err
	}
	switch {
	case strings.HasPrefix(se.Message, "syntax error at position"):
		return mysql.NewSQLError(mysql.ERParseError, mysql.SSClientError, "%s", se.Message)
	case strings.Contains(se.Message, "could not be found in any table in scope"),
		strings.HasPrefix(se.Message, "column \"") && strings.Contains(se.Message, "could not be found"):
		return mysql.NewSQLError(mysql.ERBadFieldError, mysql.SSBadFieldError, "%s", se.Message)
	}
	return err
}

func (h *handler) ComPrepare(ctx context.Context, c *mysql.Conn, query string, prepare *mysql.PrepareData) ([]*querypb.Field, error) {
	if asOfPlaceholder.MatchString(query) {
		return nil, mysql.NewSQLError(mysql.ERNotSupportedYet, mysql.SSUnknownSQLState,
			"lakesql: AS OF with a ? placeholder is not supported in server-side prepared statements; use a literal snapshot id, tag or timestamp (or client-side interpolation)")
	}
	return h.Handler.ComPrepare(ctx, c, rewriteQuery(query), prepare)
}
