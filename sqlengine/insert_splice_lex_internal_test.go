package sqlengine

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/planbuilder"
	"github.com/shopspring/decimal"
)

// gmsLiterals evaluates the literals of a tuple text as GMS's planbuilder
// builds them (SELECT lit, …: the same scalar conversion as VALUES).
func gmsLiterals(t *testing.T, tuple string) ([]any, error) {
	ctx := sql.NewEmptyContext()
	b := planbuilder.New(ctx, sql.MapCatalog{}, nil, sql.NewMysqlParser())
	node, _, _, _, err := b.Parse("SELECT "+tuple[1:len(tuple)-1], nil, false)
	if err != nil {
		return nil, err
	}
	p, ok := node.(*plan.Project)
	if !ok {
		t.Fatalf("SELECT %s: plan %T", tuple, node)
	}
	out := make([]any, len(p.Projections))
	for i, e := range p.Projections {
		v, err := e.Eval(ctx, nil)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// sameValue: equal values of the same Go type (decimals: same value and
// exponent).
func sameValue(a, b any) bool {
	if da, ok := a.(decimal.Decimal); ok {
		db, ok := b.(decimal.Decimal)
		return ok && da.Equal(db) && da.Exponent() == db.Exponent()
	}
	return reflect.TypeOf(a) == reflect.TypeOf(b) && reflect.DeepEqual(a, b)
}

// randomLiteral is a literal text the scanner may or may not take.
func randomLiteral(r *rand.Rand) string {
	digits := func(n int) string {
		var sb strings.Builder
		for range n {
			sb.WriteByte(byte('0' + r.IntN(10)))
		}
		return sb.String()
	}
	sign := ""
	if r.IntN(3) == 0 {
		sign = "-"
	}
	switch r.IntN(9) {
	case 0:
		return sign + digits(1+r.IntN(20))
	case 1:
		return sign + []string{"0", "127", "128", "255", "256", "32767", "32768", "65535", "65536", "2147483647",
			"2147483648", "4294967295", "4294967296", "9223372036854775807", "999999999999999999", "007", "00"}[r.IntN(17)]
	case 2:
		return sign + digits(1+r.IntN(40)) + "." + digits(1+r.IntN(35))
	case 3:
		return sign + digits(1+r.IntN(4)) + []string{"", "." + digits(1+r.IntN(3))}[r.IntN(2)] + []string{"e", "E"}[r.IntN(2)] +
			[]string{"", "+", "-"}[r.IntN(3)] + digits(1+r.IntN(3))
	case 4:
		var sb strings.Builder
		sb.WriteByte('\'')
		for range r.IntN(12) {
			sb.WriteString([]string{"a", "Z", " ", "''", "é", "漢", ",", ")", "(", "0", "\"", "-", "\t"}[r.IntN(13)])
		}
		sb.WriteByte('\'')
		return sb.String()
	case 5:
		return []string{"NULL", "null", "Null"}[r.IntN(3)]
	case 6:
		return []string{"TRUE", "0x1F", "X'41'", "b'101'", "'a' 'b'", `'a\'b'`, `"x"`, ".5", "5.", "- 5", "--5", "+5", "1e", "1.2.3",
			"NULLX", "DEFAULT", "1+1", "_utf8mb4'x'", "N'x'", "1e400", "-(3)"}[r.IntN(21)]
	case 7:
		return sign + "0." + digits(1+r.IntN(17))
	}
	return sign + digits(1+r.IntN(18))
}

// TestSpliceLiteralsEqualGMS: every tuple the splice scanner takes holds
// the values GMS's planbuilder gives its literals, of the same Go types.
func TestSpliceLiteralsEqualGMS(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	taken, refused := 0, 0
	for trial := range 4000 {
		lits := make([]string, 1+r.IntN(4))
		for i := range lits {
			lits[i] = randomLiteral(r)
		}
		tuple := "(" + strings.Join(lits, ", ") + ")"
		v, ok := scanInsertValues("INSERT INTO t VALUES " + tuple + "," + tuple)
		if !ok {
			refused++
			continue
		}
		taken++
		want, err := gmsLiterals(t, tuple)
		if err != nil {
			t.Fatalf("trial %d: scanner took %s, GMS fails: %v", trial, tuple, err)
		}
		if v.rows() != 2 || v.width != len(want) || v.first != tuple {
			t.Fatalf("trial %d: %s: %d rows of %d, first %q", trial, tuple, v.rows(), v.width, v.first)
		}
		for i := range want {
			for row := range 2 {
				if got := v.values[row*v.width+i]; !sameValue(got, want[i]) {
					t.Fatalf("trial %d: %s value %d: scanner %T %v, GMS %T %v", trial, tuple, i, got, got, want[i], want[i])
				}
			}
		}
	}
	t.Logf("taken %d, refused %d", taken, refused)
	if taken < 1000 || refused < 500 {
		t.Errorf("too few taken (%d) or refused (%d) tuples", taken, refused)
	}
}

// TestSpliceScannerShapes: the statement shapes the scanner takes and
// those it leaves to GMS.
func TestSpliceScannerShapes(t *testing.T) {
	for _, c := range []struct {
		q    string
		ok   bool
		head string
	}{
		{"INSERT INTO t VALUES (1,'a'),(2,'b')", true, "INSERT INTO t VALUES"},
		{"insert into db.`my t` (a, `b`) values (1, 2), (3, 4);", true, "insert into db.`my t` (a, `b`) values"},
		{"REPLACE t VALUES (1),(2) ; ", true, "REPLACE t VALUES"},
		{"INSERT IGNORE INTO t VALUES (NULL),(-1)", true, "INSERT IGNORE INTO t VALUES"},
		{"\n INSERT\tINTO t\nVALUES\n(1)\n,\n(2)", true, "\n INSERT\tINTO t\nVALUES"},
		{"INSERT INTO t VALUES (1),(2,3)", false, ""},
		{"INSERT INTO t VALUES (1),(2) ON DUPLICATE KEY UPDATE a = 1", false, ""},
		{"INSERT INTO t SELECT 1", false, ""},
		{"INSERT INTO t SET a = 1", false, ""},
		{"INSERT INTO t VALUES (1),(2); SELECT 1", false, ""},
		{"INSERT /* c */ INTO t VALUES (1),(2)", false, ""},
		{"INSERT INTO t VALUES (1),(DEFAULT)", false, ""},
		{"INSERT INTO t VALUES ROW(1), ROW(2)", false, ""},
		{"INSERT INTO t PARTITION (p) VALUES (1),(2)", false, ""},
		{"INSERT INTO t VALUES (1),(2) RETURNING a", false, ""},
		{"INSERT INTO t () VALUES (1),(2)", false, ""},
		{"INSERT INTO t VALUES ('a\\'b'),('c')", false, ""},
		{"INSERT INTO t VALUES (1),(2),", false, ""},
		{"INSERT INTO t VALUES (1)(2)", false, ""},
		{"INSERT INTO `t VALUES (1),(2)", false, ""},
		{"INSERT INTO t VALUES ('x", false, ""},
		{"INSERT LOW_PRIORITY INTO t VALUES (1),(2)", false, ""},
		{"INSERT INTO VALUES VALUES (1),(2)", false, ""},
	} {
		v, ok := scanInsertValues(c.q)
		if ok != c.ok {
			t.Errorf("%q: taken %v, want %v", c.q, ok, c.ok)
			continue
		}
		if ok && v.head != c.head {
			t.Errorf("%q: head %q, want %q", c.q, v.head, c.head)
		}
	}
}

// FuzzSpliceScanner: the scanner never panics, and a statement it takes
// has whole tuples and a head GMS's statement starts with.
func FuzzSpliceScanner(f *testing.F) {
	for _, s := range []string{"INSERT INTO t VALUES (1,'a'),(2,'b')", "REPLACE t (a) VALUES (-1.5),(1e3),(NULL);", "INSERT INTO t VALUES ('''',''),('x','y')"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, q string) {
		v, ok := scanInsertValues(q)
		if !ok {
			return
		}
		if v.width == 0 || len(v.values)%v.width != 0 || !strings.HasPrefix(q, v.head) || !strings.Contains(q, v.first) {
			t.Fatalf("%q: width %d, %d values, head %q, first %q", q, v.width, len(v.values), v.head, v.first)
		}
		_ = fmt.Sprint(v.values...)
	})
}
