package schema_test

import (
	"testing"
	"time"

	"github.com/lakesql/lakesql/internal/schema"
)

func TestCompactionPickerOptions(t *testing.T) {
	o := schema.Options{}
	if f, err := o.CompactionForceUpLevel0(); err != nil || f {
		t.Errorf("force-up-level-0 default = %v, %v; want false", f, err)
	}
	if _, ok, err := o.CompactionOptimizationInterval(); err != nil || ok {
		t.Errorf("optimization-interval unset: ok=%v err=%v", ok, err)
	}
	if _, ok, err := o.CompactionTotalSizeThreshold(); err != nil || ok {
		t.Errorf("total-size-threshold unset: ok=%v err=%v", ok, err)
	}
	if l, err := o.NeedLookup(); err != nil || l {
		t.Errorf("need lookup default = %v, %v", l, err)
	}

	o = schema.Options{
		schema.OptCompactionForceUpLevel0:            "true",
		schema.OptCompactionOptimizationInterval:     "30 min",
		schema.OptCompactionIncrementalSizeThreshold: "2 mb",
	}
	if f, err := o.CompactionForceUpLevel0(); err != nil || !f {
		t.Errorf("force-up-level-0 = %v, %v; want true", f, err)
	}
	if d, ok, err := o.CompactionOptimizationInterval(); err != nil || !ok || d != 30*time.Minute {
		t.Errorf("optimization-interval = %v %v %v; want 30m", d, ok, err)
	}
	if n, ok, err := o.CompactionIncrementalSizeThreshold(); err != nil || !ok || n != 2<<20 {
		t.Errorf("incremental-size-threshold = %v %v %v; want 2 MiB", n, ok, err)
	}

	for _, bad := range []schema.Options{
		{schema.OptCompactionForceUpLevel0: "maybe"},
		{schema.OptCompactionOptimizationInterval: "soon"},
		{schema.OptCompactionTotalSizeThreshold: "big"},
	} {
		_, err1 := bad.CompactionForceUpLevel0()
		_, _, err2 := bad.CompactionOptimizationInterval()
		_, _, err3 := bad.CompactionTotalSizeThreshold()
		if err1 == nil && err2 == nil && err3 == nil {
			t.Errorf("%v: no error", bad)
		}
	}

	if n, err := (schema.Options{}).LookupCompactMaxInterval(); err != nil || n != 10 {
		t.Errorf("lookup-compact.max-interval default = %d, %v; want 10", n, err)
	}
	if n, err := (schema.Options{schema.OptNumSortedRunCompactionTrigger: "3"}).LookupCompactMaxInterval(); err != nil || n != 6 {
		t.Errorf("lookup-compact.max-interval with trigger 3 = %d, %v; want 6", n, err)
	}
	if g, err := (schema.Options{schema.OptLookupCompact: "GENTLE"}).LookupCompactGentle(); err != nil || !g {
		t.Errorf("lookup-compact=GENTLE: %v, %v", g, err)
	}
	if _, _, _, ok, err := (schema.Options{}).CompactionOffPeak(); err != nil || ok {
		t.Errorf("off-peak default: ok=%v err=%v; want disabled", ok, err)
	}
	if s, e, r, ok, err := (schema.Options{schema.OptCompactionOffPeakStartHour: "22",
		schema.OptCompactionOffPeakEndHour: "2", schema.OptCompactionOffPeakRatio: "5"}).CompactionOffPeak(); err != nil || !ok || s != 22 || e != 2 || r != 5 {
		t.Errorf("off-peak = %d %d %d %v %v", s, e, r, ok, err)
	}

	for _, o := range []schema.Options{
		{schema.OptChangelogProducer: "lookup"},
		{schema.OptMergeEngine: "first-row"},
		{schema.OptDeletionVectorsEnabled: "true"},
		{schema.OptForceLookup: "true"},
	} {
		if l, err := o.NeedLookup(); err != nil || !l {
			t.Errorf("%v: need lookup = %v, %v; want true", o, l, err)
		}
	}
}
