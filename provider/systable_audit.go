package provider

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/lsmread"
	"github.com/lakesql/lakesql/snapshot"
)

// $audit_log and $binlog (Java AuditLogTable, BinlogTable): the table's rows
// with their row kind first ("rowkind": +I, -U, +U, -D).
//
//   - Without a range they read one snapshot (the latest, or AS OF) the way
//     Java's batch audit read does: each key's merged record, a retraction
//     that merging leaves included (forceKeepDelete).
//   - FOR VERSION BETWEEN s AND e (snapshot ids or tags) and FOR TIMESTAMP
//     BETWEEN t1 AND t2 read the changes after s up to and including e, as
//     Paimon's incremental-between / incremental-between-timestamp options
//     do: the changelog files of those snapshots when the table has a
//     changelog producer, else the records its APPEND snapshots wrote, as
//     written (the table option incremental-between-scan-mode = auto,
//     delta, changelog or diff chooses); two tags compare the tagged
//     snapshots (diff).
//
// $binlog shows every column as an array: [value] for one record, and
// [before, after] for a -U record followed by its +U in an incremental read
// (kind +U), as Java's PackChangelogReader packs them.

// incrementalMarker starts the AS OF value the query front makes of
// FOR VERSION/TIMESTAMP BETWEEN a AND b (sqlengine rewrites it to
// AS OF CONCAT(marker, kind, NUL, a, NUL, b)).
const incrementalMarker = "\x00lakesql-incremental-between\x00"

// parseIncremental recognizes the AS OF value of a range; ok is false for
// any other AS OF value.
func parseIncremental(asOf any) (inc *lsmread.Incremental, ok bool, err error) {
	inc, ok, err = parseIncrementalValue(asOf)
	if err != nil {
		err = mapError(fmt.Errorf("%w: %w", lsmread.ErrInvalidRange, err))
	}
	return inc, ok, err
}

func parseIncrementalValue(asOf any) (inc *lsmread.Incremental, ok bool, err error) {
	s, isStr := asOf.(string)
	if !isStr || !strings.HasPrefix(s, incrementalMarker) {
		return nil, false, nil
	}
	parts := strings.Split(s[len(incrementalMarker):], "\x00")
	if len(parts) != 3 {
		return nil, true, fmt.Errorf("lakesql: malformed snapshot range")
	}
	kind, a, b := parts[0], strings.TrimSpace(parts[1]), strings.TrimSpace(parts[2])
	inc = &lsmread.Incremental{}
	switch kind {
	case "version":
		ida, errA := strconv.ParseInt(a, 10, 64)
		idb, errB := strconv.ParseInt(b, 10, 64)
		switch {
		case errA == nil && errB == nil:
			if ida < 0 || idb < 0 {
				return nil, true, fmt.Errorf("FOR VERSION BETWEEN %s AND %s: snapshot ids are not negative", a, b)
			}
			inc.After, inc.Upto = snapshot.SnapshotID(ida), snapshot.SnapshotID(idb)
		case errA != nil && errB != nil:
			if a == "" || b == "" {
				return nil, true, fmt.Errorf("FOR VERSION BETWEEN: empty tag name")
			}
			inc.StartTag, inc.EndTag = a, b
		default:
			return nil, true, fmt.Errorf("FOR VERSION BETWEEN takes two snapshot ids or two tags, not %q and %q", a, b)
		}
	case "timestamp":
		for i, v := range []string{a, b} {
			ms, err := parseRangeTime(v)
			if err != nil {
				return nil, true, fmt.Errorf("FOR TIMESTAMP BETWEEN: %w", err)
			}
			if i == 0 {
				inc.StartMillis = &ms
			} else {
				inc.EndMillis = &ms
			}
		}
	case "unixtime":
		for i, v := range []string{a, b} {
			sec, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return nil, true, fmt.Errorf("FOR TIMESTAMP BETWEEN: %q is not a number of seconds", v)
			}
			ms := sec * 1000
			if i == 0 {
				inc.StartMillis = &ms
			} else {
				inc.EndMillis = &ms
			}
		}
	default:
		return nil, true, fmt.Errorf("lakesql: malformed snapshot range")
	}
	return inc, true, nil
}

// parseRangeTime parses a timestamp of FOR TIMESTAMP BETWEEN as a UTC wall
// clock (as AS OF TIMESTAMP does) into epoch milliseconds.
func parseRangeTime(s string) (int64, error) {
	for _, layout := range []string{"2006-01-02 15:04:05.999999999", "2006-01-02T15:04:05.999999999", "2006-01-02"} {
		if t, err := time.ParseInLocation(layout, s, time.UTC); err == nil {
			return t.UnixMilli(), nil
		}
	}
	return 0, fmt.Errorf("%q is not a timestamp (YYYY-MM-DD hh:mm:ss[.fraction])", s)
}

// auditTable is `t$audit_log` or `t$binlog`.
type auditTable struct {
	db     *Database
	name   string
	lt     *lsmread.Table
	tt     lsmread.TimeTravel
	inc    *lsmread.Incremental
	binlog bool
	sch    *schema.TableSchema
	schema sql.Schema
	types  []*schema.DataType // of the table's columns
	arrays []schema.DataType  // $binlog: ARRAY<column type>
}

var _ sql.Table = (*auditTable)(nil)

// newAuditTable builds `base$audit_log` / `base$binlog` over lt, at tt or
// over the range inc.
func newAuditTable(ctx *sql.Context, d *Database, base, sys string, lt *lsmread.Table, tt lsmread.TimeTravel, inc *lsmread.Incremental) (*auditTable, error) {
	t := &auditTable{db: d, name: base + "$" + sys, lt: lt, tt: tt, inc: inc, binlog: sys == "binlog"}
	var err error
	if tt != (lsmread.TimeTravel{}) {
		snap, err := lt.ResolveSnapshot(ctx, tt)
		if err != nil {
			return nil, mapError(fmt.Errorf("table %s: %w", t.name, err))
		}
		t.sch, err = lt.Schemas().Schema(ctx, snap.SchemaID)
		if err != nil {
			return nil, mapError(err)
		}
	} else if t.sch, err = lt.LatestSchema(ctx); err != nil {
		return nil, mapError(fmt.Errorf("table %s: %w", t.name, err))
	}
	if inc != nil {
		if v, ok := t.sch.Options["incremental-between-scan-mode"]; ok {
			if inc.Mode, err = lsmread.ParseIncrementalMode(v); err != nil {
				return nil, mapError(fmt.Errorf("table %s: %w", t.name, err))
			}
		}
	}
	t.schema = append(t.schema, &sql.Column{Name: "rowkind", Type: types.LongText, Nullable: false, Source: t.name, DatabaseSource: d.name})
	for i := range t.sch.Fields {
		f := &t.sch.Fields[i]
		t.types = append(t.types, &f.Type)
		typ := f.Type
		if t.binlog {
			typ = schema.ArrayType(f.Type.WithNullable(true))
			typ.Nullable = true
			t.arrays = append(t.arrays, typ)
		}
		st, err := sqlType(&typ)
		if err != nil {
			return nil, mapError(fmt.Errorf("table %s column %s: %w", t.name, f.Name, err))
		}
		t.schema = append(t.schema, &sql.Column{Name: f.Name, Type: st, Nullable: typ.Nullable, Source: t.name, DatabaseSource: d.name})
	}
	return t, nil
}

// Name implements sql.Nameable.
func (t *auditTable) Name() string { return t.name }

// String implements fmt.Stringer.
func (t *auditTable) String() string { return t.name }

// Schema implements sql.Table.
func (t *auditTable) Schema() sql.Schema { return t.schema }

// Collation implements sql.Table.
func (t *auditTable) Collation() sql.CollationID { return sql.Collation_Default }

// Partitions implements sql.Table: one partition, planned here.
func (t *auditTable) Partitions(ctx *sql.Context) (sql.PartitionIter, error) {
	spec := lsmread.ScanSpec{TimeTravel: t.tt, KeepDelete: true, Incremental: t.inc, TimeZone: sessionZone(ctx)}
	p, err := t.lt.Plan(ctx, spec)
	if err != nil {
		return nil, mapError(fmt.Errorf("table %s: %w", t.name, err))
	}
	return sql.PartitionsToPartitionIter(scanPartition{plan: p}), nil
}

// PartitionRows implements sql.Table.
func (t *auditTable) PartitionRows(ctx *sql.Context, part sql.Partition) (sql.RowIter, error) {
	sp, ok := part.(scanPartition)
	if !ok {
		return nil, fmt.Errorf("provider: unexpected partition %T", part)
	}
	r, err := sp.plan.NewReader()
	if err != nil {
		return nil, mapError(err)
	}
	if len(sp.plan.Schema.Fields) != len(t.types) {
		return nil, fmt.Errorf("table %s: its schema changed while reading; run the query again", t.name)
	}
	pack := t.binlog && t.inc != nil
	return &auditIter{ctx: ctx, t: t, r: r, splits: sp.plan.Splits, pack: pack}, nil
}

// auditIter reads the splits one after another.
type auditIter struct {
	ctx    context.Context
	t      *auditTable
	r      *lsmread.Reader
	splits []*lsmread.DataSplit
	next   int
	cur    lsmread.KindRowIterator
	pack   bool
}

func (it *auditIter) read() (kv.RowKind, []any, error) {
	for {
		if it.cur == nil {
			if it.next >= len(it.splits) {
				return 0, nil, io.EOF
			}
			s := it.splits[it.next]
			it.next++
			cur, err := it.r.ReadWithKinds(it.ctx, s)
			if err != nil {
				return 0, nil, mapError(err)
			}
			it.cur = cur
		}
		k, row, err := it.cur.Next()
		if errors.Is(err, io.EOF) {
			err = it.cur.Close()
			it.cur = nil
			if err != nil {
				return 0, nil, err
			}
			if it.pack {
				return 0, nil, errSplitEnd
			}
			continue
		}
		if err != nil {
			return 0, nil, mapError(err)
		}
		return k, row, nil
	}
}

// errSplitEnd ends a split while packing (a -U never pairs across splits).
var errSplitEnd = errors.New("split end")

// Next implements sql.RowIter.
func (it *auditIter) Next(ctx *sql.Context) (sql.Row, error) {
	for {
		k, row, err := it.read()
		if errors.Is(err, errSplitEnd) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if !it.t.binlog {
			out := make(sql.Row, 1+len(row))
			out[0] = k.String()
			for i, v := range row {
				if out[i+1], err = toSQL(it.t.types[i], v); err != nil {
					return nil, err
				}
			}
			return out, nil
		}
		var after []any
		if it.pack && k == kv.UpdateBefore {
			k2, row2, err := it.read()
			switch {
			case errors.Is(err, errSplitEnd), errors.Is(err, io.EOF):
				if errors.Is(err, io.EOF) {
					it.next = len(it.splits)
				}
			case err != nil:
				return nil, err
			default:
				after, k = row2, k2
			}
		}
		out := make(sql.Row, 1+len(row))
		out[0] = k.String()
		for i, v := range row {
			arr := []any{v}
			if after != nil {
				arr = append(arr, after[i])
			}
			if out[i+1], err = toSQL(&it.t.arrays[i], arr); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
}

// Close implements sql.RowIter.
func (it *auditIter) Close(*sql.Context) error {
	if it.cur == nil {
		return nil
	}
	err := it.cur.Close()
	it.cur = nil
	return err
}
