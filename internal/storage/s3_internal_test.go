package storage

import (
	"context"
	"net/url"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/s3"
)

func TestParseS3URL(t *testing.T) {
	env := func(m map[string]string) func(string) string {
		return func(k string) string { return m[k] }
	}
	for _, tc := range []struct {
		name string
		loc  string
		env  map[string]string
		want s3Config
	}{
		{
			name: "plain AWS",
			loc:  "s3://bucket/warehouse/db/",
			want: s3Config{Bucket: "bucket", Prefix: "warehouse/db"},
		},
		{
			name: "query params",
			loc:  "s3://b/p?endpoint=http://minio:9000&region=eu-west-1&use_path_style=false&profile=dev",
			want: s3Config{
				Bucket: "b", Prefix: "p", Endpoint: "http://minio:9000", Region: "eu-west-1",
				Other: url.Values{"profile": {"dev"}},
			},
		},
		{
			name: "custom endpoint defaults to path style and us-east-1",
			loc:  "s3://b?endpoint=localhost:9000&disable_https=true",
			want: s3Config{Bucket: "b", Endpoint: "http://localhost:9000", Region: "us-east-1", UsePathStyle: true, DisableHTTPS: true},
		},
		{
			name: "endpoint without scheme gets https",
			loc:  "s3://b?endpoint=s3.example.com",
			want: s3Config{Bucket: "b", Endpoint: "https://s3.example.com", Region: "us-east-1", UsePathStyle: true},
		},
		{
			name: "environment",
			loc:  "s3://b/x",
			env:  map[string]string{"AWS_ENDPOINT_URL": "http://env:9000", "AWS_DEFAULT_REGION": "ap-south-1"},
			want: s3Config{Bucket: "b", Prefix: "x", Endpoint: "http://env:9000", Region: "ap-south-1", UsePathStyle: true},
		},
		{
			name: "service endpoint and AWS_REGION win over the generic ones",
			loc:  "s3://b",
			env: map[string]string{
				"AWS_ENDPOINT_URL": "http://generic", "AWS_ENDPOINT_URL_S3": "http://s3only",
				"AWS_REGION": "r1", "AWS_DEFAULT_REGION": "r2",
			},
			want: s3Config{Bucket: "b", Endpoint: "http://s3only", Region: "r1", UsePathStyle: true},
		},
		{
			name: "URL wins over environment; legacy path-style key",
			loc:  "s3://b?endpoint=http://url&region=ru&s3ForcePathStyle=false",
			env:  map[string]string{"AWS_ENDPOINT_URL": "http://env", "AWS_REGION": "re"},
			want: s3Config{Bucket: "b", Endpoint: "http://url", Region: "ru"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseS3URL(tc.loc, env(tc.env))
			if err != nil {
				t.Fatal(err)
			}
			if tc.want.Other == nil {
				tc.want.Other = url.Values{}
			}
			u, _ := url.Parse(tc.loc)
			tc.want.RawQuery = u.RawQuery
			if got.Bucket != tc.want.Bucket || got.Prefix != tc.want.Prefix || got.Endpoint != tc.want.Endpoint ||
				got.Region != tc.want.Region || got.UsePathStyle != tc.want.UsePathStyle ||
				got.DisableHTTPS != tc.want.DisableHTTPS || got.RawQuery != tc.want.RawQuery ||
				got.Other.Encode() != tc.want.Other.Encode() {
				t.Fatalf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
	for _, bad := range []string{"s3://", "s3:///p", "s3://b?disable_https=perhaps", "s3://b?use_path_style=x", "s3://b/a//c"} {
		if _, err := parseS3URL(bad, env(nil)); err == nil {
			t.Errorf("parseS3URL(%q) succeeded", bad)
		}
	}
}

// TestS3ClientOptions checks that the resolved settings reach the AWS
// client. Nothing is sent over the network.
func TestS3ClientOptions(t *testing.T) {
	t.Setenv("AWS_ENDPOINT_URL", "")
	t.Setenv("AWS_ENDPOINT_URL_S3", "")
	t.Setenv("AWS_ACCESS_KEY_ID", "test")
	t.Setenv("AWS_SECRET_ACCESS_KEY", "test")
	st, err := Open(context.Background(), "s3://bkt/pre?endpoint=http://127.0.0.1:9&region=eu-central-1")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	bs := st.(*blobStorage)
	var client *s3.Client
	if !bs.b.As(&client) {
		t.Fatal("bucket is not backed by an *s3.Client")
	}
	o := client.Options()
	// gocloud installs the endpoint as a (legacy) endpoint resolver.
	if o.EndpointResolver == nil {
		t.Fatal("no endpoint resolver: the endpoint was dropped")
	}
	ep, err := o.EndpointResolver.ResolveEndpoint(o.Region, s3.EndpointResolverOptions{})
	if err != nil || ep.URL != "http://127.0.0.1:9" {
		t.Errorf("resolved endpoint %q, %v; want http://127.0.0.1:9", ep.URL, err)
	}
	if o.Region != "eu-central-1" {
		t.Errorf("Region = %q", o.Region)
	}
	if !o.UsePathStyle {
		t.Error("UsePathStyle = false, want true for a custom endpoint")
	}
	if bs.prefix != "pre" || bs.base != "s3://bkt" {
		t.Errorf("base %q prefix %q", bs.base, bs.prefix)
	}
}
