package sqlengine

import (
	"slices"
	"strings"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/provider"
)

// ShowCreateTable renders a table schema as the Flink-style DDL that SHOW
// CREATE PAIMON TABLE returns and the DDL front parses back to the same schema
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

// paimonComment opens the executable comment that carries the Paimon-only
// parts of the MySQL form: MySQL (and MariaDB) skip /*!99999 … */ (a server
// version they do not have), lakesql's DDL front reads its text.
const paimonComment = "/*!99999 "

// ShowCreateTableMySQL renders a table schema in MySQL's SHOW CREATE TABLE
// form, which MySQL tools parse (SQLAlchemy's reflection, DBeaver, …):
// lower-case MySQL types as DESCRIBE shows them, backquoted names,
// "DEFAULT NULL" on nullable columns, PRIMARY KEY (…), ENGINE=Paimon, the
// charset, COMMENT='…'. Fed back to lakesql it creates the same Paimon
// table: a column whose MySQL type does not map back to its Paimon type
// carries the exact type in /*!99999 TYPE */ after its definition, and the
// partition keys and table options follow the table options as
// /*!99999 PARTITIONED BY (…) WITH (…) */.
func ShowCreateTableMySQL(name string, ts *schema.TableSchema) (string, error) {
	var b strings.Builder
	b.WriteString("CREATE TABLE " + quoteIdent(name) + " (\n")
	for i := range ts.Fields {
		f := &ts.Fields[i]
		mt, err := provider.MySQLColumnType(ts, f)
		if err != nil {
			return "", err
		}
		b.WriteString("  " + quoteIdent(f.Name) + " " + mt)
		switch {
		case !f.Type.Nullable:
			b.WriteString(" NOT NULL")
		case !noDefaultNull(mt):
			b.WriteString(" DEFAULT NULL")
		}
		if f.Description != nil {
			b.WriteString(" COMMENT " + quoteString(*f.Description))
		}
		if back, err := columnType(mt, false); err != nil || !back.WithNullable(true).EqualIgnoreFieldIDs(f.Type.WithNullable(true)) {
			b.WriteString(" " + paimonComment + f.Type.WithNullable(true).String() + " */")
		}
		if i < len(ts.Fields)-1 || len(ts.PrimaryKeys) > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	if len(ts.PrimaryKeys) > 0 {
		q := make([]string, len(ts.PrimaryKeys))
		for i, k := range ts.PrimaryKeys {
			q[i] = quoteIdent(k)
		}
		b.WriteString("  PRIMARY KEY (" + strings.Join(q, ",") + ")\n")
	}
	b.WriteString(") ENGINE=Paimon DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_bin")
	if ts.Comment != nil && *ts.Comment != "" {
		b.WriteString(" COMMENT=" + quoteString(*ts.Comment))
	}
	if len(ts.PartitionKeys) > 0 || len(ts.Options) > 0 {
		b.WriteString(" " + paimonComment)
		if len(ts.PartitionKeys) > 0 {
			b.WriteString("PARTITIONED BY (" + quoteIdents(ts.PartitionKeys) + ")")
			if len(ts.Options) > 0 {
				b.WriteString(" ")
			}
		}
		if len(ts.Options) > 0 {
			keys := make([]string, 0, len(ts.Options))
			for k := range ts.Options {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			kv := make([]string, len(keys))
			for i, k := range keys {
				kv[i] = quoteString(k) + " = " + quoteString(ts.Options[k])
			}
			b.WriteString("WITH (" + strings.Join(kv, ", ") + ")")
		}
		b.WriteString(" */")
	}
	return b.String(), nil
}

// noDefaultNull: MySQL prints no "DEFAULT NULL" for TEXT, BLOB and JSON
// columns (they cannot have a literal default).
func noDefaultNull(mysqlType string) bool {
	return strings.HasSuffix(mysqlType, "text") || strings.HasSuffix(mysqlType, "blob") || mysqlType == "json"
}
