package datafile_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/parquet-go/parquet-go"
)

func TestScratchDump(t *testing.T) {
	root := "/work/shared/fixtures/paimon-java/"
	for _, tbl := range []string{"pk_table_scan_and_read_mor", "pk_table_nested_type", "append_with_multiple_ts_precision_and_timezone", "append_complex_build_in_fieldid"} {
		m, _ := filepath.Glob(root + tbl + ".db/" + tbl + "/*/bucket-*/data-*.parquet")
		m2, _ := filepath.Glob(root + tbl + ".db/" + tbl + "/bucket-*/data-*.parquet")
		m = append(m, m2...)
		if len(m) == 0 {
			t.Log("none", tbl)
			continue
		}
		f, _ := os.Open(m[0])
		st, _ := f.Stat()
		pf, err := parquet.OpenFile(f, st.Size())
		if err != nil {
			t.Fatal(err)
		}
		fmt.Println(m[0])
		fmt.Println(pf.Schema())
		md := pf.Metadata()
		fmt.Println("created_by", md.CreatedBy, "kv", md.KeyValueMetadata, "rgs", len(md.RowGroups))
		for _, e := range md.Schema {
			fmt.Printf("  %q type=%v rep=%v conv=%v lt=%+v fid=%d nc=%v tl=%v scale=%v prec=%v\n", e.Name, e.Type, e.RepetitionType, e.ConvertedType, e.LogicalType, e.FieldID, e.NumChildren, e.TypeLength, e.Scale, e.Precision)
		}
		for _, c := range md.RowGroups[0].Columns {
			s := c.MetaData.Statistics
			fmt.Printf("  col %v codec=%v enc=%v stats nulls=%d min=%q max=%q minv=%q maxv=%q distinct=%v\n", c.MetaData.PathInSchema, c.MetaData.Codec, c.MetaData.Encoding, s.NullCount, s.Min, s.Max, s.MinValue, s.MaxValue, s.DistinctCount)
		}
	}
}
