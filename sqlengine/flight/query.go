package flight

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/flight"
	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/lakesql/lakesql/internal/datafile"
	"github.com/lakesql/lakesql/internal/metrics"
	"github.com/lakesql/lakesql/lsmread"
)

// Queries. GetFlightInfo runs the statement (so that an error reaches the
// client there, as over MySQL) and keeps its result for DoGet, which
// streams it:
//
//   - a plain scan of a Paimon table (sqlengine.PlanPlainScan: one table's
//     columns, no filter left, no LIMIT, ORDER BY, aggregate or join; with
//     AS OF, on $ro, …) streams the scan's column batches as Arrow record
//     batches, splits read in parallel, without building rows;
//   - every other statement runs over an in-process MySQL connection of
//     the session's account, through the whole handler chain (the fronts,
//     privileges, the process list and KILL, max_execution_time, the
//     metrics and slow-query log), and its rows are converted (rows.go).

// prepare runs query (with args) for the session and keeps its result.
func (s *Server) prepare(ctx context.Context, ses *session, query string, args []any) (*result, error) {
	r := &result{query: query, created: time.Now(), start: time.Now()}
	if len(args) == 0 {
		r.stats = new(metrics.Statement)
		ps, err := s.eng.PlanPlainScan(metrics.WithStatement(ctx, r.stats), ses.acct, ses.currentDB(), query)
		if err != nil {
			s.eng.ObserveStatement(query, r.start, r.stats, 0, err)
			return nil, err
		}
		if ps != nil {
			fields := make([]arrow.Field, len(ps.Cols))
			ok := true
			for i, c := range ps.Cols {
				f := &ps.Scan.Fields[c]
				at, typed := datafile.ArrowType(&f.Type)
				ok = ok && typed
				fields[i] = arrow.Field{Name: ps.Names[i], Type: at, Nullable: f.Type.Nullable}
			}
			if ok {
				r.scan, r.schema = ps, arrow.NewSchema(fields, nil)
				return r, nil
			}
		}
	}
	if used, err := ses.useDatabase(ctx, query); used {
		return nil, err
	}
	qctx, cancel := context.WithCancel(context.Background())
	r.cancel = cancel
	conn, err := ses.conn(qctx)
	if err != nil {
		r.close()
		return nil, err
	}
	r.conn = conn
	stop := context.AfterFunc(ctx, cancel) // the call is canceled while the statement runs
	rows, err := conn.QueryContext(qctx, query, args...)
	stop()
	if err != nil {
		r.close()
		return nil, err
	}
	r.rows = rows
	rr, err := newRowReader(rows, s.mem)
	if err != nil {
		r.close()
		return nil, err
	}
	r.schema = rr.schema
	return r, nil
}

func (s *Server) flightInfo(r *result, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	handle := s.pending.put(r)
	tkt, err := flightsql.CreateStatementQueryTicket(handle)
	if err != nil {
		s.pending.take(handle)
		r.close()
		return nil, err
	}
	return &flight.FlightInfo{
		Schema:           flight.SerializeSchema(r.schema, s.mem),
		FlightDescriptor: desc,
		Endpoint:         []*flight.FlightEndpoint{{Ticket: &flight.Ticket{Ticket: tkt}}},
		TotalRecords:     -1,
		TotalBytes:       -1,
	}, nil
}

// GetFlightInfoStatement implements flightsql.Server.
func (s *Server) GetFlightInfoStatement(ctx context.Context, cmd flightsql.StatementQuery, desc *flight.FlightDescriptor) (*flight.FlightInfo, error) {
	ses, err := sessionFrom(ctx)
	if err != nil {
		return nil, err
	}
	if len(cmd.GetTransactionId()) > 0 {
		return nil, status.Error(codes.Unimplemented, "lakesql's Flight SQL endpoint has no transactions: each statement commits on its own")
	}
	r, err := s.prepare(ctx, ses, cmd.GetQuery(), nil)
	if err != nil {
		return nil, grpcError(err)
	}
	return s.flightInfo(r, desc)
}

// GetSchemaStatement implements flightsql.Server: the statement runs to
// learn its result's schema, and its result is dropped.
func (s *Server) GetSchemaStatement(ctx context.Context, cmd flightsql.StatementQuery, _ *flight.FlightDescriptor) (*flight.SchemaResult, error) {
	ses, err := sessionFrom(ctx)
	if err != nil {
		return nil, err
	}
	r, err := s.prepare(ctx, ses, cmd.GetQuery(), nil)
	if err != nil {
		return nil, grpcError(err)
	}
	defer r.close()
	return &flight.SchemaResult{Schema: flight.SerializeSchema(r.schema, s.mem)}, nil
}

// DoGetStatement implements flightsql.Server.
func (s *Server) DoGetStatement(ctx context.Context, cmd flightsql.StatementQueryTicket) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	r := s.pending.take(cmd.GetStatementHandle())
	if r == nil {
		return nil, nil, status.Error(codes.NotFound, "unknown or expired ticket")
	}
	return s.stream(ctx, r)
}

// stream sends a result's batches.
func (s *Server) stream(ctx context.Context, r *result) (*arrow.Schema, <-chan flight.StreamChunk, error) {
	ch := make(chan flight.StreamChunk, 4)
	if r.scan != nil {
		go s.streamScan(ctx, r, ch)
		return r.schema, ch, nil
	}
	go func() {
		defer close(ch)
		defer r.close()
		rr, err := newRowReader(r.rows, s.mem)
		if err != nil {
			send(ctx, ch, flight.StreamChunk{Err: grpcError(err)})
			return
		}
		for {
			rec, err := rr.next()
			if err != nil {
				send(ctx, ch, flight.StreamChunk{Err: grpcError(err)})
				return
			}
			if rec == nil {
				return
			}
			if !send(ctx, ch, flight.StreamChunk{Data: rec}) {
				rec.Release()
				r.cancel()
				return
			}
		}
	}()
	return r.schema, ch, nil
}

func send(ctx context.Context, ch chan<- flight.StreamChunk, c flight.StreamChunk) bool {
	select {
	case ch <- c:
		return true
	case <-ctx.Done():
		return false
	}
}

// scanBatchRows is the size the scan's batches are gathered to before they
// are sent (fewer, larger Arrow messages).
const scanBatchRows = 64 << 10

// streamScan reads a plain scan's splits with up to GOMAXPROCS workers,
// each turning its column batches into Arrow record batches.
func (s *Server) streamScan(ctx context.Context, r *result, ch chan<- flight.StreamChunk) {
	defer close(ch)
	ps := r.scan
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	splits := make(chan *lsmread.DataSplit)
	var (
		wg       sync.WaitGroup
		errOnce  sync.Once
		firstErr error
		rows     int64
		rowsMu   sync.Mutex
	)
	fail := func(err error) {
		errOnce.Do(func() { firstErr = err; cancel() })
	}
	work := fileSplits(ps.Scan.Plan.Splits)
	workers := min(runtime.GOMAXPROCS(0), max(len(work), 1))
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var n int64
			for split := range splits {
				m, err := s.readSplit(ctx, r, split, ch)
				n += m
				if err != nil {
					fail(err)
					return
				}
			}
			rowsMu.Lock()
			rows += n
			rowsMu.Unlock()
		}()
	}
feed:
	for _, sp := range work {
		select {
		case splits <- sp:
		case <-ctx.Done():
			break feed
		}
	}
	close(splits)
	wg.Wait()
	if firstErr == nil {
		firstErr = ctx.Err()
		if errors.Is(firstErr, context.Canceled) {
			firstErr = nil // the client went away or the scan ended
		}
	}
	s.eng.ObserveStatement(r.query, r.start, r.stats, rows, firstErr)
	if firstErr != nil {
		send(context.Background(), ch, flight.StreamChunk{Err: grpcError(firstErr)})
	}
}

// fileSplits splits the raw splits (files read as they are, with their
// own deletion vectors) into one split per file, so that the files of one
// bucket are read in parallel too; merged splits stay whole.
func fileSplits(splits []*lsmread.DataSplit) []*lsmread.DataSplit {
	out := make([]*lsmread.DataSplit, 0, len(splits))
	for _, sp := range splits {
		if sp.Mode != lsmread.ReadRaw || len(sp.Files) < 2 {
			out = append(out, sp)
			continue
		}
		for i := range sp.Files {
			one := *sp
			one.Files = sp.Files[i : i+1 : i+1]
			one.DeletionFiles = nil
			if i < len(sp.DeletionFiles) {
				one.DeletionFiles = sp.DeletionFiles[i : i+1 : i+1]
			}
			out = append(out, &one)
		}
	}
	return out
}

// readSplit sends one split's rows as record batches of up to
// scanBatchRows rows.
func (s *Server) readSplit(ctx context.Context, r *result, split *lsmread.DataSplit, ch chan<- flight.StreamChunk) (int64, error) {
	ps := r.scan
	it, err := ps.Scan.Reader.ReadBatches(ctx, split)
	if err != nil {
		return 0, err
	}
	defer it.Close()
	var (
		b, view datafile.Batch
		parts   []arrow.RecordBatch
		held    int
		total   int64
	)
	view.Cols = make([]datafile.Vector, len(ps.Cols))
	flush := func() error {
		if len(parts) == 0 {
			return nil
		}
		rec := parts[0]
		if len(parts) > 1 {
			var err error
			rec, err = concat(r.schema, parts, s.mem)
			for _, p := range parts {
				p.Release()
			}
			if err != nil {
				return err
			}
		}
		parts, held = parts[:0], 0
		if !send(ctx, ch, flight.StreamChunk{Data: rec}) {
			rec.Release()
			return ctx.Err()
		}
		return nil
	}
	for {
		if err := ctx.Err(); err != nil {
			return total, err
		}
		err := it.Next(&b)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return total, err
		}
		if b.Rows() == 0 {
			continue
		}
		view.Len, view.FirstRow, view.Sel = b.Len, b.FirstRow, b.Sel
		for i, c := range ps.Cols {
			view.Cols[i] = b.Cols[c]
		}
		rec, err := view.ArrowRecord(r.schema, s.mem)
		if err != nil {
			return total, fmt.Errorf("flight: %w", err)
		}
		parts = append(parts, rec)
		held += int(rec.NumRows())
		total += rec.NumRows()
		if held >= scanBatchRows {
			if err := flush(); err != nil {
				return total, err
			}
		}
	}
	return total, flush()
}

// concat joins record batches of one schema into one.
func concat(sc *arrow.Schema, parts []arrow.RecordBatch, mem memory.Allocator) (arrow.RecordBatch, error) {
	cols := make([]arrow.Array, sc.NumFields())
	var n int64
	for _, p := range parts {
		n += p.NumRows()
	}
	for i := range cols {
		arrs := make([]arrow.Array, len(parts))
		for j, p := range parts {
			arrs[j] = p.Column(i)
		}
		a, err := array.Concatenate(arrs, mem)
		if err != nil {
			for _, c := range cols[:i] {
				c.Release()
			}
			return nil, err
		}
		cols[i] = a
	}
	rec := array.NewRecordBatch(sc, cols, n)
	for _, c := range cols {
		c.Release()
	}
	return rec, nil
}

// DoPutCommandStatementUpdate implements flightsql.Server: DML, DDL and
// any other statement without rows, through the handler chain.
func (s *Server) DoPutCommandStatementUpdate(ctx context.Context, cmd flightsql.StatementUpdate) (int64, error) {
	ses, err := sessionFrom(ctx)
	if err != nil {
		return 0, err
	}
	if len(cmd.GetTransactionId()) > 0 {
		return 0, status.Error(codes.Unimplemented, "lakesql's Flight SQL endpoint has no transactions: each statement commits on its own")
	}
	n, err := s.exec(ctx, ses, cmd.GetQuery(), nil)
	return n, grpcError(err)
}

func (s *Server) exec(ctx context.Context, ses *session, query string, args []any) (int64, error) {
	if used, err := ses.useDatabase(ctx, query); used {
		return 0, err
	}
	conn, err := ses.conn(ctx)
	if err != nil {
		return 0, err
	}
	defer conn.Close()
	res, err := conn.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}
