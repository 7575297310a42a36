package provider

import (
	"errors"
	"time"

	"github.com/lakesql/lakesql/lsmread"
	"github.com/lakesql/lakesql/snapshot"
)

// The provider keeps one long-lived lsmread.Table (over a snapshot.Table
// handle) per table for the life of the server, so a statement resolves a
// table without listing the warehouse (the catalog's name cache) and
// without rebuilding its managers: the schema manager keeps its decoded
// schemas and checks the latest schema id with two existence checks, the
// snapshot manager finds the latest snapshot through the LATEST hint, and
// manifests come from the process-wide cache. A handle holds no snapshot
// state, so new snapshots need no invalidation; DDL through this server
// drops the handles of the tables it touches, and a handle is reopened
// after handleTTL, bounding how long a table dropped and re-created under
// the same name by another process could be seen through stale schemas.
type handle struct {
	lt     *lsmread.Table
	opened time.Time
}

// handleTTL bounds the life of a handle.
const handleTTL = time.Minute

func handleKey(db, table string) string { return db + "\x00" + table }

// tableHandle returns the handle of table db.table (stored spellings).
func (p *Provider) tableHandle(db, table string) *lsmread.Table {
	key := handleKey(db, table)
	now := time.Now()
	p.handles.RLock()
	h, ok := p.handles.m[key]
	p.handles.RUnlock()
	if ok && now.Sub(h.opened) < handleTTL {
		return h.lt
	}
	p.handles.Lock()
	defer p.handles.Unlock()
	if h, ok := p.handles.m[key]; ok && now.Sub(h.opened) < handleTTL {
		return h.lt
	}
	h = &handle{lt: lsmread.OpenTable(p.cat.TableStorage(db, table), ""), opened: now}
	p.handles.m[key] = h
	return h.lt
}

// forgetHandles drops every handle (after DDL through this server, which
// is rare: the next statements reopen what they use).
func (p *Provider) forgetHandles() {
	p.handles.Lock()
	defer p.handles.Unlock()
	clear(p.handles.m)
}

// goneTable reports whether err says a resolved table has no schema: it was
// dropped (by another process) after the name cache listed it. The cached
// names and handle are dropped so the next resolution lists again.
func (p *Provider) goneTable(err error) bool {
	if !errors.Is(err, snapshot.ErrSchemaNotFound) {
		return false
	}
	p.cat.Forget()
	p.forgetHandles()
	return true
}

// ForgetTables drops the cached names and handles, so the next statements
// resolve every table afresh (a table was found dropped by another
// server while a statement ran).
func (p *Provider) ForgetTables() {
	p.cat.Forget()
	p.forgetHandles()
}
