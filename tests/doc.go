// Package tests holds lakesql's end-to-end, compatibility, metamorphic and
// fault tests. It has no non-test code.
package tests
