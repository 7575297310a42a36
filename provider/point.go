package provider

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/shopspring/decimal"

	"github.com/lakesql/lakesql/internal/schema"
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
// the read's error.
func (p *Provider) PointQuery(ctx *sql.Context, q PointQuery) (*PointResult, error) {
	if strings.Contains(q.Table, "$") {
		return nil, fmt.Errorf("%w: system table", ErrNotPoint)
	}
	db, err := p.Database(ctx, q.Database)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotPoint, err)
	}
	st, ok, err := db.(*Database).GetTableInsensitive(ctx, q.Table)
	if err != nil || !ok {
		return nil, fmt.Errorf("%w: table %s", ErrNotPoint, q.Table)
	}
	t, ok := st.(*Table)
	if !ok || t.tt != (lsmread.TimeTravel{}) || t.ro || len(t.sch.PrimaryKeys) == 0 {
		return nil, fmt.Errorf("%w: not a primary-key table", ErrNotPoint)
	}
	if t.pending(ctx) != nil {
		return nil, fmt.Errorf("%w: pending writes", ErrNotPoint)
	}
	var and lsmread.And
	seen := map[int]bool{}
	for _, k := range q.Key {
		idx := t.sch.FieldIndex(k.Column)
		if idx < 0 {
			for i, f := range t.sch.Fields {
				if equalFold(f.Name, k.Column) {
					idx = i
				}
			}
		}
		if idx < 0 || seen[idx] || !IsKeyColumn(t.sch, t.sch.Fields[idx].Name) {
			return nil, fmt.Errorf("%w: %s is not a key column", ErrNotPoint, k.Column)
		}
		seen[idx] = true
		v, err := pointLiteral(t, idx, k)
		if err != nil {
			return nil, err
		}
		l := t.leaf(idx, lsmread.OpEq)
		l.Literals = []any{v}
		and = append(and, l)
	}
	if len(seen) != len(t.sch.PrimaryKeys) {
		return nil, fmt.Errorf("%w: not every key column is given", ErrNotPoint)
	}
	res := &PointResult{Version: strconv.FormatInt(int64(t.sch.ID), 10) + "@" + strconv.FormatInt(t.sch.TimeMillis, 10)}
	var proj []string
	var idx []int
	if q.Columns == nil {
		for i := range t.full {
			idx = append(idx, i)
		}
	} else {
		for _, c := range q.Columns {
			i := t.full.IndexOfColName(c)
			if i < 0 {
				return nil, fmt.Errorf("%w: unknown column %s", ErrNotPoint, c)
			}
			idx = append(idx, i)
			proj = append(proj, t.full[i].Name)
		}
	}
	for _, i := range idx {
		res.Schema = append(res.Schema, t.full[i])
	}
	spec := lsmread.ScanSpec{Projection: proj, Filter: and, TimeZone: sessionZone(ctx), LatestSchema: t.sch}
	plan, err := t.lt.Plan(ctx, spec)
	if err != nil {
		return nil, mapError(fmt.Errorf("table %s: %w", t.name, err))
	}
	if len(plan.Splits) == 0 {
		return res, nil
	}
	r, err := plan.NewReader()
	if err != nil {
		return nil, mapError(err)
	}
	convert := func(row []any) error {
		for j, v := range row {
			x, err := toSQL(t.types[idx[j]], v)
			if err != nil {
				return err
			}
			row[j] = x
		}
		return nil
	}
	it := r.ReadParallel(ctx, plan.Splits, convert)
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

// pointLiteral converts a key literal to the column's value, exactly: an
// integer literal for an integer or decimal column, a decimal literal for a
// decimal column, a string literal for a string column. Anything else (a
// conversion MySQL's comparison would make) is ErrNotPoint.
func pointLiteral(t *Table, idx int, k PointKey) (any, error) {
	ft := &t.sch.Fields[idx].Type
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
