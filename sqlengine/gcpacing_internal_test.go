package sqlengine

import (
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestPacedPercent(t *testing.T) {
	const mb = 1 << 20
	for _, c := range []struct {
		base     int
		headroom int64
		live     uint64
		want     int
	}{
		{100, 128 * mb, 16 * mb, 800},
		{100, 128 * mb, 96 * mb, 134}, // 133.3 rounded up: the room is at least the headroom
		{100, 128 * mb, 128 * mb, 100},
		{100, 128 * mb, 1024 * mb, 100}, // a large live heap: Go's own pacing
		{300, 128 * mb, 64 * mb, 300},   // GOGC=300 asks for more already
		{-1, 128 * mb, 16 * mb, -1},     // GOGC=off stays off
		{100, 0, 16 * mb, 100},
		{100, 128 * mb, 0, 100},              // no figure: nothing changes
		{100, 128 * mb, 10, maxPacedPercent}, // bounded
	} {
		if got := pacedPercent(c.base, c.headroom, c.live); got != c.want {
			t.Errorf("pacedPercent(%d, %d, %d) = %d, want %d", c.base, c.headroom, c.live, got, c.want)
		}
	}
}

// currentGOGC reads the process's GOGC.
func currentGOGC() int {
	v := debug.SetGCPercent(100)
	debug.SetGCPercent(v)
	return v
}

// collectUntil runs collections until cond holds (the pacer's cleanup runs
// after a cycle, in another goroutine) or 10 s have passed.
func collectUntil(cond func() bool) bool {
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	return true
}

// TestGCPacerRaisesAndRestoresGOGC: with a headroom far above the test's
// live heap the pacer raises GOGC after the collections; the last user's
// stop gives 100 back, and collections after it change nothing (a cleanup
// armed before the stop, or by an earlier start, does not pace again).
func TestGCPacerRaisesAndRestoresGOGC(t *testing.T) {
	t.Setenv("GOGC", "")
	defer debug.SetGCPercent(100)
	var p pacer
	a, b := new(int), new(int)
	p.start(a, 1<<30)
	p.start(b, 1<<10) // below any live heap: GOGC's own 100
	if !collectUntil(func() bool { return currentGOGC() > 200 }) {
		t.Fatalf("GOGC %d after collections with a 1 GiB headroom", currentGOGC())
	}
	if got := currentGOGC(); got != p.gcPercent() {
		t.Fatalf("GOGC %d, the pacer says %d", got, p.gcPercent())
	}
	for range 3 { // cycles, each re-arming the next one's cleanup
		runtime.GC()
		time.Sleep(5 * time.Millisecond)
	}
	p.stop(a) // b still paces, with its smaller headroom
	if !collectUntil(func() bool { return currentGOGC() == 100 }) {
		t.Fatalf("GOGC %d after the larger headroom's user stopped", currentGOGC())
	}
	p.stop(b)
	if got := currentGOGC(); got != 100 {
		t.Fatalf("GOGC %d after the last stop, want 100", got)
	}
	p.start(a, 1<<30)
	p.stop(a)
	for range 5 {
		runtime.GC()
		time.Sleep(5 * time.Millisecond)
	}
	if got := currentGOGC(); got != 100 {
		t.Fatalf("GOGC %d after collections with no user, want 100", got)
	}
}

// TestGCPacerKeepsGOGCOff: a process started with GOGC=off is not paced.
func TestGCPacerKeepsGOGCOff(t *testing.T) {
	t.Setenv("GOGC", "off")
	defer debug.SetGCPercent(100)
	var p pacer
	u := new(int)
	p.start(u, 1<<30)
	defer p.stop(u)
	for range 3 {
		runtime.GC()
	}
	time.Sleep(10 * time.Millisecond)
	if got := currentGOGC(); got != 100 { // the test process's own setting, untouched
		t.Fatalf("GOGC %d, want the process's own 100", got)
	}
}
