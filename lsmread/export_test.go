package lsmread

// SetLookupFraction sets the rows-per-key ratio below which a split is read
// by lookups (0 reads every pinned split by lookups) and returns a function
// restoring it.
func SetLookupFraction(n int64) func() {
	old := lookupFraction
	lookupFraction = n
	return func() { lookupFraction = old }
}
