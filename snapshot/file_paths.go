package snapshot

import (
	"context"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/lakesql/lakesql/internal/binaryrow"
	"github.com/lakesql/lakesql/internal/dv"
	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/internal/storage"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// BucketDir is the folder of a bucket's data files inside its partition
// folder: "bucket-<n>", or "bucket-postpone" (Java:
// FileStorePathFactory.bucketPath).
func BucketDir(b manifest.Bucket) string {
	if b == manifest.BucketPostpone {
		return "bucket-postpone"
	}
	return "bucket-" + strconv.Itoa(int(b))
}

// StatisticsDir is the folder of statistics files below the table root.
const StatisticsDir = "statistics"

// filePaths locates the files manifest entries name, relative to the table
// root (Java: FileStorePathFactory, DataFilePathFactory, IndexPathFactory):
// data, changelog and extra files in <partition path>bucket-<n>/, index
// files in index/ (or the bucket folder with index-file-in-data-file-dir),
// metadata files in manifest/. A file with an external path lives at that
// absolute URL instead.
type filePaths struct {
	fields         []schema.DataField
	codec          *binaryrow.Codec
	defaultName    string
	legacy         bool
	indexInDataDir bool
	partitions     map[string]string // serialized partition → partition path
}

func newFilePaths(ts *schema.TableSchema) (*filePaths, error) {
	core, err := ts.Options.Core()
	if err != nil {
		return nil, err
	}
	p := &filePaths{
		fields:         ts.PartitionFields(),
		defaultName:    core.PartitionDefaultName,
		legacy:         core.PartitionLegacyName,
		indexInDataDir: core.IndexFileInDataFileDir,
		partitions:     map[string]string{},
	}
	types := make([]schema.DataType, len(p.fields))
	for i, f := range p.fields {
		types[i] = f.Type
	}
	if p.codec, err = binaryrow.NewCodec(types); err != nil {
		return nil, err
	}
	return p, nil
}

// partitionPath is the folder of a serialized partition, with a trailing
// '/' ("" when unpartitioned).
func (p *filePaths) partitionPath(partition []byte) (string, error) {
	if len(p.fields) == 0 {
		return "", nil
	}
	if pp, ok := p.partitions[string(partition)]; ok {
		return pp, nil
	}
	vals, err := p.codec.DecodeSerialized(partition)
	if err != nil {
		return "", fmt.Errorf("%w: partition: %v", ErrCorrupt, err)
	}
	pp, err := schema.PartitionPath(p.fields, vals, p.defaultName, p.legacy)
	if err != nil {
		return "", err
	}
	p.partitions[string(partition)] = pp
	return pp, nil
}

// bucketPath is the folder of (partition, bucket), without a trailing '/'.
func (p *filePaths) bucketPath(partition []byte, bucket manifest.Bucket) (string, error) {
	pp, err := p.partitionPath(partition)
	if err != nil {
		return "", err
	}
	return pp + BucketDir(bucket), nil
}

// filePath is the location of a data or changelog file: a path relative to
// the table root, or an absolute URL (external is true).
type filePath struct {
	path     string
	external bool
}

// dataFile locates the file of e and its extra files (file-index
// sidecars), which live next to it.
func (p *filePaths) dataFile(e *manifest.ManifestEntry) (filePath, []filePath, error) {
	var main filePath
	if e.File.ExternalPath != nil && *e.File.ExternalPath != "" {
		main = filePath{path: *e.File.ExternalPath, external: true}
	} else {
		dir, err := p.bucketPath(e.Partition, e.Bucket)
		if err != nil {
			return filePath{}, nil, err
		}
		main = filePath{path: dir + "/" + e.File.FileName}
	}
	var extras []filePath
	for _, x := range e.File.ExtraFiles {
		extras = append(extras, filePath{path: siblingPath(main.path, x), external: main.external})
	}
	return main, extras, nil
}

// siblingPath is name in the folder of file.
func siblingPath(file, name string) string {
	if i := strings.LastIndexByte(file, '/'); i >= 0 {
		return file[:i+1] + name
	}
	return name
}

// indexFile locates an index file.
func (p *filePaths) indexFile(e *manifest.IndexManifestEntry) (filePath, error) {
	f := &e.IndexFile
	if f.ExternalPath != nil && *f.ExternalPath != "" {
		return filePath{path: *f.ExternalPath, external: true}, nil
	}
	if p.indexInDataDir {
		dir, err := p.bucketPath(e.Partition, e.Bucket)
		if err != nil {
			return filePath{}, err
		}
		return filePath{path: dir + "/" + f.FileName}, nil
	}
	return filePath{path: dv.IndexFilePath(f.FileName)}, nil
}

// manifestPath is the path of a manifest, manifest list or index manifest.
func manifestPath(name string) string { return manifest.ManifestDir + "/" + name }

// deleteFile removes a file relative to st, or at an absolute URL; a file
// that does not exist is not an error.
func deleteFile(ctx context.Context, st storage.Storage, f filePath) error {
	var err error
	if f.external {
		err = deleteURL(ctx, f.path)
	} else {
		err = st.Delete(ctx, f.path)
	}
	if err != nil && !isNotExist(err) {
		return err
	}
	return nil
}

// deleteURL deletes the object at an absolute URL by opening its folder.
func deleteURL(ctx context.Context, url string) error {
	i := strings.LastIndexByte(url, '/')
	if i < 0 || strings.HasSuffix(url[:i], ":/") {
		return fmt.Errorf("snapshot: external path %q has no folder", url)
	}
	dir, name := url[:i], url[i+1:]
	st, err := storage.Open(ctx, dir)
	if err != nil {
		return err
	}
	defer st.Close()
	return st.Delete(ctx, path.Clean(name))
}
