package sqlengine

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
)

// MERGE INTO runs as reads through the engine followed by writes through
// the target's editors, all in one transaction:
//
//  1. WHEN MATCHED: one join of target and source returns, per matched
//     pair, the target row, the number of the first MATCHED clause whose
//     condition holds (0 for none) and that clause's SET values. A target
//     row matched by two source rows when a clause acts on it is an error.
//  2. WHEN NOT MATCHED BY SOURCE: target rows with no matching source row,
//     likewise.
//  3. WHEN NOT MATCHED: source rows with no matching target row (NOT
//     EXISTS), the first NOT MATCHED clause that holds and its values.
//  4. The deletes, updates and inserts are written as one statement: a
//     failing row discards all of them (DiscardChanges), also inside a
//     client transaction.
//
// Every read sees the target as it was before the MERGE, so each row's
// clause is decided by its original values (running the clauses as
// successive UPDATE … JOIN statements would let a later clause see rows an
// earlier one changed).

const mergeClauseCol = "__lakesql_clause"

// mergePlan is the SQL of the reads of one WHEN kind.
type mergePlan struct {
	clauses []*mergeClause // the clauses of this kind, in order
	caseSQL string         // the number (1-based) of the first clause that holds, 0 for none
}

func newMergePlan(s *mergeStmt, when mergeWhen) *mergePlan {
	mp := &mergePlan{}
	var b strings.Builder
	b.WriteString("(CASE")
	for i := range s.clauses {
		c := &s.clauses[i]
		if c.when != when {
			continue
		}
		mp.clauses = append(mp.clauses, c)
		cond := "TRUE"
		if c.cond != "" {
			cond = "(" + c.cond + ")"
		}
		fmt.Fprintf(&b, " WHEN %s THEN %d", cond, len(mp.clauses))
	}
	b.WriteString(" ELSE 0 END)")
	mp.caseSQL = b.String()
	return mp
}

// guarded evaluates expr only for rows the clause numbered n applies to.
func (mp *mergePlan) guarded(n int, expr string) string {
	return fmt.Sprintf("(CASE %s WHEN %d THEN (%s) END)", mp.caseSQL, n, expr)
}

// mergeTarget is the resolved target of a MERGE.
type mergeTarget struct {
	name   string
	table  sql.Table
	sch    sql.Schema
	pk     []int
	ref    string // `db`.`table` AS `alias`
	source string // source AS `alias`
}

// colIndex is the target column named name, or -1.
func (mt *mergeTarget) colIndex(name string) int {
	for i, c := range mt.sch {
		if strings.EqualFold(c.Name, name) {
			return i
		}
	}
	return -1
}

// assignments resolves a clause's columns and expressions (SET * and
// INSERT * take the source column of each target column's name).
func (mt *mergeTarget) assignments(c *mergeClause, sourceAlias string) ([]int, []string, error) {
	if c.star {
		idx := make([]int, len(mt.sch))
		exprs := make([]string, len(mt.sch))
		for i, col := range mt.sch {
			idx[i], exprs[i] = i, quoteName(sourceAlias)+"."+quoteName(col.Name)
		}
		return idx, exprs, nil
	}
	if c.cols == nil { // INSERT VALUES (…) without columns
		if len(c.exprs) != len(mt.sch) {
			return nil, nil, fmt.Errorf("lakesql: MERGE: INSERT has %d values but %s has %d columns", len(c.exprs), mt.name, len(mt.sch))
		}
		idx := make([]int, len(mt.sch))
		for i := range idx {
			idx[i] = i
		}
		return idx, c.exprs, nil
	}
	idx := make([]int, len(c.cols))
	seen := map[int]bool{}
	for i, name := range c.cols {
		j := mt.colIndex(name)
		if j < 0 {
			return nil, nil, errUnknownColumn(name, mt.name)
		}
		if seen[j] {
			return nil, nil, fmt.Errorf("lakesql: MERGE: column %s is assigned twice in one clause", name)
		}
		seen[j] = true
		idx[i] = j
	}
	return idx, c.exprs, nil
}

// convert converts v to the type of target column i, as UPDATE and INSERT do.
func (mt *mergeTarget) convert(ctx *sql.Context, i int, v any) (any, error) {
	if v == nil {
		return nil, nil
	}
	col := mt.sch[i]
	out, inRange, err := col.Type.Convert(ctx, v)
	if err != nil {
		return nil, fmt.Errorf("lakesql: MERGE: column %s: %w", col.Name, err)
	}
	if inRange == sql.OutOfRange {
		return nil, sql.ErrValueOutOfRange.New(v, col.Type)
	}
	return out, nil
}

func (mt *mergeTarget) key(row sql.Row) string {
	var b strings.Builder
	for _, i := range mt.pk {
		if row[i] == nil {
			b.WriteString("N;")
			continue
		}
		s := fmt.Sprint(row[i])
		b.WriteString(strconv.Itoa(len(s)))
		b.WriteByte(':')
		b.WriteString(s)
	}
	return b.String()
}

func (mt *mergeTarget) keyText(row sql.Row) string {
	parts := make([]string, len(mt.pk))
	for k, i := range mt.pk {
		parts[k] = fmt.Sprintf("%s=%v", mt.sch[i].Name, row[i])
	}
	return strings.Join(parts, ", ")
}

// mergeWrites are the changes a MERGE makes.
type mergeWrites struct {
	deletes []sql.Row
	updates [][2]sql.Row // old, new
	inserts []sql.Row
}

func (w *mergeWrites) count() uint64 {
	return uint64(len(w.deletes) + len(w.updates) + len(w.inserts))
}

func (h *writeHandler) execMerge(ctx *sql.Context, s *mergeStmt) (n uint64, err error) {
	tx, err := beginStmtTx(ctx)
	if err != nil {
		return 0, err
	}
	defer func() { err = tx.finish(ctx, err) }()
	db, table, err := h.targetTable(ctx, s.db, s.table)
	if err != nil {
		return 0, err
	}
	mt := &mergeTarget{name: s.table, table: table, sch: table.Schema()}
	for i, c := range mt.sch {
		if c.PrimaryKey {
			mt.pk = append(mt.pk, i)
		}
	}
	mt.ref = quoteName(db) + "." + quoteName(s.table) + " AS " + quoteName(s.alias)
	mt.source = s.source + " AS " + quoteName(s.sourceAlias)
	var w mergeWrites
	for _, when := range []mergeWhen{whenMatched, whenNotMatchedBySource} {
		mp := newMergePlan(s, when)
		if len(mp.clauses) == 0 {
			continue
		}
		if len(mt.pk) == 0 {
			return 0, fmt.Errorf("lakesql: MERGE %s needs a primary-key table; %s has no primary key (UPDATE and DELETE of append tables are not supported)", when, mt.name)
		}
		if err := h.mergeTargetRows(ctx, s, mt, mp, when, &w); err != nil {
			return 0, err
		}
	}
	if mp := newMergePlan(s, whenNotMatched); len(mp.clauses) > 0 {
		if err := h.mergeInserts(ctx, s, mt, mp, &w); err != nil {
			return 0, err
		}
	}
	if err := applyMerge(ctx, mt, &w); err != nil {
		return 0, err
	}
	return w.count(), nil
}

// mergeTargetRows reads the target rows a MATCHED or NOT MATCHED BY SOURCE
// clause acts on and records its deletes and updates.
func (h *writeHandler) mergeTargetRows(ctx *sql.Context, s *mergeStmt, mt *mergeTarget, mp *mergePlan, when mergeWhen, w *mergeWrites) error {
	ta := quoteName(s.alias)
	var sel []string
	for _, c := range mt.sch {
		sel = append(sel, ta+"."+quoteName(c.Name))
	}
	sel = append(sel, mp.caseSQL+" AS "+mergeClauseCol)
	type setList struct {
		idx   []int
		first int // the clause's first value column in the result
	}
	sets := make([]setList, len(mp.clauses))
	for k, c := range mp.clauses {
		if c.action != mergeUpdate {
			continue
		}
		idx, exprs, err := mt.assignments(c, s.sourceAlias)
		if err != nil {
			return err
		}
		sets[k] = setList{idx: idx, first: len(sel)}
		for _, e := range exprs {
			sel = append(sel, mp.guarded(k+1, e))
		}
	}
	hint := ""
	if when == whenMatched && plainName(s.alias) && plainName(s.sourceAlias) && !strings.EqualFold(s.alias, s.sourceAlias) {
		// Without statistics GMS picks a lookup join, which costs one
		// Paimon point read per row of its outer side (about 1 ms each);
		// a hash join built from the source scans each side once. GMS
		// reads hint arguments unquoted and ignores the hint when ON has
		// no equality.
		hint = "/*+ HASH_JOIN(" + strings.ToLower(s.alias) + ", " + strings.ToLower(s.sourceAlias) + ") */ "
	}
	q := "SELECT " + hint + strings.Join(sel, ", ") + " FROM " + mt.ref
	if when == whenMatched {
		q += " JOIN " + mt.source + " ON (" + s.on + ")"
	} else {
		q += " WHERE NOT EXISTS (SELECT 1 FROM " + mt.source + " WHERE (" + s.on + "))"
	}
	_, rows, err := h.query(ctx, q)
	if err != nil {
		return err
	}
	ncol := len(mt.sch)
	seen := make(map[string]int, len(rows))
	for _, r := range rows {
		clause, err := clauseNumber(r[ncol])
		if err != nil {
			return err
		}
		if when == whenMatched {
			key := mt.key(r)
			if prev, dup := seen[key]; dup && (prev > 0 || clause > 0) {
				return fmt.Errorf("lakesql: MERGE: the target row of %s (%s) is matched by more than one source row", mt.name, mt.keyText(r))
			}
			seen[key] = clause
		}
		if clause == 0 {
			continue
		}
		c := mp.clauses[clause-1]
		old := append(sql.Row(nil), r[:ncol]...)
		if c.action == mergeDelete {
			w.deletes = append(w.deletes, old)
			continue
		}
		nw := append(sql.Row(nil), old...)
		st := sets[clause-1]
		for k, i := range st.idx {
			if nw[i], err = mt.convert(ctx, i, r[st.first+k]); err != nil {
				return err
			}
		}
		w.updates = append(w.updates, [2]sql.Row{old, nw})
	}
	return nil
}

// mergeInserts reads the source rows no target row matches and records
// the rows the first NOT MATCHED clause that holds inserts.
func (h *writeHandler) mergeInserts(ctx *sql.Context, s *mergeStmt, mt *mergeTarget, mp *mergePlan, w *mergeWrites) error {
	sel := []string{mp.caseSQL + " AS " + mergeClauseCol}
	idxs := make([][]int, len(mp.clauses))
	firsts := make([]int, len(mp.clauses))
	for k, c := range mp.clauses {
		idx, exprs, err := mt.assignments(c, s.sourceAlias)
		if err != nil {
			return err
		}
		idxs[k], firsts[k] = idx, len(sel)
		for _, e := range exprs {
			sel = append(sel, mp.guarded(k+1, e))
		}
	}
	q := "SELECT " + strings.Join(sel, ", ") + " FROM " + mt.source +
		" WHERE NOT EXISTS (SELECT 1 FROM " + mt.ref + " WHERE (" + s.on + "))"
	_, rows, err := h.query(ctx, q)
	if err != nil {
		return err
	}
	defaults, err := mt.defaults(ctx)
	if err != nil {
		return err
	}
	for _, r := range rows {
		clause, err := clauseNumber(r[0])
		if err != nil {
			return err
		}
		if clause == 0 {
			continue
		}
		row := append(sql.Row(nil), defaults...)
		for k, i := range idxs[clause-1] {
			if row[i], err = mt.convert(ctx, i, r[firsts[clause-1]+k]); err != nil {
				return err
			}
		}
		w.inserts = append(w.inserts, row)
	}
	return nil
}

// defaults are the values of columns an INSERT does not name.
func (mt *mergeTarget) defaults(ctx *sql.Context) (sql.Row, error) {
	row := make(sql.Row, len(mt.sch))
	for i, c := range mt.sch {
		if c.Default == nil {
			continue
		}
		v, err := c.Default.Eval(ctx, nil)
		if err != nil {
			return nil, err
		}
		if row[i], err = mt.convert(ctx, i, v); err != nil {
			return nil, err
		}
	}
	return row, nil
}

// plainName reports whether an identifier can be named unquoted in a
// GMS optimizer hint.
func plainName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return s != ""
}

func clauseNumber(v any) (int, error) {
	switch x := v.(type) {
	case int64:
		return int(x), nil
	case int32:
		return int(x), nil
	case int8:
		return int(x), nil
	case uint64:
		return int(x), nil
	case int:
		return x, nil
	}
	n, err := strconv.Atoi(fmt.Sprint(v))
	if err != nil {
		return 0, fmt.Errorf("lakesql: MERGE: unexpected clause number %v (%T)", v, v)
	}
	return n, nil
}

// applyMerge writes the MERGE's changes as one statement of the session's
// transaction; an error discards all of them.
func applyMerge(ctx *sql.Context, mt *mergeTarget, w *mergeWrites) (err error) {
	type editor interface {
		sql.EditOpenerCloser
		Close(*sql.Context) error
	}
	var eds []editor
	open := func(e editor) editor {
		e.StatementBegin(ctx)
		eds = append(eds, e)
		return e
	}
	defer func() {
		for _, e := range eds {
			if err != nil {
				e.DiscardChanges(ctx, err)
			} else {
				err = e.StatementComplete(ctx)
			}
		}
		for _, e := range eds {
			if cerr := e.Close(ctx); err == nil {
				err = cerr
			}
		}
	}()
	if len(w.deletes) > 0 {
		dt, ok := mt.table.(sql.DeletableTable)
		if !ok {
			return fmt.Errorf("lakesql: MERGE: %s does not support DELETE", mt.name)
		}
		d := open(dt.Deleter(ctx)).(sql.RowDeleter)
		for _, r := range w.deletes {
			if err := d.Delete(ctx, r); err != nil {
				return err
			}
		}
	}
	if len(w.updates) > 0 {
		ut, ok := mt.table.(sql.UpdatableTable)
		if !ok {
			return fmt.Errorf("lakesql: MERGE: %s does not support UPDATE", mt.name)
		}
		u := open(ut.Updater(ctx)).(sql.RowUpdater)
		for _, r := range w.updates {
			if err := u.Update(ctx, r[0], r[1]); err != nil {
				return err
			}
		}
	}
	if len(w.inserts) > 0 {
		it, ok := mt.table.(sql.InsertableTable)
		if !ok {
			return fmt.Errorf("lakesql: MERGE: %s does not support INSERT", mt.name)
		}
		ins := open(it.Inserter(ctx)).(sql.RowInserter)
		for _, r := range w.inserts {
			if err := ins.Insert(ctx, r); err != nil {
				return err
			}
		}
	}
	return nil
}
