package sqlengine

import (
	"slices"
	"strings"

	"github.com/lakesql/lakesql/internal/schema"
)

// ShowCreateTable renders a table schema as the Flink-style DDL that SHOW
// CREATE TABLE returns and the DDL front parses back to the same schema
// (columns with Paimon type names, comments, PRIMARY KEY … NOT ENFORCED,
// COMMENT, PARTITIONED BY and the table options in WITH, sorted by key).
//
// A TIMESTAMP column of a statement without any Flink marker would read
// back as MySQL's TIMESTAMP (an instant), so it is then spelled
// "TIMESTAMP(p) WITHOUT TIME ZONE".
func ShowCreateTable(name string, ts *schema.TableSchema) string {
	flink := len(ts.PrimaryKeys) > 0 || len(ts.PartitionKeys) > 0 || len(ts.Options) > 0
	types := make([]string, len(ts.Fields))
	for i, f := range ts.Fields {
		types[i] = f.Type.WithNullable(true).String()
		flink = flink || isFlinkType(types[i])
	}
	var b strings.Builder
	b.WriteString("CREATE TABLE " + quoteIdent(name) + " (\n")
	for i, f := range ts.Fields {
		b.WriteString("  " + quoteIdent(f.Name) + " " + types[i])
		if f.Type.Root == schema.TypeTimestamp && !flink {
			b.WriteString(" WITHOUT TIME ZONE")
		}
		if !f.Type.Nullable {
			b.WriteString(" NOT NULL")
		}
		if f.Description != nil {
			b.WriteString(" COMMENT " + quoteString(*f.Description))
		}
		if i < len(ts.Fields)-1 || len(ts.PrimaryKeys) > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	if len(ts.PrimaryKeys) > 0 {
		b.WriteString("  PRIMARY KEY (" + quoteIdents(ts.PrimaryKeys) + ") NOT ENFORCED\n")
	}
	b.WriteString(")")
	if ts.Comment != nil && *ts.Comment != "" {
		b.WriteString("\nCOMMENT " + quoteString(*ts.Comment))
	}
	if len(ts.PartitionKeys) > 0 {
		b.WriteString("\nPARTITIONED BY (" + quoteIdents(ts.PartitionKeys) + ")")
	}
	if len(ts.Options) > 0 {
		keys := make([]string, 0, len(ts.Options))
		for k := range ts.Options {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b.WriteString("\nWITH (\n")
		for i, k := range keys {
			b.WriteString("  " + quoteString(k) + " = " + quoteString(ts.Options[k]))
			if i < len(keys)-1 {
				b.WriteString(",")
			}
			b.WriteString("\n")
		}
		b.WriteString(")")
	}
	return b.String()
}

func quoteIdent(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

func quoteIdents(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = quoteIdent(n)
	}
	return strings.Join(q, ", ")
}

func quoteString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
