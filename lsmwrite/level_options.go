package lsmwrite

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/lakesql/lakesql/internal/schema"
)

// Per-level writer options (CoreOptions FILE_COMPRESSION_PER_LEVEL,
// METADATA_STATS_MODE_PER_LEVEL): Java's KeyValueFileWriterFactory picks the
// compression and the default stats mode of a data file by the level it is
// written to, so level-0 flushes and compaction outputs may differ.
const (
	optFileCompressionPerLevel = "file.compression.per.level"
	optStatsModePerLevel       = "metadata.stats-mode.per.level"
)

// parseLevelMap parses a Paimon map option "0:lz4,1:zstd" keyed by level
// (Java ConfigOption mapType; Integer.valueOf on the keys).
func parseLevelMap(o schema.Options, key string) (map[int]string, error) {
	v, ok := o[key]
	if !ok || strings.TrimSpace(v) == "" {
		return nil, nil
	}
	out := map[int]string{}
	for _, item := range strings.Split(v, ",") {
		k, val, ok := strings.Cut(item, ":")
		if !ok {
			return nil, fmt.Errorf("%w: table option %s=%s: %q is not level:value", schema.ErrInvalidOption, key, v, item)
		}
		level, err := strconv.Atoi(strings.TrimSpace(k))
		if err != nil || level < 0 {
			return nil, fmt.Errorf("%w: table option %s=%s: %q is not a level", schema.ErrInvalidOption, key, v, k)
		}
		out[level] = strings.TrimSpace(val)
	}
	return out, nil
}

// levelSpecs builds the file specs of the levels the per-level options
// name; forLevel falls back to s for the others.
func (s *fileSpec) buildLevelSpecs(sch *schema.TableSchema) error {
	comp, err := parseLevelMap(sch.Options, optFileCompressionPerLevel)
	if err != nil {
		return err
	}
	stats, err := parseLevelMap(sch.Options, optStatsModePerLevel)
	if err != nil {
		return err
	}
	for level := range comp {
		if _, err := s.levelSpec(level); err != nil {
			return err
		}
	}
	for level := range stats {
		if _, err := s.levelSpec(level); err != nil {
			return err
		}
	}
	for level, ls := range s.levels {
		if c, ok := comp[level]; ok {
			ls.wopts.Compression = c
		}
		if m, ok := stats[level]; ok {
			modes, err := parseStatsModesDefault(sch, m, optStatsModePerLevel)
			if err != nil {
				return err
			}
			ls.valueModes = modes
			off := len(ls.cols) - ls.nValue
			sm := append([]string(nil), ls.wopts.StatsModes...)
			for i, md := range modes {
				sm[off+i] = md.String()
			}
			ls.wopts.StatsModes = sm
		}
	}
	return nil
}

func (s *fileSpec) levelSpec(level int) (*fileSpec, error) {
	if s.levels == nil {
		s.levels = map[int]*fileSpec{}
	}
	if ls, ok := s.levels[level]; ok {
		return ls, nil
	}
	c := *s
	c.levels = nil
	s.levels[level] = &c
	return &c, nil
}

// forLevel is the spec of files written to level.
func (s *fileSpec) forLevel(level int) *fileSpec {
	if ls, ok := s.levels[level]; ok {
		return ls
	}
	return s
}
