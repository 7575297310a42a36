package sqlengine

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"
)

func TestFixLexing(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`SELECT --21255`, `SELECT - -21255`},
		{`SELECT 1 -- comment --2`, `SELECT 1 -- comment --2`},
		{"SELECT 1 --\tx\nFROM t", "SELECT 1 --\tx\nFROM t"},
		{`SELECT 5--2`, `SELECT 5- -2`},
		{`SELECT * FROM t WHERE s LIKE '%\_%' OR s LIKE "%\%%"`, `SELECT * FROM t WHERE s LIKE '%\\_%' OR s LIKE "%\\%%"`},
		{`SELECT 'a\'\_', 'it''s --1', '\\_'`, `SELECT 'a\'\\_', 'it''s --1', '\\_'`},
		{"SELECT `a--b`, /* --1 '\\_' */ 2 # --3 '\\_'", "SELECT `a--b`, /* --1 '\\_' */ 2 # --3 '\\_'"},
		{`SELECT '--'`, `SELECT '--'`},
		{`SELECT 1--`, `SELECT 1--`},
	} {
		if got := fixLexing(c.in); got != c.want {
			t.Errorf("fixLexing(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
}

// fakeHandler sends batches of rows, then fails or panics.
type fakeHandler struct {
	mysql.Handler
	batches int
	rowSize int
	fail    error
	panics  bool
}

func (f *fakeHandler) ComQuery(ctx context.Context, c *mysql.Conn, q string, cb mysql.ResultSpoolFn) error {
	buf := make([]byte, f.rowSize)
	for i := 0; i < f.batches; i++ {
		copy(buf, strings.Repeat("x", len(buf)))
		res := &sqltypes.Result{Fields: []*querypb.Field{{Name: "v", Type: querypb.Type_VARCHAR}},
			Rows: [][]sqltypes.Value{{sqltypes.MakeTrusted(querypb.Type_VARCHAR, buf)}}}
		if err := cb(res, false); err != nil {
			return err
		}
		copy(buf, strings.Repeat("y", len(buf))) // GMS reuses its buffers after the callback
	}
	if f.panics {
		panic("vertex not found")
	}
	return f.fail
}

func TestBuiltinsHandlerErrorAfterRows(t *testing.T) {
	failure := mysql.NewSQLError(mysql.ERDataOutOfRange, mysql.SSDataOutOfRange, "BIGINT value is out of range")
	for _, c := range []struct {
		name    string
		f       *fakeHandler
		wantErr bool
		sent    int // batches the client got
	}{
		{"error after rows", &fakeHandler{batches: 3, rowSize: 10, fail: failure}, true, 0},
		{"panic after rows", &fakeHandler{batches: 3, rowSize: 10, panics: true}, true, 0},
		{"success", &fakeHandler{batches: 3, rowSize: 10}, false, 3},
		{"large result streams", &fakeHandler{batches: 3, rowSize: maxHeldResult, fail: failure}, true, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := &builtinsHandler{Handler: c.f}
			var got []string
			err := h.ComQuery(context.Background(), nil, "SELECT 1", func(r *sqltypes.Result, more bool) error {
				got = append(got, r.Rows[0][0].ToString())
				return nil
			})
			if (err != nil) != c.wantErr {
				t.Fatalf("err = %v, want error %v", err, c.wantErr)
			}
			var se *mysql.SQLError
			if err != nil && !errors.As(err, &se) {
				t.Errorf("err %v is not a MySQL error", err)
			}
			if len(got) != c.sent {
				t.Fatalf("client got %d batches, want %d", len(got), c.sent)
			}
			for _, v := range got {
				if strings.Contains(v, "y") {
					t.Errorf("a held row was not copied: %.20q", v)
				}
			}
		})
	}
}
