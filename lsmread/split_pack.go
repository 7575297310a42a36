package lsmread

// packSplits cuts each split whose files are read as they are (ReadRaw:
// append tables, primary-key buckets that need no merge, deletion-vector
// and first-row tables) into splits of about target bytes, so that one big
// bucket is read by several workers. Files keep their order; each weighs
// max(file size, openFileCost), and a split is closed when the next file
// would take it past target (Java's BinPacking.packForOrdered, as
// AppendOnlySplitGenerator and MergeTreeSplitGenerator use it for
// raw-convertible files). Splits that merge stay whole: a merge needs every
// file of its overlapping key ranges.
func packSplits(splits []*DataSplit, target, openFileCost int64) []*DataSplit {
	var out []*DataSplit
	for i, s := range splits {
		if s.Mode != ReadRaw || len(s.Files) < 2 {
			if out != nil {
				out = append(out, s)
			}
			continue
		}
		var packed []*DataSplit
		start, weight := 0, int64(0)
		for j := range s.Files {
			w := max(s.Files[j].FileSize, openFileCost)
			if j > start && weight+w > target {
				packed = append(packed, s.slice(start, j))
				start, weight = j, 0
			}
			weight += w
		}
		if start == 0 {
			if out != nil {
				out = append(out, s)
			}
			continue // one split already
		}
		packed = append(packed, s.slice(start, len(s.Files)))
		if out == nil {
			out = append(make([]*DataSplit, 0, len(splits)+len(packed)), splits[:i]...)
		}
		out = append(out, packed...)
	}
	if out == nil {
		return splits
	}
	return out
}

// slice is the split of files [from, to) (and their deletion files).
func (s *DataSplit) slice(from, to int) *DataSplit {
	c := *s
	c.Files = s.Files[from:to:to]
	if s.DeletionFiles != nil {
		c.DeletionFiles = s.DeletionFiles[from:to:to]
	}
	return &c
}
