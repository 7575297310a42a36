package tests

import (
	"context"
	"crypto/tls"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/flight/flightsql"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"github.com/lakesql/lakesql/sqlengine"
	"github.com/lakesql/lakesql/sqlengine/flight"
)

// TestFlightTLSAndRequireSSL: with --tls-cert/--tls-key the Flight SQL
// endpoint speaks TLS only, and an account created REQUIRE SSL logs in
// over it; a second server on the same warehouse without TLS refuses that
// account over Flight SQL, as its MySQL port would.
func TestFlightTLSAndRequireSSL(t *testing.T) {
	wh := t.TempDir()
	cert, key, pool := selfSignedCert(t, t.TempDir())
	ctx := context.Background()
	start := func(sec sqlengine.SecurityConfig) (*sqlengine.Server, *flight.Server) {
		eng, err := sqlengine.New(ctx, sqlengine.Config{Warehouse: wh, Embedded: true, Security: sec})
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- eng.Start() }()
		fs, err := flight.Listen("127.0.0.1:0", eng)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { fs.Close(); eng.Close(); <-done })
		return eng, fs
	}
	eng, tlsFS := start(sqlengine.SecurityConfig{TLSCert: cert, TLSKey: key})
	db, err := eng.OpenDB("root", "localhost", "default", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range []string{"CREATE TABLE s (id BIGINT PRIMARY KEY)", "INSERT INTO s VALUES (1), (2)",
		"CREATE USER 'sec'@'%' IDENTIFIED BY 'sec-pw' REQUIRE SSL", "GRANT SELECT ON *.* TO 'sec'@'%'"} {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	tc, err := flightsql.NewClient(tlsFS.Addr(), nil, nil,
		grpc.WithTransportCredentials(credentials.NewTLS(&tls.Config{RootCAs: pool, ServerName: "127.0.0.1"})))
	if err != nil {
		t.Fatal(err)
	}
	defer tc.Close()
	actx, err := tc.Client.AuthenticateBasicToken(ctx, "sec", "sec-pw")
	if err != nil {
		t.Fatalf("REQUIRE SSL account over TLS: %v", err)
	}
	info, err := tc.Execute(actx, "SELECT id FROM s")
	if err != nil {
		t.Fatal(err)
	}
	rdr, err := tc.DoGet(actx, info.Endpoint[0].Ticket)
	if err != nil {
		t.Fatal(err)
	}
	n := int64(0)
	for rdr.Next() {
		n += rdr.RecordBatch().NumRows()
	}
	rdr.Release()
	if n != 2 {
		t.Errorf("%d rows over TLS, want 2", n)
	}
	// The TLS endpoint does not speak plaintext.
	pc, err := flightsql.NewClient(tlsFS.Addr(), nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if _, err := pc.Client.AuthenticateBasicToken(cctx, "sec", "sec-pw"); err == nil {
		t.Error("a plaintext client reached the TLS endpoint")
	}
	// Without TLS, the REQUIRE SSL account is refused.
	_, plainFS := start(sqlengine.SecurityConfig{})
	nc, err := flightsql.NewClient(plainFS.Addr(), nil, nil, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if _, err := nc.Client.AuthenticateBasicToken(ctx, "sec", "sec-pw"); status.Code(err) != codes.Unauthenticated {
		t.Errorf("REQUIRE SSL account without TLS: %v, want Unauthenticated", err)
	}
}
