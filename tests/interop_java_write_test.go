package tests

import (
	"fmt"
	"testing"
)

// interopJavaConfigs are the configurations of the Java-written histories
// (see Writer.java for the keys): every merge engine, sequence.field,
// partial-update sequence groups, aggregation functions, fixed and dynamic
// buckets, partitions, 32- and 64-bit deletion vectors, every changelog
// producer, Java's own compaction (triggered and explicit full
// compactions), ADD COLUMN between commits, tags, snapshot expiration, and
// append tables (unaware and fixed bucket, batch and stream writes).
var interopJavaConfigs = []string{
	"engine=deduplicate,bucket=1",
	"engine=deduplicate,bucket=2,partitioned=1",
	"engine=deduplicate,bucket=3,seq=1",
	"engine=deduplicate,bucket=-1",
	"engine=deduplicate,bucket=-1,partitioned=1,compact=1",
	"engine=deduplicate,bucket=2,dv=32",
	"engine=deduplicate,bucket=2,dv=64,partitioned=1,compact=1",
	"engine=deduplicate,bucket=-1,dv=64,evolve=1",
	"engine=deduplicate,bucket=2,changelog=input",
	"engine=deduplicate,bucket=2,changelog=lookup,partitioned=1",
	"engine=deduplicate,bucket=1,changelog=full-compaction,opt.full-compaction.delta-commits=2",
	"engine=deduplicate,bucket=2,compact=1,tags=1",
	"engine=deduplicate,bucket=2,expire=1,commits=8",
	"engine=deduplicate,bucket=2,seq=1,evolve=1,compact=1,partitioned=1",
	"engine=deduplicate,bucket=1,trigger=2,commits=10,rows=30,keys=40",
	"engine=partial-update,bucket=1",
	"engine=partial-update,bucket=2,seqgroup=1",
	"engine=partial-update,bucket=2,partitioned=1,compact=1",
	"engine=partial-update,bucket=2,dv=32",
	"engine=partial-update,bucket=2,changelog=lookup,seqgroup=1",
	"engine=partial-update,bucket=-1,evolve=1",
	"engine=aggregation,bucket=1",
	"engine=aggregation,bucket=2,listagg=1,partitioned=1",
	"engine=aggregation,bucket=2,dv=64,compact=1",
	"engine=aggregation,bucket=-1,changelog=lookup",
	"engine=aggregation,bucket=2,evolve=1,tags=1",
	"engine=first-row,bucket=1",
	"engine=first-row,bucket=2,partitioned=1,compact=1",
	"engine=first-row,bucket=-1,changelog=lookup",
	"pk=0,bucket=-1",
	"pk=0,bucket=-1,partitioned=1,evolve=1,tags=1",
	"pk=0,bucket=2",
	"pk=0,bucket=2,partitioned=1,compact=1",
	"pk=0,bucket=-1,batch=1",
	"engine=deduplicate,bucket=3,batch=1,partitioned=1",
	"pk=0,bucket=-1,expire=1,commits=7",
}

// TestInteropJavaWritesLakesqlReads: Java Paimon writes a seeded random
// history per configuration (one JVM for all of them) and reads every
// surviving snapshot and tag with its own ReadBuilder; lakesql reads each of
// them through the MySQL protocol (AS OF) and through lsmread, and must
// return the same rows and plan the same files; Java's $audit_log of each
// snapshot's changes and of the whole range (incremental-between: the
// changelog files of the input, lookup and full-compaction producers, the
// delta otherwise) must equal lakesql's `t$audit_log` FOR VERSION BETWEEN.
func TestInteropJavaWritesLakesqlReads(t *testing.T) {
	wh := t.TempDir()
	var script []string
	for i, cfg := range interopJavaConfigs {
		script = append(script, fmt.Sprintf("write --warehouse %s --table jw.t%02d --seed %d --config %s", wh, i, 1000+i, cfg))
		// Java's $audit_log of every snapshot's changes and of the whole range.
		script = append(script, fmt.Sprintf("read --warehouse %s --table jw.t%02d --changes", wh, i))
	}
	lines := runHarness(t, script)
	ws := startWriteServer(t, wh)
	db := ws.open(t, "jw")
	var st interopStats
	for i, cfg := range interopJavaConfigs {
		table := fmt.Sprintf("jw.t%02d", i)
		t.Run(fmt.Sprintf("t%02d", i), func(t *testing.T) {
			t.Logf("config %s", cfg)
			compareReads(t, db, wh, reads(lines, table), &st)
			var changes []javaRead
			for _, l := range lines {
				if l.Op == "changes" && l.Table == table {
					changes = append(changes, l)
				}
			}
			if len(changes) == 0 {
				t.Errorf("no Java $audit_log ranges for %s", table)
			}
			compareChanges(t, db, changes, &st)
		})
	}
	t.Logf("Java → lakesql: %d configurations, %d tables, %d snapshots/tags compared, %d $audit_log ranges (%d rows) compared, %d mismatched",
		len(interopJavaConfigs), st.tables, st.snapshots, st.ranges, st.changes, st.mismatches)
}
