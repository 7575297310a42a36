package main

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"time"
)

// The generated workload: orders keyed by order_id (1..N) in four daily
// partitions (dt, by order id), users in a 10k-row dimension table, and four
// CDC batches that each update 5% of the keys and delete 0.25% (20% and 1%
// over the four batches). Everything derives from the seed, so every engine
// gets the same rows.

const (
	partitions = 4
	cdcBatches = 4
	dimUsers   = 10_000
)

var (
	statuses = []string{"new", "paid", "shipped", "delivered", "cancelled", "returned"}
	regions  = []string{"africa", "america-n", "america-s", "asia-e", "asia-s", "europe-e", "europe-w", "oceania"}
	segments = []string{"consumer", "corporate", "home-office", "small-business"}
	baseTime = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
)

// dataset is the generated workload of one scale.
type dataset struct {
	n     int // orders
	users int // distinct user ids in orders (the dimension table holds the first dimUsers)
	seed  uint64
}

func newDataset(n int, seed uint64) *dataset {
	return &dataset{n: n, users: max(n/10, dimUsers), seed: seed}
}

// dt is the partition of an order.
func (d *dataset) dt(id int64) string {
	p := (id - 1) * partitions / int64(d.n)
	return fmt.Sprintf("2026-01-%02d", p+1)
}

// order is one row of orders.
type order struct {
	id     int64
	user   int64
	status string
	cents  int64
	at     time.Time
}

func (d *dataset) rng(stream, i uint64) *rand.Rand {
	return rand.New(rand.NewPCG(d.seed^stream*0x9e3779b97f4a7c15, i))
}

// initial is the row of order id as loaded.
func (d *dataset) initial(id int64) order {
	r := d.rng(1, uint64(id))
	return order{
		id:     id,
		user:   r.Int64N(int64(d.users)),
		status: statuses[r.IntN(2)],
		cents:  100 + r.Int64N(999_900),
		at:     baseTime.Add(time.Duration(id) * 3 * time.Second).Add(time.Duration(r.IntN(1000)) * time.Millisecond),
	}
}

// cdc is one change batch: upserted rows and deleted keys.
type cdc struct {
	upserts []order
	deletes []int64
}

// batch returns CDC batch b (0-based) given the keys deleted so far (which
// it neither updates nor deletes again); it adds its deletes to deleted.
func (d *dataset) batch(b int, deleted map[int64]bool) cdc {
	r := d.rng(2, uint64(b))
	nUp, nDel := d.n/20, d.n/400
	seen := map[int64]bool{}
	pick := func() int64 {
		for {
			id := 1 + r.Int64N(int64(d.n))
			if !seen[id] && !deleted[id] {
				seen[id] = true
				return id
			}
		}
	}
	var c cdc
	for range nUp {
		id := pick()
		o := d.initial(id)
		o.status = statuses[2+r.IntN(len(statuses)-2)]
		o.cents = 100 + r.Int64N(999_900)
		o.at = baseTime.Add(time.Duration(d.n)*3*time.Second + time.Duration(b+1)*time.Hour + time.Duration(r.IntN(3_600_000))*time.Millisecond)
		c.upserts = append(c.upserts, o)
	}
	for range nDel {
		id := pick()
		c.deletes = append(c.deletes, id)
		deleted[id] = true
	}
	return c
}

// upserts returns batch b of the auto-compaction upsert workload: rows rows
// of random keys with new values.
func (d *dataset) upserts(b, rows int) []order {
	r := d.rng(3, uint64(b))
	out := make([]order, rows)
	for i := range out {
		o := d.initial(1 + r.Int64N(int64(d.n)))
		o.status = statuses[r.IntN(len(statuses))]
		o.cents = 100 + r.Int64N(999_900)
		out[i] = o
	}
	return out
}

func amount(cents int64) string {
	return strconv.FormatInt(cents/100, 10) + "." + fmt.Sprintf("%02d", cents%100)
}

func stamp(t time.Time) string { return t.Format("2006-01-02 15:04:05.000") }

// csvLine is o as a LOAD DATA line (fields separated by commas).
func (d *dataset) csvLine(w *bufio.Writer, o order) {
	w.WriteString(strconv.FormatInt(o.id, 10))
	w.WriteByte(',')
	w.WriteString(strconv.FormatInt(o.user, 10))
	w.WriteByte(',')
	w.WriteString(o.status)
	w.WriteByte(',')
	w.WriteString(amount(o.cents))
	w.WriteByte(',')
	w.WriteString(stamp(o.at))
	w.WriteByte(',')
	w.WriteString(d.dt(o.id))
	w.WriteByte('\n')
}

// valuesTuple is o as a VALUES tuple.
func (d *dataset) valuesTuple(sb *strings.Builder, o order) {
	fmt.Fprintf(sb, "(%d,%d,'%s',%s,'%s','%s')", o.id, o.user, o.status, amount(o.cents), stamp(o.at), d.dt(o.id))
}

// writeOrders writes the initial rows of ids [from, to] to path.
func (d *dataset) writeOrders(path string, from, to int64) error {
	return writeFile(path, func(w *bufio.Writer) {
		for id := from; id <= to; id++ {
			d.csvLine(w, d.initial(id))
		}
	})
}

func (d *dataset) writeRows(path string, rows []order) error {
	return writeFile(path, func(w *bufio.Writer) {
		for _, o := range rows {
			d.csvLine(w, o)
		}
	})
}

func writeUsers(path string) error {
	return writeFile(path, func(w *bufio.Writer) {
		for u := range dimUsers {
			fmt.Fprintf(w, "%d,%s,%s\n", u, regions[u%len(regions)], segments[(u/7)%len(segments)])
		}
	})
}

func writeFile(path string, fill func(*bufio.Writer)) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	fill(w)
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// insertStatements splits rows into multi-row statements of per rows each:
// verb is INSERT or REPLACE.
func (d *dataset) insertStatements(verb, table string, rows []order, per int) []string {
	var out []string
	for i := 0; i < len(rows); i += per {
		var sb strings.Builder
		sb.WriteString(verb + " INTO " + table + " VALUES ")
		for j, o := range rows[i:min(i+per, len(rows))] {
			if j > 0 {
				sb.WriteByte(',')
			}
			d.valuesTuple(&sb, o)
		}
		out = append(out, sb.String())
	}
	return out
}

// idList is ids joined by commas.
func idList(ids []int64) string {
	var sb strings.Builder
	for i, id := range ids {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(strconv.FormatInt(id, 10))
	}
	return sb.String()
}
