package sqlengine

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
)

func testSchema(names ...string) sql.Schema {
	var out sql.Schema
	for _, n := range names {
		out = append(out, &sql.Column{Name: n, Type: types.Int64, Nullable: true})
	}
	return out
}

// mergeText prints a parsed MERGE compactly for comparison.
func mergeText(s *mergeStmt) string {
	var b strings.Builder
	fmt.Fprintf(&b, "target=%s.%s as %s; source=%s as %s; on=%s", s.db, s.table, s.alias, s.source, s.sourceAlias, s.on)
	for _, c := range s.clauses {
		fmt.Fprintf(&b, "; %s", c.when)
		if c.cond != "" {
			fmt.Fprintf(&b, " AND [%s]", c.cond)
		}
		switch c.action {
		case mergeUpdate:
			b.WriteString(" UPDATE")
		case mergeDelete:
			b.WriteString(" DELETE")
		case mergeInsert:
			b.WriteString(" INSERT")
		}
		if c.star {
			b.WriteString(" *")
		}
		if c.cols != nil {
			fmt.Fprintf(&b, " cols=%s", strings.Join(c.cols, ","))
		}
		for _, e := range c.exprs {
			fmt.Fprintf(&b, " [%s]", e)
		}
	}
	return b.String()
}

func TestParseMerge(t *testing.T) {
	for _, c := range []struct{ q, want string }{
		{
			"MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN DELETE",
			"target=.t as t; source=`s` as s; on=t.id = s.id; WHEN MATCHED DELETE",
		},
		{
			"merge into db.tgt AS x using db2.src y on x.k = y.k and y.v > 0\n" +
				"when matched and y.op = 'D' then delete\n" +
				"when matched then update set x.v = y.v + 1, name = CONCAT(x.name, ',', y.name)\n" +
				"when not matched by target and y.op <> 'D' then insert (k, v) values (y.k, COALESCE(y.v, 0));",
			"target=db.tgt as x; source=`db2`.`src` as y; on=x.k = y.k and y.v > 0; WHEN MATCHED AND [y.op = 'D'] DELETE; " +
				"WHEN MATCHED UPDATE cols=v,name [y.v + 1] [CONCAT(x.name, ',', y.name)]; " +
				"WHEN NOT MATCHED AND [y.op <> 'D'] INSERT cols=k,v [y.k] [COALESCE(y.v, 0)]",
		},
		{
			// CASE … WHEN … THEN … END inside expressions and conditions.
			"MERGE INTO t USING (SELECT id, CASE WHEN v > 1 THEN 'a' ELSE 'b' END AS c FROM u) AS s ON (t.id = s.id) " +
				"WHEN MATCHED AND CASE WHEN s.c = 'a' THEN TRUE END THEN UPDATE SET c = CASE s.c WHEN 'a' THEN 1 ELSE 2 END " +
				"WHEN NOT MATCHED THEN INSERT VALUES (s.id, CASE WHEN s.c = 'x' THEN 0 END)",
			"target=.t as t; source=(SELECT id, CASE WHEN v > 1 THEN 'a' ELSE 'b' END AS c FROM u) as s; on=(t.id = s.id); " +
				"WHEN MATCHED AND [CASE WHEN s.c = 'a' THEN TRUE END] UPDATE cols=c [CASE s.c WHEN 'a' THEN 1 ELSE 2 END]; " +
				"WHEN NOT MATCHED INSERT [s.id] [CASE WHEN s.c = 'x' THEN 0 END]",
		},
		{
			"MERGE INTO `my t` USING `s` FOR SYSTEM_TIME AS OF 3 AS src ON `my t`.id = src.id " +
				"WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT * WHEN NOT MATCHED BY SOURCE AND `my t`.v < 0 THEN DELETE",
			"target=.my t as my t; source=`s` FOR SYSTEM_TIME AS OF 3 as src; on=`my t`.id = src.id; WHEN MATCHED UPDATE *; " +
				"WHEN NOT MATCHED INSERT *; WHEN NOT MATCHED BY SOURCE AND [`my t`.v < 0] DELETE",
		},
		{
			"/* c */ MERGE INTO t USING s AS OF 2 ON t.id = s.id -- comment\nWHEN MATCHED THEN UPDATE SET v = 'it''s \\'x\\' WHEN' # x\n",
			"target=.t as t; source=`s` AS OF 2 as s; on=t.id = s.id; WHEN MATCHED UPDATE cols=v ['it''s \\'x\\' WHEN']",
		},
	} {
		s, err := parseMerge(c.q)
		if err != nil {
			t.Errorf("%s: %v", c.q, err)
			continue
		}
		if got := mergeText(s); got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.q, got, c.want)
		}
	}
}

func TestParseMergeErrors(t *testing.T) {
	for _, c := range []struct{ q, want string }{
		{"MERGE INTO t USING s ON t.id = s.id", "expected WHEN"},
		{"MERGE INTO t USING s WHEN MATCHED THEN DELETE", "expected ON"},
		{"MERGE INTO t USING (SELECT 1) ON 1 WHEN MATCHED THEN DELETE", "alias"},
		{"MERGE INTO t USING s ON (a WHEN MATCHED THEN DELETE", "unbalanced"},
		{"MERGE INTO t USING s ON a) WHEN MATCHED THEN DELETE", "unbalanced"},
		{"MERGE INTO t USING s ON a WHEN MATCHED THEN UPSERT", "expected UPDATE, DELETE or INSERT"},
		{"MERGE INTO t USING s ON a WHEN MATCHED AND THEN DELETE", "expected a condition"},
		{"MERGE INTO t USING s ON a WHEN MATCHED THEN UPDATE SET v =", "expected an expression"},
		{"MERGE INTO t USING s ON a WHEN MATCHED THEN UPDATE SET x.v = 1", "qualifier x"},
		{"MERGE INTO t USING s ON a WHEN NOT MATCHED THEN UPDATE SET v = 1", "can only INSERT"},
		{"MERGE INTO t USING s ON a WHEN MATCHED THEN INSERT *", "cannot INSERT"},
		{"MERGE INTO t USING s ON a WHEN NOT MATCHED BY SOURCE THEN UPDATE SET *", "no source row"},
		{"MERGE INTO t USING s ON a WHEN NOT MATCHED THEN INSERT (a, b) VALUES (1)", "2 columns but has 1"},
		{"MERGE INTO t USING s ON a WHEN MATCHED THEN DELETE extra", "unexpected text"},
		{"MERGE INTO t USING s ON 'open WHEN MATCHED THEN DELETE", "unterminated"},
	} {
		_, err := parseMerge(c.q)
		if err == nil || !errors.Is(err, errWriteSyntax) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want a syntax error mentioning %q", c.q, err, c.want)
		}
	}
}

func TestParseOverwrite(t *testing.T) {
	for _, c := range []struct{ q, want string }{
		{"INSERT OVERWRITE t SELECT * FROM s", "INSERT INTO `db`.`t` SELECT * FROM s"},
		{"insert overwrite table d.t (b, a) select 1, 2;", "INSERT INTO `db`.`t` (`b`, `a`) select 1, 2"},
		{"INSERT OVERWRITE t PARTITION (dt = '2024-01-01', hr = -3) SELECT a, b FROM s",
			"INSERT INTO `db`.`t` (`a`, `b`, `dt`, `hr`) SELECT *, '2024-01-01', -3 FROM (SELECT a, b FROM s) AS `__lakesql_q`"},
		{"INSERT OVERWRITE t PARTITION (dt='x') VALUES (1, 'a'), ROW(2, 'b\\')')",
			"INSERT INTO `db`.`t` (`a`, `b`, `hr`, `dt`) VALUES (1, 'a', 'x'), ROW(2, 'b\\')', 'x')"},
		{"INSERT OVERWRITE t PARTITION (dt='x', hr) SELECT a, b, hr FROM s",
			"INSERT INTO `db`.`t` (`a`, `b`, `hr`, `dt`) SELECT *, 'x' FROM (SELECT a, b, hr FROM s) AS `__lakesql_q`"},
		{"INSERT OVERWRITE t (a) WITH q AS (SELECT 1) SELECT * FROM q", "INSERT INTO `db`.`t` (`a`) WITH q AS (SELECT 1) SELECT * FROM q"},
		{"INSERT OVERWRITE t (SELECT 1, 2, 3, 4)", "INSERT INTO `db`.`t` (SELECT 1, 2, 3, 4)"},
	} {
		s, err := parseOverwrite(c.q)
		if err != nil {
			t.Errorf("%s: %v", c.q, err)
			continue
		}
		got, err := overwriteInsert(s, "db", testSchema("a", "b", "dt", "hr"), s.staticCols())
		if err != nil {
			t.Errorf("%s: %v", c.q, err)
			continue
		}
		if got != c.want {
			t.Errorf("%s:\n got %s\nwant %s", c.q, got, c.want)
		}
	}
	for _, c := range []struct{ q, want string }{
		{"INSERT OVERWRITE t PARTITION (dt) DELETE", "expected SELECT or VALUES"},
		{"INSERT OVERWRITE t PARTITION (dt = x) SELECT 1", "must be a literal"},
		{"INSERT OVERWRITE t PARTITION (dt = 'a', DT = 'b') SELECT 1", "given twice"},
		{"INSERT OVERWRITE t PARTITION (dt = 'a' SELECT 1", "expected ','"},
		{"INSERT OVERWRITE t VALUES (1), 2", "expected '('"},
	} {
		_, err := parseOverwrite(c.q)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one mentioning %q", c.q, err, c.want)
		}
	}
}

func TestWriteKindOf(t *testing.T) {
	for q, want := range map[string]writeKind{
		"MERGE INTO t USING s ON 1 WHEN MATCHED THEN DELETE": writeMerge,
		"  /* x */ merge  into t":                            writeMerge,
		"-- c\nINSERT OVERWRITE t SELECT 1":                  writeOverwrite,
		"insert   overwrite table t values (1)":              writeOverwrite,
		"INSERT INTO t VALUES (1)":                           notWrite,
		"SELECT 'MERGE INTO'":                                notWrite,
		"MERGED":                                             notWrite,
		"":                                                   notWrite,
	} {
		if got := writeKindOf(q); got != want {
			t.Errorf("%q: kind %d, want %d", q, got, want)
		}
	}
}

// FuzzParseMerge: the write front's parsers never panic, and what they
// accept keeps every expression a substring of the statement.
func FuzzParseMerge(f *testing.F) {
	for _, s := range []string{
		"MERGE INTO t USING s ON t.id = s.id WHEN MATCHED THEN DELETE",
		"MERGE INTO t USING (SELECT 1 AS id) s ON t.id = s.id WHEN MATCHED AND CASE WHEN 1 THEN 1 END THEN UPDATE SET v = 1 WHEN NOT MATCHED THEN INSERT VALUES (1)",
		"INSERT OVERWRITE t PARTITION (dt='x') VALUES (1), (2)",
		"INSERT OVERWRITE TABLE t (a) SELECT 1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		if s, err := parseMerge(q); err == nil {
			for _, e := range append([]string{s.on}, clauseExprs(s)...) {
				if !strings.Contains(q, e) {
					t.Fatalf("expression %q is not in %q", e, q)
				}
			}
		}
		if s, err := parseOverwrite(q); err == nil {
			overwriteInsert(s, "db", testSchema("a", "b"), s.staticCols())
		}
		writeKindOf(q)
	})
}

func clauseExprs(s *mergeStmt) []string {
	var out []string
	for _, c := range s.clauses {
		if c.cond != "" {
			out = append(out, c.cond)
		}
		out = append(out, c.exprs...)
	}
	return out
}
