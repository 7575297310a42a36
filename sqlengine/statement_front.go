package sqlengine

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
)

// frontHandler answers statements MySQL clients and tools send that GMS
// v0.20.0 rejects or crashes on, by handing GMS an equivalent statement:
//
//   - DO expr[, expr…] runs SELECT expr… and discards the row;
//   - SHOW FULL TRIGGERS is SHOW TRIGGERS;
//   - EXPLAIN FORMAT=TRADITIONAL is EXPLAIN, FORMAT=TREE is GMS's; FORMAT=JSON
//     returns GMS's plan tree (EXPLAIN PLAN), one line per array element,
//     in one `EXPLAIN` column: {"query_block": {"select_id": 1, "plan": […]}};
//   - PREPARE name FROM '…' / FROM @var: the statement text gets the
//     time-travel rewrite, and an AS OF ? in it is error 1235 (GMS panics);
//   - SHOW GRANTS and mysql.user while no account database is enabled
//     (grants_front.go).
//
// Everything else goes to the wrapped handler unchanged.
type frontHandler struct {
	mysql.Handler
	s *Server
}

func (h *frontHandler) ComQuery(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn) error {
	return frontQuery(ctx, c, query, callback, h.try, h.Handler)
}

func (h *frontHandler) ComMultiQuery(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn) (string, error) {
	return frontMultiQuery(ctx, c, query, callback, h.try, h.Handler)
}

// try answers query when it is a statement of this front; done is false
// when it is not.
func (h *frontHandler) try(ctx context.Context, c *mysql.Conn, query string, callback mysql.ResultSpoolFn, more bool) (done bool, err error) {
	// Every statement below starts with one of these (a 1,000-row INSERT
	// is not lexed whole here).
	if !firstTokenIs(query, "DO", "SHOW", "EXPLAIN", "DESCRIBE", "DESC", "PREPARE", "SELECT", "WITH", "(") {
		return false, nil
	}
	toks, err := Lex(query)
	if err != nil || len(toks) < 2 {
		return false, nil
	}
	body := statementBody(toks)
	if len(body) == 0 {
		return false, nil
	}
	end := body[len(body)-1].End
	switch {
	case body[0].IsWord("DO") && len(body) > 1:
		err := h.Handler.ComQuery(ctx, c, "SELECT "+query[body[1].Start:end], func(*sqltypes.Result, bool) error { return nil })
		if err != nil {
			return true, err
		}
		return true, callback(&sqltypes.Result{}, more)
	case tokensAre(body, "SHOW", "FULL", "TRIGGERS"):
		return true, h.Handler.ComQuery(ctx, c, splice(query[:end], []edit{{body[1].Start, body[2].Start, ""}}), func(r *sqltypes.Result, _ bool) error {
			return callback(r, more)
		})
	case (body[0].IsWord("EXPLAIN") || body[0].IsWord("DESCRIBE") || body[0].IsWord("DESC")) &&
		len(body) > 4 && tokensAre(body[1:], "FORMAT", "="):
		return true, h.explainFormat(ctx, c, query, body, callback, more)
	case body[0].IsWord("PREPARE") && len(body) >= 4 && body[1].IsIdent() && body[2].IsWord("FROM"):
		return h.prepare(ctx, c, query, body, callback, more)
	}
	if !h.s.engine.Analyzer.Catalog.MySQLDb.Enabled() {
		if res, ok := h.showGrants(c, body); ok {
			return true, callback(res, more)
		}
		if q, ok := rewriteMySQLUser(query[:end], body); ok {
			return true, h.Handler.ComQuery(ctx, c, q, func(r *sqltypes.Result, _ bool) error { return callback(r, more) })
		}
	}
	return false, nil
}

func (h *frontHandler) explainFormat(ctx context.Context, c *mysql.Conn, query string, body []Token, callback mysql.ResultSpoolFn, more bool) error {
	format := strings.ToUpper(body[3].Value())
	stmt := query[body[4].Start:body[len(body)-1].End]
	switch format {
	case "TRADITIONAL":
		return h.Handler.ComQuery(ctx, c, "EXPLAIN "+stmt, func(r *sqltypes.Result, _ bool) error { return callback(r, more) })
	case "TREE":
		return h.Handler.ComQuery(ctx, c, query, func(r *sqltypes.Result, _ bool) error { return callback(r, more) })
	case "JSON":
	default:
		return mysql.NewSQLError(mysql.ERUnknownError, mysql.SSUnknownSQLState,
			"Unknown EXPLAIN format name: '%s'", body[3].Value())
	}
	var lines []string
	err := h.Handler.ComQuery(ctx, c, "EXPLAIN PLAN "+stmt, func(r *sqltypes.Result, _ bool) error {
		for _, row := range r.Rows {
			if len(row) > 0 {
				lines = append(lines, row[0].ToString())
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	text := strings.Join(lines, "\n")
	if format == "JSON" {
		b, err := json.MarshalIndent(map[string]any{"query_block": map[string]any{"select_id": 1, "plan": lines}}, "", "  ")
		if err != nil {
			return err
		}
		text = string(b)
	}
	return callback(&sqltypes.Result{
		Fields: []*querypb.Field{{Name: "EXPLAIN", Type: querypb.Type_VARCHAR, Charset: uint32(sql.CharacterSet_utf8mb4), ColumnLength: 1 << 20}},
		Rows:   [][]sqltypes.Value{{sqltypes.MakeTrusted(querypb.Type_VARCHAR, []byte(text))}},
	}, more)
}

// prepare handles PREPARE name FROM '…' | @var: the prepared text gets the
// time-travel rewrite, and an AS OF ? is rejected before GMS sees it.
func (h *frontHandler) prepare(ctx context.Context, c *mysql.Conn, query string, body []Token, callback mysql.ResultSpoolFn, more bool) (bool, error) {
	src := body[3]
	var text string
	switch {
	case src.Kind == lexString && len(body) == 4:
		text = src.Value()
	case src.Kind == lexVariable && len(body) == 4 && !strings.HasPrefix(src.Text(), "@@"):
		sctx, err := h.s.srv.SessionManager().NewContextWithQuery(ctx, c, query)
		if err != nil {
			return true, err
		}
		_, v, err := sctx.Session.GetUserVariable(sctx, src.Value())
		if err != nil {
			return true, err
		}
		s, ok := v.(string)
		if !ok {
			return false, nil // GMS reports a non-string statement
		}
		text = s
	default:
		return false, nil
	}
	if hasAsOfPlaceholder(text) {
		return true, errAsOfPlaceholder()
	}
	q := splice(query[:body[len(body)-1].End], []edit{{src.Start, src.End, sqlStringLiteral(rewriteQuery(text))}})
	return true, h.Handler.ComQuery(ctx, c, q, func(r *sqltypes.Result, _ bool) error { return callback(r, more) })
}
