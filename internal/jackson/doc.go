// Package jackson is the one home of Paimon's JSON metadata as Java's
// Jackson (JsonSerdeUtil) reads and writes it: an ordered tree (Node) that
// keeps key order and number text, one parser (Parse) with a Strict mode
// (schema files: repeated keys and invalid UTF-8 refused) and a Lenient one
// (snapshots, tags, consumers: a repeated key's last value wins, as Jackson
// reads it into a map or bean), and one writer (Writer) that reproduces
// Jackson's default pretty printer and its flat form byte for byte.
//
// Concurrency: a Node is plain data; a Writer is for one goroutine.
// Invariants: Parse never panics and bounds nesting (MaxDepth); what Parse
// reads, Writer.Node writes back to bytes that Parse reads to the same tree,
// and the Java-written metadata files to the same bytes.
package jackson
