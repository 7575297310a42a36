package sqlengine

import (
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/lakesql/lakesql/provider"
)

// TestMySQLTypeModel: mysqlType on the lexer's tokens reads random type
// texts (names, PRECISION, (n), (p, s), UNSIGNED, ZEROFILL with random
// spacing and case, and broken variants) exactly as the regular expression
// it replaced did, wherever the words are apart.
func TestMySQLTypeModel(t *testing.T) {
	model := regexp.MustCompile(`(?is)^([a-z_]+(?:\s+precision)?)\s*(?:\(\s*(\d+)\s*(?:,\s*(\d+)\s*)?\))?\s*(unsigned)?\s*(zerofill)?$`)
	viaModel := func(text string) (provider.MySQLType, bool) {
		m := model.FindStringSubmatch(strings.TrimSpace(text))
		if m == nil {
			return provider.MySQLType{}, false
		}
		mt := provider.MySQLType{Name: strings.ToUpper(strings.Join(strings.Fields(m[1]), " ")), HasN: m[2] != "", HasS: m[3] != "", Unsigned: m[4] != ""}
		mt.N, _ = strconv.Atoi(m[2])
		mt.S, _ = strconv.Atoi(m[3])
		return mt, true
	}
	r := rand.New(rand.NewPCG(1, 2))
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	sp := func() string { return pick("", " ", "  ", "\t", "\n") }
	for i := 0; i < 20000; i++ {
		var b strings.Builder
		b.WriteString(sp())
		b.WriteString(pick("int", "BIGINT", "Decimal", "double", "varchar", "x_y", "int8", "9x", "", "`int`", "'int'"))
		if r.IntN(4) == 0 {
			b.WriteString(" " + sp() + pick("precision", "PRECISION", "prec"))
		}
		if r.IntN(2) == 0 {
			b.WriteString(sp() + "(" + sp() + pick("10", "0", "1.5", "x", "", "0x1", "007") + sp())
			if r.IntN(2) == 0 {
				b.WriteString("," + sp() + pick("2", "", "-1", "30") + sp())
			}
			b.WriteString(pick(")", ")", ""))
		}
		if r.IntN(3) == 0 {
			b.WriteString(" " + sp() + pick("unsigned", "UNSIGNED", "signed"))
		}
		if r.IntN(4) == 0 {
			b.WriteString(" " + sp() + pick("zerofill", "ZEROFILL"))
		}
		b.WriteString(sp())
		text := b.String()
		got, gok := mysqlType(text)
		want, wok := viaModel(text)
		if gok != wok || got != want {
			t.Fatalf("mysqlType(%q) = %+v, %v; the regex read %+v, %v", text, got, gok, want, wok)
		}
	}
}
