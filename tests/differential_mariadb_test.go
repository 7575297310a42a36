package tests

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"math/rand"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestDifferentialMariaDB loads the same rows into lakesql and a private
// MariaDB server and runs seeded, generated SELECTs on both: expressions
// over INT/BIGINT/DECIMAL/DOUBLE/VARCHAR/DATE/DATETIME columns with NULLs,
// LIKE with escapes, casts, arithmetic near the integer limits, aggregates,
// window functions, IN/NOT IN/EXISTS subqueries and joins. Any difference
// (a different result, or an error on one side only) fails the test, unless
// it is one of knownDifferences below, each with the reason.
//
// The seed is fixed so CI is reproducible; LAKESQL_DIFF_SEED=N (or
// "random") explores others, LAKESQL_DIFF_QUERIES=N runs more. The test
// stops generating after diffBudget (40s, LAKESQL_DIFF_BUDGET=5m for long
// runs) so it stays near a minute in CI.
func TestDifferentialMariaDB(t *testing.T) {
	seed := int64(20260101)
	switch v := os.Getenv("LAKESQL_DIFF_SEED"); v {
	case "":
	case "random":
		seed = time.Now().UnixNano()
	default:
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatalf("LAKESQL_DIFF_SEED=%q: %v", v, err)
		}
		seed = n
	}
	queries := 3000
	if v := os.Getenv("LAKESQL_DIFF_QUERIES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("LAKESQL_DIFF_QUERIES=%q: %v", v, err)
		}
		queries = n
	}
	diffBudget := 40 * time.Second
	if v := os.Getenv("LAKESQL_DIFF_BUDGET"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("LAKESQL_DIFF_BUDGET=%q: %v", v, err)
		}
		diffBudget = d
	}

	maria := startMariaDB(t)
	mroot := maria.Open(t, "")
	if _, err := mroot.Exec("CREATE DATABASE ddl"); err != nil {
		t.Fatal(err)
	}
	mdb := maria.Open(t, "ddl")
	mdb.SetMaxOpenConns(1)
	lake := startDDLServer(t)
	ldb := lake.open(t, "ddl") // lake.db's one connection is held by lake.conn
	ldb.SetMaxOpenConns(1)

	rng := rand.New(rand.NewSource(seed))
	for _, stmt := range diffSchema(rng) {
		for name, db := range map[string]*sql.DB{"lakesql": ldb, "mariadb": mdb} {
			if _, err := db.Exec(stmt); err != nil {
				t.Fatalf("%s: %s: %v", name, stmt, err)
			}
		}
	}

	g := &diffGen{r: rng}
	// Every fifth query compares values of different types through IN
	// (lists and subqueries), from its own generator so the others stay
	// the same sequence for a seed.
	in := &diffGen{r: rand.New(rand.NewSource(seed ^ 0x1d))}
	// Every fifth query, offset by two, is an aggregate shape (GROUP BY or
	// none, a join, HAVING, DISTINCT, ORDER BY … LIMIT including 0, a
	// repeated aggregate), run on lakesql with its aggregate scan and eager
	// aggregation and again without (GMS's row path), both against MariaDB.
	agg := &diffGen{r: rand.New(rand.NewSource(seed ^ 0xa9))}
	start := time.Now()
	ran, differ, known := 0, 0, map[string]int{}
	for ran < queries && time.Since(start) < diffBudget {
		q := g.query()
		rowPath := false
		switch ran % 5 {
		case 4:
			q = in.inQuery()
		case 2:
			q = agg.aggQuery()
			rowPath = true
		}
		ran++
		lres := diffRun(ldb, q)
		mres := diffRun(mdb, q)
		if rowPath && diffEqual(lres, mres) {
			diffSet(t, ldb, 0)
			lres = diffRun(ldb, q)
			diffSet(t, ldb, 1)
		}
		if diffEqual(lres, mres) {
			continue
		}
		if why := knownDifference(q, lres, mres); why != "" {
			known[why]++
			continue
		}
		differ++
		if differ <= 25 {
			t.Errorf("difference (seed %d, query %d):\n  %s\n  lakesql: %s\n  mariadb: %s", seed, ran, q, lres.from(mres), mres.from(lres))
		}
	}
	t.Logf("seed %d: %d generated queries in %v, %d unexplained differences, known: %v",
		seed, ran, time.Since(start).Round(time.Millisecond), differ, known)
	if differ > 25 {
		t.Errorf("%d more differences not shown", differ-25)
	}
	if ran < 200 {
		t.Errorf("only %d queries ran within %v: too few to mean anything", ran, diffBudget)
	}
}

// knownDifference names why a difference is expected, or returns "".
// Each entry is a place where MariaDB 10.11 (the oracle CI has) differs from
// MySQL 8.0, which lakesql follows.
func knownDifference(q string, l, m diffResult) string {
	switch {
	// MariaDB keeps up to 38 digits of DECIMAL precision in the DECIMAL
	// results of a division, MySQL 8 (and lakesql, via GMS) at most
	// div_precision_increment more than the dividend; the values agree to
	// the shorter scale.
	case l.err == "" && m.err == "" && strings.Contains(q, "/") && diffEqualRounded(l, m):
		return "division scale"
	// MySQL 8 (and lakesql) print a DOUBLE negative zero as -0, MariaDB
	// as 0.
	case l.err == "" && m.err == "" && diffRowsEqual(l.rows, m.rows, func(x, y string) bool {
		return x == y || x == "-0" && y == "0"
	}):
		return "negative zero"
	// MariaDB widens ROUND/TRUNCATE of a BIGINT to a negative number of
	// places to DECIMAL when the result leaves the BIGINT range; MySQL
	// keeps BIGINT and reports 1690.
	case strings.Contains(l.err, "1690") && m.err == "" && strings.Contains(q, ", -"):
		return "ROUND to negative places beyond BIGINT"
	// MariaDB negates a BIGINT column holding -9223372036854775808 without
	// error here; MySQL 8 fails with 1690 "BIGINT value is out of range
	// in '-(t.bi)'".
	case strings.Contains(l.err, "1690") && strings.Contains(l.err, "in '-t1.bi'") && m.err == "":
		return "negating BIGINT's minimum"
	// MariaDB answers TRUE for a BIGINT outside an INT subquery column's
	// range NOT IN a subquery that returns a NULL (its range shortcut);
	// SQL and MySQL 8 answer NULL (and MariaDB itself does for a literal).
	case (strings.Contains(q, "t1.bi NOT IN (SELECT t2.k") || strings.Contains(q, "t1.bi NOT IN (SELECT t2.g")) && l.err == "" && len(l.rows) == 0:
		return "NOT IN shortcut for out-of-range values"
	// MariaDB compares a DATE column with a number column by converting the
	// number to a DATE; MySQL 8 compares both as numbers (YYYYMMDD), as the
	// manual's "all other cases" rule says.
	case l.err == "" && m.err == "" && (strings.Contains(q, "t1.dd <= t1.i") || strings.Contains(q, "t1.dd < t1.f") ||
		regexp.MustCompile(`t1\.dd [<>=!]+ t1\.(i|f|d)\b`).MatchString(q)):
		return "DATE against a number column"
	// SQL leaves the evaluation order of a WHERE clause's operands open
	// (neither MySQL nor MariaDB documents one): GMS splits AND into
	// separate filters and pushes some into the scan, so an overflowing
	// operand (error 1690) may be evaluated on rows where MariaDB's order
	// skips it, or the other way round. Not a MySQL-vs-MariaDB difference:
	// one SQL allows.
	case (strings.Contains(l.err, "1690") && m.err == "" || strings.Contains(m.err, "1690") && l.err == "") &&
		strings.Contains(q, " WHERE ") && (strings.Contains(q, " AND ") || strings.Contains(q, " OR ")):
		return "evaluation order in WHERE"
	// MariaDB rounds each DECIMAL operand of a comparison to its declared
	// scale before comparing (Arg_comparator::compare_decimal,
	// round_self_if_needed), so i / d <= 0 holds for a quotient shown as
	// 0.0000; MySQL 8 compares the values as computed (the quotient's
	// uncut 9-digit words), as lakesql does.
	case l.err == "" && m.err == "" && strings.Contains(diffWhere(q), " / "):
		return "DECIMAL comparison rounding (MariaDB)"
	// MySQL 8 converts a DOUBLE to DECIMAL through its shortest decimal
	// form (double2decimal with my_gcvt: 4.611686018427388e18 becomes
	// 4611686018427388000), MariaDB exactly (4611686018427387904); DIV of
	// a DOUBLE computes in DECIMAL, so the last digits differ.
	case l.err == "" && m.err == "" && strings.Contains(q, " DIV ") && diffRowsEqual(l.rows, m.rows, func(x, y string) bool {
		fx, errx := strconv.ParseFloat(x, 64)
		fy, erry := strconv.ParseFloat(y, 64)
		return x == y || errx == nil && erry == nil && math.Abs(fx-fy) <= 1e-15*math.Max(math.Abs(fx), math.Abs(fy))
	}):
		return "DOUBLE to DECIMAL digits"
	// MariaDB keeps the sign of a DECIMAL remainder that is zero (-5.00 %
	// 5.00 is -0.00); MySQL 8's decimal_mod makes it 0 (do_div_mod: a zero
	// result is decimal_make_zero), as lakesql does.
	case l.err == "" && m.err == "" && strings.Contains(q, " % ") && diffRowsEqual(l.rows, m.rows, func(x, y string) bool {
		return x == y || y == "-" && x == "0" || strings.HasPrefix(y, "-0") && strings.TrimLeft(strings.TrimPrefix(y, "-"), "0.") == "" && x == y[1:]
	}):
		return "sign of a zero DECIMAL remainder (MariaDB)"
	}
	return ""
}

// diffWhere returns the WHERE clause of a generated query, or "".
func diffWhere(q string) string {
	if i := strings.Index(q, " WHERE "); i >= 0 {
		return q[i:]
	}
	return ""
}

// diffResult is one side's answer: the rows as text (sorted, so ORDER BY
// ties cannot differ) or the error.
type diffResult struct {
	rows [][]string
	err  string
}

func (r diffResult) String() string {
	if r.err != "" {
		return "error " + r.err
	}
	var b strings.Builder
	for i, row := range r.rows {
		if i == 8 {
			fmt.Fprintf(&b, " … (%d rows)", len(r.rows))
			break
		}
		b.WriteString("[" + strings.Join(row, ", ") + "]")
	}
	if len(r.rows) == 0 {
		return "no rows"
	}
	return b.String()
}

// from prints r starting a row before the first one that differs from o.
func (r diffResult) from(o diffResult) diffResult {
	if r.err != "" || o.err != "" {
		return r
	}
	for i := range r.rows {
		if i >= len(o.rows) || !slices.Equal(r.rows[i], o.rows[i]) {
			return diffResult{rows: r.rows[max(0, i-1):]}
		}
	}
	return r
}

func diffRun(db *sql.DB, q string) diffResult {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, rows, err := queryRows(ctx, db, q)
	if err != nil {
		return diffResult{err: err.Error()}
	}
	res := diffResult{rows: make([][]string, len(rows))}
	for i, r := range rows {
		res.rows[i] = make([]string, len(r))
		for j, v := range r {
			res.rows[i][j] = textOf(v)
		}
	}
	slices.SortFunc(res.rows, func(a, b []string) int { return slices.Compare(a, b) })
	return res
}

// diffEqual compares two answers: both errors count as equal (the error
// codes are covered by the targeted tests), values that are both numbers
// are compared as float64 to 1e-12 relative (DOUBLE formatting differs:
// MariaDB prints 1e20, MySQL 100000000000000000000).
func diffEqual(a, b diffResult) bool {
	if (a.err != "") != (b.err != "") {
		return false
	}
	if a.err != "" {
		return true
	}
	return diffRowsEqual(a.rows, b.rows, func(x, y string) bool {
		if x == y {
			return true
		}
		fx, errx := strconv.ParseFloat(x, 64)
		fy, erry := strconv.ParseFloat(y, 64)
		if errx != nil || erry != nil || !(strings.ContainsAny(x, "eE") || strings.ContainsAny(y, "eE") || strings.Contains(x, ".") || strings.Contains(y, ".")) {
			return false
		}
		return fx == fy || math.Abs(fx-fy) <= 1e-12*math.Max(math.Abs(fx), math.Abs(fy))
	})
}

func diffEqualRounded(a, b diffResult) bool {
	return diffRowsEqual(a.rows, b.rows, func(x, y string) bool {
		if x == y {
			return true
		}
		fx, errx := strconv.ParseFloat(x, 64)
		fy, erry := strconv.ParseFloat(y, 64)
		return errx == nil && erry == nil && math.Abs(fx-fy) <= 1e-4*math.Max(1, math.Abs(fx))
	})
}

func diffRowsEqual(a, b [][]string, eq func(x, y string) bool) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if len(a[i]) != len(b[i]) {
			return false
		}
		for j := range a[i] {
			if !eq(a[i][j], b[i][j]) {
				return false
			}
		}
	}
	return true
}

// diffSchema returns the DDL and the rows, the same on both servers.
// t1.i, t2.k and the rest are nullable non-key columns, so joins and
// subqueries go through GMS's expressions rather than Paimon key lookups.
func diffSchema(r *rand.Rand) []string {
	stmts := []string{
		"CREATE TABLE t1 (id BIGINT NOT NULL, i INT, bi BIGINT, d DECIMAL(12,2), f DOUBLE, s VARCHAR(20), dd DATE, ts DATETIME, g INT, PRIMARY KEY (id))",
		"CREATE TABLE t2 (id BIGINT NOT NULL, k INT, d DECIMAL(12,2), s VARCHAR(20), g INT, PRIMARY KEY (id))",
	}
	pick := func(vals ...string) string { return vals[r.Intn(len(vals))] }
	null := func(p float64, v string) string {
		if r.Float64() < p {
			return "NULL"
		}
		return v
	}
	intv := func() string {
		if r.Intn(6) == 0 {
			return pick("2147483647", "-2147483648", "2000000000", "100", "1000000")
		}
		return strconv.Itoa(r.Intn(11) - 5)
	}
	bigv := func() string {
		if r.Intn(5) == 0 {
			return pick("9223372036854775807", "-9223372036854775808", "4611686018427387904", "-4611686018427387904", "3000000000")
		}
		return strconv.Itoa(r.Intn(2001) - 1000)
	}
	decv := func() string {
		if r.Intn(4) == 0 {
			return pick("0.01", "0.00", "2237.99", "-0.01", "9999999999.99", "-9999999999.99", "0.50", "1.25", "123456.78")
		}
		return fmt.Sprintf("%.2f", float64(r.Intn(200001)-100000)/100)
	}
	dblv := func() string {
		return pick("0.5", "-1.25", "3", "0", "1e10", "-2.5e-3", "0.125", "1000000", "7.75", "-0.5")
	}
	strv := func() string {
		return pick(`'a_b'`, `'a%b'`, `'ab'`, `'abc'`, `'x\\y'`, `'2024-01-01'`, `'2024'`, `'-3'`, `'12abc'`,
			`'日本'`, `''`, `' a '`, `'A_B'`, `'b%'`, `'_x'`, `'1.5'`, `'zz'`)
	}
	datev := func() string {
		return fmt.Sprintf("'%04d-%02d-%02d'", 2019+r.Intn(6), 1+r.Intn(12), 1+r.Intn(28))
	}
	tsv := func() string {
		return fmt.Sprintf("'%04d-%02d-%02d %02d:%02d:%02d'", 2019+r.Intn(6), 1+r.Intn(12), 1+r.Intn(28), r.Intn(24), r.Intn(60), r.Intn(60))
	}
	var vals []string
	for id := 1; id <= 60; id++ {
		vals = append(vals, fmt.Sprintf("(%d, %s, %s, %s, %s, %s, %s, %s, %s)", id,
			null(0.2, intv()), null(0.2, bigv()), null(0.2, decv()), null(0.2, dblv()),
			null(0.15, strv()), null(0.15, datev()), null(0.15, tsv()), null(0.1, strconv.Itoa(1+r.Intn(5)))))
	}
	// Group 5 has only NULLs in the numeric columns (SUM OVER must be NULL).
	vals = append(vals, "(61, NULL, NULL, NULL, NULL, 'g6', NULL, NULL, 6)", "(62, NULL, NULL, NULL, NULL, 'g6', NULL, NULL, 6)")
	stmts = append(stmts, "INSERT INTO t1 VALUES "+strings.Join(vals, ", "))
	vals = vals[:0]
	for id := 1; id <= 40; id++ {
		vals = append(vals, fmt.Sprintf("(%d, %s, %s, %s, %s)", id,
			null(0.15, strconv.Itoa(r.Intn(15)-5)), null(0.2, decv()), null(0.2, strv()), null(0.1, strconv.Itoa(1+r.Intn(5)))))
	}
	stmts = append(stmts, "INSERT INTO t2 VALUES "+strings.Join(vals, ", "))
	return stmts
}

// diffGen generates queries over t1 and t2.
type diffGen struct{ r *rand.Rand }

func (g *diffGen) pick(vals ...string) string { return vals[g.r.Intn(len(vals))] }

func (g *diffGen) num(depth int) string {
	if depth <= 0 || g.r.Intn(3) == 0 {
		switch g.r.Intn(3) {
		case 0, 1:
			return g.pick("t1.i", "t1.bi", "t1.d", "t1.f", "t1.g", "t1.d", "t1.i")
		default:
			return g.pick("0", "1", "-1", "2", "3", "0.01", "2.5", "-0.5", "9223372036854775807", "-9223372036854775807",
				"2147483647", "2237.99", "100", "0.005", "1e3", "12345678901234.5")
		}
	}
	a, b := g.num(depth-1), g.num(depth-1)
	switch g.r.Intn(16) {
	case 0, 1, 2:
		return "(" + a + " " + g.pick("+", "-", "*", "+", "-", "*", "/", "DIV", "%") + " " + b + ")"
	case 3:
		return "(- " + a + ")"
	case 4:
		return g.pick("ABS", "SIGN", "CEIL", "FLOOR", "CEILING") + "(" + a + ")"
	case 5:
		return g.pick("ROUND", "TRUNCATE") + "(" + a + ", " + g.pick("0", "1", "2", "-1", "-2") + ")"
	case 6:
		return "CAST(" + a + " AS " + g.pick("DECIMAL(6,1)", "DECIMAL(12,2)", "DECIMAL(20,4)", "SIGNED", "DECIMAL(4,0)") + ")"
	case 7:
		return "COALESCE(" + a + ", " + b + ")"
	case 8:
		return "IF(" + g.pred(0) + ", " + a + ", " + b + ")"
	case 9:
		return g.pick("LENGTH", "CHAR_LENGTH") + "(" + g.str(depth-1) + ")"
	case 10:
		return "(t1.bi " + g.pick("+", "-", "*") + " " + g.pick("9223372036854775807", "2", "-9223372036854775807", "4611686018427387904") + ")"
	case 11:
		return "(t1.d DIV " + g.pick("2", "3", "0.5", "-2") + ")"
	case 12:
		return "(t1.i * " + g.pick("2147483647", "1000000000", "-3") + ")"
	case 13:
		return "CASE WHEN " + g.pred(0) + " THEN " + a + " ELSE " + b + " END"
	case 14:
		return g.pick("GREATEST", "LEAST") + "(" + a + ", " + b + ")"
	default:
		return a
	}
}

func (g *diffGen) str(depth int) string {
	if depth <= 0 || g.r.Intn(3) == 0 {
		return g.pick("t1.s", "t1.s", "'abc'", "'日本語'", "'a_b'", "''")
	}
	a := g.str(depth - 1)
	switch g.r.Intn(9) {
	case 0:
		return "CONCAT(" + a + ", " + g.str(depth-1) + ")"
	case 1:
		return g.pick("LPAD", "RPAD") + "(" + a + ", " + g.pick("0", "1", "2", "5") + ", " + g.pick("'*'", "'ab'", "'本'") + ")"
	case 2:
		return g.pick("UPPER", "LOWER", "TRIM", "LTRIM", "RTRIM", "REVERSE") + "(" + a + ")"
	case 3:
		return "SUBSTRING(" + a + ", " + g.pick("1", "2", "-2") + ", " + g.pick("1", "3") + ")"
	case 4:
		return "REPLACE(" + a + ", " + g.pick("'a'", "'_'", "'%'") + ", 'Z')"
	case 5:
		return "CAST(" + g.num(depth-1) + " AS CHAR)"
	case 6:
		return "TRIM(LPAD(" + a + ", 1, '*'))"
	default:
		return a
	}
}

func (g *diffGen) pred(depth int) string {
	if depth > 0 && g.r.Intn(4) == 0 {
		return "(" + g.pred(depth-1) + " " + g.pick("AND", "OR") + " " + g.pred(depth-1) + ")"
	}
	if depth > 0 && g.r.Intn(8) == 0 {
		return "NOT " + g.pred(depth-1)
	}
	cmp := g.pick("=", "<>", "<", "<=", ">", ">=", "<=>")
	switch g.r.Intn(14) {
	case 0, 1:
		return g.num(1) + " " + cmp + " " + g.num(1)
	case 2, 3:
		return "t1.s " + g.pick("LIKE", "NOT LIKE") + " " + g.pick(`'%\_%'`, `'%\%%'`, `'a\_b'`, `'a_b'`, `'%b'`, `'\_%'`, `'%\\\\%'`, `'A%'`, `'%本'`, `'_'`, `'%'`)
	case 4:
		return g.pick("t1.i", "t1.bi", "t1.d", "t1.s", "t1.dd", "t1.ts") + g.pick(" IS NULL", " IS NOT NULL")
	case 5:
		return g.pick("t1.i", "t1.g", "t1.d") + g.pick(" IN ", " NOT IN ") + "(" + g.pick("1, 2, 3", "0.01, 2237.99", "NULL, 1", "-1, 2147483647") + ")"
	case 6:
		return g.pick("t1.i", "t1.d", "t1.bi") + " BETWEEN " + g.pick("-2 AND 2", "0 AND 100.5", "-1000 AND 0")
	case 7: // comparisons across types, as MySQL converts them
		return g.pick("t1.s", "t1.dd", "t1.ts", "t1.d") + " " + cmp + " " +
			g.pick("2024", "0.001", "'-3'", "'2024-01-01'", "t1.i", "t1.d", "t1.f", "'1.5'", "20200101", "0.005")
	case 8:
		return "t1.dd " + cmp + " " + g.pick("DATE '2020-01-01'", "'2021-06-15'", "t1.ts", "20210101")
	case 9:
		return "t1.d " + cmp + " " + g.pick("0.005", "0.01", "0.015", "2237.99", "1.25")
	default:
		return g.num(1) + " " + cmp + " " + g.pick("0", "1", "t1.i", "t1.g")
	}
}

func (g *diffGen) query() string {
	switch g.r.Intn(12) {
	case 0, 1, 2:
		return fmt.Sprintf("SELECT t1.id, %s FROM t1", g.num(3))
	case 3:
		return fmt.Sprintf("SELECT t1.id, %s FROM t1", g.str(3))
	case 4, 5:
		return fmt.Sprintf("SELECT t1.id FROM t1 WHERE %s", g.pred(2))
	case 6:
		col := g.pick("t1.i", "t1.bi", "t1.d", "t1.f")
		return fmt.Sprintf("SELECT t1.g, COUNT(*), COUNT(%[1]s), SUM(%[1]s), MIN(%[1]s), MAX(%[1]s), AVG(%[1]s) FROM t1 GROUP BY t1.g", col)
	case 7:
		col := g.pick("t1.i", "t1.bi", "t1.d", "t1.g")
		ord := g.pick("t1.d", "t1.i", "t1.s", "t1.dd")
		return fmt.Sprintf("SELECT t1.id, SUM(%[1]s) OVER (PARTITION BY t1.g), COUNT(%[1]s) OVER (PARTITION BY t1.g), "+
			"RANK() OVER (PARTITION BY t1.g ORDER BY %[2]s), DENSE_RANK() OVER (ORDER BY %[2]s), "+
			"ROW_NUMBER() OVER (PARTITION BY t1.g ORDER BY %[2]s, t1.id) FROM t1", col, ord)
	case 8:
		sub := "SELECT t2.k FROM t2" + g.pick("", " WHERE t2.g = 1", " WHERE t2.k IS NOT NULL", " WHERE t2.g > 3", " WHERE t2.d > 0")
		lhs := g.pick("t1.i", "t1.g", "NULL", "t1.bi")
		return fmt.Sprintf("SELECT t1.id FROM t1 WHERE %s %s (%s)", lhs, g.pick("IN", "NOT IN"), sub)
	case 9:
		corr := g.pick("t2.k = t1.i", "t2.k = t1.g", "t2.g = t1.g AND t2.k > t1.i", "t2.d = t1.d")
		return fmt.Sprintf("SELECT t1.id FROM t1 WHERE %s (SELECT 1 FROM t2 WHERE %s)", g.pick("EXISTS", "NOT EXISTS"), corr)
	case 10:
		on := g.pick("t1.i = t2.k", "t1.g = t2.g", "t1.d = t2.d", "t1.s = t2.s", "t1.i = t2.k AND t1.g = t2.g")
		return fmt.Sprintf("SELECT t1.id, t2.id FROM t1 %s JOIN t2 ON %s WHERE %s", g.pick("", "LEFT", "INNER"), on,
			g.pick("1 = 1", "t2.g NOT IN (SELECT k FROM t2 WHERE k IS NOT NULL)", "t1.g IN (1, 2)", "t2.k IS NULL"))
	default:
		return fmt.Sprintf("SELECT t1.id, %s, %s FROM t1 WHERE %s", g.num(2), g.str(2), g.pred(1))
	}
}

// diffSet turns lakesql's aggregate scan and eager aggregation on (1) or
// off (0) on db's one connection.
func diffSet(t *testing.T, db *sql.DB, on int) {
	t.Helper()
	for _, v := range []string{"lakesql_vectorized_aggregates", "lakesql_eager_aggregation"} {
		if _, err := db.Exec(fmt.Sprintf("SET %s = %d", v, on)); err != nil {
			t.Fatal(err)
		}
	}
}

// aggQuery is an aggregate query of the shapes lakesql's aggregate and
// join rules rewrite: with or without GROUP BY, over t1 or a join with t2,
// with HAVING, DISTINCT, a repeated aggregate (with and without an alias),
// ORDER BY … LIMIT n (n = 0 too; the order is total: every group column
// is in it). Only group columns and aggregates are selected
// (ONLY_FULL_GROUP_BY holds).
func (g *diffGen) aggQuery() string {
	join := g.r.Intn(3) == 0
	from := "t1"
	cols := []string{"t1.i", "t1.bi", "t1.d", "t1.f", "t1.g"}
	groups := []string{"t1.g", "t1.s", "t1.dd"}
	if join {
		from = "t1 " + g.pick("JOIN", "JOIN", "LEFT JOIN") + " t2 ON " + g.pick("t1.g = t2.g", "t1.i = t2.k", "t1.id = t2.id")
		cols = append(cols, "t2.d", "t2.k")
		groups = append(groups, "t2.g", "t2.s")
	}
	aggOf := func() string {
		if g.r.Intn(5) == 0 {
			return "COUNT(*)"
		}
		return g.pick("COUNT", "SUM", "MIN", "MAX", "AVG", "SUM") + "(" + g.pick(cols...) + ")"
	}
	var group []string
	if g.r.Intn(4) > 0 {
		group = append(group, g.pick(groups...))
		if g.r.Intn(3) == 0 {
			if c := g.pick(groups...); c != group[0] {
				group = append(group, c)
			}
		}
	}
	sel := append([]string(nil), group...)
	var aggs []string
	for range 1 + g.r.Intn(3) {
		aggs = append(aggs, aggOf())
	}
	sel = append(sel, aggs...)
	if g.r.Intn(3) == 0 { // a repeated aggregate
		sel = append(sel, aggs[0]+g.pick("", "", " AS r"))
	}
	q := "SELECT " + g.pick("", "", "", "DISTINCT ") + strings.Join(sel, ", ") + " FROM " + from
	if g.r.Intn(3) == 0 {
		q += " WHERE " + g.pick("t1.i > 0", "t1.d IS NOT NULL", "t1.g IN (1, 2)", "t1.s LIKE 'a%'", "t1.id > 70")
	}
	if len(group) > 0 {
		q += " GROUP BY " + strings.Join(group, ", ")
	}
	if g.r.Intn(3) == 0 {
		// HAVING names the first aggregate: GMS v0.20.0's planbuilder
		// fails a HAVING on a later selected aggregate over the join's
		// second table with 1146 "table not found: t2" (not fixed yet).
		q += " HAVING " + aggs[0] + " " + g.pick(">", "<=", "IS NOT NULL AND 1 =", "<>") + " " + g.pick("0", "1", "2.5", "-1")
	}
	switch g.r.Intn(3) {
	case 0:
		by := []string{g.pick(aggs...) + g.pick("", " DESC")}
		for _, c := range group {
			by = append(by, c+g.pick("", " DESC"))
		}
		q += " ORDER BY " + strings.Join(by, ", ") + fmt.Sprintf(" LIMIT %d", g.r.Intn(4))
	case 1:
		q += " LIMIT " + g.pick("0", "0", "1")
		if len(group) > 0 && !strings.HasSuffix(q, " 0") { // LIMIT 1 of several groups: any one
			q = strings.TrimSuffix(q, " LIMIT 1")
		}
	}
	return q
}

// inQuery is a query with IN over values of different types, which MySQL
// compares pair by pair with its conversions (a string as its numeric
// prefix against a number, a DECIMAL exactly, …): IN lists mixing quoted
// and unquoted values, IN (subquery) whose column has another type than
// the left side, and a join on IN.
func (g *diffGen) inQuery() string {
	lhs := g.pick("t1.i", "t1.g", "t1.bi", "t1.d", "t1.f", "t1.s", "t1.dd", "NULL")
	not := g.pick("IN", "IN", "NOT IN")
	switch g.r.Intn(4) {
	case 0:
		return fmt.Sprintf("SELECT t1.id FROM t1 WHERE %s %s (%s)", lhs, not, g.inList())
	case 1:
		return fmt.Sprintf("SELECT t1.id, %s %s (%s) FROM t1", lhs, not, g.inList())
	case 2:
		sub := "SELECT " + g.pick("t2.k", "t2.s", "t2.d", "t2.g") + " FROM t2" +
			g.pick("", " WHERE t2.g = 1", " WHERE t2.k IS NOT NULL", " WHERE t2.s IS NOT NULL", " WHERE t2.d > 0")
		return fmt.Sprintf("SELECT t1.id FROM t1 WHERE %s %s (%s)", lhs, not, sub)
	default:
		return fmt.Sprintf("SELECT t1.id, t2.id FROM t1 JOIN t2 ON %s IN (%s, %s)",
			g.pick("t2.k", "t2.s", "t2.d"), g.pick("t1.i", "t1.s", "t1.d", "t1.g"), g.pick("'1'", "'-3x'", "0.01", "'a_b'", "2"))
	}
}

// inList is a list of literals, some quoted numbers, some not numbers at
// all. A quoted integer beyond BIGINT is left out: MySQL 8 compares it with
// a BIGINT as DOUBLE (equal to 9223372036854775807), MariaDB exactly.
func (g *diffGen) inList() string {
	n := 1 + g.r.Intn(4)
	vals := make([]string, n)
	for i := range vals {
		vals[i] = g.pick("1", "2", "-3", "0", "0.01", "2237.99", "'1'", "' 2'", "'-3'", "'1.5'", "'12abc'", "'a_b'",
			"''", "'2024-01-01'", "2024", "NULL", "1e3", "'0.010'", "9223372036854775807", "'-9223372036854775808'")
	}
	return strings.Join(vals, ", ")
}
