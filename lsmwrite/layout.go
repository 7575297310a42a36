package lsmwrite

import (
	"strconv"
	"strings"

	"github.com/lakesql/lakesql/snapshot"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// File and folder names of the write path (Java: DataFilePathFactory,
// FileStorePathFactory, paimon-format.md §1).
const (
	// Index files (HASH, deletion vectors) are named and placed by package
	// dv (dv.IndexDir, dv.IndexFileNamer).
	bucketDirPrefix = "bucket-"
	postponeDir     = "bucket-postpone"
)

// BucketDir is the name of a bucket's folder: bucket-<n>, or
// bucket-postpone (snapshot.BucketDir).
func BucketDir(b manifest.Bucket) string { return snapshot.BucketDir(b) }

// ParseBucketDir parses a bucket folder name.
func ParseBucketDir(s string) (manifest.Bucket, bool) {
	if s == postponeDir {
		return manifest.BucketPostpone, true
	}
	rest, ok := strings.CutPrefix(s, bucketDirPrefix)
	if !ok || rest == "" || (len(rest) > 1 && rest[0] == '0') || rest[0] == '+' || rest[0] == '-' {
		return 0, false
	}
	n, err := strconv.ParseInt(rest, 10, 32)
	if err != nil {
		return 0, false
	}
	return manifest.Bucket(n), true
}

// DataFileName is <prefix><uuid>-<n>.<format>, e.g. data-<uuid>-0.parquet
// (prefix data- or changelog-).
func DataFileName(prefix, uuid string, n int64, format string) string {
	return prefix + uuid + "-" + strconv.FormatInt(n, 10) + "." + format
}

// ParseDataFileName splits a data or changelog file name built by
// DataFileName with the given prefix.
func ParseDataFileName(prefix, name string) (uuid string, n int64, format string, ok bool) {
	rest, found := strings.CutPrefix(name, prefix)
	if !found {
		return "", 0, "", false
	}
	dot := strings.LastIndexByte(rest, '.')
	if dot < 0 {
		return "", 0, "", false
	}
	rest, format = rest[:dot], rest[dot+1:]
	dash := strings.LastIndexByte(rest, '-')
	if dash <= 0 || format == "" {
		return "", 0, "", false
	}
	n, err := strconv.ParseInt(rest[dash+1:], 10, 64)
	if err != nil || n < 0 || strconv.FormatInt(n, 10) != rest[dash+1:] {
		return "", 0, "", false
	}
	return rest[:dash], n, format, true
}

// dataFilePathFactory names the files of one (partition, bucket) writer: one
// random UUID per factory and one counter shared by data and changelog files
// (Java DataFilePathFactory).
type dataFilePathFactory struct {
	dir             string // partition path + bucket dir + "/"
	uuid            string
	next            int64
	dataPrefix      string
	changelogPrefix string
	format          string
}

func (f *dataFilePathFactory) newName(changelog bool) string {
	p := f.dataPrefix
	if changelog {
		p = f.changelogPrefix
	}
	n := f.next
	f.next++
	return DataFileName(p, f.uuid, n, f.format)
}
