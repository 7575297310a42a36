package terminal

import (
	"bufio"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// Output formats.
const (
	FormatTable = "table"
	FormatCSV   = "csv"
	FormatJSON  = "json"
)

// CheckFormat validates an output format name.
func CheckFormat(f string) error {
	switch f {
	case FormatTable, FormatCSV, FormatJSON:
		return nil
	}
	return fmt.Errorf("terminal: unknown output format %q (table, csv, json)", f)
}

// numericTypes are the column types written without quotes in JSON and
// aligned right in tables.
var numericTypes = map[string]bool{
	"TINYINT": true, "SMALLINT": true, "MEDIUMINT": true, "INT": true, "BIGINT": true, "YEAR": true,
	"UNSIGNED TINYINT": true, "UNSIGNED SMALLINT": true, "UNSIGNED MEDIUMINT": true, "UNSIGNED INT": true, "UNSIGNED BIGINT": true,
	"DECIMAL": true, "FLOAT": true, "DOUBLE": true,
}

// result is one result set being written.
type result struct {
	cols    []string
	numeric []bool
}

func newResult(rows *sql.Rows) (*result, error) {
	cts, err := rows.ColumnTypes()
	if err != nil {
		return nil, err
	}
	r := &result{}
	for _, ct := range cts {
		r.cols = append(r.cols, ct.Name())
		r.numeric = append(r.numeric, numericTypes[ct.DatabaseTypeName()])
	}
	return r, nil
}

// writeRows writes every row of rows in format and returns how many.
func writeRows(w io.Writer, rows *sql.Rows, format string) (int, error) {
	r, err := newResult(rows)
	if err != nil {
		return 0, err
	}
	vals := make([]sql.RawBytes, len(r.cols))
	ptrs := make([]any, len(vals))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	defer bw.Flush()
	n := 0
	switch format {
	case FormatCSV:
		r.csvLine(bw, nil, true)
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				return n, err
			}
			r.csvLine(bw, vals, false)
			n++
		}
	case FormatJSON:
		bw.WriteString("[")
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				return n, err
			}
			if n > 0 {
				bw.WriteString(",")
			}
			bw.WriteString("\n")
			r.jsonObject(bw, vals)
			n++
		}
		bw.WriteString("\n]\n")
	default:
		var table [][]*string
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				return n, err
			}
			row := make([]*string, len(vals))
			for i, v := range vals {
				if v != nil {
					s := string(v)
					row[i] = &s
				}
			}
			table = append(table, row)
			n++
		}
		if err := rows.Err(); err != nil {
			return n, err
		}
		r.table(bw, table)
	}
	if err := rows.Err(); err != nil {
		return n, err
	}
	return n, bw.Flush()
}

// csvLine writes one CSV record (RFC 4180): NULL is an empty field, an
// empty string is "".
func (r *result) csvLine(w *bufio.Writer, vals []sql.RawBytes, header bool) {
	for i := range r.cols {
		if i > 0 {
			w.WriteByte(',')
		}
		var s string
		if header {
			s = r.cols[i]
		} else if vals[i] == nil {
			continue
		} else {
			s = string(vals[i])
		}
		if s == "" || strings.ContainsAny(s, ",\"\r\n") || s[0] == ' ' || s[len(s)-1] == ' ' {
			w.WriteByte('"')
			w.WriteString(strings.ReplaceAll(s, `"`, `""`))
			w.WriteByte('"')
		} else {
			w.WriteString(s)
		}
	}
	w.WriteString("\r\n")
}

// jsonObject writes one row as a JSON object: numbers as numbers, NULL as
// null, everything else as a string.
func (r *result) jsonObject(w *bufio.Writer, vals []sql.RawBytes) {
	w.WriteByte('{')
	for i, c := range r.cols {
		if i > 0 {
			w.WriteByte(',')
		}
		k, _ := json.Marshal(c)
		w.Write(k)
		w.WriteByte(':')
		switch v := vals[i]; {
		case v == nil:
			w.WriteString("null")
		case r.numeric[i] && json.Valid(v):
			w.Write(v)
		default:
			s, _ := json.Marshal(string(v))
			w.Write(s)
		}
	}
	w.WriteByte('}')
}

// table writes rows as the mysql client's boxed table.
func (r *result) table(w *bufio.Writer, rows [][]*string) {
	width := make([]int, len(r.cols))
	for i, c := range r.cols {
		width[i] = utf8.RuneCountInString(c)
	}
	for _, row := range rows {
		for i, v := range row {
			n := 4 // NULL
			if v != nil {
				n = utf8.RuneCountInString(*v)
			}
			width[i] = max(width[i], n)
		}
	}
	sep := func() {
		for _, wd := range width {
			w.WriteByte('+')
			w.WriteString(strings.Repeat("-", wd+2))
		}
		w.WriteString("+\n")
	}
	cell := func(s string, wd int, right bool) {
		pad := strings.Repeat(" ", wd-utf8.RuneCountInString(s))
		w.WriteString("| ")
		if right {
			w.WriteString(pad + s)
		} else {
			w.WriteString(s + pad)
		}
		w.WriteByte(' ')
	}
	sep()
	for i, c := range r.cols {
		cell(c, width[i], false)
	}
	w.WriteString("|\n")
	sep()
	for _, row := range rows {
		for i, v := range row {
			s := "NULL"
			if v != nil {
				s = *v
			}
			cell(s, width[i], r.numeric[i])
		}
		w.WriteString("|\n")
	}
	sep()
}
