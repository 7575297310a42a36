// Package deps pins third-party modules while the packages that use them are
// being written. It is removed once every dependency has a real importer.
package deps

import (
	_ "github.com/RoaringBitmap/roaring/v2"
	_ "github.com/RoaringBitmap/roaring/v2/roaring64"
	_ "github.com/apache/arrow-go/v18/parquet/pqarrow"
	_ "github.com/cockroachdb/datadriven"
	_ "github.com/dolthub/go-mysql-server"
	_ "github.com/dolthub/go-mysql-server/memory"
	_ "github.com/dolthub/go-mysql-server/server"
	_ "github.com/go-sql-driver/mysql"
	_ "github.com/google/uuid"
	_ "github.com/hamba/avro/v2/ocf"
	_ "github.com/klauspost/compress/zstd"
	_ "github.com/parquet-go/parquet-go"
	_ "github.com/parquet-go/parquet-go/compress/zstd"
	_ "github.com/shopspring/decimal"
	_ "gocloud.dev/blob/fileblob"
	_ "gocloud.dev/blob/memblob"
	_ "gocloud.dev/blob/s3blob"
	_ "golang.org/x/sync/errgroup"
)
