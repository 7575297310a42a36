//go:build !unix

package storage

import (
	"errors"
	"os"
)

var errNoFlock = errors.New("the file: commit lock needs flock(2), which this OS lacks")

func tryFlock(*os.File) (bool, error) { return false, errNoFlock }

func unFlock(*os.File) error { return errNoFlock }
