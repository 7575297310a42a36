package sqlengine_test

import (
	"runtime/debug"
	"testing"

	"github.com/lakesql/lakesql/sqlengine"
)

// TestMemoryLimitSetsGoSoftLimit: Config.MemoryLimit (the memory-limit
// setting) becomes the process's soft memory limit; 0 leaves it alone.
func TestMemoryLimitSetsGoSoftLimit(t *testing.T) {
	old := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(old) })
	startEmbedded(t, sqlengine.Config{MemoryLimit: 3 << 30})
	if got := debug.SetMemoryLimit(-1); got != 3<<30 {
		t.Fatalf("soft memory limit %d after a server with memory-limit 3 GiB", got)
	}
	debug.SetMemoryLimit(old)
	startEmbedded(t, sqlengine.Config{})
	if got := debug.SetMemoryLimit(-1); got != old {
		t.Fatalf("soft memory limit %d after a server without memory-limit, was %d", got, old)
	}
}
