package storage

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"

	"gocloud.dev/blob/s3blob"
)

// s3Config is what an s3:// URL plus the environment resolve to.
type s3Config struct {
	Bucket       string
	Prefix       string // no leading or trailing '/'
	Endpoint     string // with scheme; "" means AWS
	Region       string
	UsePathStyle bool
	DisableHTTPS bool
	// Other holds the remaining query parameters, passed on to gocloud
	// (profile, anonymous, hostname_immutable, request_checksum_calculation…).
	Other url.Values
	// RawQuery is the URL's query as given, kept in URL().
	RawQuery string
}

// parseS3URL resolves "s3://bucket/prefix?endpoint=…&region=…&use_path_style=…
// &disable_https=…". Parameters missing from the URL come from the
// environment: AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL; AWS_REGION or
// AWS_DEFAULT_REGION. With a custom endpoint (MinIO and the like), path-style
// addressing is the default and the region defaults to us-east-1.
func parseS3URL(location string, getenv func(string) string) (s3Config, error) {
	u, err := url.Parse(location)
	if err != nil {
		return s3Config{}, fmt.Errorf("storage: open %s: %w", location, err)
	}
	if u.Host == "" {
		return s3Config{}, fmt.Errorf("storage: open %s: missing bucket name", location)
	}
	cfg := s3Config{Bucket: u.Host, Prefix: strings.Trim(u.Path, "/"), RawQuery: u.RawQuery}
	if cfg.Prefix != "" {
		if err := checkPath(cfg.Prefix); err != nil {
			return s3Config{}, fmt.Errorf("storage: open %s: %w", location, err)
		}
	}
	q := u.Query()
	take := func(keys ...string) string {
		for _, k := range keys {
			if v := q.Get(k); v != "" {
				q.Del(k)
				return v
			}
		}
		return ""
	}
	firstEnv := func(keys ...string) string {
		for _, k := range keys {
			if v := getenv(k); v != "" {
				return v
			}
		}
		return ""
	}
	parseBool := func(key, v string) (bool, error) {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return false, fmt.Errorf("storage: open %s: invalid %s=%q: %w", location, key, v, err)
		}
		return b, nil
	}

	if v := take("disable_https"); v != "" {
		if cfg.DisableHTTPS, err = parseBool("disable_https", v); err != nil {
			return s3Config{}, err
		}
	}
	cfg.Endpoint = take("endpoint")
	if cfg.Endpoint == "" {
		cfg.Endpoint = firstEnv("AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL")
	}
	if cfg.Endpoint != "" && !strings.Contains(cfg.Endpoint, "://") {
		if cfg.DisableHTTPS {
			cfg.Endpoint = "http://" + cfg.Endpoint
		} else {
			cfg.Endpoint = "https://" + cfg.Endpoint
		}
	}
	cfg.Region = take("region")
	if cfg.Region == "" {
		cfg.Region = firstEnv("AWS_REGION", "AWS_DEFAULT_REGION")
	}
	if cfg.Region == "" && cfg.Endpoint != "" {
		cfg.Region = "us-east-1"
	}
	cfg.UsePathStyle = cfg.Endpoint != ""
	if v := take("use_path_style", "s3ForcePathStyle"); v != "" {
		if cfg.UsePathStyle, err = parseBool("use_path_style", v); err != nil {
			return s3Config{}, err
		}
	}
	cfg.Other = q
	return cfg, nil
}

// gocloudQuery is the query s3blob's URLOpener understands.
func (c s3Config) gocloudQuery() url.Values {
	q := url.Values{}
	for k, v := range c.Other {
		q[k] = v
	}
	if c.Endpoint != "" {
		q.Set("endpoint", c.Endpoint)
	}
	if c.Region != "" {
		q.Set("region", c.Region)
	}
	q.Set("use_path_style", strconv.FormatBool(c.UsePathStyle))
	if c.DisableHTTPS {
		q.Set("disable_https", "true")
	}
	return q
}

// openS3URL opens an S3 bucket. No request is sent until the first call.
func openS3URL(ctx context.Context, location string) (Storage, error) {
	cfg, err := parseS3URL(location, os.Getenv)
	if err != nil {
		return nil, err
	}
	u := &url.URL{Scheme: "s3", Host: cfg.Bucket, RawQuery: cfg.gocloudQuery().Encode()}
	b, err := new(s3blob.URLOpener).OpenBucketURL(ctx, u)
	if err != nil {
		return nil, fmt.Errorf("storage: open %s: %w", location, err)
	}
	return &blobStorage{
		b: b, base: "s3://" + cfg.Bucket, prefix: cfg.Prefix, query: cfg.RawQuery, closeBucket: true,
	}, nil
}
