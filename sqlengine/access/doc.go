// Package access is lakesql's account and file-access layer over
// go-mysql-server's built-in `mysql` database (sql/mysql_db): users, grants
// and the MySQL authentication plugins live in GMS; this package persists
// them in the warehouse (or a --users-file), reloads them when another
// server changed them, authenticates clients (mysql_native_password and
// caching_sha2_password, TLS-only accounts, require_secure_transport), and
// confines the statements that touch server files (LOAD DATA INFILE,
// SELECT … INTO OUTFILE/DUMPFILE, LOAD_FILE) to secure_file_priv.
//
// Storage: the warehouse keeps the account data, in GMS's own serialized
// form (a flatbuffer of mysql_db; secrets are MySQL's hashes, never the
// passwords), as numbered versions `_lakesql/users/users-N` beside the
// `*.db` folders (Paimon catalogs ignore it). A change writes version N+1
// with the storage's atomic create-if-not-exists, so of two servers
// changing accounts at once exactly one wins; the other's statement fails
// with 1213 and its copy is reloaded. A server re-reads the latest version
// at every login, before every account statement, and at most once a
// second before other statements.
//
// Concurrency: a Users is safe for concurrent use; the GMS database holds
// its own lock (Reader/Editor) and Users' own fields are guarded by mu.
package access
