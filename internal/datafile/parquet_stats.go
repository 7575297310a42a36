package datafile

import (
	"github.com/parquet-go/parquet-go/format"

	"github.com/lakesql/lakesql/internal/schema"
)

// unknownStats is the statistics of a column nothing is known about.
var unknownStats = ColumnStats{NullCount: -1}

// RowGroups describes every row group of the file (not only the selected
// ones), with statistics for each requested column decoded the way Java
// Paimon's ParquetSimpleStatsExtractor does.
func (r *ParquetReader) RowGroups() []RowGroupInfo {
	if r.infos != nil {
		return r.infos
	}
	infos, err := r.rowGroups()
	if err != nil {
		// Statistics come from the already decoded footer; a failure here
		// can only be a library panic on odd metadata. Report unknowns.
		infos = make([]RowGroupInfo, len(r.firstRow))
		md := r.pf.Metadata()
		for i := range infos {
			infos[i] = RowGroupInfo{Index: i, FirstRow: r.firstRow[i], NumRows: md.RowGroups[i].NumRows, Stats: make([]ColumnStats, len(r.cols))}
			for j := range infos[i].Stats {
				infos[i].Stats[j] = unknownStats
			}
		}
	}
	r.infos = infos
	return infos
}

func (r *ParquetReader) rowGroups() (infos []RowGroupInfo, err error) {
	defer recoverCorrupt(&err)
	md := r.pf.Metadata()
	infos = make([]RowGroupInfo, len(md.RowGroups))
	for i := range md.RowGroups {
		g := &md.RowGroups[i]
		info := RowGroupInfo{Index: i, FirstRow: r.firstRow[i], NumRows: g.NumRows, Stats: make([]ColumnStats, len(r.cols))}
		for j, p := range r.plans {
			switch p.kind {
			case planAbsent:
				// Every row of the file is NULL in a column it lacks.
				info.Stats[j] = ColumnStats{NullCount: g.NumRows}
			case planNested:
				info.Stats[j] = unknownStats
			case planFlat:
				info.Stats[j] = chunkStats(p.conv, r.cols[j].Type, &g.Columns[p.node.leaf].MetaData)
			}
		}
		infos[i] = info
	}
	return infos, nil
}

// chunkStats decodes the statistics of one column chunk.
func chunkStats(c *leafConv, t schema.DataType, md *format.ColumnMetaData) ColumnStats {
	st := &md.Statistics
	out := ColumnStats{NullCount: st.NullCount}
	if st.NullCount < 0 || st.NullCount > md.NumValues {
		return unknownStats
	}
	switch t.Root {
	case schema.TypeBinary, schema.TypeVarBinary, schema.TypeVariant, schema.TypeBlob:
		// Java Paimon records no min/max for binary columns.
		return out
	case schema.TypeTimestamp, schema.TypeLocalZonedTimestamp:
		if c.kind == convTimestampInt96 {
			// Nor for TIMESTAMP(p > 6) stored as INT96.
			return out
		}
	}
	minB, maxB := st.MinValue, st.MaxValue
	if len(minB) == 0 && len(maxB) == 0 && c.phys != format.ByteArray && c.phys != format.FixedLenByteArray {
		// Legacy fields: signed order, right for every non-binary type.
		minB, maxB = st.Min, st.Max
	}
	if len(minB) == 0 && len(maxB) == 0 {
		// Absent, or both empty strings: we cannot tell; unknown.
		return out
	}
	lo, ok1 := c.plainStat(minB)
	hi, ok2 := c.plainStat(maxB)
	if !ok1 || !ok2 {
		return out
	}
	out.Min, out.Max = lo, hi
	return out
}

// FileStats merges the statistics of all row groups (selected or not) per
// requested column, like Java Paimon's ParquetUtil.extractColumnStats: the
// smallest min, the largest max, the sum of null counts. A row group with
// values but unknown bounds makes the file's bounds unknown.
func (r *ParquetReader) FileStats() []ColumnStats {
	infos := r.RowGroups()
	md := r.pf.Metadata()
	out := make([]ColumnStats, len(r.cols))
	for j := range out {
		acc := ColumnStats{NullCount: 0}
		boundsKnown := true
		for i, info := range infos {
			s := info.Stats[j]
			if s.NullCount < 0 {
				acc.NullCount = -1
			} else if acc.NullCount >= 0 {
				acc.NullCount += s.NullCount
			}
			nonNull := md.RowGroups[i].NumRows
			if s.NullCount >= 0 {
				nonNull -= s.NullCount
			}
			if s.Min == nil || s.Max == nil {
				if nonNull > 0 || s.NullCount < 0 {
					boundsKnown = false
				}
				continue
			}
			if acc.Min == nil || schema.Compare(&r.cols[j].Type, s.Min, acc.Min) < 0 {
				acc.Min = s.Min
			}
			if acc.Max == nil || schema.Compare(&r.cols[j].Type, s.Max, acc.Max) > 0 {
				acc.Max = s.Max
			}
		}
		if !boundsKnown {
			acc.Min, acc.Max = nil, nil
		}
		out[j] = acc
	}
	return out
}
