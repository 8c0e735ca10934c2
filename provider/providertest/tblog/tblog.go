// Package tblog runs a platform stand-in's HTTP server in a test: its own
// log lines (the HTTP server's) go into the test's log, and it is shut
// down in one order when the test ends. It imports nothing of chatbus, so
// a stand-in stays apart from the provider runtime.
package tblog

import (
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
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

// Server is a platform stand-in's HTTP server, started by [Start].
type Server struct {
	*httptest.Server
	// Done is closed when Close begins: a handler waiting for something
	// (a long poll, a hung request) selects on it and returns.
	Done chan struct{}
	// WG counts the stand-in's own goroutines (a websocket's reader and
	// writer, a dispatcher); Close waits for them last.
	WG sync.WaitGroup

	stop func()
	once sync.Once
}

// Start serves h for a stand-in, on ln (nil: a new 127.0.0.1 port), with
// its log lines in the test's log after prefix, and closes it when the
// test ends. stop, if not nil, is the stand-in's own part of closing (say,
// ending its websocket sessions): it runs after Done is closed, before the
// connections are cut.
func Start(tb testing.TB, prefix string, h http.Handler, ln net.Listener, stop func()) *Server {
	s := &Server{Server: httptest.NewUnstartedServer(h), Done: make(chan struct{}), stop: stop}
	if ln != nil {
		s.Listener.Close()
		s.Listener = ln
	}
	s.Config.ErrorLog = ErrorLog(tb, prefix)
	s.Server.Start()
	tb.Cleanup(s.Close)
	return s
}

// Close stops the server: Done is closed, stop runs, the client
// connections are cut, and Close returns once every handler and every
// goroutine of WG has returned. It is idempotent.
func (s *Server) Close() {
	s.once.Do(func() {
		close(s.Done)
		if s.stop != nil {
			s.stop()
		}
		s.CloseClientConnections()
		s.Server.Close()
		s.WG.Wait()
	})
}
