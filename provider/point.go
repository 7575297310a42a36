package provider

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/shopspring/decimal"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/lsmread"
)

// Point queries: SELECT of some columns of one table where every
// primary-key column equals a literal. The query front (sqlengine) answers
// repeated point queries through PointQuery without planning them in GMS;
// the rows are those the PRIMARY index lookup returns (the same predicate,
// the same read), converted to GMS's value model as every scan converts
// them.

// ErrNotPoint: the statement is not a point query PointQuery answers
// exactly; the caller runs it through GMS instead.
var ErrNotPoint = errors.New("provider: not a point query")

// PointQuery describes a point query.
type PointQuery struct {
	Database, Table string
	// Columns are the selected columns, in order; nil selects every column.
	Columns []string
	// Key holds each primary-key column's literal (int64 for an integer
	// literal, a decimal text for a decimal literal, string for a string
	// literal), by column name.
	Key []PointKey
}

// PointKey is one `column = literal` of a point query.
type PointKey struct {
	Column  string
	Literal any    // int64 or string
	Decimal string // a decimal literal's text (Literal nil)
}

// PointResult is a point query's answer.
type PointResult struct {
	Schema sql.Schema
	Rows   []sql.Row
	// Version identifies the table's schema (id and creation time): a
	// cached statement shape is valid only for the same version.
	Version string
}

// PointQuery answers q, or returns an error wrapping ErrNotPoint when q is
// not a point query it answers exactly (the caller falls back to GMS), or
// the read's error. The table, its latest schema and its latest snapshot
// are resolved as for any statement; what depends only on them is reused
// from the previous point query of the same table and columns
// (point_plan.go).
func (p *Provider) PointQuery(ctx *sql.Context, q PointQuery) (*PointResult, error) {
	if strings.Contains(q.Table, "$") {
		return nil, errNotPointf("system table")
	}
	dbName, err := p.cat.ResolveDatabase(ctx, q.Database)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotPoint, err)
	}
	real, ok, err := p.cat.ResolveTable(ctx, dbName, q.Table)
	if err != nil || !ok {
		return nil, errNotPointf("table %s", q.Table)
	}
	lt := p.tableHandle(dbName, real)
	if tx, _ := ctx.GetTransaction().(*Transaction); tx != nil && tx.hasPendingKey(txKeyOf(lt)) {
		// The transaction's own writes: GMS reads them with the table.
		return nil, errNotPointf("pending writes")
	}
	// The freshness checks below may share the store's change collection
	// with other statements' (storage.DirWatcher) from now on.
	fresh := storage.WithStatementStart(ctx, time.Now())
	sch, err := lt.LatestSchema(fresh)
	if err != nil {
		if p.goneTable(err) {
			return nil, errNotPointf("table %s", q.Table)
		}
		return nil, fmt.Errorf("%w: %w", ErrNotPoint, err)
	}
	if len(sch.PrimaryKeys) == 0 {
		return nil, errNotPointf("not a primary-key table")
	}
	and := make(lsmread.And, 0, len(q.Key))
	var seen uint64 // the key fields given, by index (tables have fewer than 64 key fields … or the query is not a point query)
	for _, k := range q.Key {
		idx := sch.FieldIndex(k.Column)
		if idx < 0 {
			for i, f := range sch.Fields {
				if equalFold(f.Name, k.Column) {
					idx = i
				}
			}
		}
		if idx < 0 || idx >= 64 || seen&(1<<idx) != 0 || !IsKeyColumn(sch, sch.Fields[idx].Name) {
			return nil, errNotPointf("%s is not a key column", k.Column)
		}
		seen |= 1 << idx
		v, err := pointLiteral(sch, idx, k)
		if err != nil {
			return nil, err
		}
		f := &sch.Fields[idx]
		and = append(and, lsmread.Leaf{Field: idx, Name: f.Name, Type: f.Type, Op: lsmread.OpEq, Literals: []any{v}})
	}
	if len(and) != len(sch.PrimaryKeys) {
		return nil, errNotPointf("not every key column is given")
	}
	snap, err := lt.ResolveSnapshot(fresh, lsmread.TimeTravel{})
	if err != nil {
		return nil, mapError(fmt.Errorf("table %s: %w", real, err))
	}
	pp, err := p.pointPlanFor(ctx, lt, real, dbName, sch, snap, q.Columns, zoneText(ctx))
	if err != nil {
		return nil, mapError(fmt.Errorf("table %s: %w", real, err))
	}
	res := &PointResult{Version: pp.version, Schema: pp.cols}
	np, r, err := pp.read(ctx, and)
	if err != nil {
		return nil, mapError(err)
	}
	if len(np.Splits) == 0 {
		return res, nil
	}
	convert := func(row []any) error {
		for j, v := range row {
			x, err := toSQL(pp.types[j], v)
			if err != nil {
				return err
			}
			row[j] = x
		}
		return nil
	}
	it := r.ReadParallel(ctx, np.Splits, convert)
	for {
		row, err := it.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			it.Close()
			return nil, mapError(err)
		}
		res.Rows = append(res.Rows, sql.Row(row))
	}
	if err := it.Close(); err != nil {
		return nil, mapError(err)
	}
	return res, nil
}

func errNotPointf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrNotPoint}, args...)...)
}

// pointLiteral converts a key literal to the column's value, exactly: an
// integer literal for an integer or decimal column, a decimal literal for a
// decimal column, a string literal for a string column. Anything else (a
// conversion MySQL's comparison would make) is ErrNotPoint.
func pointLiteral(sch *schema.TableSchema, idx int, k PointKey) (any, error) {
	ft := &sch.Fields[idx].Type
	if !indexKeyType(ft) {
		return nil, fmt.Errorf("%w: key column %s of type %s", ErrNotPoint, k.Column, ft)
	}
	var v any
	switch lit := k.Literal.(type) {
	case int64:
		if !isIntegerOrDecimal(ft) {
			return nil, fmt.Errorf("%w: integer literal for %s", ErrNotPoint, ft)
		}
		v = lit
	case string:
		if !isStringKey(ft) {
			return nil, fmt.Errorf("%w: string literal for %s", ErrNotPoint, ft)
		}
		v = lit
	case nil:
		d, err := decimal.NewFromString(k.Decimal)
		if err != nil || !isDecimalKey(ft) {
			return nil, fmt.Errorf("%w: decimal literal %q for %s", ErrNotPoint, k.Decimal, ft)
		}
		v = d
	default:
		return nil, fmt.Errorf("%w: literal %T", ErrNotPoint, lit)
	}
	b, err := columnBound(ft, v)
	if err != nil || !b.exact {
		// Out of the column's range, finer than its scale or longer than
		// it: GMS answers (no rows, or a conversion MySQL makes).
		return nil, fmt.Errorf("%w: literal %v does not convert exactly to %s", ErrNotPoint, v, ft)
	}
	return b.val, nil
}

func isIntegerOrDecimal(t *schema.DataType) bool {
	switch t.Root {
	case schema.TypeTinyInt, schema.TypeSmallInt, schema.TypeInt, schema.TypeBigInt, schema.TypeDecimal:
		return true
	}
	return false
}

func isDecimalKey(t *schema.DataType) bool { return t.Root == schema.TypeDecimal }

func isStringKey(t *schema.DataType) bool { return t.Root == schema.TypeVarChar }
