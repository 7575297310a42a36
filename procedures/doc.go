// Package procedures holds one file per CALL sys.* procedure, each a thin
// wrapper over a library call in lsmwrite or snapshot.
package procedures
