// Package engines holds the comparison that chose the inbound journal's
// engine: appending 4 KiB records durably with raw writes, bbolt, pebble,
// raft-wal and server/journal, on the same disk in one run
// (engines_test.go; docs/performance.md has the command, the table and the
// choice).
//
// It is a module of its own (bench/engines/go.mod, with a replace of the
// main module), so that the product's go.mod needs none of pebble,
// hashicorp/raft or raft-wal. Run it with `make bench-engines`.
package engines
