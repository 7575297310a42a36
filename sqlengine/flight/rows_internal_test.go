package flight

import (
	"fmt"
	"testing"
)

func TestParseTime(t *testing.T) {
	for in, want := range map[string]int64{"00:00:00": 0, "01:02:03": 3723e6, "-838:59:59.000000": -(838*3600 + 59*60 + 59) * 1e6,
		"12:00:00.5": 43200e6 + 500000, "23:59:59.999999": 86399999999} {
		if got, err := parseTime(in); err != nil || got != want {
			t.Errorf("parseTime(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "1:2", "a:b:c", "01:02:03.x"} {
		if _, err := parseTime(in); err == nil {
			t.Errorf("parseTime(%q) accepted", in)
		}
	}
}

// FuzzParseTime: MySQL TIME text either fails or reads back from the text
// it formats to.
func FuzzParseTime(f *testing.F) {
	for _, s := range []string{"00:00:00", "-12:34:56.789", "838:59:59", "1:2:3.1234567"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		us, err := parseTime(s)
		if err != nil {
			return
		}
		neg := us < 0
		if neg {
			us = -us
		}
		text := fmt.Sprintf("%02d:%02d:%02d.%06d", us/3600e6, us/60e6%60, us/1e6%60, us%1e6)
		if neg {
			text = "-" + text
		}
		back, err := parseTime(text)
		if err != nil || (back != us && back != -us) {
			t.Fatalf("parseTime(%q) = %d; %q reads back as %d, %v", s, us, text, back, err)
		}
	})
}
