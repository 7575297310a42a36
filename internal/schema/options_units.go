package schema

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// memoryUnits mirrors MemorySize.MemoryUnit (binary multiples).
var memoryUnits = []struct {
	labels []string
	mult   int64
}{
	{[]string{"b", "bytes"}, 1},
	{[]string{"k", "kb", "kibibytes"}, 1 << 10},
	{[]string{"m", "mb", "mebibytes"}, 1 << 20},
	{[]string{"g", "gb", "gibibytes"}, 1 << 30},
	{[]string{"t", "tb", "tebibytes"}, 1 << 40},
}

// ParseMemorySize parses Paimon's MemorySize syntax: a non-negative integer
// followed by an optional unit (b/bytes, k/kb/kibibytes, m/mb/mebibytes,
// g/gb/gibibytes, t/tb/tebibytes; case-insensitive; spaces allowed), e.g.
// "128 mb", "256MB", "1 gb", "2kb", "500 B", "1024". No unit means bytes.
func ParseMemorySize(s string) (int64, error) {
	num, unit, err := splitNumberUnit(s)
	if err != nil {
		return 0, err
	}
	mult := int64(-1)
	if unit == "" {
		mult = 1
	}
	for _, u := range memoryUnits {
		for _, l := range u.labels {
			if unit == l {
				mult = u.mult
			}
		}
	}
	if mult < 0 {
		return 0, fmt.Errorf("memory size unit %q does not match any of b, kb, mb, gb, tb", unit)
	}
	if num > math.MaxInt64/mult {
		return 0, fmt.Errorf("memory size %q overflows 64-bit bytes", s)
	}
	return num * mult, nil
}

func splitNumberUnit(s string) (int64, string, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, "", errors.New("empty value")
	}
	pos := 0
	for pos < len(t) && t[pos] >= '0' && t[pos] <= '9' {
		pos++
	}
	if pos == 0 {
		return 0, "", errors.New("does not start with a number")
	}
	n, err := strconv.ParseInt(t[:pos], 10, 64)
	if err != nil {
		return 0, "", fmt.Errorf("number %q does not fit 64 bits", t[:pos])
	}
	return n, strings.ToLower(strings.TrimSpace(t[pos:])), nil
}

// durationUnits mirrors TimeUtils.TimeUnit (plural labels add "s").
var durationUnits = []struct {
	labels []string
	unit   time.Duration
}{
	{[]string{"d", "day", "days"}, 24 * time.Hour},
	{[]string{"h", "hour", "hours"}, time.Hour},
	{[]string{"min", "m", "minute", "minutes"}, time.Minute},
	{[]string{"s", "sec", "secs", "second", "seconds"}, time.Second},
	{[]string{"ms", "milli", "millis", "millisecond", "milliseconds"}, time.Millisecond},
	{[]string{"µs", "micro", "micros", "microsecond", "microseconds"}, time.Microsecond},
	{[]string{"ns", "nano", "nanos", "nanosecond", "nanoseconds"}, time.Nanosecond},
}

// ParseDuration parses Paimon's duration syntax (TimeUtils.parseDuration): a
// non-negative integer and an optional unit (d/day(s), h/hour(s),
// min/m/minute(s), s/sec(s)/second(s), ms/milli(s)/millisecond(s),
// µs/micro(s)/microsecond(s), ns/nano(s)/nanosecond(s); case-insensitive,
// spaces allowed), e.g. "1 h", "30 min", "10 s", "1000 ms", "1d". No unit
// means milliseconds.
func ParseDuration(s string) (time.Duration, error) {
	num, unit, err := splitNumberUnit(s)
	if err != nil {
		return 0, err
	}
	mult := time.Duration(-1)
	if unit == "" {
		mult = time.Millisecond
	}
	for _, u := range durationUnits {
		for _, l := range u.labels {
			if unit == l {
				mult = u.unit
			}
		}
	}
	if mult < 0 {
		return 0, fmt.Errorf("time unit %q does not match any of d, h, min, s, ms, µs, ns", unit)
	}
	if num > int64(math.MaxInt64/mult) {
		return 0, fmt.Errorf("duration %q overflows", s)
	}
	return time.Duration(num) * mult, nil
}
