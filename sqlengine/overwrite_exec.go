package sqlengine

import (
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/lakesql/lakesql/provider"
)

// INSERT OVERWRITE runs `INSERT INTO t [(cols)] <query>` through the engine
// on the session — with the static partition values of PARTITION (…)
// filled into every row, as Spark does — and then marks the table as
// overwritten in the same transaction (provider.BeginOverwrite), so the
// commit is one OVERWRITE snapshot. Semantics are Paimon's with
// dynamic-partition-overwrite = true:
//
//   - no PARTITION clause (or one that leaves some partition column without
//     a value): the partitions the rows are written to are replaced;
//   - every partition column given a value: that partition is replaced,
//     even by zero rows;
//   - an unpartitioned table is replaced whole.
//
// The INSERT runs first: it may fail (and GMS discards its rows) without
// leaving the overwrite mark in a client transaction.

const overwriteQueryAlias = "`__lakesql_q`"

func (h *writeHandler) execOverwrite(ctx *sql.Context, s *overwriteStmt) (n uint64, err error) {
	tx, err := beginStmtTx(ctx)
	if err != nil {
		return 0, err
	}
	defer func() { err = tx.finish(ctx, err) }()
	db, table, err := h.targetTable(ctx, s.db, s.table)
	if err != nil {
		return 0, err
	}
	base, _, _ := strings.Cut(s.table, "$")
	ts, _, err := h.s.provider.LatestTableSchema(ctx, db, base)
	if err != nil {
		return 0, err
	}
	static := s.staticCols()
	for _, ps := range s.partition {
		found := false
		for _, k := range ts.PartitionKeys {
			found = found || strings.EqualFold(k, ps.col)
		}
		if !found {
			return 0, fmt.Errorf("lakesql: INSERT OVERWRITE: %s is not a partition column of %s (partition keys: %v)", ps.col, s.table, ts.PartitionKeys)
		}
	}
	var staticSpec map[string]string
	if len(static) > 0 && len(static) == len(ts.PartitionKeys) {
		staticSpec = map[string]string{}
		for _, ps := range static {
			staticSpec[ps.col] = ps.text
		}
	}
	q, err := overwriteInsert(s, db, table.Schema(), static)
	if err != nil {
		return 0, err
	}
	_, rows, err := h.query(ctx, q)
	if err != nil {
		return 0, err
	}
	if len(rows) == 1 && len(rows[0]) == 1 {
		if ok, isOK := rows[0][0].(types.OkResult); isOK {
			n = ok.RowsAffected
		}
	}
	if err := provider.BeginOverwrite(ctx, table, staticSpec); err != nil {
		// The INSERT's rows are in the transaction already.
		return 0, tx.abortClient(ctx, err)
	}
	return n, nil
}

// overwriteInsert is the INSERT INTO statement of an INSERT OVERWRITE.
func overwriteInsert(s *overwriteStmt, db string, sch sql.Schema, static []partSpec) (string, error) {
	isStatic := func(name string) bool {
		for _, ps := range static {
			if strings.EqualFold(ps.col, name) {
				return true
			}
		}
		return false
	}
	cols := s.cols
	for _, c := range cols {
		if isStatic(c) {
			return "", fmt.Errorf("lakesql: INSERT OVERWRITE: column %s has a static value in PARTITION (…) and cannot be in the column list", c)
		}
	}
	if cols == nil && len(static) > 0 {
		for _, c := range sch {
			if !isStatic(c.Name) {
				cols = append(cols, c.Name)
			}
		}
	}
	var b strings.Builder
	b.WriteString("INSERT INTO ")
	b.WriteString(quoteName(db) + "." + quoteName(s.table))
	if cols != nil || len(static) > 0 {
		names := make([]string, 0, len(cols)+len(static))
		for _, c := range cols {
			names = append(names, quoteName(c))
		}
		for _, ps := range static {
			names = append(names, quoteName(ps.col))
		}
		b.WriteString(" (" + strings.Join(names, ", ") + ")")
	}
	b.WriteByte(' ')
	if len(static) == 0 || s.values {
		b.WriteString(s.query)
		return b.String(), nil
	}
	b.WriteString("SELECT *")
	for _, ps := range static {
		b.WriteString(", " + ps.literal)
	}
	b.WriteString(" FROM (" + s.query + ") AS " + overwriteQueryAlias)
	return b.String(), nil
}
