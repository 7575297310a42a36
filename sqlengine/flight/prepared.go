package flight

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Prepared statements: the statement text is kept with its handle; bound
// parameters (one row of the batch a client puts) are substituted into it
// as literals by the in-process connection (go-sql-driver's client-side
// interpolation), and it runs when the client asks for its results or
// executes the update. Several parameter rows run the update once each.

type prepared struct {
	query string
	args  []any   // the first bound row
	rows  [][]any // every bound row (updates)
}

func (ses *session) preparedStmt(h []byte) (*prepared, error) {
	ses.mu.Lock()
	defer ses.mu.Unlock()
	p := ses.prepared[string(h)]
	if p == nil {
		return nil, status.Error(codes.NotFound, "unknown prepared statement handle")
	}
	return p, nil
}

// CreatePreparedStatement implements flightsql.Server.
func (s *Server) CreatePreparedStatement(ctx context.Context, req flightsql.ActionCreatePreparedStatementRequest) (flightsql.ActionCreatePreparedStatementResult, error) {
	var res flightsql.ActionCreatePreparedStatementResult
	ses, err := sessionFrom(ctx)
	if err != nil {
		return res, err
	}
	if len(req.GetTransactionId()) > 0 {
		return res, status.Error(codes.Unimplemented, "lakesql's Flight SQL endpoint has no transactions: each statement commits on its own")
	}
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	h := hex.EncodeToString(b)
	ses.mu.Lock()
	ses.prepared[h] = &prepared{query: req.GetQuery()}
	ses.mu.Unlock()
	res.Handle = []byte(h)
	return res, nil
}

// ClosePreparedStatement implements flightsql.Server.
func (s *Server) ClosePreparedStatement(ctx context.Context, req flightsql.ActionClosePreparedStatementRequest) error {
	ses, err := sessionFrom(ctx)
	if err != nil {
		return err
	}
	ses.mu.Lock()
	delete(ses.prepared, string(req.GetPreparedStatementHandle()))
	ses.mu.Unlock()
	return nil
}

// DoPutPreparedStatementQuery implements flightsql.Server: it binds the
// parameters.
func (s *Server) DoPutPreparedStatementQuery(ctx context.Context, cmd flightsql.PreparedStatementQuery, rdr flight.MessageReader, _ flight.MetadataWriter) ([]byte, error) {
	ses, err := sessionFrom(ctx)
	if err != nil {
		return nil, err
	}
	p, err := ses.preparedStmt(cmd.GetPreparedStatementHandle())
	if err != nil {
		return nil, err
	}
	rows, err := readParams(rdr)
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	ses.mu.Lock()
	p.rows = rows
	p.args = nil
	if len(rows) > 0 {
		p.args = rows[0]
	}
	ses.mu.Unlock()
	return cmd.GetPreparedStatementHandle(), nil
}

// GetFlightInfoPreparedStatement implements flightsql.Server: it runs the
// statement with its bound parameters.
func (s *Server) GetFlightInfoPreparedStatement(ctx context.Context, cmd flightsql.PreparedStatementQuery, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	ses, err := sessionFrom(ctx)
	if err != nil {
		return nil, err
	}
	p, err := ses.preparedStmt(cmd.GetPreparedStatementHandle())
	if err != nil {
		return nil, err
	}
	r, err := s.prepare(ctx, ses, p.query, p.args)
	if err != nil {
		return nil, grpcError(err)
	}
	return s.flightInfo(r, desc)
}

// GetSchemaPreparedStatement implements flightsql.Server.
func (s *Server) GetSchemaPreparedStatement(ctx context.Context, cmd flightsql.PreparedStatementQuery, _ *flight.FlightDescriptor) (*flight.SchemaResult, error) {
	ses, err := sessionFrom(ctx)
	if err != nil {
		return nil, err
	}
	p, err := ses.preparedStmt(cmd.GetPreparedStatementHandle())
	if err != nil {
		return nil, err
	}
	r, err := s.prepare(ctx, ses, p.query, p.args)
	if err != nil {
		return nil, grpcError(err)
	}
	defer r.close()
	return &flight.SchemaResult{Schema: flight.SerializeSchema(r.schema, s.mem)}, nil
}

// DoGetPreparedStatement implements flightsql.Server (for clients that use
// the prepared-statement command as the ticket).
func (s *Server) DoGetPreparedStatement(ctx context.Context, cmd flightsql.PreparedStatementQuery) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	ses, err := sessionFrom(ctx)
	if err != nil {
		return nil, nil, err
	}
	p, err := ses.preparedStmt(cmd.GetPreparedStatementHandle())
	if err != nil {
		return nil, nil, err
	}
	r, err := s.prepare(ctx, ses, p.query, p.args)
	if err != nil {
		return nil, nil, grpcError(err)
	}
	return s.stream(ctx, r)
}

// DoPutPreparedStatementUpdate implements flightsql.Server.
func (s *Server) DoPutPreparedStatementUpdate(ctx context.Context, cmd flightsql.PreparedStatementUpdate, rdr flight.MessageReader) (int64, error) {
	ses, err := sessionFrom(ctx)
	if err != nil {
		return 0, err
	}
	p, err := ses.preparedStmt(cmd.GetPreparedStatementHandle())
	if err != nil {
		return 0, err
	}
	rows, err := readParams(rdr)
	if err != nil {
		return 0, status.Error(codes.InvalidArgument, err.Error())
	}
	if len(rows) == 0 {
		rows = [][]any{p.args}
		if p.args == nil && len(p.rows) > 0 {
			rows = p.rows
		}
	}
	var total int64
	for _, args := range rows {
		n, err := s.exec(ctx, ses, p.query, args)
		if err != nil {
			return total, grpcError(err)
		}
		total += n
	}
	return total, nil
}

// readParams reads the parameter rows of a put.
func readParams(rdr flight.MessageReader) ([][]any, error) {
	if rdr == nil {
		return nil, nil
	}
	var out [][]any
	for rdr.Next() {
		rec := rdr.RecordBatch()
		for i := range int(rec.NumRows()) {
			row := make([]any, rec.NumCols())
			for j := range row {
				v, err := paramValue(rec.Column(j), i)
				if err != nil {
					return nil, fmt.Errorf("parameter %d: %w", j+1, err)
				}
				row[j] = v
			}
			out = append(out, row)
		}
	}
	if err := rdr.Err(); err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	return out, nil
}

// paramValue converts one Arrow value to what go-sql-driver binds.
func paramValue(a arrow.Array, i int) (any, error) {
	if a.IsNull(i) {
		return nil, nil
	}
	switch a := a.(type) {
	case *array.Boolean:
		return a.Value(i), nil
	case *array.Int8:
		return int64(a.Value(i)), nil
	case *array.Int16:
		return int64(a.Value(i)), nil
	case *array.Int32:
		return int64(a.Value(i)), nil
	case *array.Int64:
		return a.Value(i), nil
	case *array.Uint8:
		return uint64(a.Value(i)), nil
	case *array.Uint16:
		return uint64(a.Value(i)), nil
	case *array.Uint32:
		return uint64(a.Value(i)), nil
	case *array.Uint64:
		return a.Value(i), nil
	case *array.Float32:
		return float64(a.Value(i)), nil
	case *array.Float64:
		return a.Value(i), nil
	case *array.String:
		return a.Value(i), nil
	case *array.LargeString:
		return a.Value(i), nil
	case *array.Binary:
		return a.Value(i), nil
	case *array.Decimal128:
		return a.ValueStr(i), nil
	case *array.Date32:
		return a.Value(i).ToTime().Format(time.DateOnly), nil
	case *array.Timestamp:
		unit := a.DataType().(*arrow.TimestampType).Unit
		return a.Value(i).ToTime(unit).UTC().Format("2006-01-02 15:04:05.999999"), nil
	case *array.Null:
		return nil, nil
	}
	return nil, fmt.Errorf("unsupported Arrow type %s", a.DataType())
}
