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
