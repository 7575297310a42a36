package binaryrow

import (
	"fmt"
	"strings"

	"github.com/lakesql/lakesql/internal/schema"
)

// BucketFunctionType is the `bucket-function.type` table option
// (org.apache.paimon.CoreOptions.BucketFunctionType).
type BucketFunctionType string

const (
	// BucketFunctionDefault hashes the bucket-key BinaryRow (default).
	BucketFunctionDefault BucketFunctionType = "default"
	// BucketFunctionMod is floorMod of a single INT/BIGINT bucket key.
	BucketFunctionMod BucketFunctionType = "mod"
)

// ParseBucketFunctionType parses the option value (case-insensitive; empty
// means default).
func ParseBucketFunctionType(s string) (BucketFunctionType, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "default":
		return BucketFunctionDefault, nil
	case "mod":
		return BucketFunctionMod, nil
	}
	return "", fmt.Errorf("%w: bucket-function.type %q", ErrUnsupported, s)
}

// Bucketer computes fixed-bucket ids of rows (FixedBucketRowKeyExtractor with
// DefaultBucketFunction or ModBucketFunction): it projects the bucket-key
// columns, encodes them as a BinaryRow with a reused Writer and hashes it.
// Not safe for concurrent use; it does not allocate per row.
type Bucketer struct {
	w          *Writer
	proj       []int
	key        []any
	numBuckets int
	fn         BucketFunctionType
}

// NewBucketer returns a Bucketer for rows with the field types rowTypes whose
// bucket key is the columns keyIndexes (in bucket-key order: the `bucket-key`
// option's order, else the trimmed primary key's), for `bucket = numBuckets`.
func NewBucketer(rowTypes []schema.DataType, keyIndexes []int, numBuckets int, fn BucketFunctionType) (*Bucketer, error) {
	if numBuckets <= 0 {
		return nil, fmt.Errorf("%w: fixed bucket function with bucket = %d", ErrUnsupported, numBuckets)
	}
	if len(keyIndexes) == 0 {
		return nil, fmt.Errorf("%w: empty bucket key", ErrUnsupported)
	}
	keyTypes := make([]schema.DataType, len(keyIndexes))
	for i, k := range keyIndexes {
		if k < 0 || k >= len(rowTypes) {
			return nil, fmt.Errorf("%w: bucket key column %d of a row of %d columns", ErrValue, k, len(rowTypes))
		}
		keyTypes[i] = rowTypes[k]
	}
	switch fn {
	case "", BucketFunctionDefault:
		fn = BucketFunctionDefault
	case BucketFunctionMod:
		if len(keyTypes) != 1 || (keyTypes[0].Root != schema.TypeInt && keyTypes[0].Root != schema.TypeBigInt) {
			return nil, fmt.Errorf("%w: bucket-function.type = mod needs a single INT or BIGINT bucket key", ErrUnsupported)
		}
	default:
		return nil, fmt.Errorf("%w: bucket-function.type %q", ErrUnsupported, fn)
	}
	w, err := NewWriter(keyTypes)
	if err != nil {
		return nil, fmt.Errorf("bucket key: %w", err)
	}
	return &Bucketer{
		w:          w,
		proj:       append([]int(nil), keyIndexes...),
		key:        make([]any, len(keyIndexes)),
		numBuckets: numBuckets,
		fn:         fn,
	}, nil
}

// NumBuckets is the bucket count.
func (b *Bucketer) NumBuckets() int { return b.numBuckets }

func (b *Bucketer) project(row []any) ([]any, error) {
	for i, k := range b.proj {
		if k >= len(row) {
			return nil, fmt.Errorf("%w: row of %d values lacks bucket key column %d", ErrValue, len(row), k)
		}
		b.key[i] = row[k]
	}
	return b.key, nil
}

// Bucket returns the bucket of a full row.
func (b *Bucketer) Bucket(row []any) (int, error) {
	key, err := b.project(row)
	if err != nil {
		return 0, err
	}
	bucket, err := b.BucketOfKey(key)
	clear(b.key) // do not pin the caller's values
	return bucket, err
}

// BucketOfKey returns the bucket of an already projected bucket key.
func (b *Bucketer) BucketOfKey(key []any) (int, error) {
	if b.fn == BucketFunctionMod {
		if len(key) != 1 {
			return 0, fmt.Errorf("%w: bucket key has %d values, want 1", ErrValue, len(key))
		}
		switch v := key[0].(type) {
		case nil:
			return 0, nil // Java reads the zeroed slot of a null key
		case int32:
			return ModBucket(int64(v), b.numBuckets), nil
		case int64:
			return ModBucket(v, b.numBuckets), nil
		default:
			return 0, fmt.Errorf("%w: %T as mod bucket key", ErrValue, v)
		}
	}
	h, err := b.HashOfKey(key)
	if err != nil {
		return 0, err
	}
	return Bucket(h, b.numBuckets), nil
}

// Hash returns the BinaryRow hash of a full row's bucket key (the value
// stored in dynamic-bucket HASH index files when the bucket key is the
// trimmed primary key).
func (b *Bucketer) Hash(row []any) (int32, error) {
	key, err := b.project(row)
	if err != nil {
		return 0, err
	}
	h, err := b.HashOfKey(key)
	clear(b.key)
	return h, err
}

// HashOfKey returns the BinaryRow hash of an already projected bucket key.
func (b *Bucketer) HashOfKey(key []any) (int32, error) {
	data, err := b.w.Encode(key)
	if err != nil {
		return 0, err
	}
	return HashCode(data), nil
}
