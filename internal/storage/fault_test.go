package storage_test

import (
	"context"
	"errors"
	"testing"

	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/internal/storage/storagetest"
)

// A faulty wrapper without faults is a conforming Storage.
func TestFaultyConformance(t *testing.T) {
	t.Run("file", func(t *testing.T) {
		storagetest.Run(t, func(t *testing.T) storage.Storage {
			return storage.NewFaulty(open(t, t.TempDir()), &storage.Injector{})
		})
	})
	t.Run("mem", func(t *testing.T) {
		storagetest.Run(t, func(t *testing.T) storage.Storage {
			return storage.NewFaulty(open(t, "mem://"), &storage.Injector{})
		})
	})
}

// Each fault does what it says to the n-th write, and a crash fails every
// later operation.
func TestFaultyFaults(t *testing.T) {
	ctx := context.Background()
	writes := func(op storage.Op) bool { return op.Kind.IsWrite() }
	for _, tc := range []struct {
		fault     storage.Fault
		published bool // the second write happened
		crashed   bool
	}{
		{storage.FailBefore, false, false},
		{storage.FailAfter, true, false},
		{storage.CrashBefore, false, true},
		{storage.CrashAfter, true, true},
	} {
		for _, kind := range []string{"WriteAll", "Create", "CreateIfNotExists"} {
			base := open(t, "mem://")
			var seen int
			in := &storage.Injector{Decide: func(op storage.Op) storage.Fault {
				if !writes(op) {
					return storage.NoFault
				}
				seen++
				if seen == 2 {
					return tc.fault
				}
				return storage.NoFault
			}}
			st := storage.NewFaulty(base, in).Sub("d")
			if err := st.WriteAll(ctx, "a", []byte("1")); err != nil {
				t.Fatal(err)
			}
			var err error
			switch kind {
			case "WriteAll":
				err = st.WriteAll(ctx, "b", []byte("2"))
			case "CreateIfNotExists":
				err = st.CreateIfNotExists(ctx, "b", []byte("2"))
			case "Create":
				w, cerr := st.Create(ctx, "b")
				if cerr != nil {
					t.Fatal(cerr)
				}
				if _, cerr := w.Write([]byte("2")); cerr != nil {
					t.Fatal(cerr)
				}
				err = w.Close()
			}
			if !errors.Is(err, storage.ErrInjected) {
				t.Fatalf("%v %s: err = %v, want injected", tc.fault, kind, err)
			}
			if ok, _ := base.Exists(ctx, "d/b"); ok != tc.published {
				t.Errorf("%v %s: published = %v, want %v", tc.fault, kind, ok, tc.published)
			}
			_, rerr := st.ReadAll(ctx, "a")
			if crashed := errors.Is(rerr, storage.ErrInjected); crashed != tc.crashed || in.Crashed() != tc.crashed {
				t.Errorf("%v %s: later read err %v, crashed %v; want crashed %v", tc.fault, kind, rerr, in.Crashed(), tc.crashed)
			}
			if ops, w := in.Ops(); w != 2 || ops < 2 {
				t.Errorf("%v %s: ops %d writes %d", tc.fault, kind, ops, w)
			}
		}
	}
}
