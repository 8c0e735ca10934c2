// Package tblog sends a platform stand-in's own log lines (its HTTP
// server's) into the test's log. It imports nothing of chatbus, so a
// stand-in stays apart from the provider runtime.
package tblog

import (
	"log"
	"strings"
	"testing"
)

// ErrorLog is an http.Server's ErrorLog for a platform stand-in: the
// server's own lines, prefixed, in the test's log. Close the server in a
// Cleanup, so that it never logs after the test ended.
func ErrorLog(tb testing.TB, prefix string) *log.Logger {
	return log.New(tbWriter{tb}, prefix, 0)
}

type tbWriter struct{ tb testing.TB }

func (w tbWriter) Write(p []byte) (int, error) {
	w.tb.Logf("%s", strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
