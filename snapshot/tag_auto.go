package snapshot

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
)

// TagPeriod names and spaces automatic tags (Java: TagPeriodHandler): a
// tag per day, hour, two hours or tag.creation-period-duration, named by
// the start of its period in wall-clock time ("2026-01-31", "2026-01-31
// 13", "20260131", "202601311300", …).
type TagPeriod struct {
	period time.Duration
	layout string // Go layout of the tag name
	daily  bool   // daily tags parse the date before the first space
}

// NewTagPeriod is the period of the table's tag options.
func NewTagPeriod(m *schema.MaintenanceOptions) TagPeriod {
	if m.TagCreationPeriodDuration != nil {
		return TagPeriod{period: *m.TagCreationPeriodDuration, layout: "200601021504"}
	}
	switch m.TagCreationPeriod {
	case schema.TagPeriodHourly:
		switch m.TagPeriodFormatter {
		case schema.TagFormatWithoutDashes:
			return TagPeriod{period: time.Hour, layout: "20060102 15"}
		case schema.TagFormatWithoutDashesAndSpaces:
			return TagPeriod{period: time.Hour, layout: "2006010215"}
		}
		return TagPeriod{period: time.Hour, layout: "2006-01-02 15"}
	case schema.TagPeriodTwoHours:
		return TagPeriod{period: 2 * time.Hour, layout: "2006-01-02 15"}
	}
	if m.TagPeriodFormatter == schema.TagFormatWithDashes {
		return TagPeriod{period: 24 * time.Hour, layout: "2006-01-02", daily: true}
	}
	return TagPeriod{period: 24 * time.Hour, layout: "20060102", daily: true}
}

// Name is the tag of the period starting at wall-clock time t.
func (p TagPeriod) Name(t time.Time) string { return t.Format(p.layout) }

// Parse returns the period start an automatic tag name stands for; ok is
// false for other tags (Java: isAutoTag).
func (p TagPeriod) Parse(name string) (time.Time, bool) {
	s := name
	if p.daily {
		s, _, _ = cutSpace(s)
	}
	t, err := time.ParseInLocation(p.layout, s, time.UTC)
	if err != nil || t.Format(p.layout) != s {
		return time.Time{}, false
	}
	return t, true
}

func cutSpace(s string) (string, string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == ' ' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

// previous is the start of the period before the one holding t (Java:
// normalizeToPreviousTag, on wall-clock time held as UTC).
func (p TagPeriod) previous(t time.Time) time.Time {
	ms := t.UnixMilli()
	pm := p.period.Milliseconds()
	q := ms / pm
	if ms < 0 && ms%pm != 0 {
		q--
	}
	return time.UnixMilli(q * pm).UTC().Add(-p.period)
}

// TagAutoCreation creates the tags of tag.automatic-creation after commits
// (Java: TagAutoCreation) and keeps tag.num-retained-max of them. One value
// follows one branch of one table; it remembers the next snapshot to look
// at and the next tag time, and is safe for concurrent use.
type TagAutoCreation struct {
	mu           sync.Mutex
	inited       bool
	nextSnapshot SnapshotID
	nextTag      *time.Time
}

// Run tags the snapshots committed since the last run whose time (commit
// time for process-time, in sink.process-time-zone or loc; watermark for
// watermark, in sink.watermark-time-zone, UTC by default) passed the next
// tag time plus tag.creation-delay, as Java does, and deletes the oldest
// automatic tags beyond tag.num-retained-max. It returns the tags created.
func (a *TagAutoCreation) Run(ctx context.Context, t *Table, m *schema.MaintenanceOptions, now time.Time, loc *time.Location) ([]string, error) {
	if m.TagAutomaticCreation != schema.TagCreationProcessTime && m.TagAutomaticCreation != schema.TagCreationWatermark {
		return nil, nil
	}
	p := NewTagPeriod(m)
	if m.TagCreationDelay >= p.period {
		return nil, fmt.Errorf("%w: tag.creation-delay (%v) must be shorter than the tag period (%v)", ErrInvalidConfig, m.TagCreationDelay, p.period)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	latest, ok, err := t.snapshots.LatestID(ctx)
	if err != nil || !ok {
		return nil, err
	}
	if !a.inited || a.nextSnapshot > latest+1 {
		if err := a.init(ctx, t, p); err != nil {
			return nil, err
		}
	}
	var created []string
	for {
		s, err := t.snapshots.read(ctx, a.nextSnapshot)
		if isNotExist(err) {
			earliest, ok, err := t.snapshots.EarliestID(ctx)
			if err != nil {
				return created, err
			}
			if ok && earliest > a.nextSnapshot {
				a.nextSnapshot = earliest
				continue
			}
			break
		}
		if err != nil {
			return created, err
		}
		name, err := a.tryToCreate(ctx, t, m, p, s, now, loc)
		if err != nil {
			return created, err
		}
		if name != "" {
			created = append(created, name)
		}
		a.nextSnapshot++
	}
	return created, nil
}

// init derives the state from the existing automatic tags.
func (a *TagAutoCreation) init(ctx context.Context, t *Table, p TagPeriod) error {
	a.inited, a.nextTag = true, nil
	last, lastName, err := lastAutoTag(ctx, t, p)
	if err != nil {
		return err
	}
	if last == nil {
		earliest, ok, err := t.snapshots.EarliestID(ctx)
		if err != nil {
			return err
		}
		a.nextSnapshot = FirstSnapshotID
		if ok {
			a.nextSnapshot = earliest
		}
		return nil
	}
	a.nextSnapshot = last.ID + 1
	tt, _ := p.Parse(lastName)
	next := tt.Add(p.period)
	a.nextTag = &next
	return nil
}

// autoTags are the automatic tags of a branch, by snapshot id.
func autoTags(ctx context.Context, t *Table, p TagPeriod) ([]NamedTag, error) {
	all, err := t.tags.All(ctx)
	if err != nil {
		return nil, err
	}
	var out []NamedTag
	for _, tg := range all {
		if _, ok := p.Parse(tg.Name); ok {
			out = append(out, tg)
		}
	}
	sortTagsByID(out)
	return out, nil
}

func lastAutoTag(ctx context.Context, t *Table, p TagPeriod) (*Snapshot, string, error) {
	tags, err := autoTags(ctx, t, p)
	if err != nil || len(tags) == 0 {
		return nil, "", err
	}
	last := tags[len(tags)-1]
	return &last.Snapshot, last.Name, nil
}

func (a *TagAutoCreation) tryToCreate(ctx context.Context, t *Table, m *schema.MaintenanceOptions, p TagPeriod, s *Snapshot, now time.Time, loc *time.Location) (string, error) {
	var at time.Time
	switch m.TagAutomaticCreation {
	case schema.TagCreationProcessTime:
		zone := loc
		if m.SinkProcessTimeZone != nil {
			zone = m.SinkProcessTimeZone
		}
		at = LocalDateTime(time.UnixMilli(s.TimeMillis).In(zone))
	case schema.TagCreationWatermark:
		if s.Watermark == nil || *s.Watermark == -1<<63 {
			return "", nil
		}
		zone := time.UTC
		if m.SinkWatermarkTimeZone != nil {
			zone = m.SinkWatermarkTimeZone
		}
		at = LocalDateTime(time.UnixMilli(*s.Watermark).In(zone))
	}
	if a.nextTag != nil && at.Add(-m.TagCreationDelay).Before(a.nextTag.Add(p.period)) {
		return "", nil
	}
	this := p.previous(at)
	if m.TagAutomaticCompletion && a.nextTag != nil {
		this = *a.nextTag
	}
	name := p.Name(this)
	err := t.tags.Create(ctx, name, s, m.TagDefaultTimeRetained, now.In(loc))
	if err != nil && !errors.Is(err, ErrTagExists) {
		return "", err
	}
	next := this.Add(p.period)
	a.nextTag = &next
	if m.TagNumRetainedMax != nil {
		tags, err := autoTags(ctx, t, p)
		if err != nil {
			return name, err
		}
		for i := 0; i < len(tags)-*m.TagNumRetainedMax; i++ {
			if _, err := t.DeleteTag(ctx, tags[i].Name); err != nil && !errors.Is(err, ErrTagNotFound) {
				return name, err
			}
		}
	}
	if errors.Is(err, ErrTagExists) {
		return "", nil
	}
	return name, nil
}

// TagRetentions remembers, across calls of ExpireTags, the retention of
// each tag file by its name, size and modification time, so that a commit
// reads only the tags created since the last one (Java reads every tag at
// every commit). Safe for concurrent use.
type TagRetentions struct {
	mu   sync.Mutex
	tags map[string]tagRetention
}

type tagRetention struct {
	size    int64
	mod     time.Time
	expires *time.Time // nil: kept forever
}

// ExpireTags deletes the tags whose retention (tag.default-time-retained or
// the time_retained they were created with) has passed (Java:
// TagTimeExpire.expire). now is wall-clock time in the writer's zone; cache
// may be nil.
func (t *Table) ExpireTags(ctx context.Context, now time.Time, cache *TagRetentions) ([]string, error) {
	if cache == nil {
		cache = &TagRetentions{}
	}
	cache.mu.Lock()
	defer cache.mu.Unlock()
	if cache.tags == nil {
		cache.tags = map[string]tagRetention{}
	}
	type listed struct {
		name string
		info storage.ObjectInfo
	}
	var names []listed
	err := listNames(ctx, t.store, t.tags.dir, tagPrefix, func(name string, info storage.ObjectInfo) {
		if n, ok := ParseTagFileName(name); ok {
			names = append(names, listed{n, info})
		}
	})
	if err != nil {
		return nil, fmt.Errorf("snapshot: list tags of branch %s: %w", t.branch, err)
	}
	wall := LocalDateTime(now)
	seen := make(map[string]bool, len(names))
	var expired []string
	for _, l := range names {
		seen[l.name] = true
		r, ok := cache.tags[l.name]
		if !ok || r.size != l.info.Size || !r.mod.Equal(l.info.ModTime) {
			tg, err := t.tags.Get(ctx, l.name)
			if errors.Is(err, ErrTagNotFound) {
				continue
			}
			if err != nil {
				return expired, err
			}
			r = tagRetention{size: l.info.Size, mod: l.info.ModTime}
			if tg.TagCreateTime != nil && tg.TagTimeRetained != nil {
				e := tg.TagCreateTime.Add(*tg.TagTimeRetained)
				r.expires = &e
			}
			cache.tags[l.name] = r
		}
		if r.expires == nil || !wall.After(*r.expires) {
			continue
		}
		if _, err := t.DeleteTag(ctx, l.name); err != nil && !errors.Is(err, ErrTagNotFound) {
			return expired, err
		}
		delete(cache.tags, l.name)
		expired = append(expired, l.name)
	}
	for name := range cache.tags {
		if !seen[name] {
			delete(cache.tags, name)
		}
	}
	return expired, nil
}
