//go:build !unix

package lookup

import "os"

func mapFile(*os.File, int64) []byte { return nil }

func unmapFile([]byte) {}

func adviseDontNeed([]byte) {}
