package tests

import "testing"

// TestServerSetReadsTokens: the statements the DDL front answers itself
// (SET of read_only, time_zone, dotted names; KILL) are recognised on the
// tokens of the one lexer, so words inside a string or a comment are not
// taken for an assignment, while the real assignments keep their errors.
func TestServerSetReadsTokens(t *testing.T) {
	s := startDDLServer(t)
	s.exec(t,
		"SET @a = 'x read_only = 1'",
		`SET @b = 'y, time_zone = "Nowhere/Nowhere"'`,
		"SET @c = 1 /* , read_only = 1 */",
		"SET @d = 'lakesql.x = 1'",
		"SET @read_only = 1",
		"/* KILL 999999 */ SELECT 1",
	)
	for _, c := range []struct {
		q    string
		code uint16
		want string
	}{
		{"SET @e = 'read_only = 1', read_only = 1", 1238, "read_only"},
		{"SET @@global.super_read_only := 1", 1238, "super_read_only"},
		{"SET @f = 1, @@time_zone = 'Nowhere/Nowhere'", 1298, "Nowhere/Nowhere"},
		{"/* first */ KILL CONNECTION 999999 ;", 1094, "999999"},
		{"SET GLOBAL lakesql . x = 1", 1193, "lakesql.x"},
	} {
		s.fails(t, c.q, c.code, c.want)
	}
}
