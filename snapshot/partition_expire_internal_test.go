package snapshot

import (
	"testing"
	"time"

	"github.com/lakesql/lakesql/internal/schema"
)

func TestPartitionTimeExtractor(t *testing.T) {
	str := func(s string) *string { return &s }
	for _, c := range []struct {
		pattern, formatter *string
		keys, values       []string
		want               string // "" = no time
	}{
		{nil, nil, []string{"dt"}, []string{"2026-01-31"}, "2026-01-31 00:00:00"},
		{nil, nil, []string{"dt"}, []string{"2026-1-3 4:05:06.5"}, "2026-01-03 04:05:06.5"},
		{nil, nil, []string{"dt"}, []string{"2026-02-30"}, "2026-03-02 00:00:00"}, // lenient, as Java's default
		{nil, nil, []string{"dt"}, []string{"20260131"}, ""},
		{nil, str("yyyyMMdd"), []string{"dt"}, []string{"20260131"}, "2026-01-31 00:00:00"},
		{nil, str("yyyyMMdd"), []string{"dt"}, []string{"20260231"}, ""}, // strict date
		{str("$dt $hr:00:00"), nil, []string{"dt", "hr"}, []string{"2026-01-31", "13"}, "2026-01-31 13:00:00"},
		{str("$dt $hr"), str("yyyyMMdd HH"), []string{"dt", "hr"}, []string{"20260131", "07"}, "2026-01-31 07:00:00"},
		{nil, str("yyyy-MM-dd'T'HH"), []string{"dt"}, []string{"2026-01-31T23"}, "2026-01-31 23:00:00"},
		{nil, str("yyyy/M/d"), []string{"dt"}, []string{"2026/1/31"}, "2026-01-31 00:00:00"},
		{nil, str("yyyyMMdd"), []string{"dt"}, []string{"2026013"}, ""},
		{nil, str("yyyyMMdd"), []string{"dt"}, []string{"202601311"}, ""},
	} {
		ex, err := partitionTimeExtractor(c.pattern, c.formatter)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ex(c.keys, c.values)
		switch {
		case c.want == "" && err == nil:
			t.Errorf("%v: got %v, want no time", c.values, got)
		case c.want != "" && err != nil:
			t.Errorf("%v: %v", c.values, err)
		case c.want != "" && got.Format("2006-01-02 15:04:05.999999999") != c.want:
			t.Errorf("%v: got %v, want %s", c.values, got, c.want)
		}
	}
	if _, err := partitionTimeExtractor(nil, func() *string { s := "yyyy EEE"; return &s }()); err == nil {
		t.Error("an unsupported pattern letter is accepted")
	}
}

func FuzzPartitionTime(f *testing.F) {
	f.Add("yyyyMMdd HH", "20260131 07")
	f.Add("", "2026-01-31 01:02:03.123")
	f.Add("yyyy-M-d", "2026-1-1")
	f.Fuzz(func(t *testing.T, formatter, value string) {
		var fp *string
		if formatter != "" {
			fp = &formatter
		}
		ex, err := partitionTimeExtractor(nil, fp)
		if err != nil {
			return
		}
		_, _ = ex([]string{"dt"}, []string{value}) // must not panic
	})
}

func TestTagPeriod(t *testing.T) {
	at := time.Date(2026, 3, 1, 13, 45, 0, 0, time.UTC)
	for _, c := range []struct {
		m          schema.MaintenanceOptions
		name, prev string
	}{
		{schema.MaintenanceOptions{TagCreationPeriod: schema.TagPeriodDaily, TagPeriodFormatter: schema.TagFormatWithDashes}, "2026-03-01", "2026-02-28"},
		{schema.MaintenanceOptions{TagCreationPeriod: schema.TagPeriodDaily, TagPeriodFormatter: schema.TagFormatWithoutDashes}, "20260301", "20260228"},
		{schema.MaintenanceOptions{TagCreationPeriod: schema.TagPeriodHourly, TagPeriodFormatter: schema.TagFormatWithDashes}, "2026-03-01 13", "2026-03-01 12"},
		{schema.MaintenanceOptions{TagCreationPeriod: schema.TagPeriodHourly, TagPeriodFormatter: schema.TagFormatWithoutDashesAndSpaces}, "2026030113", "2026030112"},
		{schema.MaintenanceOptions{TagCreationPeriod: schema.TagPeriodTwoHours}, "2026-03-01 13", "2026-03-01 10"},
	} {
		p := NewTagPeriod(&c.m)
		if got := p.Name(at); got != c.name {
			t.Errorf("%+v: name %s, want %s", c.m, got, c.name)
		}
		if got := p.Name(p.previous(at)); got != c.prev {
			t.Errorf("%+v: previous %s, want %s", c.m, got, c.prev)
		}
		if _, ok := p.Parse(c.name); !ok {
			t.Errorf("%+v: %s is not an auto tag", c.m, c.name)
		}
		if _, ok := p.Parse("release-1"); ok {
			t.Errorf("%+v: release-1 is an auto tag", c.m)
		}
	}
}
