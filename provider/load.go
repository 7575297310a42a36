package provider

import (
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/vt/proto/query"

	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/lsmwrite"
)

// LOAD DATA into a Paimon table without GMS's per-row INSERT path. The
// sqlengine reads the records (sqlengine/loaddata.go); a Loader turns each
// record's field text straight into the Paimon value model and buffers the
// rows in the statement's transaction, as the editor does for an INSERT.
//
// A value takes a fast path when its text is one whose outcome is certain:
// plain integer text in range of a signed integer column, plain decimal
// text that needs no rounding and fits, plain number text for a DOUBLE,
// valid UTF-8 text within a VARCHAR/CHAR column's length, canonical DATE
// and DATETIME text (years 1000–9999, no more fraction digits than the
// column keeps). Every other value — and NULLs, empty fields and column
// defaults — takes the steps GMS's INSERT path takes, in its order over the
// row: the strict check of every column (provider/strict.go), then
// nullability, then GMS's conversion, then the value model (fromSQL) and the
// UNSIGNED limits; so errors and warnings are those of the INSERT path.

// LoadDirectVar is the switch of the direct LOAD DATA path (session and
// global, default ON); OFF sends LOAD DATA through GMS's INSERT path (same
// rows, errors and warnings; tests compare the two).
const LoadDirectVar = "lakesql_load_direct"

var installLoadDirectVar sync.Once

// InstallLoadDirectVariable registers lakesql_load_direct.
func InstallLoadDirectVariable() {
	installLoadDirectVar.Do(func() {
		sql.SystemVariables.AddSystemVariables([]sql.SystemVariable{switchVariable(LoadDirectVar)})
	})
}

// loadedRows counts the rows Loaders buffered (LoadedRows).
var loadedRows atomic.Int64

// LoadedRows is the number of rows LOAD DATA wrote through the direct path
// since the process started (tests use it to see the path was taken).
func LoadedRows() int64 { return loadedRows.Load() }

// aheadFiles counts the data files LOADs wrote before their commit.
var aheadFiles atomic.Int64

// LoadAheadFiles is the number of data files LOAD DATA statements wrote
// while they ran, before their commit (writeAhead; tests use it to see
// the write buffer became files during the statement).
func LoadAheadFiles() int64 { return aheadFiles.Load() }

// LoadDirect reports whether the session loads through a Loader.
func LoadDirect(ctx *sql.Context) bool { return switchOn(ctx, LoadDirectVar) }

// LoadField is one field of a LOAD DATA record, as read.
type LoadField struct {
	Text   string // unescaped, unquoted text
	Null   bool   // \N (or the bare word NULL with ENCLOSED BY)
	Quoted bool   // the field was enclosed
}

// loadKind is how a column's text becomes a value on the fast path.
type loadKind uint8

const (
	loadSlow loadKind = iota
	loadInt
	loadDecimal
	loadDouble
	loadString
	loadDate
	loadDatetime
)

// loadCol is one table column of a Loader.
type loadCol struct {
	col    *sql.Column
	field  int // the record field feeding it, -1 when it takes its default
	kind   loadKind
	lo, hi int64 // loadInt: the column's range
	prec   int   // loadDecimal: precision; loadDatetime: fraction digits kept
	scale  int   // loadDecimal
	strict bool  // the INSERT path checks it strictly (wrapStrict)
	root   schema.TypeRoot
	// deferred: GMS's plan expects the column to take its default.
	deferred bool
	// warned: the statement's Warning 1364 for the column is out.
	warned bool
}

// Loader writes the rows of one LOAD DATA statement into a table.
type Loader struct {
	e    *editor
	tx   *Transaction
	tt   *txTable
	cols []loadCol
	rows int64 // rows so far, for "at row n"
	// skipped counts the rows IGNORE skipped.
	skipped int64
	ignore  bool
	replace bool
	// implicit: a deferred column without a default takes its implicit
	// default with a warning (no_default.go).
	implicit bool
	// values: the rows came from INSERT … VALUES (ValuesRow).
	values bool
	// gms and slow are the slow path's scratch row: GMS values, and
	// which columns still need GMS's conversion.
	gms  sql.Row
	slow []bool
	// w, when set, writes the rows as they come (writeAhead): a full
	// write buffer becomes level-0 files during the statement.
	w *lsmwrite.TableWrite
	// out is the row written to w, reused.
	out []any
}

// LoadableTable reports whether LOAD DATA into table can take a Loader:
// a writable Paimon table whose columns have no generated values, no
// AUTO_INCREMENT and only literal defaults (an expression default such as
// UUID() is evaluated per row by GMS's path).
func LoadableTable(table sql.Table) bool {
	t, ok := sql.GetUnderlyingTable(table).(*Table)
	if !ok {
		return false
	}
	for _, c := range t.Schema() {
		if c.Generated != nil || c.AutoIncrement || c.Default != nil && !c.Default.IsLiteral() {
			return false
		}
	}
	return true
}

// NewLoader starts the rows of a LOAD DATA into table whose record fields
// fill the columns named by fieldCols (in field order). replace is LOAD
// DATA … REPLACE, ignore LOAD DATA … IGNORE (and LOCAL without REPLACE,
// as GMS plans it): values are clamped with warnings and rows the INSERT
// path skips are skipped (Skipped). deferred reports the columns GMS's plan expects to take
// their default (it names them when they have none and are NOT NULL).
func NewLoader(ctx *sql.Context, table sql.Table, fieldCols []string, replace, ignore bool, deferred func(int) bool) (*Loader, error) {
	t, ok := sql.GetUnderlyingTable(table).(*Table)
	if !ok {
		return nil, fmt.Errorf("lakesql: LOAD DATA needs a Paimon table, not %T", table)
	}
	mode := modeInsert
	if replace {
		mode = modeReplace
	}
	e := t.newEditor(ctx, mode)
	if e.err != nil {
		return nil, e.err
	}
	tx, err := txFromContext(ctx)
	if err != nil {
		return nil, err
	}
	tt, err := tx.table(ctx, t)
	if err != nil {
		return nil, err
	}
	sch := t.Schema()
	l := &Loader{e: e, tx: tx, tt: tt, ignore: ignore, replace: replace, implicit: implicitDefaults(ctx, ignore), cols: make([]loadCol, len(sch)), gms: make(sql.Row, len(sch)), slow: make([]bool, len(sch))}
	for i, c := range sch {
		l.cols[i] = loadCol{col: c, field: -1, strict: strictChecked(c.Type), root: t.sch.Fields[i].Type.Root, deferred: deferred(i)}
	}
	for k, name := range fieldCols {
		i := sch.IndexOfColName(name)
		if i < 0 {
			return nil, sql.ErrColumnNotFound.New(name)
		}
		l.cols[i].field = k
	}
	for i := range l.cols {
		l.cols[i].setKind(&t.sch.Fields[i].Type)
	}
	if ok, err := writeAhead(ctx, tx, tt); err != nil {
		return nil, err
	} else if ok {
		if l.w, err = lsmwrite.WriteStatement(ctx, tt.st, tt.sch, lsmwrite.Options{Branch: tt.lt.BranchName()}); err != nil {
			return nil, mapError(fmt.Errorf("lakesql: table %s: %w", t.name, err))
		}
		l.out = make([]any, len(sch))
	}
	return l, nil
}

// writeAhead reports whether a LOAD writes its rows to files as they come
// (lsmwrite.WriteStatement) instead of buffering them in the transaction:
// when it is the statement of an autocommit transaction (nothing reads its
// rows before the commit) and the first write to a primary-key table
// without changelog-producer=input (whose changelog is the raw input, which
// a commit on a newer snapshot could not write again from merged files).
func writeAhead(ctx *sql.Context, tx *Transaction, tt *txTable) (bool, error) {
	if ctx.GetIgnoreAutoCommit() || !tt.sch.IsPrimaryKeyTable() {
		return false, nil
	}
	if auto, err := plan.IsSessionAutocommit(ctx); err != nil || !auto {
		return false, err
	}
	core, err := tt.sch.Options.Core()
	if err != nil || core.ChangelogProducer == schema.ChangelogProducerInput {
		return false, nil
	}
	tx.mu.Lock()
	defer tx.mu.Unlock()
	return tt.pending.Len() == 0 && !tt.pending.ReadKeys() && tt.overwrite == nil && tt.written == nil && tt.broken == nil, nil
}

// setKind picks the column's fast path (loadSlow when there is none).
func (c *loadCol) setKind(pt *schema.DataType) {
	t := c.col.Type
	switch {
	case types.IsInteger(t) && !types.IsUnsigned(t):
		lo, hi, ok := integerBounds(t)
		if ok && (pt.Root == schema.TypeTinyInt || pt.Root == schema.TypeSmallInt || pt.Root == schema.TypeInt || pt.Root == schema.TypeBigInt) {
			c.kind, c.lo, c.hi = loadInt, lo, hi
		}
	case types.IsDecimal(t):
		dt, ok := t.(sql.DecimalType)
		if ok && pt.Root == schema.TypeDecimal && dt.Precision() <= 18 && int(dt.Precision()) == pt.Precision && int(dt.Scale()) == pt.Scale {
			c.kind, c.prec, c.scale = loadDecimal, int(dt.Precision()), int(dt.Scale())
		}
	case types.IsFloat(t):
		if t.Type() == query.Type_FLOAT64 && pt.Root == schema.TypeDouble {
			c.kind = loadDouble
		}
	case types.IsText(t) && !types.IsBinaryType(t):
		st, ok := t.(sql.StringType)
		if ok && (pt.Root == schema.TypeVarChar || pt.Root == schema.TypeChar) {
			c.kind, c.hi = loadString, min(st.MaxCharacterLength(), st.MaxByteLength())
		}
	case types.IsTime(t):
		switch {
		case t.Type() == query.Type_DATE && pt.Root == schema.TypeDate:
			c.kind = loadDate
		case t.Type() == query.Type_DATETIME && pt.Root == schema.TypeTimestamp:
			if dt, ok := t.(sql.DatetimeType); ok && dt.Precision() == pt.Precision {
				c.kind, c.prec = loadDatetime, pt.Precision
			}
		}
	}
}

// strictChecked: the INSERT path wraps values of this type in a strict
// check (wrapStrict).
func strictChecked(t sql.Type) bool {
	return types.IsInteger(t) || types.IsDecimal(t) || types.IsFloat(t) || types.IsText(t) ||
		types.IsBinaryType(t) || types.IsTime(t) || types.IsTimespan(t)
}

// Row converts one record and buffers it in the statement's transaction.
// fields are the record's fields in field order; a record with fewer
// fields leaves the rest of the named columns at their defaults, extra
// fields are ignored.
func (l *Loader) Row(ctx *sql.Context, fields []LoadField) error {
	l.rows++
	out := l.out // TableWrite.Write copies the row
	if l.w == nil || out == nil {
		out = make([]any, len(l.cols)) // kv.PendingWrites keeps it
	}
	anySlow := false
	for i := range l.cols {
		c := &l.cols[i]
		l.slow[i] = false
		if c.field >= 0 && c.field < len(fields) {
			f := &fields[c.field]
			if !f.Null && (len(f.Text) > 0 || f.Quoted) {
				if v, ok := c.fast(f.Text); ok {
					out[i] = v
					continue
				}
			}
		}
		l.slow[i] = true
		anySlow = true
	}
	if anySlow {
		for i := range l.cols {
			l.gms[i] = nil
			if !l.slow[i] {
				continue
			}
			v, err := l.cols[i].gmsValue(ctx, fields)
			if err != nil {
				return err
			}
			l.gms[i] = v
		}
	}
	return l.add(ctx, out, anySlow)
}

// add finishes a row whose fast columns are in out and whose slow columns'
// GMS values are in l.gms (anySlow: there are some), and buffers it.
func (l *Loader) add(ctx *sql.Context, out []any, anySlow bool) error {
	if anySlow {
		if err := l.slowRow(ctx, out); err != nil {
			if errors.Is(err, errSkipRow) {
				l.skipped++
				return nil
			}
			return err
		}
	}
	if err := l.e.checkUnsigned(out); err != nil {
		return err
	}
	if err := chargeRow(ctx, out); err != nil { // observe.go
		return err
	}
	var err error
	if l.w != nil {
		err = l.w.Write(ctx, kv.Insert, out)
	} else {
		l.tx.mu.Lock()
		err = l.tt.pending.Add(kv.Insert, out, false)
		l.tx.mu.Unlock()
	}
	if err != nil {
		return mapError(fmt.Errorf("lakesql: table %s: %w", l.e.t.name, err))
	}
	return nil
}

// slowRow fills the columns marked slow the way GMS's INSERT path does,
// from the value GMS's row holds (l.gms: the LOAD reader's value or the
// default): the strict checks of the row, nullability, conversion, the
// value model.
func (l *Loader) slowRow(ctx *sql.Context, out []any) error {
	for i := range l.cols {
		c := &l.cols[i]
		if !l.slow[i] || !c.strict || l.gms[i] == nil {
			continue
		}
		v, err := strictOrClamp(ctx, c.col, l.gms[i], l.rows, l.ignore)
		if err != nil {
			return err
		}
		l.gms[i] = v
	}
	for i := range l.cols {
		c := &l.cols[i]
		if !l.slow[i] || l.gms[i] != nil || c.col.Nullable {
			continue
		}
		if c.deferred && l.implicit {
			l.gms[i] = c.col.Type.Zero()
			if !c.warned {
				c.warned = true
				warnNoDefault(ctx, c.col.Name)
			}
			continue
		}
		if l.ignore {
			// GMS's insertIter: the type's zero value, with a Note.
			l.gms[i] = c.col.Type.Zero()
			l.note(ctx, sql.ErrInsertIntoNonNullableProvidedNull.New(c.col.Name))
			continue
		}
		err := sql.ErrInsertIntoNonNullableProvidedNull.New(c.col.Name)
		if c.deferred {
			err = sql.ErrInsertIntoNonNullableDefaultNullColumn.New(c.col.Name)
		}
		return sql.NewWrappedInsertError(l.gmsRow(out), err)
	}
	for i := range l.cols {
		c := &l.cols[i]
		if !l.slow[i] || l.gms[i] == nil {
			continue
		}
		conv, inRange, err := c.col.Type.Convert(ctx, l.gms[i])
		if err == nil && !inRange {
			err = sql.ErrValueOutOfRange.New(l.gms[i], c.col.Type)
		}
		if err != nil {
			if l.ignore && c.col.Type.Type() != query.Type_JSON {
				// GMS's insertIter under IGNORE: a number takes what the
				// conversion gave (or zero), a too long string is cut,
				// anything else is the zero value; each with a Note.
				switch {
				case isNumber(c.col.Type):
					if conv == nil {
						conv = c.col.Type.Zero()
					}
					l.gms[i] = conv
				case types.ErrLengthBeyondLimit.Is(err):
					l.gms[i] = l.gms[i].(string)[:c.col.Type.(sql.StringType).MaxCharacterLength()]
				default:
					l.gms[i] = c.col.Type.Zero()
				}
				l.note(ctx, err)
				continue
			}
			if types.ErrLengthBeyondLimit.Is(err) {
				err = types.ErrLengthBeyondLimit.New(l.gms[i], c.col.Name)
			}
			return sql.NewWrappedInsertError(l.gmsRow(out), err)
		}
		l.gms[i] = conv
	}
	for i := range l.cols {
		if !l.slow[i] {
			continue
		}
		f := &l.e.t.sch.Fields[i]
		x, err := fromSQL(&f.Type, l.gms[i])
		if err != nil {
			return fmt.Errorf("column %s: %w", f.Name, err)
		}
		if x == nil && !f.Type.Nullable {
			err := sql.ErrInsertIntoNonNullableProvidedNull.New(f.Name)
			if l.ignore && !l.replace {
				// An ignorable error of the row editor: the row is
				// skipped with a Note.
				l.note(ctx, err)
				return errSkipRow
			}
			return err
		}
		out[i] = x
	}
	return nil
}

// errSkipRow: IGNORE skips the row.
var errSkipRow = errors.New("lakesql: row skipped")

// note adds GMS's Note for an error IGNORE turned into a warning.
func (l *Loader) note(ctx *sql.Context, err error) {
	if ctx.Session != nil {
		ctx.Session.Warn(&sql.Warning{Level: "Note", Code: sql.CastSQLError(err).Num, Message: err.Error()})
	}
}

// isNumber: t is a GMS number type (its conversion errors keep a value).
func isNumber(t sql.Type) bool {
	_, ok := t.(sql.NumberType)
	return ok
}

// gmsRow is the row as GMS's INSERT path would hold it, for errors: the
// slow columns' GMS values, the fast columns' values back in GMS's model.
func (l *Loader) gmsRow(out []any) sql.Row {
	row := make(sql.Row, len(l.cols))
	for i := range l.cols {
		if l.slow[i] {
			row[i] = l.gms[i]
		} else if v, err := toSQL(&l.e.t.sch.Fields[i].Type, out[i]); err == nil {
			row[i] = v
		}
	}
	return row
}

// gmsValue is the value GMS's row holds for the column before the INSERT
// path: the LOAD reader's value for its field, or the column default.
func (c *loadCol) gmsValue(ctx *sql.Context, fields []LoadField) (any, error) {
	if c.field < 0 || c.field >= len(fields) {
		return loadDefault(ctx, c.col)
	}
	f := &fields[c.field]
	switch {
	case f.Null:
		return nil, nil
	case len(f.Text) == 0 && !f.Quoted:
		if _, ok := c.col.Type.(sql.StringType); ok {
			return "", nil
		}
		return loadDefault(ctx, c.col)
	}
	if dt, ok := c.col.Type.(sql.DatetimeType); ok {
		if tm, ok := ParseCanonicalTime(f.Text, dt.Type() == query.Type_DATE); ok {
			return tm, nil
		}
	}
	return f.Text, nil
}

func loadDefault(ctx *sql.Context, col *sql.Column) (any, error) {
	if col.Default == nil {
		return nil, nil
	}
	return col.Default.Eval(ctx, nil)
}

// fast converts text on the column's fast path; ok is false when the
// value needs the INSERT path's steps.
func (c *loadCol) fast(b string) (any, bool) {
	switch c.kind {
	case loadInt:
		i, ok := plainInt(b)
		if !ok || i < c.lo || i > c.hi {
			return nil, false
		}
		return c.intValue(i), true
	case loadDecimal:
		u, ok := plainDecimal(b, c.prec, c.scale)
		if !ok {
			return nil, false
		}
		return schema.DecimalFromInt64(u, c.scale), true
	case loadDouble:
		if !plainFloat(b) {
			return nil, false
		}
		f, err := strconv.ParseFloat(b, 64)
		if err != nil {
			return nil, false
		}
		return f, true
	case loadString:
		if int64(len(b)) > c.hi || !utf8.ValidString(b) {
			return nil, false
		}
		return b, true
	case loadDate:
		tm, ok := ParseCanonicalTime(b, true)
		if !ok || tm.Year() < 1000 {
			return nil, false
		}
		return schema.DateFromTime(tm), true
	case loadDatetime:
		if len(b) > 20 && len(b)-20 > c.prec {
			return nil, false
		}
		tm, ok := ParseCanonicalTime(b, false)
		if !ok || tm.Year() < 1000 || len(b) == 10 {
			return nil, false
		}
		return schema.TimestampFromWallClock(tm).Truncate(c.prec), true
	}
	return nil, false
}

// intValue is i (in the column's range) as the column's Paimon value.
func (c *loadCol) intValue(i int64) any {
	switch c.root {
	case schema.TypeTinyInt:
		return int8(i)
	case schema.TypeSmallInt:
		return int16(i)
	case schema.TypeInt:
		return int32(i)
	}
	return i
}

// plainFloat: b is -?digits[.digits] (at most 17 digits), text GMS's
// DOUBLE conversion reads with strconv.ParseFloat as it is.
func plainFloat(b string) bool {
	if len(b) > 0 && b[0] == '-' {
		b = b[1:]
	}
	digits, point := 0, -1
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c == '.' && point < 0 && i > 0:
			point = i
		default:
			return false
		}
	}
	return digits > 0 && digits <= 17 && point != len(b)-1
}

// plainInt reads -?digits (at most 18) as an int64.
func plainInt(b string) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var i int64
	for k := 0; k < len(b); k++ {
		c := b[k]
		if c < '0' || c > '9' {
			return 0, false
		}
		i = i*10 + int64(c-'0')
	}
	if neg {
		i = -i
	}
	return i, true
}

// plainDecimal reads -?digits[.digits] with at most scale fraction digits
// and precision-scale integer digits (leading zeros aside) as the unscaled
// value at scale.
func plainDecimal(b string, precision, scale int) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	i := 0
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		i++
	}
	ip, rest := b[:i], b[i:]
	if len(ip) == 0 {
		return 0, false
	}
	var fp string
	if len(rest) > 0 {
		if rest[0] != '.' || len(rest) == 1 {
			return 0, false
		}
		fp = rest[1:]
		for k := 0; k < len(fp); k++ {
			if fp[k] < '0' || fp[k] > '9' {
				return 0, false
			}
		}
	}
	for len(ip) > 1 && ip[0] == '0' {
		ip = ip[1:]
	}
	if len(fp) > scale || len(ip) > precision-scale && !(len(ip) == 1 && ip[0] == '0') {
		return 0, false
	}
	var u int64
	for k := 0; k < len(ip); k++ {
		u = u*10 + int64(ip[k]-'0')
	}
	for k := 0; k < len(fp); k++ {
		u = u*10 + int64(fp[k]-'0')
	}
	for k := len(fp); k < scale; k++ {
		u *= 10
	}
	if neg {
		u = -u
	}
	return u, true
}

// ParseCanonicalTime parses YYYY-MM-DD and YYYY-MM-DD HH:MM:SS[.fraction]
// (for dates, only the former) as UTC; other text is not canonical (ok is
// false) and is left to GMS's parsing.
func ParseCanonicalTime[T string | []byte](b T, dateOnly bool) (time.Time, bool) {
	num := func(s T) (int, bool) {
		n := 0
		for k := 0; k < len(s); k++ {
			c := s[k]
			if c < '0' || c > '9' {
				return 0, false
			}
			n = n*10 + int(c-'0')
		}
		return n, true
	}
	if len(b) < 10 || b[4] != '-' || b[7] != '-' {
		return time.Time{}, false
	}
	y, ok1 := num(b[0:4])
	mo, ok2 := num(b[5:7])
	d, ok3 := num(b[8:10])
	if !ok1 || !ok2 || !ok3 || mo < 1 || mo > 12 || d < 1 || d > 31 {
		return time.Time{}, false
	}
	if len(b) == 10 {
		t := time.Date(y, time.Month(mo), d, 0, 0, 0, 0, time.UTC)
		return t, t.Day() == d
	}
	if dateOnly || len(b) < 19 || b[10] != ' ' || b[13] != ':' || b[16] != ':' {
		return time.Time{}, false
	}
	h, ok1 := num(b[11:13])
	mi, ok2 := num(b[14:16])
	s, ok3 := num(b[17:19])
	if !ok1 || !ok2 || !ok3 || h > 23 || mi > 59 || s > 59 {
		return time.Time{}, false
	}
	ns := 0
	if len(b) > 19 {
		frac := b[20:]
		if b[19] != '.' || len(frac) == 0 || len(frac) > 9 {
			return time.Time{}, false
		}
		f, ok := num(frac)
		if !ok {
			return time.Time{}, false
		}
		for k := len(frac); k < 9; k++ {
			f *= 10
		}
		ns = f
	}
	t := time.Date(y, time.Month(mo), d, h, mi, s, ns, time.UTC)
	return t, t.Day() == d
}

// Done makes the statement's rows part of the transaction.
func (l *Loader) Done(ctx *sql.Context) error {
	if l.values {
		insertedRows.Add(l.rows)
	} else {
		loadedRows.Add(l.rows)
	}
	if err := l.e.StatementComplete(ctx); err != nil {
		return err
	}
	if l.w != nil && l.rows == l.skipped { // nothing to commit
		err := l.w.Abort(ctx)
		l.w = nil
		return err
	}
	if l.w != nil {
		aheadFiles.Add(int64(l.w.FilesWritten()))
		l.tx.mu.Lock()
		l.tt.written = l.w
		l.tx.mu.Unlock()
		l.w = nil
	}
	return nil
}

// Discard drops the statement's rows (the statement failed), deleting the
// files it wrote.
func (l *Loader) Discard(ctx *sql.Context) {
	_ = l.e.DiscardChanges(ctx, nil)
	if l.w != nil {
		if err := l.w.Abort(ctx); err != nil {
			slog.Warn("delete the files of a failed LOAD DATA", "table", l.e.t.name, "err", err)
		}
		l.w = nil
	}
}

// Rows is the number of rows read so far.
func (l *Loader) Rows() int64 { return l.rows }

// Skipped is the number of rows IGNORE skipped.
func (l *Loader) Skipped() int64 { return l.skipped }
