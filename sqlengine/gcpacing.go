package sqlengine

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
)

// GC pacing. Go's collector starts a cycle when the heap has grown by
// GOGC percent (100) over what the previous cycle found live. A server
// whose live heap is small (tens of MB: table metadata, lookup indexes,
// sessions) and that answers many short statements (a point query
// allocates a few KB) collects many times a second: at 16 MB live and
// ~10,000 point queries/s, five cycles a second, each taking one of the
// GOMAXPROCS processors for its ~10 ms of marking and slowing the
// statements that allocate meanwhile (mark assists). On two cores those
// cycles were where a quarter of the slowest 1% of point queries ran.
//
// The pacer keeps the room the heap may grow before the next cycle at
// least DefaultGCHeadroom (Config.GCHeadroom): after each cycle it sets
// GOGC to max(base, 100 × headroom / live), base being the process's GOGC
// (100 unless the GOGC variable says otherwise). With a live heap above
// the headroom nothing changes; below it, the heap holds at most
// live + headroom, and collections happen headroom / allocation rate
// apart. A process started with GOGC=off keeps it off, and a memory limit
// (GOMEMLIMIT) still makes the collector run before the limit is reached.
//
// The pacer is process-wide: servers of one process share it; it runs
// while one of them does, with the largest headroom any asks for, and
// gives GOGC back to base when the last one closes.

// DefaultGCHeadroom is Config.GCHeadroom's default.
const DefaultGCHeadroom = 128 << 20

// gcPacer is the process's pacer.
var gcPacer pacer

type pacer struct {
	mu struct {
		sync.Mutex
		users   map[any]int64 // who asked, with their headroom
		running bool          // pacing: each collection's cleanup re-arms
		gen     uint64        // the current run of pacing (a cleanup armed by an earlier run ends)
		percent int           // the GOGC last set (base when not pacing)
	}
}

// gcBase is the GOGC the process started with: 100, or the GOGC
// environment variable's percentage; -1 for off.
func gcBase() int {
	v := strings.TrimSpace(os.Getenv("GOGC"))
	if v == "" {
		return 100
	}
	if strings.EqualFold(v, "off") {
		return -1
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 100 // the runtime ignores a malformed GOGC too
	}
	return n
}

// start paces the collector for user with the given headroom (bytes; 0
// or less: user asks for none).
func (p *pacer) start(user any, headroom int64) {
	if headroom <= 0 || gcBase() < 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.mu.users == nil {
		p.mu.users = map[any]int64{}
	}
	p.mu.users[user] = headroom
	if !p.mu.running {
		p.mu.running = true
		p.mu.gen++
		p.mu.percent = gcBase()
		p.armLocked()
	}
	p.paceLocked()
}

// stop ends user's pacing; the last user's stop gives GOGC back.
func (p *pacer) stop(user any) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.mu.users[user]; !ok {
		return
	}
	delete(p.mu.users, user)
	if len(p.mu.users) == 0 {
		// The armed cleanup finds no user and does not re-arm.
		p.mu.running = false
		if base := gcBase(); p.mu.percent != base {
			debug.SetGCPercent(base)
			p.mu.percent = base
		}
	}
}

// gcTick is the object whose cleanup runs once per collection: it is
// unreachable as soon as it is made, so the next cycle finds it. It holds
// a pointer so that it is not one of the tiny allocations the runtime
// batches (whose cleanups may run late).
type gcTick struct{ _ *int }

// armLocked registers the cleanup that runs after the next collection.
func (p *pacer) armLocked() {
	gen := p.mu.gen
	runtime.AddCleanup(&gcTick{}, p.tick, gen)
}

// tick runs after each collection (in the runtime's cleanup goroutine).
func (p *pacer) tick(gen uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.mu.running || gen != p.mu.gen {
		return
	}
	p.paceLocked()
	p.armLocked()
}

// liveSample reads the heap the last collection found live.
var liveSample = []metrics.Sample{{Name: "/gc/heap/live:bytes"}}

// paceLocked sets GOGC for the live heap the last cycle found.
func (p *pacer) paceLocked() {
	var headroom int64
	for _, h := range p.mu.users {
		headroom = max(headroom, h)
	}
	metrics.Read(liveSample)
	var live uint64
	if liveSample[0].Value.Kind() == metrics.KindUint64 {
		live = liveSample[0].Value.Uint64()
	}
	want := pacedPercent(gcBase(), headroom, live)
	// Small changes are not worth the pacer's recomputation.
	if cur := p.mu.percent; want != cur && (want > cur*21/20 || want < cur*19/20) {
		debug.SetGCPercent(want)
		p.mu.percent = want
	}
}

// maxPacedPercent bounds GOGC when the live heap is tiny.
const maxPacedPercent = 100_000

// pacedPercent is the GOGC that gives a heap of live bytes at least
// headroom bytes of growth before the next cycle, and never less than
// base's.
func pacedPercent(base int, headroom int64, live uint64) int {
	if base < 0 || headroom <= 0 || live == 0 {
		return base
	}
	want := (uint64(headroom)*100 + live - 1) / live
	if want > maxPacedPercent {
		want = maxPacedPercent
	}
	return max(base, int(want))
}

// gcPercent is the GOGC the pacer last set (tests).
func (p *pacer) gcPercent() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.mu.percent
}
