package tests

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/lakesql/lakesql/"

// layerRules lists, per package (a prefix of its path in the module), the
// module packages it must not import. Imports point down the stack:
// cmd → sqlengine → provider, procedures → lsmread, lsmwrite → snapshot →
// internal/*.
var layerRules = map[string][]string{
	"internal/":        {"cmd", "sqlengine", "provider", "procedures", "lsmread", "lsmwrite", "snapshot"},
	"internal/schema":  {"internal/storage", "internal/kv", "internal/datafile", "internal/dv", "internal/binaryrow", "internal/sortedrun", "internal/lookup"},
	"internal/storage": {"internal/schema", "internal/kv", "internal/datafile", "internal/dv", "internal/binaryrow", "internal/sortedrun", "internal/lookup", "internal/jackson"},
	// The leaves inside internal/: jackson and dv import no lakesql
	// package; the value leaves (binaryrow, kv) and the file formats
	// (datafile) sit below the two readers built on them, sortedrun (a data
	// file as a sorted KeyValue run, shared by lsmread and lsmwrite) and
	// lookup (lookup files), which do not import each other.
	"internal/jackson":   {"internal/storage", "internal/schema", "internal/kv", "internal/datafile", "internal/dv", "internal/binaryrow", "internal/sortedrun", "internal/lookup", "internal/metrics"},
	"internal/dv":        {"internal/storage", "internal/schema", "internal/kv", "internal/datafile", "internal/binaryrow", "internal/sortedrun", "internal/lookup", "internal/jackson", "internal/metrics"},
	"internal/binaryrow": {"internal/storage", "internal/kv", "internal/datafile", "internal/dv", "internal/sortedrun", "internal/lookup"},
	"internal/kv":        {"internal/storage", "internal/datafile", "internal/dv", "internal/sortedrun", "internal/lookup"},
	"internal/datafile":  {"internal/kv", "internal/dv", "internal/sortedrun", "internal/lookup"},
	"internal/sortedrun": {"internal/lookup"},
	"internal/lookup":    {"internal/sortedrun"},
	// internal/metrics is the leaf every layer updates: it imports no other
	// lakesql package.
	"internal/metrics": {"internal/storage", "internal/schema", "internal/kv", "internal/datafile", "internal/dv", "internal/binaryrow", "internal/sortedrun", "internal/jackson", "internal/testutil"},
	"snapshot":         {"cmd", "sqlengine", "provider", "procedures", "lsmread", "lsmwrite"},
	"lsmread":          {"cmd", "sqlengine", "provider", "procedures", "lsmwrite"},
	"lsmwrite":         {"cmd", "sqlengine", "provider", "procedures", "lsmread"},
	"provider":         {"cmd", "sqlengine"},
	"procedures":       {"cmd", "sqlengine"},
	"sqlengine":        {"cmd"},
}

// libraryOwners says which package alone may import a third-party library.
var libraryOwners = map[string][]string{
	"gocloud.dev":                        {"internal/storage"},
	"github.com/parquet-go/parquet-go":   {"internal/datafile"},
	"github.com/apache/arrow-go":         {"internal/datafile", "sqlengine/flight"},
	"github.com/RoaringBitmap/roaring":   {"internal/dv"},
	"github.com/hamba/avro":              {"snapshot/manifest"},
	"github.com/dolthub/go-mysql-server": {"provider", "procedures", "sqlengine"},
	"github.com/dolthub/vitess":          {"provider", "procedures", "sqlengine"},
	// Metrics: the layers update internal/metrics; only the exporter
	// imports the Prometheus client. Logs: lakesql logs through log/slog;
	// logrus only where GMS's logrus is routed into slog.
	"github.com/prometheus":      {"sqlengine/observe"},
	"github.com/sirupsen/logrus": {"sqlengine"},
	// The terminal's line editing.
	"github.com/chzyer/readline": {"sqlengine/terminal"},
}

// walkSources calls fn for every non-test Go file of the module (outside
// bench/ and testdata), with its package path relative to the module root.
func walkSources(t *testing.T, fn func(path, pkg string) error) {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); name == "bench" || name == "testdata" || strings.HasPrefix(name, ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		return fn(path, filepath.ToSlash(rel))
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestLayering enforces the import rules of CONVENTIONS.md on non-test code.
func TestLayering(t *testing.T) {
	fset := token.NewFileSet()
	checked := 0
	walkSources(t, func(path, pkg string) error {
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		checked++
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if inner, ok := strings.CutPrefix(p, module); ok {
				for prefix, banned := range layerRules {
					if !strings.HasPrefix(pkg+"/", prefix) && pkg != prefix {
						continue
					}
					for _, b := range banned {
						if inner == b || strings.HasPrefix(inner, b+"/") {
							t.Errorf("%s imports %s: imports must point down the stack", path, p)
						}
					}
				}
				continue
			}
			for lib, owners := range libraryOwners {
				if !strings.HasPrefix(p, lib) {
					continue
				}
				ok := false
				for _, o := range owners {
					if pkg == o || strings.HasPrefix(pkg, o+"/") {
						ok = true
					}
				}
				if !ok {
					t.Errorf("%s imports %s: only %v may", path, p, owners)
				}
			}
		}
		return nil
	})
	if checked < 50 {
		t.Fatalf("checked only %d files", checked)
	}
}

// dataFileOpeners are the only packages whose non-test code may open data
// files (datafile.OpenFile / OpenParquet): internal/sortedrun is the one
// sorted-run reader that lsmread (merge-on-read, raw reads) and lsmwrite
// (compaction) share, so schema evolution, external paths and deletion
// vectors are applied in one place.
var dataFileOpeners = []string{"internal/datafile", "internal/sortedrun"}

// TestSortedRunReaderIsShared enforces dataFileOpeners, and that lsmread
// reads through internal/sortedrun.
func TestSortedRunReaderIsShared(t *testing.T) {
	fset := token.NewFileSet()
	usesLeaf := map[string]bool{}
	walkSources(t, func(path, pkg string) error {
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); p == module+"internal/sortedrun" {
				usesLeaf[pkg] = true
			}
		}
		if slices.Contains(dataFileOpeners, pkg) {
			return nil
		}
		ast.Inspect(f, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == "datafile" && (sel.Sel.Name == "OpenFile" || sel.Sel.Name == "OpenParquet") {
				t.Errorf("%s: calls datafile.%s; data files are opened through internal/sortedrun", fset.Position(sel.Pos()), sel.Sel.Name)
			}
			return true
		})
		return nil
	})
	if !usesLeaf["lsmread"] {
		t.Error("lsmread does not import internal/sortedrun")
	}
}

// cmdImports are the module packages cmd/lakesql may import: it wires the
// engine and the library commands, and holds no logic of its own.
var cmdImports = []string{"sqlengine", "sqlengine/access", "sqlengine/config", "sqlengine/observe", "sqlengine/terminal", "sqlengine/flight", "lsmread/inspect", "lsmwrite/compactjob"}

// TestCmdIsWiring enforces cmdImports.
func TestCmdIsWiring(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "cmd", "lakesql", "*.go"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no files in cmd/lakesql: %v", err)
	}
	fset := token.NewFileSet()
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if inner, ok := strings.CutPrefix(p, module); ok && !slices.Contains(cmdImports, inner) {
				t.Errorf("%s imports %s: cmd/lakesql wires only %v", path, p, cmdImports)
			}
		}
	}
}

// providerBanned are the calls provider's non-test code must not make:
// provider is the GMS adapter only, so catalog layout (listing, creating
// and deleting objects), planning and reading files, decoding manifests and
// writing or committing tables happen below it (snapshot.Catalog, lsmread,
// lsmwrite), reached through their APIs.
var providerBanned = map[string]bool{
	// storage: the catalog layout and file I/O
	"storage.ListDirs": true, ".ReadAll": true, ".WriteAll": true, ".CreateIfNotExists": true, ".MkdirAll": true, ".Delete": true,
	// manifests: decoded by snapshot/manifest, read through snapshot's scan and cache
	"manifest.ReadManifest": true, "manifest.ReadManifestList": true, "manifest.ReadIndexManifest": true,
	// reading a split row by row or batch by batch (provider uses
	// ReadParallel, ReadParallelBatches, ReadPending, LookupKey and
	// Plan.Aggregate), and running splits on its own workers: execution
	// belongs below the adapter
	".Read": true, ".ReadBatches": true, "runtime.GOMAXPROCS": true,
	// schema files, commits and writers: snapshot.Catalog and lsmwrite.CommitTransaction
	"snapshot.NewSchemaManager": true, "snapshot.NewCommitter": true, "lsmwrite.NewTableWrite": true,
}

// providerBannedImports are packages provider must not import at all.
var providerBannedImports = []string{"internal/datafile", "internal/sortedrun", "internal/dv"}

// TestProviderIsAdapter enforces providerBanned and providerBannedImports,
// and that lsmread and lsmwrite both read data files through the shared
// sorted-run leaf.
func TestProviderIsAdapter(t *testing.T) {
	fset := token.NewFileSet()
	usesLeaf := map[string]bool{}
	walkSources(t, func(path, pkg string) error {
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			inner, ok := strings.CutPrefix(p, module)
			if !ok {
				continue
			}
			if inner == "internal/sortedrun" {
				usesLeaf[pkg] = true
			}
			if pkg == "provider" && slices.Contains(providerBannedImports, inner) {
				t.Errorf("%s imports %s: provider is the GMS adapter; files are read below it", path, p)
			}
		}
		if pkg != "provider" {
			return nil
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			name := "." + sel.Sel.Name
			if id, ok := sel.X.(*ast.Ident); ok && providerBanned[id.Name+name] {
				t.Errorf("%s: provider calls %s.%s; that belongs below the GMS adapter", fset.Position(sel.Pos()), id.Name, sel.Sel.Name)
			} else if providerBanned[name] {
				t.Errorf("%s: provider calls %s; that belongs below the GMS adapter", fset.Position(sel.Pos()), name)
			}
			return true
		})
		return nil
	})
	for _, pkg := range []string{"lsmread", "lsmwrite"} {
		if !usesLeaf[pkg] {
			t.Errorf("%s does not read data files through internal/sortedrun", pkg)
		}
	}
}
