package storage

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Opener opens a Storage for a location whose scheme it was registered
// under. It receives the location unchanged ("s3://bucket/prefix?region=x").
type Opener func(ctx context.Context, location string) (Storage, error)

var registry struct {
	mu      sync.RWMutex
	openers map[string]Opener
}

// Register makes an Opener available to Open under scheme (lower case,
// without "://"). Registering a scheme again replaces the previous Opener.
// The package registers "file", "mem" and "s3".
func Register(scheme string, open Opener) {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	if registry.openers == nil {
		registry.openers = make(map[string]Opener)
	}
	registry.openers[strings.ToLower(scheme)] = open
}

// Schemes lists the registered schemes, sorted.
func Schemes() []string {
	registry.mu.RLock()
	defer registry.mu.RUnlock()
	out := make([]string, 0, len(registry.openers))
	for s := range registry.openers {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

func init() {
	Register("file", openFileURL)
	Register("mem", openMemURL)
	Register("s3", openS3URL)
}

// Open opens the Storage rooted at location:
//
//   - a bare path ("./warehouse", "/abs/dir") or file:// URL ("file:///abs/dir")
//     is a local folder, created if missing;
//   - mem://name is an in-memory bucket shared by every Open of the same name
//     within the process (mem:// alone gets a fresh, uniquely named bucket);
//   - s3://bucket/prefix is S3 or an S3-compatible server; see the s3 query
//     parameters documented in the package doc.
//
// Any other scheme must have been registered with Register.
func Open(ctx context.Context, location string) (Storage, error) {
	scheme, _, ok := strings.Cut(location, "://")
	if !ok {
		return OpenLocal(location)
	}
	scheme = strings.ToLower(scheme)
	registry.mu.RLock()
	open := registry.openers[scheme]
	registry.mu.RUnlock()
	if open == nil {
		return nil, fmt.Errorf("%w: %q in %q (registered: %s)",
			ErrUnsupportedScheme, scheme, location, strings.Join(Schemes(), ", "))
	}
	return open(ctx, location)
}
