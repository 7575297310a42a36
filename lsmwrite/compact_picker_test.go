package lsmwrite

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"

	"github.com/lakesql/lakesql/internal/schema"
	"github.com/lakesql/lakesql/snapshot/manifest"
)

// TestCompactionPicker runs testdata/compaction_picker.
//
// Input of every command: one line per level, "L<level>: <file>...", where a
// file is "<size>" or "<size>@<max sequence number>" (level-0 files listed
// first get the larger sequence numbers unless given). Files are named
// f1, f2, ... in listing order. The files go through NewLevels, so the
// runs the picker sees are Levels.LevelSortedRuns.
//
// Arguments are table options with Paimon's keys (num-levels too), plus
// "last" and "now" (durations since an arbitrary epoch, "last=never" by
// default) for the early-full-compaction clock, and "repeat=N" to pick N
// times over the same runs with one PickState. Commands:
//
//	runs   prints the sorted runs, newest first
//	pick   PickCompaction
//	full   PickFullCompaction; "rewrite=f1,f3" or "rewrite=all" selects
//	       files of a bucket already fully compacted
//	stall  the run count and whether writes stall
func TestCompactionPicker(t *testing.T) {
	datadriven.RunTest(t, "testdata/compaction_picker", func(t *testing.T, d *datadriven.TestData) string {
		opts := schema.Options{}
		var err error
		var last, now time.Duration
		lastSet := false
		var rewrite string
		repeat := 1
		for _, a := range d.CmdArgs {
			val := strings.Join(a.Vals, ",")
			switch a.Key {
			case "last":
				if val != "never" {
					last, lastSet = mustDuration(t, d, val), true
				}
			case "now":
				now = mustDuration(t, d, val)
			case "rewrite":
				rewrite = val
			case "repeat":
				if repeat, err = strconv.Atoi(val); err != nil || repeat < 1 {
					d.Fatalf(t, "bad repeat %q", val)
				}
			default:
				opts[a.Key] = val
			}
		}
		numLevels, err := opts.NumLevels()
		if err != nil {
			return "error: " + err.Error()
		}
		copts, err := CompactionOptionsFrom(opts)
		if err != nil {
			return "error: " + err.Error()
		}
		files, err := parseLevelFiles(d.Input)
		if err != nil {
			d.Fatalf(t, "%v", err)
		}
		levels, err := NewLevels(files, numLevels, nil)
		if err != nil {
			return "error: " + err.Error()
		}
		runs := levels.LevelSortedRuns()
		epoch := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		st := PickState{Now: epoch.Add(now)}
		if lastSet {
			st.LastFullCompaction = epoch.Add(last)
		}
		switch d.Cmd {
		case "runs":
			return fmt.Sprintf("levels: %d\nhighest: %d\n%s\n", levels.NumberOfLevels(), levels.NonEmptyHighestLevel(), formatRuns(runs))
		case "pick":
			if repeat == 1 {
				unit, ok := PickCompaction(runs, levels.NumberOfLevels(), copts, &st)
				return formatUnit(unit, ok, levels)
			}
			// The same runs picked repeatedly with one PickState.
			var b strings.Builder
			for i := 1; i <= repeat; i++ {
				unit, ok := PickCompaction(runs, levels.NumberOfLevels(), copts, &st)
				fmt.Fprintf(&b, "#%d: %s", i, strings.ReplaceAll(strings.TrimSuffix(formatUnit(unit, ok, levels), "\n"), "\n", "; "))
				b.WriteString("\n")
			}
			return b.String()
		case "full":
			var sel func(*manifest.DataFileMeta) bool
			if rewrite != "" {
				names := map[string]bool{}
				for _, n := range strings.Split(rewrite, ",") {
					names[n] = true
				}
				sel = func(f *manifest.DataFileMeta) bool { return names["all"] || names[f.FileName] }
			}
			unit, ok := PickFullCompaction(runs, levels.NumberOfLevels(), sel)
			return formatUnit(unit, ok, levels)
		case "stall":
			n := levels.NumberOfSortedRuns()
			return fmt.Sprintf("runs: %d, stop-trigger: %d, stall: %t\n", n, copts.NumSortedRunStopTrigger, ShouldStallWrites(n, copts))
		}
		d.Fatalf(t, "unknown command %q", d.Cmd)
		return ""
	})
}

func mustDuration(t *testing.T, d *datadriven.TestData, s string) time.Duration {
	v, err := time.ParseDuration(s)
	if err != nil {
		d.Fatalf(t, "bad duration %q: %v", s, err)
	}
	return v
}

// parseLevelFiles reads the "L<level>: sizes" lines of a test.
func parseLevelFiles(input string) ([]manifest.DataFileMeta, error) {
	var files []manifest.DataFileMeta
	seq := int64(1_000_000)
	for _, line := range strings.Split(strings.TrimSpace(input), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		head, rest, ok := strings.Cut(line, ":")
		if !ok || !strings.HasPrefix(head, "L") {
			return nil, fmt.Errorf("bad line %q: want L<level>: sizes", line)
		}
		level, err := strconv.Atoi(head[1:])
		if err != nil {
			return nil, fmt.Errorf("bad level in %q: %w", line, err)
		}
		for _, f := range strings.Fields(rest) {
			sizeStr, seqStr, hasSeq := strings.Cut(f, "@")
			size, err := strconv.ParseInt(sizeStr, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("bad size %q: %w", f, err)
			}
			s := seq
			if hasSeq {
				if s, err = strconv.ParseInt(seqStr, 10, 64); err != nil {
					return nil, fmt.Errorf("bad sequence number %q: %w", f, err)
				}
			}
			seq--
			files = append(files, manifest.DataFileMeta{
				FileName:          fmt.Sprintf("f%d", len(files)+1),
				FileSize:          size,
				MaxSequenceNumber: s,
				Level:             manifest.Level(level),
			})
		}
	}
	return files, nil
}

func formatRuns(runs []LevelSortedRun) string {
	if len(runs) == 0 {
		return "(no runs)"
	}
	parts := make([]string, len(runs))
	for i, r := range runs {
		names := make([]string, len(r.Run.Files))
		for j, f := range r.Run.Files {
			names[j] = fmt.Sprintf("%s:%d", f.FileName, f.FileSize)
		}
		parts[i] = fmt.Sprintf("L%d[%s]", r.Level, strings.Join(names, " "))
	}
	return strings.Join(parts, " ")
}

func formatUnit(u CompactUnit, ok bool, levels *Levels) string {
	if !ok {
		return "none\n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "input: %s\n", formatRuns(u.Runs))
	fmt.Fprintf(&b, "output: L%d\n", u.OutputLevel)
	var flags []string
	if u.Full {
		flags = append(flags, "full")
	}
	if u.FileRewrite {
		flags = append(flags, "file-rewrite")
	}
	if DropDelete(u, levels.NonEmptyHighestLevel(), false) {
		flags = append(flags, "drop-delete")
	}
	if len(flags) > 0 {
		fmt.Fprintf(&b, "%s\n", strings.Join(flags, " "))
	}
	return b.String()
}
