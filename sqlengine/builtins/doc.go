// Package builtins replaces go-mysql-server v0.20.0 built-ins that give
// answers MySQL 8.0 does not, in four places:
//
//   - Functions, through analyzer.ExternalFunctionProvider, which GMS's
//     catalog asks before its own registry (funcs.go, aggs.go, choice.go):
//     SIGN, CEIL/CEILING/FLOOR, TRUNCATE, ABS, ROUND of a DOUBLE, LPAD/RPAD,
//     GREATEST/LEAST, IF/IFNULL/COALESCE, SUM/AVG (also as window
//     functions) and RANK/DENSE_RANK/PERCENT_RANK.
//
//   - Operators, through a pre-analyzer rule (rule.go, exprs.go,
//     compare.go) that swaps GMS's expression nodes for MySQL-exact ones:
//     integer +, -, * and unary minus fail with 1690 on overflow, integer
//     MOD is exact, DIV of decimals truncates the exact quotient, CAST to
//     DECIMAL(M,D) clamps with warning 1264, comparisons across types
//     convert as MySQL does (also element by element in IN lists, and per
//     row in IN (subquery) when the subquery's column has another type),
//     NOT IN / NOT EXISTS (subquery) are evaluated per row with SQL's NULL
//     rules instead of GMS's anti-joins, a searched CASE gets MySQL's
//     result type, and LIKE keeps its escapes.
//
//   - The parser, wrapped (parser.go) so the planbuilder cannot round a
//     DECIMAL literal into a DECIMAL column's scale or drop a CAST to
//     DECIMAL before the rule runs, and so INSERT … SELECT … ON DUPLICATE
//     KEY UPDATE c = VALUES(c) binds (odku_values.go).
//
//   - The result columns, through a post-analyzer rule (fixed_decimals.go):
//     a DOUBLE result whose decimals MySQL fixes (ROUND/TRUNCATE(x, n) with
//     a constant n and arithmetic over it) prints with those decimals.
//
// Install adds the rule and the functions to an analyzer builder and
// Parser wraps the engine's parser; sqlengine.NewEngine calls both. Each
// replacement keeps GMS's node where GMS is right, so index lookups and
// filter pushdown still see GMS's own comparisons in the common cases.
//
// Concurrency: the expressions are immutable after planning, like GMS's;
// window functions and aggregation buffers are per partition and group.
package builtins
