package lsmread

// SetLookupFraction sets the rows-per-key ratio below which a split is read
// by lookups (0 reads every pinned split by lookups) and returns a function
// restoring it.
func SetLookupFraction(n int64) func() {
	old := lookupFraction
	lookupFraction = n
	return func() { lookupFraction = old }
}

// SetReadRawSplits turns reading the buckets and sections that need no
// merge as they are on or off and returns a function restoring it.
func SetReadRawSplits(on bool) func() {
	old := readRawSplits
	readRawSplits = on
	return func() { readRawSplits = old }
}

// RawSectionsRead is how many sections of merged splits were read as they
// are so far.
func RawSectionsRead() int64 { return rawSectionsRead.Load() }

// NewestFirstStops is how many one-key lookups stopped before the last
// file of their split so far.
func NewestFirstStops() int64 { return newestFirstStops.Load() }

// SetReadColumnMerge turns merging sections over column batches on or off
// (off: every section is merged row by row) and returns a function
// restoring it.
func SetReadColumnMerge(on bool) func() {
	old := readColumnMerge
	readColumnMerge = on
	return func() { readColumnMerge = old }
}

// SetReadStretch turns the column merge's stretches (records alone with
// their key placed without the heap) on or off and returns a function
// restoring it.
func SetReadStretch(on bool) func() {
	old := readStretch
	readStretch = on
	return func() { readStretch = old }
}

// StretchedRecords is how many records the column merge placed in
// stretches so far.
func StretchedRecords() int64 { return stretchedRecords.Load() }

// ColumnMergedSections is how many sections were merged over column
// batches so far.
func ColumnMergedSections() int64 { return columnMergedSections.Load() }

// FilesAggregatedFromStats is how many data files' aggregates came from
// their statistics.
func FilesAggregatedFromStats() int64 { return filesAggregatedFromStats.Load() }

// SetNarrowByPartition turns Narrow's binary search of the pinned keys'
// partitions on or off (off: every split is looked at) and returns a
// function restoring it.
func SetNarrowByPartition(on bool) func() {
	old := narrowByPartition
	narrowByPartition = on
	return func() { narrowByPartition = old }
}

// SetReadIntMerge turns the column merge's heap of integer keys
// (mergeInts) on or off (off: keys of one integer column go through the
// general heap too) and returns a function restoring it.
func SetReadIntMerge(on bool) func() {
	old := readIntMerge
	readIntMerge = on
	return func() { readIntMerge = old }
}

// IntMergedSections is how many sections mergeInts merged so far.
func IntMergedSections() int64 { return intMergedSections.Load() }
