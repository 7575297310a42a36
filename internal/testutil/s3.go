package testutil

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"
)

// S3EndpointEnv names the S3-compatible server the storage and SQL suites
// also run against: .ci/run starts SeaweedFS's S3 gateway on loopback and
// sets it (http://127.0.0.1:PORT). S3BucketEnv names its bucket
// (lakesql-test by default), created when missing.
const (
	S3EndpointEnv = "LAKESQL_S3_TEST_ENDPOINT"
	S3BucketEnv   = "LAKESQL_S3_TEST_BUCKET"
)

// S3Warehouse returns a fresh s3:// location (a bucket prefix of its own)
// on the server named by $LAKESQL_S3_TEST_ENDPOINT, skipping the test when
// it is unset outside CI (failing under LAKESQL_REQUIRE_TOOLS=1). It sets
// placeholder AWS credentials when none are set (SeaweedFS without an
// identity configuration accepts any), for this process and the servers
// it starts.
func S3Warehouse(t *testing.T) string {
	t.Helper()
	endpoint := os.Getenv(S3EndpointEnv)
	if endpoint == "" {
		missing(t, "an S3-compatible server ($"+S3EndpointEnv+"; .ci/run starts SeaweedFS's S3 gateway and sets it)")
	}
	if os.Getenv("AWS_ACCESS_KEY_ID") == "" {
		os.Setenv("AWS_ACCESS_KEY_ID", "lakesql") // not t.Setenv: the suites run parallel subtests
		os.Setenv("AWS_SECRET_ACCESS_KEY", "lakesql")
	}
	bucket := os.Getenv(S3BucketEnv)
	if bucket == "" {
		bucket = "lakesql-test"
	}
	// Create the bucket (an unsigned PUT, which SeaweedFS accepts; an
	// existing bucket answers with an error that does not matter).
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPut, strings.TrimSuffix(endpoint, "/")+"/"+bucket, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("S3 server %s: %v", endpoint, err)
	}
	resp.Body.Close()
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := strings.NewReplacer("/", "-", " ", "-").Replace(t.Name())
	q := url.Values{"endpoint": {endpoint}, "region": {"us-east-1"}}
	return "s3://" + bucket + "/" + name + "-" + hex.EncodeToString(b[:]) + "?" + q.Encode()
}
