package lsmwrite_test

import (
	"testing"

	"github.com/google/uuid"

	"github.com/lakesql/lakesql/internal/dv"
	"github.com/lakesql/lakesql/lsmwrite"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

func TestLayoutRoundTrip(t *testing.T) {
	for _, b := range []manifest.Bucket{0, 1, 17, 2147483647, manifest.BucketPostpone} {
		got, ok := lsmwrite.ParseBucketDir(lsmwrite.BucketDir(b))
		if !ok || got != b {
			t.Errorf("bucket %d: %q parses to %d, %v", b, lsmwrite.BucketDir(b), got, ok)
		}
	}
	for _, bad := range []string{"bucket-", "bucket-01", "bucket--1", "bucket-x", "bucket-99999999999", "data-0"} {
		if _, ok := lsmwrite.ParseBucketDir(bad); ok {
			t.Errorf("%q parsed as a bucket dir", bad)
		}
	}
	const u = "cf759363-12eb-4f9f-9549-965e455e8084"
	name := lsmwrite.DataFileName("data-", u, 7, "parquet")
	if name != "data-"+u+"-7.parquet" {
		t.Fatalf("name %q", name)
	}
	gu, n, f, ok := lsmwrite.ParseDataFileName("data-", name)
	if !ok || gu != u || n != 7 || f != "parquet" {
		t.Errorf("parse %q: %q %d %q %v", name, gu, n, f, ok)
	}
	if _, _, _, ok := lsmwrite.ParseDataFileName("changelog-", name); ok {
		t.Errorf("data file parsed as changelog file")
	}
	for _, bad := range []string{"data-x.parquet", "data-u-01.parquet", "data-u-1", "data--1.parquet"} {
		if _, _, _, ok := lsmwrite.ParseDataFileName("data-", bad); ok {
			t.Errorf("%q parsed", bad)
		}
	}
	// Index files are named by package dv (the one namer).
	iname := dv.IndexFileName(uuid.MustParse(u), 3)
	if iname != "index-"+u+"-3" {
		t.Fatalf("index name %q", iname)
	}
	if gu, n, err := dv.ParseIndexFileName(iname); err != nil || gu.String() != u || n != 3 {
		t.Errorf("parse %q: %q %d %v", iname, gu, n, err)
	}
	if _, _, err := dv.ParseIndexFileName("index-manifest"); err == nil {
		t.Errorf("index-manifest parsed as an index file")
	}
}
