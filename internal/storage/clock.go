package storage

import (
	"context"
	"sync"
	"time"

	"github.com/google/uuid"
)

// ClockProbePrefix starts the name of the object a Clock writes to read
// the store's time: "_lakesql/clock-probe-<uuid>", deleted at once.
const ClockProbePrefix = PrivateDir + "/clock-probe-"

// clockRecheck is how long a measured skew is trusted.
const clockRecheck = time.Minute

// Clock tells a store's present time: the modification time the store
// stamps on an object written now. Ages of objects (a drop's marker, a
// temporary file) are judged by the clock that stamped them: an object
// store's clock may differ from this host's by minutes, and an age
// judged by the local clock would then be off by as much.
type Clock struct {
	st  Storage
	now func() time.Time // the local clock (tests skew it)

	mu    sync.Mutex
	skew  time.Duration // store time − local time, as last measured
	at    time.Time     // local time of that measurement (zero: never)
	known bool          // a measurement succeeded
}

// NewClock returns the clock of the warehouse store st (its root: the
// probe goes to PrivateDir).
func NewClock(st Storage) *Clock { return &Clock{st: st, now: time.Now} }

// Now returns the store's present time: the local time plus the skew
// between the store's clock and the local one, measured with a probe
// object at most once a minute. A store that cannot tell (no modification
// times, read-only, a failed write) is taken to agree with the local
// clock until a probe succeeds.
func (c *Clock) Now(ctx context.Context) time.Time {
	local := c.now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.at.IsZero() || local.Sub(c.at) >= clockRecheck || local.Before(c.at) {
		if skew, ok := c.measure(ctx); ok {
			c.skew, c.known = skew, true
		}
		c.at = local
		local = c.now()
	}
	return local.Add(c.skew)
}

// Skew returns the last measured skew (store − local) and whether a
// measurement succeeded.
func (c *Clock) Skew() (time.Duration, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.skew, c.known
}

// measure writes a probe object, reads its modification time and deletes
// it: the store stamped it between the local times before and after the
// write, taken here as their middle.
func (c *Clock) measure(ctx context.Context) (time.Duration, bool) {
	stater, ok := c.st.(Stater)
	if !ok {
		return 0, false
	}
	p := ClockProbePrefix + uuid.NewString()
	before := c.now()
	if err := c.st.WriteAll(ctx, p, nil); err != nil {
		return 0, false
	}
	after := c.now()
	defer func() { _ = c.st.Delete(context.WithoutCancel(ctx), p) }()
	info, err := stater.Stat(ctx, p)
	if err != nil || info.ModTime.IsZero() {
		return 0, false
	}
	mid := before.Add(after.Sub(before) / 2)
	return info.ModTime.Sub(mid), true
}
