package snapshot_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/snapshot"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// TestTagAutoCreation follows Java's TagAutoCreation: the first snapshot is
// tagged with the period before it, later ones when they pass the next tag
// time (plus the delay); automatic-completion fills skipped periods one at
// a time; num-retained-max deletes the oldest automatic tags.
func TestTagAutoCreation(t *testing.T) {
	day := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	at := func(h, m int) time.Time { return day.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute) }
	max2 := 2
	for _, c := range []struct {
		name    string
		m       schema.MaintenanceOptions
		commits []time.Time
		want    string // the tags after each commit, "name@snapshot"; runs separated by " | "
	}{
		{"hourly", schema.MaintenanceOptions{TagAutomaticCreation: schema.TagCreationProcessTime, TagCreationPeriod: schema.TagPeriodHourly,
			TagPeriodFormatter: schema.TagFormatWithDashes},
			[]time.Time{at(10, 30), at(10, 50), at(11, 10), at(13, 20), at(13, 25)},
			"2026-03-01 09@1 | 2026-03-01 09@1 | 2026-03-01 09@1 2026-03-01 10@3 | 2026-03-01 09@1 2026-03-01 10@3 2026-03-01 12@4 | 2026-03-01 09@1 2026-03-01 10@3 2026-03-01 12@4"},
		{"completion", schema.MaintenanceOptions{TagAutomaticCreation: schema.TagCreationProcessTime, TagCreationPeriod: schema.TagPeriodHourly,
			TagPeriodFormatter: schema.TagFormatWithoutDashesAndSpaces, TagAutomaticCompletion: true},
			[]time.Time{at(10, 30), at(13, 20), at(13, 25), at(13, 30)},
			"2026030109@1 | 2026030109@1 2026030110@2 | 2026030109@1 2026030110@2 2026030111@3 | 2026030109@1 2026030110@2 2026030111@3 2026030112@4"},
		{"delay", schema.MaintenanceOptions{TagAutomaticCreation: schema.TagCreationProcessTime, TagCreationPeriod: schema.TagPeriodDaily,
			TagPeriodFormatter: schema.TagFormatWithDashes, TagCreationDelay: 2 * time.Hour},
			[]time.Time{at(5, 0), at(24+1, 0), at(24+3, 0)},
			"2026-02-28@1 | 2026-02-28@1 | 2026-02-28@1 2026-03-01@3"},
		{"retained", schema.MaintenanceOptions{TagAutomaticCreation: schema.TagCreationProcessTime, TagCreationPeriod: schema.TagPeriodDaily,
			TagPeriodFormatter: schema.TagFormatWithoutDashes, TagNumRetainedMax: &max2},
			[]time.Time{at(1, 0), at(24+1, 0), at(48+1, 0), at(72+1, 0)},
			"20260228@1 | 20260228@1 20260301@2 | 20260301@2 20260302@3 | 20260302@3 20260303@4"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			st, err := storage.Open(ctx, "mem://")
			if err != nil {
				t.Fatal(err)
			}
			newTestTable(t, st)
			tbl := snapshot.OpenTable(st, "")
			var auto snapshot.TagAutoCreation
			var runs []string
			for i, when := range c.commits {
				opts := testOptions()
				opts.Now = func() time.Time { return when }
				name := fmt.Sprintf("f%d", i)
				if _, err := snapshot.NewCommitter(st, opts).Commit(ctx, 0, &snapshot.CommitChanges{Kind: snapshot.CommitKindAppend,
					CommitUser: "u", CommitIdentifier: int64(i), Entries: []manifest.ManifestEntry{add(t, fileSpec{name: name, rows: 1, minKey: name, maxKey: name})}}); err != nil {
					t.Fatal(err)
				}
				if _, err := auto.Run(ctx, tbl, &c.m, when, time.UTC); err != nil {
					t.Fatal(err)
				}
				tags, err := tbl.Tags().All(ctx)
				if err != nil {
					t.Fatal(err)
				}
				var names []string
				for _, tg := range tags {
					names = append(names, fmt.Sprintf("%s@%d", tg.Name, tg.ID))
				}
				slices.Sort(names)
				runs = append(runs, strings.Join(names, " "))
			}
			if got := strings.Join(runs, " | "); got != c.want {
				t.Errorf("tags:\n got %s\nwant %s", got, c.want)
			}
		})
	}
}
