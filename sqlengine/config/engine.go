package config

import (
	"time"

	"github.com/lakesql/lakesql/sqlengine"
)

// Engine is the sqlengine configuration of these settings.
func (c *Config) Engine() sqlengine.Config {
	s := &c.Settings
	cache := s.ManifestCacheEntries
	if cache == 0 {
		cache = -1 // the setting's 0 is no cache; the engine's 0 is its default
	}
	return sqlengine.Config{
		Warehouse:         s.Warehouse,
		Host:              s.Host,
		Port:              s.Port,
		ReadOnly:          s.ReadOnly,
		CommitLock:        s.CommitLock,
		CommitLockTimeout: time.Duration(s.CommitLockTimeout),
		Security: sqlengine.SecurityConfig{
			UsersFile:              s.UsersFile,
			TLSCert:                s.TLSCert,
			TLSKey:                 s.TLSKey,
			RequireSecureTransport: s.RequireSecureTransport,
			SecureFilePriv:         s.SecureFilePriv,
			LocalInfile:            s.LocalInfile,
		},
		SlowQuery:            time.Duration(s.SlowQueryMs) * time.Millisecond,
		TableDefaults:        s.TableDefaults,
		ManifestCacheEntries: cache,
		QueryMemoryLimit:     int64(s.QueryMemoryLimit),
		MemoryLimit:          int64(s.MemoryLimit),
		MaxExecutionTime:     time.Duration(s.MaxExecutionTime) * time.Millisecond,
		CompactionWorkers:    compactionWorkers(s.CompactionWorkers),
		GCHeadroom:           gcHeadroom(int64(s.GCHeadroom)),
	}
}

// compactionWorkers maps the setting (0: compact inside the committing
// statement) to sqlengine.Config's (0: the default, negative: none).
func compactionWorkers(n int) int {
	if n == 0 {
		return -1
	}
	return n
}

// gcHeadroom maps the setting (0: GOGC alone) to sqlengine.Config's (0:
// the default, negative: none).
func gcHeadroom(n int64) int64 {
	if n == 0 {
		return -1
	}
	return n
}
