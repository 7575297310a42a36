package sqlengine

import (
	"errors"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/vitess/go/mysql"
	"github.com/dolthub/vitess/go/sqltypes"
	querypb "github.com/dolthub/vitess/go/vt/proto/query"

	"github.com/lakesql/lakesql/provider"
)

// pointScratch holds one connection's buffers for its direct point
// answers (point_handler.go): the result, its column definitions (copied
// from the shape's for each answer, since the protocol layer adjusts them
// in place), its rows and the bytes of its values. A result made in it
// is valid until the connection's next statement; the handlers above
// send it before the statement returns, and the held-result layer
// (builtins_handler.go) passes it on without the copy it makes of GMS's
// results, whose buffers GMS reuses.
type pointScratch struct {
	res    sqltypes.Result
	fields []*querypb.Field
	slab   []querypb.Field
	rows   [][]sqltypes.Value
	vals   []sqltypes.Value
	buf    []byte
}

// result converts a direct answer to the wire as resultOf does, into the
// scratch buffers.
func (s *pointScratch) result(ctx *sql.Context, fields []*querypb.Field, res *provider.PointResult) (*sqltypes.Result, error) {
	if len(fields) != len(res.Schema) {
		return nil, errors.New("lakesql: point query: column count changed")
	}
	if cap(s.slab) < len(fields) {
		s.slab = make([]querypb.Field, len(fields))
		s.fields = make([]*querypb.Field, len(fields))
	}
	s.slab, s.fields = s.slab[:len(fields)], s.fields[:len(fields)]
	for i, f := range fields {
		s.slab[i] = querypb.Field{}
		copyFieldTo(&s.slab[i], f)
		s.fields[i] = &s.slab[i]
	}
	n := len(res.Rows) * len(fields)
	if cap(s.vals) < n {
		s.vals = make([]sqltypes.Value, n)
	}
	s.vals = s.vals[:n]
	s.rows = s.rows[:0]
	used := 0
	for r, row := range res.Rows {
		out := s.vals[r*len(fields) : (r+1)*len(fields) : (r+1)*len(fields)]
		for i, v := range row {
			if v == nil {
				out[i] = sqltypes.NULL
				continue
			}
			sv, err := res.Schema[i].Type.SQL(ctx, s.buf[used:used], v)
			if err != nil {
				return nil, err
			}
			// The value's bytes are in buf when they fitted (else the type
			// made its own, and buf grows for the next answers).
			used = min(used+len(sv.Raw()), cap(s.buf))
			out[i] = sv
		}
		s.rows = append(s.rows, out)
	}
	if used >= cap(s.buf) {
		s.buf = make([]byte, 0, max(2*cap(s.buf), 256))
	}
	s.res = sqltypes.Result{Fields: s.fields, Rows: s.rows}
	return &s.res, nil
}

// ownedResult reports whether r is c's direct point answer (pointScratch),
// which no later statement of c overwrites before r is sent.
func ownedResult(c *mysql.Conn, r *sqltypes.Result) bool {
	if c == nil {
		return false
	}
	d, _ := c.ClientData.(*connData)
	return d != nil && r == &d.point.res
}
