// Package builtins replaces go-mysql-server v0.20.0 built-ins that give
// answers MySQL 8.0 does not: functions through a sql.FunctionProvider that
// the catalog asks before its own registry (SIGN, CEIL/FLOOR, TRUNCATE,
// ABS, LPAD/RPAD, SUM), and operators through a pre-analyzer rule that
// swaps GMS's expression nodes for MySQL-exact ones (integer overflow is
// error 1690, DIV of decimals, comparisons across types, CAST to an
// out-of-range DECIMAL clamps with a warning, NULL [NOT] IN (subquery)).
//
// Install adds both to an analyzer builder; sqlengine.NewEngine calls it.
// Each replacement keeps GMS's node where GMS is right, so index lookups
// and filter pushdown still see GMS's own comparisons.
//
// Concurrency: the expressions are immutable after planning, like GMS's.
package builtins
