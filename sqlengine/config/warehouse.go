package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// PrepareWarehouse makes a local warehouse path absolute and checks that it
// exists, creating it when create is set or when it is the default
// ./warehouse (so that the README's first command works in a fresh folder;
// a mistyped path is an error, not a new empty warehouse). created reports
// that it made the folder. Object-store URLs are left alone.
func (c *Config) PrepareWarehouse() (created bool, err error) {
	loc := c.Warehouse
	if strings.Contains(loc, "://") && !strings.HasPrefix(loc, "file://") {
		return false, nil // object stores have no folders to create
	}
	p, query, _ := strings.Cut(strings.TrimPrefix(loc, "file://"), "?")
	abs, err := filepath.Abs(p)
	if err != nil {
		return false, fmt.Errorf("warehouse %s: %w", loc, err)
	}
	c.Warehouse = abs
	if query != "" {
		c.Warehouse = "file://" + abs + "?" + query
	}
	st, err := os.Stat(abs)
	switch {
	case err == nil && !st.IsDir():
		return false, fmt.Errorf("warehouse %s is not a directory", abs)
	case err == nil:
		return false, nil
	case !errors.Is(err, os.ErrNotExist):
		return false, fmt.Errorf("warehouse %s: %w", abs, err)
	case !c.Create && loc != DefaultWarehouse:
		return false, fmt.Errorf("warehouse %s does not exist; pass --create to create it", abs)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return false, fmt.Errorf("create warehouse %s: %w", abs, err)
	}
	return true, nil
}
