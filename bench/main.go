package main

import (
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"
	_ "github.com/go-sql-driver/mysql"
)

// config is the command line.
type config struct {
	scale   int
	seed    uint64
	rounds  int
	only    map[string]bool
	json    string
	work    string
	keep    bool
	profile string
	// writeBufferSize, when set, is the write-buffer-size of the LOAD
	// DATA workload's lakesql tables (peak memory against it).
	writeBufferSize string
	lookupSeconds   float64
	timeout         time.Duration
}

// workloads, in the order they run; --only takes these names (or the group
// names "queries" and "lookup").
var workloadNames = []string{
	"load", "insert", "commit", "cdc", "compact",
	"agg", "filter", "groupby-low", "groupby-high", "join", "join-lookup", "join-self", "in-list", "timetravel",
	"lookup", "update", "upsert",
}

func main() {
	if len(os.Args) > 1 && os.Args[1] == serverArg {
		os.Exit(runServerChild(os.Args[2:]))
	}
	cfg, err := parseConfig(os.Args[1:])
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return
		}
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(2)
	}
	if err := run(context.Background(), cfg); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

func parseConfig(args []string) (config, error) {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	scale := fs.String("scale", "100k", "orders to generate: 100k, 1M, 10M (or any count)")
	seed := fs.Uint64("seed", 42, "seed of the generated workload")
	rounds := fs.Int("rounds", 3, "interleaved rounds per workload (the median is reported)")
	only := fs.String("only", "", "comma-separated workloads to run (default all): "+strings.Join(workloadNames, ",")+"; groups: queries")
	js := fs.String("json", "", "write every figure to this JSON file")
	work := fs.String("work", "", "working folder (default a new temporary folder, removed at the end)")
	keep := fs.Bool("keep", false, "keep the working folder")
	profile := fs.String("profile", "", "write a CPU profile of lakesql's first-round run of each workload into this folder")
	lookupSeconds := fs.Float64("lookup-seconds", 2, "duration of each point-lookup run")
	timeout := fs.Duration("timeout", 10*time.Minute, "a query running longer is killed and its figure is the limit")
	wbs := fs.String("write-buffer-size", "", "write-buffer-size of lakesql's LOAD DATA tables (default the table default)")
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	if fs.NArg() > 0 {
		return config{}, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	n, err := parseScale(*scale)
	if err != nil {
		return config{}, err
	}
	cfg := config{scale: n, seed: *seed, rounds: max(*rounds, 1), json: *js, work: *work, keep: *keep,
		profile: *profile, lookupSeconds: *lookupSeconds, timeout: *timeout, writeBufferSize: *wbs}
	if *only != "" {
		cfg.only = map[string]bool{}
		for _, w := range strings.Split(*only, ",") {
			w = strings.TrimSpace(w)
			switch w {
			case "queries":
				for _, q := range queryNames() {
					cfg.only[q] = true
				}
				continue
			}
			known := false
			for _, k := range workloadNames {
				known = known || k == w
			}
			if !known {
				return config{}, fmt.Errorf("unknown workload %q (known: %s)", w, strings.Join(workloadNames, ", "))
			}
			cfg.only[w] = true
		}
	}
	return cfg, nil
}

func parseScale(s string) (int, error) {
	mult := 1
	switch {
	case strings.HasSuffix(s, "k"), strings.HasSuffix(s, "K"):
		mult, s = 1_000, s[:len(s)-1]
	case strings.HasSuffix(s, "M"), strings.HasSuffix(s, "m"):
		mult, s = 1_000_000, s[:len(s)-1]
	}
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return 0, fmt.Errorf("bad --scale %q (100k, 1M, 10M or a count)", s)
	}
	if n*mult < 4_000 {
		return 0, fmt.Errorf("--scale %d is below the smallest workload (4000 rows)", n*mult)
	}
	return n * mult, nil
}

func (c config) selected(w string) bool { return c.only == nil || c.only[w] }

func (c config) anySelected(ws ...string) bool {
	for _, w := range ws {
		if c.selected(w) {
			return true
		}
	}
	return false
}

// env is one run's engines, data and report.
type env struct {
	cfg     config
	d       *dataset
	rep     *Report
	work    string
	files   string // generated input files (also the server's secure-file-priv)
	wh      string
	lake    *lakesqlServer
	maria   *mariaDB
	lk      *sql.DB // lakesql, text protocol with client-side interpolation
	lkPrep  *sql.DB // lakesql, server-side prepared statements
	my      *sql.DB
	myPrep  *sql.DB
	duck    *sql.DB
	hasMOW  bool
	snapAt  map[string]int64 // lakesql table → snapshot after its load
	deleted map[int64]bool   // keys the CDC batches deleted
}

func run(ctx context.Context, cfg config) error {
	start := time.Now()
	e := &env{cfg: cfg, d: newDataset(cfg.scale, cfg.seed), rep: newReport(), snapAt: map[string]int64{}, deleted: map[int64]bool{}}
	e.rep.Scale, e.rep.Seed, e.rep.Rounds, e.rep.Started = cfg.scale, cfg.seed, cfg.rounds, start.UTC().Format(time.RFC3339)
	e.rep.Host["cpus"] = runtime.NumCPU()
	e.rep.Host["go"] = runtime.Version()
	e.rep.Host["loadavg_start"] = loadAvg()
	if cfg.work == "" {
		dir, err := os.MkdirTemp("", "lakesql-bench-")
		if err != nil {
			return err
		}
		cfg.work = dir
		if !cfg.keep {
			defer os.RemoveAll(dir)
		}
	}
	e.work = cfg.work
	e.files = filepath.Join(e.work, "files")
	e.wh = filepath.Join(e.work, "warehouse")
	for _, d := range []string{e.files, e.wh} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	if cfg.profile != "" {
		if err := os.MkdirAll(cfg.profile, 0o755); err != nil {
			return err
		}
	}
	fmt.Printf("lakesql bench: %d orders, seed %d, %d rounds, %d CPUs, load average %s, work folder %s\n",
		cfg.scale, cfg.seed, cfg.rounds, runtime.NumCPU(), loadAvg(), e.work)
	if err := e.generate(); err != nil {
		return fmt.Errorf("generate: %w", err)
	}
	var err error
	if e.lake, err = startLakesql(e.wh, e.files, filepath.Join(e.work, "lakesql.log")); err != nil {
		return err
	}
	defer e.lake.Stop()
	pool := int64(cfg.scale) * 400
	if e.maria, err = startMariaDB(min(max(pool, 256<<20), 4<<30)); err != nil {
		return err
	}
	defer e.maria.Stop()
	if err := e.open(); err != nil {
		return err
	}
	defer e.close()

	phases := []struct {
		name string
		run  func(context.Context) error
	}{
		{"load", e.phaseLoad},
		{"insert", e.phaseInsert},
		{"commit", e.phaseCommits},
		{"cdc", e.phaseCDC},
		{"compact", e.phaseCompact},
		{"queries", e.phaseQueries},
		{"lookup", e.phaseLookups},
		{"update", e.phaseUpdate},
		{"upsert", e.phaseUpsert},
	}
	for _, p := range phases {
		resetPeak(e.lake.Pid())
		resetPeak(e.maria.Pid())
		ps := time.Now()
		if err := p.run(ctx); err != nil {
			return fmt.Errorf("%s: %w", p.name, err)
		}
		if time.Since(ps) > time.Second {
			fmt.Printf("phase %s: %.1f s\n", p.name, time.Since(ps).Seconds())
		}
		if hwm, _ := procStatus(e.lake.Pid()); hwm > 0 && time.Since(ps) > 10*time.Millisecond {
			e.rep.RSS["lakesql, phase "+p.name] = float64(hwm) / (1 << 20)
		}
		if hwm, _ := procStatus(e.maria.Pid()); hwm > 0 && time.Since(ps) > 10*time.Millisecond {
			e.rep.RSS["mariadb, phase "+p.name] = float64(hwm) / (1 << 20)
		}
	}
	e.rep.Host["loadavg_end"] = loadAvg()
	e.rep.Seconds = time.Since(start).Seconds()
	e.rep.finish()
	fmt.Println()
	e.rep.Print(os.Stdout)
	if cfg.json != "" {
		if err := e.rep.WriteJSON(cfg.json); err != nil {
			return err
		}
		fmt.Println("wrote", cfg.json)
	}
	if len(e.rep.Mismatches) > 0 {
		return fmt.Errorf("%d result mismatches between engines", len(e.rep.Mismatches))
	}
	return nil
}

func loadAvg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// generate writes the input files: orders, users, and the CDC batches.
func (e *env) generate() error {
	if err := e.d.writeOrders(e.path("orders.csv"), 1, int64(e.d.n)); err != nil {
		return err
	}
	if err := writeUsers(e.path("users.csv")); err != nil {
		return err
	}
	deleted := map[int64]bool{}
	for b := range cdcBatches {
		c := e.d.batch(b, deleted)
		if err := e.d.writeRows(e.path(fmt.Sprintf("cdc-%d.csv", b)), c.upserts); err != nil {
			return err
		}
		if err := os.WriteFile(e.path(fmt.Sprintf("cdc-%d.del", b)), []byte(idList(c.deletes)), 0o644); err != nil {
			return err
		}
	}
	e.deleted = deleted
	return nil
}

func (e *env) path(name string) string { return filepath.Join(e.files, name) }

func (e *env) open() error {
	var err error
	dsn := func(addr string, interp bool) string {
		return fmt.Sprintf("root@tcp(%s)/?allowAllFiles=true&interpolateParams=%v&maxAllowedPacket=0", addr, interp)
	}
	for _, p := range []struct {
		db   **sql.DB
		addr string
	}{{&e.lk, e.lake.Addr}, {&e.my, e.maria.Addr}} {
		db, err := sql.Open("mysql", dsn(p.addr, true))
		if err != nil {
			return err
		}
		for _, q := range []string{"CREATE DATABASE IF NOT EXISTS bench"} {
			if _, err := db.Exec(q); err != nil {
				return fmt.Errorf("%s: %w", q, err)
			}
		}
		db.Close()
	}
	open := func(addr string, interp bool) (*sql.DB, error) {
		db, err := sql.Open("mysql", strings.Replace(dsn(addr, interp), ")/?", ")/bench?", 1))
		if err != nil {
			return nil, err
		}
		db.SetMaxIdleConns(16)
		return db, db.Ping()
	}
	if e.lk, err = open(e.lake.Addr, true); err != nil {
		return err
	}
	if e.lkPrep, err = open(e.lake.Addr, false); err != nil {
		return err
	}
	if e.my, err = open(e.maria.Addr, true); err != nil {
		return err
	}
	if e.myPrep, err = open(e.maria.Addr, false); err != nil {
		return err
	}
	if e.duck, err = sql.Open("duckdb", ""); err != nil {
		return err
	}
	return nil
}

func (e *env) close() {
	for _, db := range []*sql.DB{e.lk, e.lkPrep, e.my, e.myPrep, e.duck} {
		if db != nil {
			db.Close()
		}
	}
}
