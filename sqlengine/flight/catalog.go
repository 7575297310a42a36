package flight

import (
	"context"
	"database/sql"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql/schema_ref"
)

// The catalog. lakesql has one catalog, Catalog; its database schemas are
// the warehouse's databases and their tables are the Paimon tables (and
// the information_schema and mysql databases), as the MySQL protocol shows
// them: the answers come from information_schema over the session's
// connection, so the account's privileges apply.

// Catalog is the name of lakesql's one catalog.
const Catalog = "lakesql"

func (s *Server) flightInfoForCommand(desc *flight.FlightDescriptor, sc *arrow.Schema) *flight.FlightInfo {
	return &flight.FlightInfo{
		Endpoint:         []*flight.FlightEndpoint{{Ticket: &flight.Ticket{Ticket: desc.Cmd}}},
		FlightDescriptor: desc,
		Schema:           flight.SerializeSchema(sc, s.mem),
		TotalRecords:     -1,
		TotalBytes:       -1,
	}
}

// one sends a single record batch.
func one(sc *arrow.Schema, rec arrow.RecordBatch) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	ch := make(chan flight.StreamChunk, 1)
	ch <- flight.StreamChunk{Data: rec}
	close(ch)
	return sc, ch, nil
}

// otherCatalog reports whether a catalog filter excludes lakesql's.
func otherCatalog(c *string) bool { return c != nil && *c != "" && *c != Catalog }

// metaQuery runs a catalog query for the session and calls row for each
// result row (every column read as a nullable string).
func (s *Server) metaQuery(ctx context.Context, query string, args []any, row func([]sql.NullString) error) error {
	ses, err := sessionFrom(ctx)
	if err != nil {
		return err
	}
	conn, err := ses.conn(ctx)
	if err != nil {
		return grpcError(err)
	}
	defer conn.Close()
	rows, err := conn.QueryContext(ctx, query, args...)
	if err != nil {
		return grpcError(err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return grpcError(err)
	}
	vals := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return grpcError(err)
		}
		if err := row(vals); err != nil {
			return err
		}
	}
	return grpcError(rows.Err())
}

func appendString(b array.Builder, v sql.NullString) {
	if !v.Valid {
		b.AppendNull()
		return
	}
	b.(*array.StringBuilder).Append(v.String)
}

// likeOr is a LIKE pattern, "%" when none was given.
func likeOr(p *string) string {
	if p == nil {
		return "%"
	}
	return *p
}

// GetFlightInfoCatalogs implements flightsql.Server.
func (s *Server) GetFlightInfoCatalogs(_ context.Context, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	return s.flightInfoForCommand(desc, schema_ref.Catalogs), nil
}

// DoGetCatalogs implements flightsql.Server.
func (s *Server) DoGetCatalogs(context.Context) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	b := array.NewRecordBuilder(s.mem, schema_ref.Catalogs)
	defer b.Release()
	b.Field(0).(*array.StringBuilder).Append(Catalog)
	return one(schema_ref.Catalogs, b.NewRecordBatch())
}

// GetFlightInfoSchemas implements flightsql.Server.
func (s *Server) GetFlightInfoSchemas(_ context.Context, _ flightsql.GetDBSchemas, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	return s.flightInfoForCommand(desc, schema_ref.DBSchemas), nil
}

// DoGetDBSchemas implements flightsql.Server: the databases.
func (s *Server) DoGetDBSchemas(ctx context.Context, cmd flightsql.GetDBSchemas) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	b := array.NewRecordBuilder(s.mem, schema_ref.DBSchemas)
	defer b.Release()
	if !otherCatalog(cmd.GetCatalog()) {
		err := s.metaQuery(ctx, "SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME LIKE ? ORDER BY SCHEMA_NAME",
			[]any{likeOr(cmd.GetDBSchemaFilterPattern())}, func(v []sql.NullString) error {
				b.Field(0).(*array.StringBuilder).Append(Catalog)
				appendString(b.Field(1), v[0])
				return nil
			})
		if err != nil {
			return nil, nil, err
		}
	}
	return one(schema_ref.DBSchemas, b.NewRecordBatch())
}

// GetFlightInfoTables implements flightsql.Server.
func (s *Server) GetFlightInfoTables(_ context.Context, cmd flightsql.GetTables, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	sc := schema_ref.Tables
	if cmd.GetIncludeSchema() {
		sc = schema_ref.TablesWithIncludedSchema
	}
	return s.flightInfoForCommand(desc, sc), nil
}

// DoGetTables implements flightsql.Server: the tables, with their Arrow
// schemas when asked (each that of SELECT * FROM the table).
func (s *Server) DoGetTables(ctx context.Context, cmd flightsql.GetTables) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	sc := schema_ref.Tables
	if cmd.GetIncludeSchema() {
		sc = schema_ref.TablesWithIncludedSchema
	}
	b := array.NewRecordBuilder(s.mem, sc)
	defer b.Release()
	if otherCatalog(cmd.GetCatalog()) {
		return one(sc, b.NewRecordBatch())
	}
	q := "SELECT TABLE_SCHEMA, TABLE_NAME, TABLE_TYPE FROM information_schema.TABLES WHERE TABLE_SCHEMA LIKE ? AND TABLE_NAME LIKE ?"
	args := []any{likeOr(cmd.GetDBSchemaFilterPattern()), likeOr(cmd.GetTableNameFilterPattern())}
	if types := cmd.GetTableTypes(); len(types) > 0 {
		q += " AND TABLE_TYPE IN (?" + strings.Repeat(", ?", len(types)-1) + ")"
		for _, t := range types {
			args = append(args, t)
		}
	}
	q += " ORDER BY TABLE_SCHEMA, TABLE_NAME"
	var tables [][3]sql.NullString
	err := s.metaQuery(ctx, q, args, func(v []sql.NullString) error {
		tables = append(tables, [3]sql.NullString{v[0], v[1], v[2]})
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	for _, t := range tables {
		b.Field(0).(*array.StringBuilder).Append(Catalog)
		appendString(b.Field(1), t[0])
		appendString(b.Field(2), t[1])
		appendString(b.Field(3), t[2])
		if cmd.GetIncludeSchema() {
			tsc, err := s.tableSchema(ctx, t[0].String, t[1].String)
			if err != nil {
				return nil, nil, err
			}
			b.Field(4).(*array.BinaryBuilder).Append(flight.SerializeSchema(tsc, s.mem))
		}
	}
	return one(sc, b.NewRecordBatch())
}

// tableSchema is the Arrow schema of SELECT * FROM db.table.
func (s *Server) tableSchema(ctx context.Context, db, table string) (*arrow.Schema, error) {
	ses, err := sessionFrom(ctx)
	if err != nil {
		return nil, err
	}
	conn, err := ses.conn(ctx)
	if err != nil {
		return nil, grpcError(err)
	}
	defer conn.Close()
	rows, err := conn.QueryContext(ctx, "SELECT * FROM "+quoteIdent(db)+"."+quoteIdent(table)+" LIMIT 0")
	if err != nil {
		return nil, grpcError(err)
	}
	defer rows.Close()
	cts, err := rows.ColumnTypes()
	if err != nil {
		return nil, grpcError(err)
	}
	sc, _, err := arrowColumns(cts)
	return sc, grpcError(err)
}

func quoteIdent(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

// GetFlightInfoTableTypes implements flightsql.Server.
func (s *Server) GetFlightInfoTableTypes(_ context.Context, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	return s.flightInfoForCommand(desc, schema_ref.TableTypes), nil
}

// DoGetTableTypes implements flightsql.Server: information_schema's
// TABLE_TYPE values.
func (s *Server) DoGetTableTypes(ctx context.Context) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	b := array.NewRecordBuilder(s.mem, schema_ref.TableTypes)
	defer b.Release()
	for _, t := range []string{"BASE TABLE", "SYSTEM VIEW", "VIEW"} {
		b.Field(0).(*array.StringBuilder).Append(t)
	}
	return one(schema_ref.TableTypes, b.NewRecordBatch())
}

// GetFlightInfoPrimaryKeys implements flightsql.Server.
func (s *Server) GetFlightInfoPrimaryKeys(_ context.Context, _ flightsql.TableRef, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	return s.flightInfoForCommand(desc, schema_ref.PrimaryKeys), nil
}

// DoGetPrimaryKeys implements flightsql.Server: the table's primary-key
// columns, in key order.
func (s *Server) DoGetPrimaryKeys(ctx context.Context, ref flightsql.TableRef) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	b := array.NewRecordBuilder(s.mem, schema_ref.PrimaryKeys)
	defer b.Release()
	if otherCatalog(ref.Catalog) {
		return one(schema_ref.PrimaryKeys, b.NewRecordBatch())
	}
	q := "SELECT TABLE_SCHEMA, TABLE_NAME, COLUMN_NAME, ORDINAL_POSITION FROM information_schema.KEY_COLUMN_USAGE " +
		"WHERE CONSTRAINT_NAME = 'PRIMARY' AND TABLE_NAME = ?"
	args := []any{ref.Table}
	if ref.DBSchema != nil {
		q += " AND TABLE_SCHEMA = ?"
		args = append(args, *ref.DBSchema)
	} else {
		q += " AND TABLE_SCHEMA = DATABASE()"
	}
	q += " ORDER BY TABLE_SCHEMA, ORDINAL_POSITION"
	err := s.metaQuery(ctx, q, args, func(v []sql.NullString) error {
		b.Field(0).(*array.StringBuilder).Append(Catalog)
		appendString(b.Field(1), v[0])
		appendString(b.Field(2), v[1])
		appendString(b.Field(3), v[2])
		n := int32(0)
		for _, c := range v[3].String {
			n = n*10 + int32(c-'0')
		}
		b.Field(4).(*array.Int32Builder).Append(n)
		b.Field(5).(*array.StringBuilder).Append("PRIMARY")
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return one(schema_ref.PrimaryKeys, b.NewRecordBatch())
}
