package storage

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"gocloud.dev/blob"
	"gocloud.dev/blob/memblob"
)

// memBuckets holds every named in-memory bucket for the life of the
// process, so Open("mem://name") twice sees the same objects.
var memBuckets struct {
	mu      sync.Mutex
	buckets map[string]*blob.Bucket
	anon    int
}

// openMemURL opens "mem://name[/prefix]". "mem://" alone creates a fresh
// bucket with a unique generated name ("anon-N"), so its URL still reopens it.
func openMemURL(_ context.Context, location string) (Storage, error) {
	_, rest, _ := strings.Cut(location, "://")
	if strings.ContainsAny(rest, "?#") {
		return nil, fmt.Errorf("storage: open %s: mem URLs take no query or fragment", location)
	}
	name, prefix, _ := strings.Cut(rest, "/")
	prefix = strings.TrimSuffix(prefix, "/")
	if prefix != "" {
		if err := checkPath(prefix); err != nil {
			return nil, fmt.Errorf("storage: open %s: %w", location, err)
		}
	}
	memBuckets.mu.Lock()
	defer memBuckets.mu.Unlock()
	if memBuckets.buckets == nil {
		memBuckets.buckets = make(map[string]*blob.Bucket)
	}
	if name == "" {
		for name == "" || memBuckets.buckets[name] != nil {
			memBuckets.anon++
			name = "anon-" + strconv.Itoa(memBuckets.anon)
		}
	}
	b := memBuckets.buckets[name]
	if b == nil {
		b = memblob.OpenBucket(nil)
		memBuckets.buckets[name] = b
	}
	return &blobStorage{b: b, base: "mem://" + name, prefix: prefix}, nil
}
