package sqlengine

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/rowexec"
	"github.com/dolthub/vitess/go/vt/proto/query"

	"github.com/lakesql/lakesql/provider"
)

// LOAD DATA [LOCAL] INFILE reads its input here instead of in GMS v0.20.0's
// loader, which splits lines on FIELDS TERMINATED BY before looking at
// quotes (so "a,b" breaks), requires every field to be enclosed once
// ENCLOSED BY is given (so OPTIONALLY ENCLOSED BY fails on ordinary CSV),
// reads the quoted word "NULL" as NULL, drops backslashes instead of
// interpreting \t, \n, \0, \Z, and panics on an empty field when ENCLOSED BY
// is set. The rows then take the ordinary INSERT path (GMS's InsertInto over
// the lakesql editor), so a LOAD is one statement and one Paimon snapshot
// per table. Statements with @user variables, SET or LINES STARTING BY are
// left to GMS's loader.
//
// Reading follows MySQL's LOAD DATA: a field that starts with the ENCLOSED
// BY character is read up to the matching one (doubled, or escaped, it is a
// literal), so it may hold field and line terminators; ESCAPED BY (default
// backslash) introduces \0 \b \n \r \t \Z and \N, and escapes any other
// character; a field that is exactly \N, or the bare word NULL when ENCLOSED
// BY is set, is NULL. An empty field is '' for string columns and the
// column default (or NULL) for others; missing trailing fields take the
// column default. Blank lines are skipped. DATE and DATETIME text in the
// canonical forms is parsed here, which spares GMS's layout-by-layout parse.

// loadDataBuilder overrides GMS's executor for *plan.LoadData (and for
// an aggregate without GROUP BY: aggregate_all.go). base is the whole
// executor, which builds the nodes below an overridden one.
type loadDataBuilder struct{ base sql.NodeExecBuilder }

var _ sql.NodeExecBuilder = (*loadDataBuilder)(nil)

// newExecBuilder is GMS's executor with lakesql's LOAD DATA reader.
func newExecBuilder() sql.NodeExecBuilder {
	o := &loadDataBuilder{}
	o.base = rowexec.NewOverrideBuilder(o)
	return o.base
}

// Build implements sql.NodeExecBuilder: nil, nil hands the node to GMS.
func (o *loadDataBuilder) Build(ctx *sql.Context, n sql.Node, row sql.Row) (sql.RowIter, error) {
	switch n := n.(type) {
	case *plan.GroupBy:
		if len(n.GroupByExprs) == 0 {
			return buildAggregateAll(ctx, o.base, n, row)
		}
	case *loadInto:
		return &loadIntoIter{n: n}, nil
	case *insertValues:
		return &insertValuesIter{n: n}, nil
	case *plan.LoadData:
		if !readsLoadData(n) {
			return nil, nil
		}
		return newLoadIter(ctx, n)
	}
	return nil, nil
}

// readsLoadData: lakesql's reader reads ld (no @user variables, SET or
// LINES STARTING BY, which GMS's loader keeps).
func readsLoadData(ld *plan.LoadData) bool {
	if len(ld.SetExprs) > 0 || ld.LinesStartingBy != "" || ld.FieldsTerminatedBy == "" || ld.LinesTerminatedBy == "" {
		return false
	}
	for _, v := range ld.UserVars {
		if v != nil {
			return false
		}
	}
	return true
}

// newLoadIter opens ld's input and returns its reader.
func newLoadIter(ctx *sql.Context, ld *plan.LoadData) (*loadIter, error) {
	src, err := openLoadInput(ctx, ld)
	if err != nil {
		return nil, err
	}
	it := &loadIter{
		src:      src,
		dest:     ld.DestSch,
		term:     []byte(ld.FieldsTerminatedBy),
		lineTerm: []byte(ld.LinesTerminatedBy),
		enc:      []byte(ld.FieldsEnclosedBy),
		ignore:   ld.IgnoreNum,
		buf:      make([]byte, 0, 1<<20),
	}
	if ld.FieldsEscapedBy != "" {
		it.esc, it.hasEsc = ld.FieldsEscapedBy[0], true
	}
	it.maxTerm = max(len(it.term), len(it.lineTerm), 2*len(it.enc))
	for _, name := range loadColNames(ld) {
		i := ld.DestSch.IndexOfColName(name)
		if i < 0 {
			src.Close()
			return nil, sql.ErrColumnNotFound.New(name)
		}
		it.cols = append(it.cols, ld.DestSch[i])
	}
	return it, nil
}

// loadColNames are the columns ld's fields fill: its column list, or
// every column.
func loadColNames(ld *plan.LoadData) []string {
	names := ld.ColNames
	if len(names) == 0 {
		for _, c := range ld.DestSch {
			names = append(names, c.Name)
		}
	}
	return names
}

func openLoadInput(ctx *sql.Context, ld *plan.LoadData) (io.ReadCloser, error) {
	if ld.Local {
		_, v, ok := sql.SystemVariables.GetGlobal("local_infile")
		if !ok {
			return nil, errors.New("error: local_infile variable was not found")
		}
		if on, _ := v.(int8); on == 0 {
			return nil, errors.New("local_infile needs to be set to 1 to use LOCAL")
		}
		return ctx.LoadInfile(ld.File)
	}
	_, dir, ok := sql.SystemVariables.GetGlobal("secure_file_priv")
	if !ok {
		return nil, errors.New("error: secure_file_priv variable was not found")
	}
	if err := underSecureFileDir(dir, ld.File); err != nil {
		return nil, sql.ErrLoadDataCannotOpen.New(err.Error())
	}
	f, err := os.Open(ld.File)
	if err != nil {
		return nil, sql.ErrLoadDataCannotOpen.New(err.Error())
	}
	return f, nil
}

// underSecureFileDir applies secure_file_priv as GMS does: empty allows
// every file, otherwise the file must lie under that folder.
func underSecureFileDir(dir any, file string) error {
	d, _ := dir.(string)
	if d == "" {
		return nil
	}
	ds, err := os.Stat(d)
	if err != nil {
		return err
	}
	if fs, err := os.Stat(filepath.Dir(file)); err == nil && os.SameFile(ds, fs) {
		return nil
	}
	abs, err := filepath.Abs(file)
	if err != nil {
		return err
	}
	absDir, _ := filepath.Abs(d)
	if strings.HasPrefix(abs, absDir+string(filepath.Separator)) {
		return nil
	}
	return sql.ErrSecureFilePriv.New()
}

// loadField is one field of a record.
type loadField struct {
	start, end int // in loadIter.val
	null       bool
	quoted     bool
	escapedN   bool // the field starts with \N
}

// loadIter reads records from src and returns one row per record: the
// fields in column-list order, as GMS's InsertInto expects.
type loadIter struct {
	src      io.ReadCloser
	dest     sql.Schema
	cols     []*sql.Column // the column of each field
	term     []byte
	lineTerm []byte
	enc      []byte
	esc      byte
	hasEsc   bool
	maxTerm  int
	ignore   int64

	buf    []byte // unread input is buf[pos:]
	pos    int
	eof    bool
	val    []byte // unescaped field text of the current record
	fields []loadField
	// keep: a record's text is appended to val after the records before
	// it (readBatches hands val over a batch at a time) instead of
	// replacing them; fields' offsets are into all of val.
	keep  bool
	stops *stopBytes
}

var _ sql.RowIter = (*loadIter)(nil)

func (it *loadIter) Close(*sql.Context) error { return it.src.Close() }

func (it *loadIter) Next(ctx *sql.Context) (sql.Row, error) {
	if err := it.nextRecord(); err != nil {
		return nil, err
	}
	return it.row(ctx)
}

// nextRecord reads the next record that is a row: past the IGNORE n LINES
// and blank lines.
func (it *loadIter) nextRecord() error {
	for {
		base := len(it.val)
		if err := it.record(); err != nil {
			return err
		}
		if it.ignore > 0 {
			it.ignore--
			it.val = it.val[:base]
			continue
		}
		if len(it.fields) == 1 && it.fields[0].end == it.fields[0].start && !it.fields[0].quoted && !it.fields[0].null {
			it.val = it.val[:base]
			continue // blank line
		}
		return nil
	}
}

func (it *loadIter) row(ctx *sql.Context) (sql.Row, error) {
	row := make(sql.Row, len(it.dest))
	rec := "" // the record's text, one string for every field (made on first use)
	for k, col := range it.cols {
		if k >= len(it.fields) {
			v, err := columnDefault(ctx, col, row)
			if err != nil {
				return nil, err
			}
			row[k] = v
			continue
		}
		f := it.fields[k]
		if f.null {
			continue
		}
		text := it.val[f.start:f.end]
		if len(text) == 0 && !f.quoted {
			if _, ok := col.Type.(sql.StringType); ok {
				row[k] = ""
				continue
			}
			v, err := columnDefault(ctx, col, row)
			if err != nil {
				return nil, err
			}
			row[k] = v
			continue
		}
		if dt, ok := col.Type.(sql.DatetimeType); ok {
			if tm, ok := provider.ParseCanonicalTime(text, dt.Type() == query.Type_DATE); ok {
				row[k] = tm
				continue
			}
		}
		if rec == "" {
			rec = string(it.val)
		}
		row[k] = rec[f.start:f.end]
	}
	return row, nil
}

func columnDefault(ctx *sql.Context, col *sql.Column, row sql.Row) (any, error) {
	if col.Default == nil {
		return nil, nil
	}
	return col.Default.Eval(ctx, row)
}

// record reads the next record into it.fields and it.val.
func (it *loadIter) record() error {
	for {
		n, ok, err := it.parse(it.buf[it.pos:])
		if err != nil {
			return err
		}
		if ok {
			it.pos += n
			return nil
		}
		if it.eof {
			return io.EOF
		}
		if err := it.fill(); err != nil {
			return err
		}
	}
}

// fill reads more input, growing the buffer when a record does not fit.
func (it *loadIter) fill() error {
	rest := len(it.buf) - it.pos
	if it.pos > 0 {
		copy(it.buf, it.buf[it.pos:])
		it.buf, it.pos = it.buf[:rest], 0
	}
	if len(it.buf) == cap(it.buf) {
		it.buf = append(it.buf, make([]byte, cap(it.buf))...)[:rest]
	}
	n, err := it.src.Read(it.buf[len(it.buf):cap(it.buf)])
	it.buf = it.buf[:len(it.buf)+n]
	if errors.Is(err, io.EOF) {
		it.eof = true
		return nil
	}
	return err
}

// parse reads one record from data, appending its unescaped text to
// it.val (after what it holds when it.keep is set, else in place of it).
// ok is false when data ends before the record does and more input may
// follow; it.val is then as it was.
func (it *loadIter) parse(data []byte) (n int, ok bool, err error) {
	if len(data) == 0 {
		return 0, false, nil
	}
	if !it.keep {
		it.val = it.val[:0]
	}
	base := len(it.val)
	n, ok, err = it.parseRecord(data)
	if !ok || err != nil {
		it.val = it.val[:base]
	}
	return n, ok, err
}

// stopBytes are the bytes a field's scan stops at: outside quotes the
// first bytes of the terminators and the escape, inside quotes the first
// byte of ENCLOSED BY and the escape. Every other byte is field text, so
// the runs between stops are copied at once.
type stopBytes struct {
	plain, quoted [256]bool
}

func (it *loadIter) stopBytes() *stopBytes {
	if it.stops == nil {
		s := &stopBytes{}
		s.plain[it.term[0]], s.plain[it.lineTerm[0]] = true, true
		if it.hasEsc {
			s.plain[it.esc], s.quoted[it.esc] = true, true
		}
		if len(it.enc) > 0 {
			s.quoted[it.enc[0]] = true
		}
		it.stops = s
	}
	return it.stops
}

// scanTo is the index of the first byte of data[i:limit] in stop, or
// limit (i when i >= limit).
func scanTo(data []byte, i, limit int, stop *[256]bool) int {
	for i < limit && !stop[data[i]] {
		i++
	}
	return i
}

func (it *loadIter) parseRecord(data []byte) (n int, ok bool, err error) {
	it.fields = it.fields[:0]
	stops := it.stopBytes()
	// A byte at i < limit has enough input after it to tell a terminator
	// (or a closing quote) from text; past limit more input must be read
	// first, unless the input has ended.
	limit := len(data)
	if !it.eof {
		limit -= it.maxTerm
	}
	i := 0
	for {
		f := loadField{start: len(it.val)}
		if len(it.enc) > 0 && bytes.HasPrefix(data[i:], it.enc) {
			f.quoted = true
			i += len(it.enc)
			closed := false
			for !closed {
				j := scanTo(data, i, limit, &stops.quoted)
				if j > i {
					it.val = append(it.val, data[i:j]...)
					i = j
				}
				if i >= limit {
					if !it.eof {
						return 0, false, nil
					}
					break // unterminated at end of input: take what there is
				}
				c := data[i]
				switch {
				case it.hasEsc && c == it.esc && i+1 < len(data):
					it.unescape(data[i+1], &f)
					i += 2
				case bytes.HasPrefix(data[i:], it.enc):
					j := i + len(it.enc)
					if bytes.HasPrefix(data[j:], it.enc) {
						it.val = append(it.val, it.enc...)
						i = j + len(it.enc)
					} else if j == len(data) || bytes.HasPrefix(data[j:], it.term) || bytes.HasPrefix(data[j:], it.lineTerm) {
						i, closed = j, true
					} else {
						it.val = append(it.val, it.enc...)
						i = j
					}
				default:
					it.val = append(it.val, c)
					i++
				}
			}
		} else {
			for {
				j := scanTo(data, i, limit, &stops.plain)
				if j > i {
					it.val = append(it.val, data[i:j]...)
					i = j
				}
				if i >= limit {
					if !it.eof {
						return 0, false, nil
					}
					break
				}
				if bytes.HasPrefix(data[i:], it.term) || bytes.HasPrefix(data[i:], it.lineTerm) {
					break
				}
				c := data[i]
				if it.hasEsc && c == it.esc && i+1 < len(data) {
					it.unescape(data[i+1], &f)
					i += 2
					continue
				}
				it.val = append(it.val, c)
				i++
			}
			if len(it.enc) > 0 && string(it.val[f.start:]) == "NULL" {
				f.null = true
			}
		}
		f.end = len(it.val)
		if f.escapedN && f.end-f.start == 1 {
			f.null = true // \N is NULL; inside a longer field it is the letter N
		}
		it.fields = append(it.fields, f)
		switch {
		case i >= len(data):
			return i, true, nil
		case bytes.HasPrefix(data[i:], it.term):
			i += len(it.term)
		case bytes.HasPrefix(data[i:], it.lineTerm):
			return i + len(it.lineTerm), true, nil
		default:
			return 0, false, fmt.Errorf("LOAD DATA: cannot read the field at byte %d of a record", i)
		}
	}
}

// unescape appends the character an escape sequence stands for; a leading
// \N is remembered (the field is NULL when that is all of it).
func (it *loadIter) unescape(c byte, f *loadField) {
	switch c {
	case '0':
		c = 0
	case 'b':
		c = '\b'
	case 'n':
		c = '\n'
	case 'r':
		c = '\r'
	case 't':
		c = '\t'
	case 'Z':
		c = 26
	case 'N':
		f.escapedN = len(it.val) == f.start
	}
	it.val = append(it.val, c)
}
