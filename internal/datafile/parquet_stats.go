package datafile

import (
	"bytes"
	"cmp"
	"math/big"

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
			if acc.Min == nil || CompareValues(s.Min, acc.Min) < 0 {
				acc.Min = s.Min
			}
			if acc.Max == nil || CompareValues(s.Max, acc.Max) > 0 {
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

// CompareValues orders two non-nil values of the same scalar type of the
// value model (the order Parquet statistics use: signed integers, IEEE
// floats, bytewise strings and binaries, numeric decimals of equal scale,
// false < true). Values of different or nested types compare as equal.
func CompareValues(a, b any) int {
	switch x := a.(type) {
	case bool:
		y, ok := b.(bool)
		if !ok || x == y {
			return 0
		}
		if !x {
			return -1
		}
		return 1
	case int8:
		if y, ok := b.(int8); ok {
			return cmp.Compare(x, y)
		}
	case int16:
		if y, ok := b.(int16); ok {
			return cmp.Compare(x, y)
		}
	case int32:
		if y, ok := b.(int32); ok {
			return cmp.Compare(x, y)
		}
	case int64:
		if y, ok := b.(int64); ok {
			return cmp.Compare(x, y)
		}
	case float32:
		if y, ok := b.(float32); ok {
			return cmp.Compare(x, y)
		}
	case float64:
		if y, ok := b.(float64); ok {
			return cmp.Compare(x, y)
		}
	case string:
		if y, ok := b.(string); ok {
			return cmp.Compare(x, y)
		}
	case []byte:
		if y, ok := b.([]byte); ok {
			return bytes.Compare(x, y)
		}
	case schema.Date:
		if y, ok := b.(schema.Date); ok {
			return cmp.Compare(x, y)
		}
	case schema.Time:
		if y, ok := b.(schema.Time); ok {
			return cmp.Compare(x, y)
		}
	case schema.Timestamp:
		if y, ok := b.(schema.Timestamp); ok {
			if c := cmp.Compare(x.Millis, y.Millis); c != 0 {
				return c
			}
			return cmp.Compare(x.NanoOfMilli, y.NanoOfMilli)
		}
	case schema.Decimal:
		if y, ok := b.(schema.Decimal); ok {
			return compareDecimals(x, y)
		}
	}
	return 0
}

func compareDecimals(x, y schema.Decimal) int {
	if x.Scale == y.Scale && x.Big == nil && y.Big == nil {
		return cmp.Compare(x.Compact, y.Compact)
	}
	a, b := decimalBig(x), decimalBig(y)
	// Bring both to the larger scale.
	if x.Scale < y.Scale {
		a = new(big.Int).Mul(a, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(y.Scale-x.Scale)), nil))
	} else if y.Scale < x.Scale {
		b = new(big.Int).Mul(b, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(x.Scale-y.Scale)), nil))
	}
	return a.Cmp(b)
}
