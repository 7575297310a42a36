package manifest

import (
	"bytes"
	"fmt"
	"sync"

	"github.com/hamba/avro/v2"
	"github.com/hamba/avro/v2/ocf"
	"github.com/klauspost/compress/zstd"
)

// The writers encode with hamba/avro's ocf.Encoder against the exact Java
// schema strings of schemas.go (which the header embeds verbatim).

// WriteOption configures a writer.
type WriteOption func(*writeConfig)

type writeConfig struct {
	codec     Codec
	zstdLevel int
}

// WithCodec sets the Avro codec (default CodecZstandard, as Java's
// manifest.compression = zstd).
func WithCodec(c Codec) WriteOption { return func(w *writeConfig) { w.codec = c } }

// WithZstdLevel sets the zstandard level (default 1, Java's
// file.compression.zstd-level).
func WithZstdLevel(level int) WriteOption { return func(w *writeConfig) { w.zstdLevel = level } }

// CodecForCompression maps a Paimon manifest.compression value to an Avro
// codec.
func CodecForCompression(compression string) (Codec, error) {
	switch compression {
	case "zstd", "zstandard":
		return CodecZstandard, nil
	case "snappy":
		return CodecSnappy, nil
	case "deflate":
		return CodecDeflate, nil
	case "none", "null", "":
		return CodecNull, nil
	}
	return "", fmt.Errorf("%w: manifest.compression %q", ErrUnsupported, compression)
}

// javaBlockSize is Avro Java's DataFileWriter default sync interval: a block
// is flushed once this many uncompressed bytes are buffered.
const javaBlockSize = 64000

var writeSchemas = sync.OnceValues(func() (map[string]avro.Schema, error) {
	out := map[string]avro.Schema{}
	for _, s := range []string{manifestListSchemaJSON, manifestSchemaJSON, indexManifestSchemaJSON} {
		p, err := avro.ParseWithCache(s, "", &avro.SchemaCache{})
		if err != nil {
			return nil, err
		}
		out[s] = p
	}
	return out, nil
})

// writeContainer encodes records as an Avro object container file with the
// writer schema schemaJSON.
func writeContainer[R any](schemaJSON string, recs []R, opts []WriteOption) ([]byte, error) {
	cfg := writeConfig{codec: CodecZstandard, zstdLevel: 1}
	for _, o := range opts {
		o(&cfg)
	}
	schemas, err := writeSchemas()
	if err != nil {
		return nil, fmt.Errorf("manifest: parse built-in schema: %w", err)
	}
	encOpts := []ocf.EncoderFunc{
		ocf.WithSchemaMarshaler(func(avro.Schema) ([]byte, error) { return []byte(schemaJSON), nil }),
		ocf.WithEncoderSchemaCache(&avro.SchemaCache{}),
		ocf.WithBlockLength(0),
		ocf.WithBlockSize(javaBlockSize),
	}
	switch cfg.codec {
	case CodecNull:
		encOpts = append(encOpts, ocf.WithCodec(ocf.Null))
	case CodecDeflate:
		encOpts = append(encOpts, ocf.WithCodec(ocf.Deflate))
	case CodecSnappy:
		encOpts = append(encOpts, ocf.WithCodec(ocf.Snappy))
	case CodecZstandard:
		zenc, err := zstdEncoders.get(cfg.zstdLevel)
		if err != nil {
			return nil, fmt.Errorf("manifest: new zstd encoder: %w", err)
		}
		defer zstdEncoders.put(cfg.zstdLevel, zenc)
		encOpts = append(encOpts, ocf.WithCodec(ocf.ZStandard), ocf.WithZStandardEncoder(zenc))
	default:
		return nil, fmt.Errorf("%w: Avro codec %q", ErrUnsupported, cfg.codec)
	}
	var buf bytes.Buffer
	enc, err := ocf.NewEncoderWithSchema(schemas[schemaJSON], &buf, encOpts...)
	if err != nil {
		return nil, fmt.Errorf("manifest: new Avro encoder: %w", err)
	}
	for i := range recs {
		if err := enc.Encode(&recs[i]); err != nil {
			_ = enc.Close() // the encode error is the one to report
			return nil, fmt.Errorf("manifest: encode record %d: %w", i, err)
		}
	}
	if err := enc.Close(); err != nil {
		return nil, fmt.Errorf("manifest: close Avro encoder: %w", err)
	}
	return buf.Bytes(), nil
}

// WriteManifest encodes entries as a manifest file (manifest-*) in the
// 1.3.1 shape. The file's size is len of the result.
func WriteManifest(entries []ManifestEntry, opts ...WriteOption) ([]byte, error) {
	recs := make([]entryW, len(entries))
	for i := range entries {
		if err := recs[i].from(&entries[i]); err != nil {
			return nil, fmt.Errorf("manifest: entry %d (%s): %w", i, entries[i].File.FileName, err)
		}
	}
	return writeContainer(manifestSchemaJSON, recs, opts)
}

// WriteManifestList encodes metas as a manifest list (manifest-list-*).
func WriteManifestList(metas []ManifestFileMeta, opts ...WriteOption) ([]byte, error) {
	recs := make([]fileMetaW, len(metas))
	for i := range metas {
		recs[i].from(&metas[i])
	}
	return writeContainer(manifestListSchemaJSON, recs, opts)
}

// WriteIndexManifest encodes entries as an index manifest
// (index-manifest-*).
func WriteIndexManifest(entries []IndexManifestEntry, opts ...WriteOption) ([]byte, error) {
	recs := make([]indexEntryW, len(entries))
	for i := range entries {
		if err := recs[i].from(&entries[i]); err != nil {
			return nil, fmt.Errorf("manifest: index entry %d (%s): %w", i, entries[i].IndexFile.FileName, err)
		}
	}
	return writeContainer(indexManifestSchemaJSON, recs, opts)
}

// zstdEncoders keeps zstd encoders per level for the container writers: a
// new encoder costs ~1 MB and most of a small commit's manifest write
// (BenchmarkWriteSmallManifest). An encoder serves one writer at a time
// (the codec resets it after each block).
var zstdEncoders encoderPools

type encoderPools struct {
	mu    sync.Mutex
	pools map[int]*sync.Pool
}

func (p *encoderPools) pool(level int) *sync.Pool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.pools == nil {
		p.pools = map[int]*sync.Pool{}
	}
	pl := p.pools[level]
	if pl == nil {
		pl = &sync.Pool{}
		p.pools[level] = pl
	}
	return pl
}

func (p *encoderPools) get(level int) (*zstd.Encoder, error) {
	if e, ok := p.pool(level).Get().(*zstd.Encoder); ok {
		return e, nil
	}
	return zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.EncoderLevelFromZstd(level)), zstd.WithEncoderConcurrency(1))
}

func (p *encoderPools) put(level int, e *zstd.Encoder) {
	e.Reset(nil)
	p.pool(level).Put(e)
}
