package sqlengine

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
)

// Statements MySQL treats specially, answered before GMS sees them (GMS
// v0.20.0 accepts and ignores them, or fails later with 1105):
//
//   - a query larger than max_allowed_packet: 1153 (08S01), and the server
//     closes the connection, as MySQL does;
//   - an empty query ("", ";;;", only comments): 1065;
//   - KILL [CONNECTION|QUERY] n of a connection that does not exist: 1094;
//   - SET time_zone = 'x' with a zone that cannot be loaded: 1298 (instead
//     of NOW() failing later);
//   - SET a.b = … (a dotted name that is not @@session./@@global.): 1193
//     Unknown system variable (GMS reads it as a column of table a);
//   - SET [GLOBAL] read_only / super_read_only: refused with 1238; the
//     server's read-only mode is chosen at start-up (lakesql serve
//     --read-only), because it also governs the DDL and MERGE fronts, which
//     do not consult the variable;
//
// and errors on the way out get MySQL's codes: writes on a read-only server
// 1290, an AS OF expression GMS cannot evaluate a message without Go
// structs, and every message is cut to MySQL's 512 bytes.

// defaultMaxAllowedPacket is MySQL 8.0's default (GMS reports 1 GB).
const defaultMaxAllowedPacket = 64 << 20

var utcOffset = regexp.MustCompile(`^([+-])(\d{1,2}):(\d{2})$`)

// checkStatement answers the statements above; nil means "hand it on".
func (h *ddlHandler) checkStatement(c *mysql.Conn, query string) error {
	if err := checkPacket(c, query); err != nil {
		return err
	}
	return h.checkOne(query)
}

// checkPacket enforces max_allowed_packet on a whole COM_QUERY.
func checkPacket(c *mysql.Conn, query string) error {
	limit := int64(defaultMaxAllowedPacket)
	if _, v, ok := sql.SystemVariables.GetGlobal("max_allowed_packet"); ok {
		if n, ok := toInt64(v); ok && n > 0 {
			limit = n
		}
	}
	if int64(len(query))+1 > limit { // +1: the COM_QUERY command byte
		// MySQL sends the error and closes the connection; give the error
		// packet time to be flushed first.
		go func() {
			time.Sleep(200 * time.Millisecond)
			c.Close()
		}()
		return mysql.NewSQLError(mysql.ERNetPacketTooLarge, mysql.SSNetError, "Got a packet bigger than 'max_allowed_packet' bytes")
	}
	return nil
}

// checkOne answers one statement of a query.
func (h *ddlHandler) checkOne(query string) error {
	if isEmptyQuery(query) {
		return mysql.NewSQLError(mysql.EREmptyQuery, mysql.SSClientError, "Query was empty")
	}
	if !firstTokenIs(query, "KILL", "SET") {
		return nil
	}
	toks, err := Lex(query)
	if err != nil || len(toks) < 2 {
		return nil // GMS reports what does not lex
	}
	switch {
	case toks[0].IsWord("KILL"):
		return h.checkKill(toks)
	case toks[0].IsWord("SET"):
		return checkSet(toks)
	}
	return nil
}

// checkKill answers KILL [CONNECTION | QUERY] id for an id that names no
// connection (1094); nil hands the statement on.
func (h *ddlHandler) checkKill(toks []Token) error {
	i := 1
	if toks[i].IsWord("CONNECTION") || toks[i].IsWord("QUERY") {
		i++
	}
	n := toks[i]
	if n.Kind != lexNumber || !isDigits(n.Text()) || !atStatementEnd(toks[i+1:]) {
		return nil
	}
	id, err := strconv.ParseUint(n.Text(), 10, 32)
	if err != nil || !h.connectionExists(uint32(id)) {
		return mysql.NewSQLError(mysql.ERNoSuchThread, mysql.SSUnknownSQLState, "Unknown thread id: %s", n.Text())
	}
	return nil
}

// atStatementEnd reports whether toks is an optional ';' and the end.
func atStatementEnd(toks []Token) bool {
	if toks[0].IsSymbol(";") {
		toks = toks[1:]
	}
	return toks[0].Kind == lexEOF
}

// checkSet answers the SET statements MySQL refuses and GMS would take: a
// dotted name that is no variable scope (1193), read_only or
// super_read_only (1238: chosen at start-up), a time_zone string that names
// no zone (1298). It reads tokens, so text inside strings and comments is
// never taken for an assignment.
func checkSet(toks []Token) error {
	i := 1
	if t := toks[i]; t.IsWord("SESSION") || t.IsWord("GLOBAL") || t.IsWord("LOCAL") || t.IsWord("PERSIST") || t.IsWord("PERSIST_ONLY") {
		i++
	}
	if i+3 < len(toks) && toks[i].Kind == lexWord && toks[i+1].IsSymbol(".") && (toks[i+2].Kind == lexWord || toks[i+2].Kind == lexNumber) && isAssign(toks[i+3]) {
		switch strings.ToLower(toks[i].Text()) {
		case "session", "global", "local", "persist", "persist_only":
		default:
			return mysql.NewSQLError(mysql.ERUnknownSystemVariable, mysql.SSUnknownSQLState, "Unknown system variable '%s.%s'", toks[i].Text(), toks[i+2].Text())
		}
	}
	for j := 1; j+1 < len(toks); j++ {
		if !isAssign(toks[j+1]) {
			continue
		}
		switch name := systemVariableName(toks[j]); name {
		case "read_only", "super_read_only":
			return mysql.NewSQLError(1238, mysql.SSUnknownSQLState,
				"Variable '%s' is a read only variable: lakesql's read-only mode is chosen at start-up (lakesql serve --read-only)", name)
		case "time_zone":
			if j+2 < len(toks) && toks[j+2].Kind == lexString {
				if tz := toks[j+2].Value(); !validTimeZone(tz) {
					return mysql.NewSQLError(mysql.ERUnknownTimeZone, mysql.SSUnknownSQLState, "Unknown or incorrect time zone: '%s'", truncateRunes(tz, 64))
				}
			}
		}
	}
	return nil
}

func isAssign(t Token) bool { return t.IsSymbol("=") || t.IsSymbol(":=") }

// systemVariableName is the lower-case name of the system variable t names
// in a SET statement (name, @@name, @@scope.name), or "" (a user variable
// @name, anything else).
func systemVariableName(t Token) string {
	switch {
	case t.Kind == lexWord:
		return strings.ToLower(t.Text())
	case t.Kind == lexVariable && strings.HasPrefix(t.Text(), "@@"):
		v := t.Value()
		if i := strings.LastIndexByte(v, '.'); i >= 0 {
			v = v[i+1:]
		}
		return strings.ToLower(v)
	}
	return ""
}

func toInt64(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int32:
		return int64(x), true
	case int:
		return int64(x), true
	case uint64:
		return int64(x), true
	case uint32:
		return int64(x), true
	case int8:
		return int64(x), true
	case float64:
		return int64(x), true
	}
	return 0, false
}

func (h *ddlHandler) connectionExists(id uint32) bool {
	for _, p := range h.s.engine.ProcessList.Processes() {
		if p.Connection == id {
			return true
		}
	}
	return false
}

// validTimeZone accepts what MySQL accepts for time_zone and GMS can then
// use: SYSTEM, an offset -13:59 … +14:00, or a zone name the Go time
// package loads.
func validTimeZone(tz string) bool {
	if strings.EqualFold(tz, "SYSTEM") {
		return true
	}
	if m := utcOffset.FindStringSubmatch(tz); m != nil {
		hh, _ := strconv.Atoi(m[2])
		mm, _ := strconv.Atoi(m[3])
		if mm > 59 {
			return false
		}
		minutes := hh*60 + mm
		if m[1] == "-" {
			return minutes <= 13*60+59
		}
		return minutes <= 14*60
	}
	if tz == "" || strings.ContainsAny(tz, "\x00") || strings.Contains(tz, "..") || strings.HasPrefix(tz, "/") {
		return false
	}
	_, err := time.LoadLocation(tz)
	return err == nil
}

// isEmptyQuery reports whether query holds nothing but white space,
// semicolons and comments (a /*! … */ comment is executable, not empty).
func isEmptyQuery(q string) bool {
	for i := 0; i < len(q); {
		switch c := q[i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == ';':
			i++
		case c == '#' || c == '-' && strings.HasPrefix(q[i:], "-- ") || strings.HasPrefix(q[i:], "--\n") || q[i:] == "--":
			j := strings.IndexByte(q[i:], '\n')
			if j < 0 {
				return true
			}
			i += j + 1
		case c == '/' && strings.HasPrefix(q[i:], "/*") && !strings.HasPrefix(q[i:], "/*!") && !strings.HasPrefix(q[i:], "/*+"):
			j := strings.Index(q[i+2:], "*/")
			if j < 0 {
				return false // unterminated: let the parser say so
			}
			i += 2 + j + 2
		default:
			return false
		}
	}
	return true
}

// truncateRunes cuts s to at most n bytes on a UTF-8 boundary.
func truncateRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// implicitCommit commits the session's open transaction before a DDL
// statement of the DDL front, as MySQL does for every DDL statement (GMS
// does it for the DDL it executes itself).
func implicitCommit(ctx *sql.Context) error {
	tx := ctx.GetTransaction()
	if tx == nil {
		return nil
	}
	ts, ok := ctx.Session.(sql.TransactionSession)
	if !ok {
		return nil
	}
	if err := ts.CommitTransaction(ctx, tx); err != nil {
		return fmt.Errorf("lakesql: implicit commit before DDL: %w", err)
	}
	ctx.SetIgnoreAutoCommit(false)
	ctx.SetTransaction(nil)
	return nil
}
