package provider

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/dolthub/go-mysql-server/sql"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/lsmread"
	"github.com/lakesql/lakesql/snapshot"
)

// A point plan is what repeated point queries of one table, column list and
// time zone reuse while the table's latest schema and snapshot stay the
// same: the result columns, and the plan of the whole table at that
// snapshot, which each query narrows to its key (lsmread.Plan.Narrow: no
// snapshot, schema, manifest or option is read or parsed again) and reads
// with one shared reader (lsmread.Reader.ForPlan). Every query still
// resolves the table, its latest schema and its latest snapshot as any
// statement does (existence checks of the next schema and snapshot files),
// so a commit or schema change by this or another server is seen by the
// next query; the cached plan is only used for the snapshot it was made
// for.
type pointPlan struct {
	lt      *lsmread.Table
	sch     *schema.TableSchema
	snap    *snapshot.Snapshot // the snapshot base reads (nil: the table had none)
	version string
	idx     []int // the selected fields
	cols    sql.Schema
	types   []*schema.DataType
	base    *lsmread.Plan
	// reader reads plans narrowed from base (nil until the first read).
	mu     sync.Mutex
	reader *lsmread.Reader
}

// pointPlanKey identifies a point plan.
type pointPlanKey struct {
	lt   *lsmread.Table
	cols string // the selected columns, "\x00"-joined ("*": all)
	zone string // the session time zone's text
}

// maxPointPlans bounds the point-plan cache; it is cleared when full.
const maxPointPlans = 1024

type pointPlans struct {
	mu sync.Mutex
	m  map[pointPlanKey]*pointPlan
}

func (c *pointPlans) get(k pointPlanKey) *pointPlan {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.m[k]
}

func (c *pointPlans) put(k pointPlanKey, pp *pointPlan) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxPointPlans {
		c.m = map[pointPlanKey]*pointPlan{}
	}
	c.m[k] = pp
}

// pointPlanFor returns the point plan of lt's latest schema sch and
// snapshot snap for the columns cols (nil: all), reusing the cached one
// when it was made for exactly those.
func (p *Provider) pointPlanFor(ctx *sql.Context, lt *lsmread.Table, name, db string, sch *schema.TableSchema, snap *snapshot.Snapshot, cols []string, zone string) (*pointPlan, error) {
	k := pointPlanKey{lt: lt, cols: "*", zone: zone}
	if cols != nil {
		k.cols = strings.Join(cols, "\x00")
	}
	if pp := p.points.get(k); pp != nil && pp.sch == sch && pp.snap == snap {
		return pp, nil
	}
	pp := &pointPlan{lt: lt, sch: sch, version: schemaVersion(sch)}
	full, types, err := tableColumns(sch, name, db)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNotPoint, err) // a column GMS cannot show: GMS reports it
	}
	var proj []string
	if cols == nil {
		for i := range full {
			pp.idx = append(pp.idx, i)
		}
	} else {
		for _, c := range cols {
			i := full.IndexOfColName(c)
			if i < 0 {
				return nil, errNotPointf("unknown column %s", c)
			}
			pp.idx = append(pp.idx, i)
			proj = append(proj, full[i].Name)
		}
	}
	for _, i := range pp.idx {
		pp.cols = append(pp.cols, full[i])
		pp.types = append(pp.types, types[i])
	}
	spec := lsmread.ScanSpec{Projection: proj, TimeZone: sessionZone(ctx), LatestSchema: sch}
	if pp.base, err = lt.Plan(ctx, spec); err != nil {
		return nil, err
	}
	// A commit may land between the caller's resolution and the plan's:
	// the plan is then of the newer snapshot (which the statement may
	// read), and kept for it.
	pp.snap = pp.base.Snapshot
	p.points.put(k, pp)
	return pp, nil
}

// read returns the rows of the point filter and on pp's snapshot.
func (pp *pointPlan) read(ctx context.Context, and lsmread.And) (*lsmread.Plan, *lsmread.Reader, error) {
	np, err := pp.base.Narrow(ctx, and)
	if err != nil {
		return nil, nil, err
	}
	pp.mu.Lock()
	r := pp.reader
	pp.mu.Unlock()
	if r != nil {
		r, err = r.ForPlan(np)
	} else if r, err = np.NewReader(); err == nil {
		pp.mu.Lock()
		pp.reader = r
		pp.mu.Unlock()
	}
	return np, r, err
}

// schemaVersion identifies a table schema (id and creation time).
func schemaVersion(sch *schema.TableSchema) string {
	return strconv.FormatInt(int64(sch.ID), 10) + "@" + strconv.FormatInt(sch.TimeMillis, 10)
}

// zoneText is the session time zone's text, as sessionZone reads it.
func zoneText(ctx *sql.Context) string {
	v, err := ctx.GetSessionVariable(ctx, "time_zone")
	if err != nil {
		return ""
	}
	s, _ := v.(string)
	return s
}
