// Package procedures holds one file per CALL sys.* procedure, each a thin
// wrapper over library calls in snapshot, lsmread and lsmwrite, and the
// registry that declares them: a Procedure names its parameters (Paimon's
// Spark spellings, with Flink's as aliases), their types and whether they
// are required, and the table privileges it needs, so that sqlengine's
// CALL front (sqlengine/call_handler.go) can reject an unknown procedure or
// argument, a missing one or a bad value with a MySQL error before
// anything runs.
//
// Binding follows Paimon's Spark resolver: positional arguments fill the
// parameters in order; named ones (`name => value`) may follow them; no
// parameter twice; NULL is the same as leaving an optional one out.
//
// Procedures find tables through the Catalog interface (sqlengine
// implements it over the provider) and report what they did as one
// Result. They hold no state; every procedure is safe for concurrent use
// (maintenance of one table is serialized inside snapshot).
package procedures
