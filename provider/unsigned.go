package provider

import (
	"math"
	"strings"

	"github.com/lakesql/lakesql/internal/schema"
)

// MySQL's UNSIGNED integers. Paimon has no unsigned types, so a column
// declared UNSIGNED is stored in the next wider signed type (TINYINT
// UNSIGNED → SMALLINT, SMALLINT and MEDIUMINT UNSIGNED → INT, INT UNSIGNED →
// BIGINT, BIGINT UNSIGNED → DECIMAL(20, 0)), and its MySQL type is recorded
// in the table option
//
//	'lakesql.unsigned.<column>' = 'tinyint' | 'smallint' | 'mediumint' | 'int' | 'bigint'
//
// which Paimon keeps (other engines ignore it). Writes check the column's
// range, 0 … 2^n-1, and fail with 1264. RENAME COLUMN moves the option and
// DROP COLUMN removes it; MODIFY/CHANGE COLUMN sets or removes it with the
// new type. The check applies only while the column still has the widened
// type of its recorded MySQL type.

// UnsignedOptionPrefix starts the option key that marks a column UNSIGNED.
const UnsignedOptionPrefix = schema.OptUnsignedPrefix

// unsignedMax is the largest value of each MySQL unsigned integer type and
// the Paimon type it is stored in.
var unsignedTypes = map[string]struct {
	max  uint64
	root schema.TypeRoot
}{
	"tinyint":   {math.MaxUint8, schema.TypeSmallInt},
	"smallint":  {math.MaxUint16, schema.TypeInt},
	"mediumint": {1<<24 - 1, schema.TypeInt},
	"int":       {math.MaxUint32, schema.TypeBigInt},
	"bigint":    {math.MaxUint64, schema.TypeDecimal},
}

// unsignedLimits returns, per field index, the largest value an UNSIGNED
// column may hold (nil when the table has none).
func unsignedLimits(ts *schema.TableSchema) []uint64 {
	var out []uint64
	for k, v := range ts.Options {
		if !strings.HasPrefix(k, UnsignedOptionPrefix) {
			continue
		}
		u, ok := unsignedTypes[strings.ToLower(v)]
		i := ts.FieldIndex(strings.TrimPrefix(k, UnsignedOptionPrefix))
		if !ok || i < 0 || ts.Fields[i].Type.Root != u.root {
			continue
		}
		if out == nil {
			out = make([]uint64, len(ts.Fields))
		}
		out[i] = u.max
	}
	return out
}

// checkUnsigned fails with 1264 when a value of the schema value model is
// outside 0 … max.
func checkUnsigned(col string, max uint64, v any, row int64) error {
	switch x := v.(type) {
	case int16:
		if x < 0 || uint64(x) > max {
			return errOutOfRange(col, row)
		}
	case int32:
		if x < 0 || uint64(x) > max {
			return errOutOfRange(col, row)
		}
	case int64:
		if x < 0 || uint64(x) > max {
			return errOutOfRange(col, row)
		}
	case schema.Decimal:
		d := decimalToSQL(x)
		if d.Sign() < 0 || d.GreaterThan(decMaxUint64) {
			return errOutOfRange(col, row)
		}
	}
	return nil
}

// checkUnsigned checks a new row's UNSIGNED columns.
func (e *editor) checkUnsigned(row []any) error {
	e.rows++
	for i, max := range e.unsigned {
		if max != 0 && row[i] != nil {
			if err := checkUnsigned(e.t.sch.Fields[i].Name, max, row[i], e.rows); err != nil {
				return err
			}
		}
	}
	return nil
}
