package config

import (
	"fmt"
	"runtime/debug"
	"strings"
)

// Version is what `lakesql version` prints: the module version and the
// VCS commit the binary was built from (debug.ReadBuildInfo).
type Version struct {
	Module   string // the main module path
	Version  string // "(devel)" for a build from a source tree
	Commit   string // vcs.revision ("" when built without VCS stamping)
	Time     string // vcs.time
	Modified bool   // vcs.modified: uncommitted changes were built
	Go       string
}

// ReadVersion reads the binary's build information.
func ReadVersion() Version {
	v := Version{Version: "unknown"}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return v
	}
	v.Module, v.Version, v.Go = bi.Main.Path, bi.Main.Version, bi.GoVersion
	if v.Version == "" {
		v.Version = "(devel)"
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			v.Commit = s.Value
		case "vcs.time":
			v.Time = s.Value
		case "vcs.modified":
			v.Modified = s.Value == "true"
		}
	}
	return v
}

func (v Version) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "lakesql %s\n", v.Version)
	if v.Module != "" {
		fmt.Fprintf(&b, "module: %s\n", v.Module)
	}
	commit := v.Commit
	switch {
	case commit == "":
		commit = "unknown (built without VCS information)"
	case v.Modified:
		commit += " (with uncommitted changes)"
	}
	fmt.Fprintf(&b, "commit: %s\n", commit)
	if v.Time != "" {
		fmt.Fprintf(&b, "commit time: %s\n", v.Time)
	}
	if v.Go != "" {
		fmt.Fprintf(&b, "go: %s\n", v.Go)
	}
	return b.String()
}
