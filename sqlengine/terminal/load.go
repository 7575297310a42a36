package terminal

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/schollz/progressbar/v3"

	"github.com/lakesql/lakesql/internal/metrics"
)

// LoadOptions describe a bulk load.
type LoadOptions struct {
	// File is read; Table ("db.t" or "t" in the current database) gets its
	// rows.
	File, Table string
	// Format is csv (RFC 4180: ',' between fields, optional '"' quotes,
	// no backslash escapes) or tsv (MySQL's LOAD DATA defaults: tabs,
	// backslash escapes, \N for NULL).
	Format string
	// Header skips the first line.
	Header bool
	// Columns names the table columns the fields go to (all, in order,
	// when empty).
	Columns []string
	// Progress receives the progress: a bar when Terminal, else a plain
	// line every ProgressEvery (default 5 s) and at the end.
	Progress      io.Writer
	Terminal      bool
	ProgressEvery time.Duration
}

var loadSeq atomic.Int64

// Load reads a CSV or TSV file into a table with one LOAD DATA LOCAL INFILE
// statement (one Paimon snapshot), streaming the file to the server while
// it reports progress in bytes read. It returns the rows loaded.
func (s *Session) Load(ctx context.Context, o LoadOptions) (int64, error) {
	f, err := os.Open(o.File)
	if err != nil {
		return 0, fmt.Errorf("load: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, fmt.Errorf("load: %w", err)
	}
	if st.IsDir() {
		return 0, fmt.Errorf("load: %s is a directory", o.File)
	}
	head := make([]byte, 64<<10)
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return 0, fmt.Errorf("load: %w", err)
	}
	stmt, err := loadStatement(o, bytes.Contains(head, []byte("\r\n")))
	if err != nil {
		return 0, err
	}
	prog := newProgress(o, st.Size())
	defer prog.finish()
	cr := &countingReader{r: f, onRead: prog.add}
	name := fmt.Sprintf("lakesql-load-%d", loadSeq.Add(1))
	mysql.RegisterReaderHandler(name, func() io.Reader { return cr })
	defer mysql.DeregisterReaderHandler(name)
	res, err := s.conn.ExecContext(ctx, strings.Replace(stmt, "{reader}", "Reader::"+name, 1))
	if err != nil {
		return 0, fmt.Errorf("load %s into %s: %w", o.File, o.Table, err)
	}
	rows, _ := res.RowsAffected()
	prog.done(rows)
	return rows, nil
}

// loadStatement builds the LOAD DATA statement ({reader} stands for the
// file's reader name).
func loadStatement(o LoadOptions, crlf bool) (string, error) {
	if strings.TrimSpace(o.Table) == "" {
		return "", fmt.Errorf("load: no table")
	}
	var b strings.Builder
	b.WriteString("LOAD DATA LOCAL INFILE '{reader}' INTO TABLE ")
	b.WriteString(quoteName(o.Table))
	switch strings.ToLower(o.Format) {
	case "", "csv":
		b.WriteString(` FIELDS TERMINATED BY ',' OPTIONALLY ENCLOSED BY '"' ESCAPED BY ''`)
	case "tsv":
		b.WriteString(` FIELDS TERMINATED BY '\t' ESCAPED BY '\\'`)
	default:
		return "", fmt.Errorf("load: unknown format %q (csv, tsv)", o.Format)
	}
	if crlf {
		b.WriteString(` LINES TERMINATED BY '\r\n'`)
	} else {
		b.WriteString(` LINES TERMINATED BY '\n'`)
	}
	if o.Header {
		b.WriteString(" IGNORE 1 LINES")
	}
	if len(o.Columns) > 0 {
		cols := make([]string, len(o.Columns))
		for i, c := range o.Columns {
			cols[i] = "`" + strings.ReplaceAll(strings.TrimSpace(c), "`", "``") + "`"
		}
		b.WriteString(" (" + strings.Join(cols, ", ") + ")")
	}
	return b.String(), nil
}

type countingReader struct {
	r      io.Reader
	onRead func(int)
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.onRead(n)
	return n, err
}

// progress reports bytes read of a file.
type progress struct {
	bar   *progressbar.ProgressBar
	w     io.Writer
	total int64
	read  atomic.Int64
	every time.Duration
	last  time.Time
	start time.Time
	name  string
}

func newProgress(o LoadOptions, total int64) *progress {
	p := &progress{w: o.Progress, total: total, every: o.ProgressEvery, start: time.Now(), name: o.File}
	if p.every <= 0 {
		p.every = 5 * time.Second
	}
	p.last = p.start
	if o.Progress != nil && o.Terminal {
		p.bar = progressbar.NewOptions64(total,
			progressbar.OptionSetWriter(o.Progress),
			progressbar.OptionSetDescription("loading "+o.File),
			progressbar.OptionShowBytes(true),
			progressbar.OptionShowCount(),
			progressbar.OptionSetWidth(30),
			progressbar.OptionThrottle(100*time.Millisecond),
			progressbar.OptionOnCompletion(func() { fmt.Fprintln(o.Progress) }),
		)
	}
	return p
}

func (p *progress) add(n int) {
	if n <= 0 || p.w == nil {
		return
	}
	read := p.read.Add(int64(n))
	if p.bar != nil {
		_ = p.bar.Add(n)
		return
	}
	if now := time.Now(); now.Sub(p.last) >= p.every {
		p.last = now
		fmt.Fprintf(p.w, "lakesql: load %s: %s of %s read (%d%%)\n", p.name, metrics.FormatBytes(read), metrics.FormatBytes(p.total), percent(read, p.total))
	}
}

func (p *progress) done(rows int64) {
	if p.w == nil {
		return
	}
	if p.bar != nil {
		_ = p.bar.Finish()
	}
	fmt.Fprintf(p.w, "lakesql: load %s: %d rows from %s in %.1fs\n", p.name, rows, metrics.FormatBytes(p.read.Load()), time.Since(p.start).Seconds())
}

func (p *progress) finish() {
	if p.bar != nil {
		_ = p.bar.Exit()
	}
}

func percent(a, b int64) int64 {
	if b <= 0 {
		return 100
	}
	return a * 100 / b
}
