package snapshot_test

import (
	"context"
	"errors"
	"testing"

	"github.com/lakesql/lakesql/snapshot"
)

func TestConsumerCodec(t *testing.T) {
	c := &snapshot.Consumer{NextSnapshot: 12}
	data := snapshot.EncodeConsumer(c)
	if string(data) != "{\n  \"nextSnapshot\" : 12\n}" {
		t.Fatalf("encoded %q", data)
	}
	back, err := snapshot.DecodeConsumer([]byte(`{"nextSnapshot":12,"other":[1]}`))
	if err != nil || back.NextSnapshot != 12 {
		t.Fatalf("decoded %v %v", back, err)
	}
	for _, bad := range []string{`{}`, `{"nextSnapshot":"1"}`, `[1]`, ``, `{"nextSnapshot":1} 2`} {
		if _, err := snapshot.DecodeConsumer([]byte(bad)); !errors.Is(err, snapshot.ErrCorrupt) {
			t.Errorf("%q: %v", bad, err)
		}
	}
}

func TestConsumerManager(t *testing.T) {
	ctx := context.Background()
	st := openMem(t)
	cm := snapshot.NewConsumerManager(st, "")
	if _, ok, err := cm.MinNextSnapshot(ctx); ok || err != nil {
		t.Fatalf("empty: %v %v", ok, err)
	}
	for id, next := range map[string]snapshot.SnapshotID{"flink-job": 7, "spark": 4, "other": 9} {
		if err := st.WriteAll(ctx, snapshot.ConsumerPath("", id), snapshot.EncodeConsumer(&snapshot.Consumer{NextSnapshot: next})); err != nil {
			t.Fatal(err)
		}
	}
	cs, err := cm.List(ctx)
	if err != nil || len(cs) != 3 || cs[0].ID != "flink-job" || cs[0].NextSnapshot != 7 || cs[2].ID != "spark" {
		t.Fatalf("List = %+v %v", cs, err)
	}
	if min, ok, err := cm.MinNextSnapshot(ctx); !ok || err != nil || min != 4 {
		t.Errorf("min = %d %v %v", min, ok, err)
	}
	if _, err := cm.Consumer(ctx, "nope"); !errors.Is(err, snapshot.ErrConsumerNotFound) {
		t.Errorf("missing consumer: %v", err)
	}
	if err := st.WriteAll(ctx, snapshot.ConsumerPath("", "bad"), []byte(`{"nextSnapshot":`)); err != nil {
		t.Fatal(err)
	}
	if _, err := cm.List(ctx); !errors.Is(err, snapshot.ErrCorrupt) {
		t.Errorf("corrupt consumer in List: %v", err)
	}
	// Branch consumers live under the branch.
	if cs, err := snapshot.NewConsumerManager(st, "b").List(ctx); err != nil || len(cs) != 0 {
		t.Errorf("branch consumers: %v %v", cs, err)
	}
}

func FuzzDecodeConsumer(f *testing.F) {
	f.Add([]byte("{\n  \"nextSnapshot\" : 12\n}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := snapshot.DecodeConsumer(data)
		if err != nil {
			if !errors.Is(err, snapshot.ErrCorrupt) {
				t.Fatal(err)
			}
			return
		}
		back, err := snapshot.DecodeConsumer(snapshot.EncodeConsumer(c))
		if err != nil || back.NextSnapshot != c.NextSnapshot {
			t.Fatalf("round trip: %v %v", back, err)
		}
	})
}
