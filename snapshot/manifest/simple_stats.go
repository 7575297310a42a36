package manifest

// SimpleStats mirrors org.apache.paimon.stats.SimpleStats: min/max rows and
// null counts of a set of columns (§4.5). Used for _KEY_STATS, _VALUE_STATS
// and _PARTITION_STATS.
type SimpleStats struct {
	// MinValues and MaxValues are serialized BinaryRows (nullable fields; a
	// column without a min/max is a null field).
	MinValues SerializedRow
	MaxValues SerializedRow
	// NullCounts has one entry per column; a nil element is an unknown count.
	// A nil slice is an Avro null (_NULL_COUNTS = null); a non-nil empty
	// slice is an empty array, as Java writes for zero columns.
	NullCounts []*int64
}

// EmptyStats returns the stats Java writes for zero columns
// (SimpleStats.EMPTY_STATS): two empty rows and an empty null-count array.
func EmptyStats() SimpleStats {
	return SimpleStats{
		MinValues:  append(SerializedRow(nil), EmptyRow...),
		MaxValues:  append(SerializedRow(nil), EmptyRow...),
		NullCounts: []*int64{},
	}
}
