package schema

import "time"

// CastValueIn is CastValue with a session time zone, as Java casts under the
// session's local time zone: TIMESTAMP (a wall clock) and TIMESTAMP_LTZ (an
// instant) convert through loc, an instant turns into a DATE, TIME or string
// by its wall clock in loc, and a wall clock turns into epoch seconds as
// the instant it names in loc. A nil loc or UTC behaves as CastValue.
func CastValueIn(v any, from, to *DataType, loc *time.Location) (any, error) {
	if loc == nil || loc == time.UTC || v == nil {
		return CastValue(v, from, to)
	}
	fr, tr := from.Root, to.Root
	switch {
	case fr == TypeTimestamp && tr == TypeLocalZonedTimestamp,
		fr == TypeTimestamp && isNumeric(tr):
		ts, ok := v.(Timestamp)
		if !ok {
			return nil, wrongGoType(v, from)
		}
		inst := LocalZonedTimestampType(from.Precision)
		return CastValue(wallToInstant(ts, loc), &inst, to)
	case fr == TypeLocalZonedTimestamp && (tr == TypeTimestamp || tr == TypeDate || tr == TypeTime || isCharString(tr)):
		ts, ok := v.(Timestamp)
		if !ok {
			return nil, wrongGoType(v, from)
		}
		wall := TimestampType(from.Precision)
		return CastValue(instantToWall(ts, loc), &wall, to)
	case isNumeric(fr) && tr == TypeTimestamp:
		inst := LocalZonedTimestampType(to.Precision)
		out, err := CastValue(v, from, &inst)
		if err != nil || out == nil {
			return out, err
		}
		return CastValue(instantToWall(out.(Timestamp), loc), to, to)
	case (fr == TypeDate || isCharString(fr)) && tr == TypeLocalZonedTimestamp:
		wall := TimestampType(to.Precision)
		out, err := CastValue(v, from, &wall)
		if err != nil || out == nil {
			return out, err
		}
		return CastValue(wallToInstant(out.(Timestamp), loc), to, to)
	}
	return CastValue(v, from, to)
}

// wallToInstant reads a wall clock in loc as the instant it names.
func wallToInstant(ts Timestamp, loc *time.Location) Timestamp {
	w := ts.ToTime()
	y, mo, d := w.Date()
	h, mi, s := w.Clock()
	return TimestampFromTime(time.Date(y, mo, d, h, mi, s, w.Nanosecond(), loc))
}

// instantToWall is the wall clock of an instant in loc.
func instantToWall(ts Timestamp, loc *time.Location) Timestamp {
	return TimestampFromWallClock(ts.ToTime().In(loc))
}
