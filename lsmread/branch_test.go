package lsmread_test

import (
	"context"
	"testing"

	"github.com/lakesql/lakesql/internal/testutil"
	"github.com/lakesql/lakesql/lsmread"
	"github.com/lakesql/lakesql/snapshot"
)

// TestBranchMainKeepsExternalResolver: Table.Branch("main") returned a table
// without the external-path resolver, so data files recorded with an
// absolute _EXTERNAL_PATH could no longer be opened.
func TestBranchMainKeepsExternalResolver(t *testing.T) {
	ctx := context.Background()
	dir := testutil.FixtureTables(t)["pk_dv_index_in_data_with_external"]
	if dir == "" {
		t.Fatal("fixture pk_dv_index_in_data_with_external missing")
	}
	tbl := fixtureTable(t, dir)
	_, want := mustRead(t, tbl, lsmread.ScanSpec{})
	if len(want) == 0 {
		t.Fatal("fixture read no rows")
	}
	for _, name := range []string{"", snapshot.MainBranch} {
		bt, err := tbl.Branch(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		_, got := mustRead(t, bt, lsmread.ScanSpec{})
		sameMultiset(t, "Branch("+name+")", got, want)
	}
}
