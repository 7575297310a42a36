//go:build !linux

package storage

import "context"

// DirVersion: only Linux's inotify is trusted to see every change.
func (s *localStorage) DirVersion(context.Context, string) (uint64, bool) { return 0, false }

func watchable(string) bool { return false }
