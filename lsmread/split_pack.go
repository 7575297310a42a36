package lsmread

import (
	"context"

	"github.com/lakesql/lakesql/internal/kv"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// packSplits cuts each split whose files are read as they are (ReadRaw:
// append tables, primary-key buckets that need no merge, deletion-vector
// and first-row tables) into splits of about target bytes, so that one big
// bucket is read by several workers. Files keep their order; each weighs
// max(file size, openFileCost), and a split is closed when the next file
// would take it past target (Java's BinPacking.packForOrdered, as
// AppendOnlySplitGenerator and MergeTreeSplitGenerator use it for
// raw-convertible files). Splits that merge are left to packMergeSplits.
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

// packMergeSplits cuts each split that merges and whose files weigh more
// than target into splits of whole sections (files of overlapping key
// ranges, IntervalPartition), packed in key order to about target bytes, a
// section weighing max(its files' size, openFileCost): Java's
// MergeTreeSplitGenerator.splitForBatch. A section is never cut, so every
// key is merged from all of its records. Smaller buckets are not touched
// (their key bounds are not even decoded).
func (p *Plan) packMergeSplits(ctx context.Context, target, openFileCost int64) error {
	var (
		out []*DataSplit
		r   *Reader
	)
	for i, s := range p.Splits {
		var total int64
		for _, f := range s.Files {
			total += max(f.FileSize, openFileCost)
		}
		if s.Mode != ReadMerge || len(s.Files) < 2 || total <= target {
			if out != nil {
				out = append(out, s)
			}
			continue
		}
		if r == nil {
			var err error
			if r, err = p.NewReader(); err != nil {
				return err
			}
		}
		kb, err := r.fileKeyBounds(ctx, s)
		if err != nil {
			return err
		}
		at := make(map[string]int, len(s.Files))
		for j := range s.Files {
			at[s.Files[j].FileName] = j
		}
		sections := kv.IntervalPartition(s.Files,
			func(f manifest.DataFileMeta) []any { return kb[at[f.FileName]].min },
			func(f manifest.DataFileMeta) []any { return kb[at[f.FileName]].max },
			r.keyCmp)
		if len(sections) < 2 {
			if out != nil {
				out = append(out, s)
			}
			continue
		}
		var packed []*DataSplit
		var bin []int // indexes into s.Files
		var weight int64
		flush := func() {
			c := *s
			c.Files = make([]manifest.DataFileMeta, len(bin))
			if s.DeletionFiles != nil {
				c.DeletionFiles = make([]*DeletionFile, len(bin))
			}
			for k, j := range bin {
				c.Files[k] = s.Files[j]
				if s.DeletionFiles != nil {
					c.DeletionFiles[k] = s.DeletionFiles[j]
				}
			}
			packed = append(packed, &c)
			bin, weight = nil, 0
		}
		for _, sec := range sections {
			var size int64
			n := len(bin)
			for _, run := range sec {
				for _, f := range run {
					size += f.FileSize
					bin = append(bin, at[f.FileName])
				}
			}
			w := max(size, openFileCost)
			if n > 0 && weight+w > target {
				added := append([]int(nil), bin[n:]...)
				bin = bin[:n]
				flush()
				bin = added
			}
			weight += w
		}
		flush()
		if out == nil {
			out = append(make([]*DataSplit, 0, len(p.Splits)+len(packed)), p.Splits[:i]...)
		}
		out = append(out, packed...)
	}
	if out != nil {
		p.Splits = out
	}
	return nil
}
