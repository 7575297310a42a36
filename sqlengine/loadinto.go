package sqlengine

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"unsafe"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/lakesql/lakesql/provider"
)

// LOAD DATA into a Paimon table runs as lakesql's own plan node: the
// reader's records go straight to a provider.Loader (typed Paimon values,
// the INSERT path's checks only for values that need them) instead of
// GMS's per-row INSERT path (projection, conversion, row editor), which
// was more than half of a LOAD's CPU. The statement keeps GMS's parsing,
// privilege checks and transaction handling: it is one statement in the
// session's transaction (one snapshot per table in autocommit mode), its
// rows are discarded when it fails. Its OK packet carries MySQL's info
// string ("Records: n  Deleted: 0  Skipped: 0  Warnings: w").
//
// LOAD DATA … IGNORE (and LOCAL without REPLACE, which GMS plans as
// IGNORE, as MySQL does) clamps values and skips rows with the INSERT
// path's warnings; a LOAD that fails discards all of its rows (GMS's path
// keeps the rows before the failing one inside an explicit transaction).
//
// GMS's path keeps the statements the node does not handle: @user variables, SET col = expr,
// LINES STARTING BY, tables with generated, AUTO_INCREMENT or expression
// default columns or CHECK constraints, non-Paimon tables, and every LOAD
// with SET lakesql_load_direct = 0.

// LoadIntoRuleID identifies loadIntoRule.
const LoadIntoRuleID analyzer.RuleId = 1091

var installLoadInto sync.Once

// installLoadIntoRule adds loadIntoRule to GMS's after-all rules (after
// the strict rule, which every INSERT analysis runs).
func installLoadIntoRule() {
	installLoadInto.Do(func() {
		analyzer.OnceAfterAll = append(analyzer.OnceAfterAll, analyzer.Rule{Id: LoadIntoRuleID, Apply: loadIntoRule})
	})
}

// loadIntoRule replaces an INSERT of LOAD DATA rows into a Paimon table by
// a loadInto node when the node handles it.
func loadIntoRule(ctx *sql.Context, a *analyzer.Analyzer, node sql.Node, scope *plan.Scope, sel analyzer.RuleSelector, qf *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.Node(node, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		ii, ok := n.(*plan.InsertInto)
		if !ok || !provider.LoadDirect(ctx) {
			return n, transform.SameTree, nil
		}
		if ld := loadSource(ii); ld != nil {
			return &loadInto{ii: ii, ld: ld}, transform.NewTree, nil
		}
		return n, transform.SameTree, nil
	})
}

// loadSource is the LOAD DATA of ii when a loadInto node runs ii, else nil.
func loadSource(ii *plan.InsertInto) *plan.LoadData {
	if len(ii.OnDupExprs) > 0 || len(ii.Returning) > 0 || len(ii.Checks()) > 0 {
		return nil
	}
	src := ii.Source
	if p, ok := src.(*plan.Project); ok {
		src = p.Child
	}
	ld, ok := src.(*plan.LoadData)
	if !ok || !readsLoadData(ld) {
		return nil
	}
	t, err := plan.GetInsertable(ii.Destination)
	if err != nil || !provider.LoadableTable(t) {
		return nil
	}
	return ld
}

// loadInto is LOAD DATA into a Paimon table, run by lakesql.
type loadInto struct {
	ii *plan.InsertInto
	ld *plan.LoadData
}

var _ sql.Node = (*loadInto)(nil)

func (n *loadInto) Resolved() bool       { return true }
func (n *loadInto) IsReadOnly() bool     { return false }
func (n *loadInto) Schema() sql.Schema   { return types.OkResultSchema }
func (n *loadInto) Children() []sql.Node { return nil }
func (n *loadInto) String() string {
	return fmt.Sprintf("LoadData(lakesql) INTO %s FROM %q", n.ii.Destination.String(), n.ld.File)
}

func (n *loadInto) WithChildren(children ...sql.Node) (sql.Node, error) {
	if len(children) != 0 {
		return nil, sql.ErrInvalidChildrenNumber.New(n, len(children), 0)
	}
	return n, nil
}

// loadInfo is MySQL's info string of a LOAD DATA.
type loadInfo struct{ records, deleted, skipped, warnings uint64 }

func (i loadInfo) String() string {
	return fmt.Sprintf("Records: %d  Deleted: %d  Skipped: %d  Warnings: %d", i.records, i.deleted, i.skipped, i.warnings)
}

// loadIntoIter runs the load on its first Next and returns the OK result.
type loadIntoIter struct {
	n    *loadInto
	done bool
}

func (it *loadIntoIter) Close(*sql.Context) error { return nil }

func (it *loadIntoIter) Next(ctx *sql.Context) (sql.Row, error) {
	if it.done {
		return nil, io.EOF
	}
	it.done = true
	n, skipped, err := it.load(ctx)
	if err != nil {
		return nil, err
	}
	ctx.SetLastQueryInfoInt(sql.RowCount, n-skipped)
	info := loadInfo{records: uint64(n), skipped: uint64(skipped), warnings: uint64(ctx.Session.WarningCount())}
	return sql.NewRow(types.OkResult{RowsAffected: uint64(n - skipped), Info: info}), nil
}

// load reads every record into the loader; the statement's rows are
// discarded when it fails.
func (it *loadIntoIter) load(ctx *sql.Context) (n, skipped int64, err error) {
	dest, err := plan.GetInsertable(it.n.ii.Destination)
	if err != nil {
		return 0, 0, err
	}
	r, err := newLoadIter(ctx, it.n.ld)
	if err != nil {
		return 0, 0, err
	}
	defer r.Close(ctx)
	l, err := provider.NewLoader(ctx, dest, loadColNames(it.n.ld), it.n.ii.IsReplace, it.n.ii.Ignore, it.n.ii.DeferredDefaults.Contains)
	if err != nil {
		return 0, 0, err
	}
	defer func() {
		if err != nil {
			l.Discard(ctx)
		}
	}()
	// The reader runs ahead in its own goroutine, a batch of records at a
	// time: reading and parsing overlap the conversion and buffering.
	batches := make(chan *loadBatch, 2)
	stop := make(chan struct{})
	go r.readBatches(batches, stop)
	defer func() {
		close(stop)
		for range batches { // the reader has stopped before its input closes
		}
	}()
	for b := range batches {
		if b.err != nil {
			return 0, 0, b.err
		}
		if err := ctx.Err(); err != nil {
			return 0, 0, err
		}
		for k := 0; k+1 < len(b.starts); k++ {
			if err := l.Row(ctx, b.fields[b.starts[k]:b.starts[k+1]]); err != nil {
				return 0, 0, err
			}
		}
	}
	if err := l.Done(ctx); err != nil {
		return 0, 0, err
	}
	return l.Rows(), l.Skipped(), nil
}

// loadBatch is a batch of records read ahead: record k's fields are
// fields[starts[k]:starts[k+1]], their text substrings of one string.
type loadBatch struct {
	fields []provider.LoadField
	starts []int
	err    error
}

// loadBatchBytes is the text a batch holds at most (a record longer than
// that makes a batch of its own).
const loadBatchBytes = 256 << 10

// readBatches reads every record into batches sent on out (an error ends
// the stream as a batch holding it), until stop is closed. The records'
// text goes straight into the batch's buffer (loadIter.keep), which
// becomes the batch's one string without a copy: a new buffer takes its
// place, so the bytes under the string are never written again.
func (it *loadIter) readBatches(out chan<- *loadBatch, stop <-chan struct{}) {
	defer close(out)
	send := func(b *loadBatch) bool {
		select {
		case out <- b:
			return true
		case <-stop:
			return false
		}
	}
	var (
		spans []loadField
		b     = &loadBatch{}
	)
	it.keep = true
	it.val = make([]byte, 0, loadBatchBytes+loadBatchBytes/4)
	flush := func() bool {
		if len(b.starts) == 0 {
			return true
		}
		str := unsafe.String(unsafe.SliceData(it.val), len(it.val))
		for i, f := range spans {
			b.fields[i].Text = str[f.start:f.end]
		}
		b.starts = append(b.starts, len(b.fields))
		ok := send(b)
		it.val = make([]byte, 0, loadBatchBytes+loadBatchBytes/4)
		spans, b = spans[:0], &loadBatch{fields: make([]provider.LoadField, 0, len(b.fields)), starts: make([]int, 0, len(b.starts))}
		return ok
	}
	for {
		err := it.nextRecord()
		if errors.Is(err, io.EOF) {
			flush()
			return
		}
		if err != nil {
			if flush() {
				send(&loadBatch{err: err})
			}
			return
		}
		b.starts = append(b.starts, len(b.fields))
		for _, f := range it.fields {
			spans = append(spans, loadField{start: f.start, end: f.end})
			b.fields = append(b.fields, provider.LoadField{Null: f.null, Quoted: f.quoted})
		}
		if len(it.val) >= loadBatchBytes {
			if !flush() {
				return
			}
		}
	}
}
