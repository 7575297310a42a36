package main

import (
	"fmt"
	"io"

	"github.com/lakesql/lakesql/sqlengine/config"
)

// version prints `lakesql version`.
func version(out io.Writer, args []string) error {
	if len(args) > 0 {
		return usageError{fmt.Errorf("version takes no arguments")}
	}
	_, err := io.WriteString(out, config.ReadVersion().String())
	return err
}
