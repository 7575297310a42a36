package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"
	"text/tabwriter"
)

// Engines: lakesql in a table state, or a peer.
const (
	lakeMOR     = "lakesql-mor"       // after the load and 4 CDC batches: 5 sorted runs per bucket
	lakeMOW     = "lakesql-mow"       // the same rows in a deletion-vector table
	lakeCompact = "lakesql-compacted" // after a full compaction
	lakesql     = "lakesql"           // workloads where the state does not matter
	duckDB      = "duckdb"
	mariaDBName = "mariadb"
)

// Figure is the samples of one engine in one workload's metric, one per
// round (index = round).
type Figure struct {
	Workload string    `json:"workload"`
	Metric   string    `json:"metric"` // e.g. "s", "rows/s", "p50 ms"
	Higher   bool      `json:"higher_is_better"`
	Engine   string    `json:"engine"`
	Samples  []float64 `json:"samples"`
	Median   float64   `json:"median"`
	Min      float64   `json:"min"`
	Max      float64   `json:"max"`
}

// Ratio is how many times slower a lakesql engine is than a peer, per round
// (time: lakesql/peer; rate: peer/lakesql): min and median over the rounds.
type Ratio struct {
	Workload string    `json:"workload"`
	Metric   string    `json:"metric"`
	Lakesql  string    `json:"lakesql"`
	Peer     string    `json:"peer"`
	PerRound []float64 `json:"per_round"`
	Min      float64   `json:"min"`
	Median   float64   `json:"median"`
}

// Report is everything the bench measured.
type Report struct {
	Scale      int                `json:"scale"`
	Seed       uint64             `json:"seed"`
	Rounds     int                `json:"rounds"`
	Started    string             `json:"started"`
	Seconds    float64            `json:"seconds"`
	Host       map[string]any     `json:"host"`
	Figures    []*Figure          `json:"figures"`
	Ratios     []Ratio            `json:"ratios"`
	Skipped    []Skip             `json:"skipped"`
	Notes      []string           `json:"notes"`
	Mismatches []string           `json:"mismatches"`
	RSS        map[string]float64 `json:"peak_rss_mb"`
	Series     map[string]any     `json:"series,omitempty"`
	figIndex   map[string]*Figure
	order      []string // workload/metric in first-seen order
}

type Skip struct {
	Workload string `json:"workload"`
	Reason   string `json:"reason"`
}

func newReport() *Report {
	return &Report{figIndex: map[string]*Figure{}, RSS: map[string]float64{}, Series: map[string]any{},
		Host: map[string]any{}}
}

// Add records one sample of engine in round (0-based).
func (r *Report) Add(workload, metric string, higher bool, engine string, round int, v float64) {
	key := workload + "\x00" + metric + "\x00" + engine
	f := r.figIndex[key]
	if f == nil {
		f = &Figure{Workload: workload, Metric: metric, Higher: higher, Engine: engine}
		r.figIndex[key] = f
		r.Figures = append(r.Figures, f)
		wm := workload + "\x00" + metric
		if !slices.Contains(r.order, wm) {
			r.order = append(r.order, wm)
		}
	}
	for len(f.Samples) <= round {
		f.Samples = append(f.Samples, math.NaN())
	}
	f.Samples[round] = v
}

func (r *Report) Skip(workload, reason string) {
	r.Skipped = append(r.Skipped, Skip{workload, reason})
	fmt.Printf("%-22s skipped: %s\n", workload, reason)
}

func (r *Report) Note(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	r.Notes = append(r.Notes, s)
	fmt.Println("note:", s)
}

func (r *Report) Mismatch(format string, args ...any) {
	s := fmt.Sprintf(format, args...)
	r.Mismatches = append(r.Mismatches, s)
	fmt.Println("MISMATCH:", s)
}

func stats(xs []float64) (med, lo, hi float64) {
	var v []float64
	for _, x := range xs {
		if !math.IsNaN(x) {
			v = append(v, x)
		}
	}
	if len(v) == 0 {
		return math.NaN(), math.NaN(), math.NaN()
	}
	slices.Sort(v)
	med = v[len(v)/2]
	if len(v)%2 == 0 {
		med = (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	return med, v[0], v[len(v)-1]
}

// finish computes medians and ratios.
func (r *Report) finish() {
	r.Ratios = nil
	for _, f := range r.Figures {
		f.Median, f.Min, f.Max = stats(f.Samples)
	}
	for _, wm := range r.order {
		var lakes, peers []*Figure
		for _, f := range r.Figures {
			if f.Workload+"\x00"+f.Metric != wm {
				continue
			}
			if strings.HasPrefix(f.Engine, lakesql) {
				lakes = append(lakes, f)
			} else {
				peers = append(peers, f)
			}
		}
		for _, l := range lakes {
			for _, p := range peers {
				rt := Ratio{Workload: l.Workload, Metric: l.Metric, Lakesql: l.Engine, Peer: p.Engine}
				for i := range min(len(l.Samples), len(p.Samples)) {
					a, b := l.Samples[i], p.Samples[i]
					if math.IsNaN(a) || math.IsNaN(b) || a == 0 || b == 0 {
						continue
					}
					if l.Higher {
						rt.PerRound = append(rt.PerRound, b/a)
					} else {
						rt.PerRound = append(rt.PerRound, a/b)
					}
				}
				if len(rt.PerRound) == 0 {
					continue
				}
				rt.Median, rt.Min, _ = stats(rt.PerRound)
				r.Ratios = append(r.Ratios, rt)
			}
		}
	}
}

func num(v float64) string {
	switch {
	case math.IsNaN(v):
		return "—"
	case v >= 1000:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	case v >= 0.1:
		return fmt.Sprintf("%.3f", v)
	}
	return fmt.Sprintf("%.4f", v)
}

func ratioText(rt *Ratio) string {
	if rt == nil {
		return ""
	}
	return fmt.Sprintf("%s× (%s–%s)", num(rt.Median), num(rt.Min), num(rt.Median))
}

// Print writes the table: one line per workload metric and lakesql engine,
// with each peer's median and the ratio lakesql/peer (min–median).
func (r *Report) Print(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "workload\tmetric\tlakesql\tmedian\tduckdb\tslower than duckdb\tmariadb\tslower than mariadb\t")
	for _, wm := range r.order {
		var lakes []*Figure
		peer := map[string]*Figure{}
		for _, f := range r.Figures {
			if f.Workload+"\x00"+f.Metric != wm {
				continue
			}
			if strings.HasPrefix(f.Engine, lakesql) {
				lakes = append(lakes, f)
			} else {
				peer[f.Engine] = f
			}
		}
		ratio := func(l *Figure, p string) *Ratio {
			for i := range r.Ratios {
				rt := &r.Ratios[i]
				if rt.Workload == l.Workload && rt.Metric == l.Metric && rt.Lakesql == l.Engine && rt.Peer == p {
					return rt
				}
			}
			return nil
		}
		med := func(f *Figure) string {
			if f == nil {
				return ""
			}
			return num(f.Median)
		}
		for _, l := range lakes {
			state := strings.TrimPrefix(strings.TrimPrefix(l.Engine, lakesql), "-")
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", l.Workload, l.Metric, state, num(l.Median),
				med(peer[duckDB]), ratioText(ratio(l, duckDB)), med(peer[mariaDBName]), ratioText(ratio(l, mariaDBName)))
		}
		if len(lakes) == 0 {
			parts := strings.SplitN(wm, "\x00", 2)
			fmt.Fprintf(tw, "%s\t%s\t\t\t%s\t\t%s\t\t\n", parts[0], parts[1], med(peer[duckDB]), med(peer[mariaDBName]))
		}
	}
	tw.Flush()
	if len(r.RSS) > 0 {
		keys := make([]string, 0, len(r.RSS))
		for k := range r.RSS {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		fmt.Fprintln(w, "\npeak RSS (MB):")
		for _, k := range keys {
			fmt.Fprintf(w, "  %-40s %8.0f\n", k, r.RSS[k])
		}
	}
	for _, s := range r.Skipped {
		fmt.Fprintf(w, "skipped: %s: %s\n", s.Workload, s.Reason)
	}
	for _, m := range r.Mismatches {
		fmt.Fprintf(w, "MISMATCH: %s\n", m)
	}
}

// jsonNum is a float that writes NaN (a round that did not run) as null.
type jsonNum float64

func (f jsonNum) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
		return []byte("null"), nil
	}
	return json.Marshal(float64(f))
}

func jsonNums(xs []float64) []jsonNum {
	out := make([]jsonNum, len(xs))
	for i, x := range xs {
		out[i] = jsonNum(x)
	}
	return out
}

func (r *Report) WriteJSON(path string) error {
	type fig struct {
		Workload string    `json:"workload"`
		Metric   string    `json:"metric"`
		Higher   bool      `json:"higher_is_better"`
		Engine   string    `json:"engine"`
		Samples  []jsonNum `json:"samples"`
		Median   jsonNum   `json:"median"`
		Min      jsonNum   `json:"min"`
		Max      jsonNum   `json:"max"`
	}
	out := struct {
		*Report
		Figures []fig `json:"figures"`
	}{Report: r}
	for _, f := range r.Figures {
		out.Figures = append(out.Figures, fig{f.Workload, f.Metric, f.Higher, f.Engine, jsonNums(f.Samples),
			jsonNum(f.Median), jsonNum(f.Min), jsonNum(f.Max)})
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
