package main

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"math/big"
	"strconv"
	"strings"
	"time"

	"github.com/duckdb/duckdb-go/v2"
)

// Tables and statements shared by the workloads.

const (
	lakeOrdersDDL = "CREATE TABLE %s (order_id BIGINT, user_id BIGINT, status STRING, amount DECIMAL(12,2), " +
		"updated_at TIMESTAMP(3), dt STRING, PRIMARY KEY (order_id, dt) NOT ENFORCED) PARTITIONED BY (dt) WITH ('bucket' = '4'%s)"
	mariaOrdersDDL = "CREATE TABLE %s (order_id BIGINT NOT NULL, user_id BIGINT, status VARCHAR(16), amount DECIMAL(12,2), " +
		"updated_at DATETIME(3), dt VARCHAR(10) NOT NULL, PRIMARY KEY (order_id, dt)) ENGINE=InnoDB"
	lakeUsersDDL  = "CREATE TABLE users (user_id BIGINT, region STRING, segment STRING, PRIMARY KEY (user_id) NOT ENFORCED) WITH ('bucket' = '4')"
	mariaUsersDDL = "CREATE TABLE users (user_id BIGINT NOT NULL, region VARCHAR(16), segment VARCHAR(16), PRIMARY KEY (user_id)) ENGINE=InnoDB"
)

func execAll(ctx context.Context, db interface {
	ExecContext(context.Context, string, ...any) (sql.Result, error)
}, qs ...string) error {
	for _, q := range qs {
		if _, err := db.ExecContext(ctx, q); err != nil {
			if len(q) > 200 {
				q = q[:200] + "…"
			}
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	return nil
}

func loadStmt(path, table string, replace bool) string {
	verb := ""
	if replace {
		verb = "REPLACE "
	}
	return fmt.Sprintf("LOAD DATA LOCAL INFILE '%s' %sINTO TABLE %s FIELDS TERMINATED BY ','", path, verb, table)
}

// errTimeout: a query ran past --timeout and was killed.
var errTimeout = errors.New("timed out")

// runQueryLimit is runQuery with a time limit: past it the query is killed
// (KILL QUERY on the MySQL-protocol engines) and errTimeout returned.
func runQueryLimit(ctx context.Context, db *sql.DB, q string, limit time.Duration, mysql bool) (time.Duration, [][]string, error) {
	if limit <= 0 {
		return runQuery(ctx, db, q)
	}
	conn, err := db.Conn(ctx)
	if err != nil {
		return 0, nil, err
	}
	defer conn.Close()
	var id int64
	if mysql {
		if err := conn.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id); err != nil {
			return 0, nil, err
		}
	}
	qctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	killed := make(chan struct{})
	stop := context.AfterFunc(qctx, func() {
		defer close(killed)
		if mysql && ctx.Err() == nil {
			db.ExecContext(context.Background(), fmt.Sprintf("KILL QUERY %d", id))
		}
	})
	d, rows, err := runQuery(qctx, conn, q)
	if !stop() {
		<-killed
		if ctx.Err() == nil {
			conn.Raw(func(any) error { return driver.ErrBadConn }) // do not reuse a killed connection
			return limit, nil, errTimeout
		}
	}
	return d, rows, err
}

type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// runQuery runs q and returns its rows as normalized text and the time from
// sending it to reading its last row.
func runQuery(ctx context.Context, db querier, q string) (time.Duration, [][]string, error) {
	start := time.Now()
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return 0, nil, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return 0, nil, err
	}
	var out [][]string
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return 0, nil, err
		}
		rec := make([]string, len(vals))
		for i, v := range vals {
			rec[i] = norm(v)
		}
		out = append(out, rec)
	}
	if err := rows.Err(); err != nil {
		return 0, nil, err
	}
	rows.Close()
	return time.Since(start), out, nil
}

// norm prints a value alike whichever driver returned it: numbers in their
// shortest exact decimal form, times with milliseconds.
func norm(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case []byte:
		return normText(string(x))
	case string:
		return normText(x)
	case duckdb.Decimal:
		return normText(x.String())
	case *big.Int:
		return x.String()
	case float64:
		return normText(strconv.FormatFloat(x, 'f', -1, 64))
	case float32:
		return normText(strconv.FormatFloat(float64(x), 'f', -1, 32))
	case time.Time:
		return normText(x.UTC().Format("2006-01-02 15:04:05.000"))
	case bool:
		if x {
			return "1"
		}
		return "0"
	}
	return fmt.Sprint(v)
}

// normText trims a decimal number's trailing fractional zeros, and those
// of a datetime's fraction (GMS prints DATETIME(3) '…:51.250' as '…:51.25').
func normText(s string) string {
	if s == "" {
		return s
	}
	if len(s) > 20 && s[4] == '-' && s[10] == ' ' && s[19] == '.' {
		return strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
	}
	digits, dot := 0, -1
	for i, c := range s {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c == '.' && dot < 0:
			dot = i
		case c == '-' && i == 0:
		default:
			return s
		}
	}
	if digits == 0 || dot < 0 {
		return s
	}
	s = strings.TrimRight(s, "0")
	return strings.TrimSuffix(s, ".")
}

func sameRows(a, b [][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if strings.Join(a[i], "\x00") != strings.Join(b[i], "\x00") {
			return false
		}
	}
	return true
}

func show(rows [][]string) string {
	var parts []string
	for i, r := range rows {
		if i == 5 {
			parts = append(parts, fmt.Sprintf("… (%d rows)", len(rows)))
			break
		}
		parts = append(parts, "("+strings.Join(r, ", ")+")")
	}
	return strings.Join(parts, " ")
}

// queryInt returns the first column of the first row of q as an integer.
func queryInt(ctx context.Context, db *sql.DB, q string) (int64, error) {
	var s sql.NullString
	if err := db.QueryRowContext(ctx, q).Scan(&s); err != nil {
		return 0, fmt.Errorf("%s: %w", q, err)
	}
	if !s.Valid {
		return 0, nil
	}
	return strconv.ParseInt(s.String, 10, 64)
}
