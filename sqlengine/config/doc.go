// Package config is lakesql's configuration: one Settings struct whose
// fields are the settings, read from a TOML config file, LAKESQL_*
// environment variables and command-line flags with one precedence rule
// (flags > environment > file > defaults), validated, and printed back as a
// config file (lakesql serve --print-config). Engine turns it into the
// sqlengine configuration; the commands in cmd/lakesql only wire.
//
// A setting's name is its TOML key and its flag (--name); its environment
// variable is LAKESQL_ and the name upper-cased with '-' as '_'. The keys
// of table-defaults merge key by key, each with the same precedence.
package config
