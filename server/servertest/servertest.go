// Package servertest starts real supervisors for tests: a real Unix socket
// in a short temporary directory, a real state dir in t.TempDir(), and a
// client dialled with the secret. Everything is stopped by t.Cleanup.
package servertest

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/chatbus/chatbus/client"
	"github.com/chatbus/chatbus/server"
)

// Supervisor is a running supervisor.
type Supervisor struct {
	*server.Server
	Config server.Config
	Secret string
	cancel context.CancelFunc
	done   chan error
}

// SocketDir returns a new short directory for sockets (t.TempDir() paths
// can exceed the 107-byte limit), removed at cleanup.
func SocketDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "cb")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// Start starts a supervisor with cfg; empty Socket and StateDir are filled
// in with fresh temporary paths, and short timings make tests quick.
func Start(t testing.TB, cfg server.Config) *Supervisor {
	t.Helper()
	if cfg.Socket == "" {
		cfg.Socket = filepath.Join(SocketDir(t), "supervisor.sock")
	}
	if cfg.StateDir == "" {
		cfg.StateDir = filepath.Join(t.TempDir(), "state")
	}
	if cfg.Profile == "" {
		cfg.Profile = "test"
	}
	if os.Getenv("CHATBUS_TEST_LOG") != "" { // set it to see the supervisor log in test output
		cfg.Logger = zerolog.New(zerolog.NewTestWriter(t)).With().Timestamp().Logger()
	}
	ready := make(chan struct{})
	cfg.OnReady = func() { close(ready) }
	srv, err := server.New(cfg)
	if err != nil {
		t.Fatalf("server.New: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Supervisor{Server: srv, Config: cfg, cancel: cancel, done: make(chan error, 1)}
	go func() { s.done <- srv.Run(ctx) }()
	select {
	case <-ready:
	case err := <-s.done:
		cancel()
		t.Fatalf("supervisor did not start: %v", err)
	case <-time.After(10 * time.Second):
		cancel()
		t.Fatal("supervisor not ready after 10s")
	}
	b, err := os.ReadFile(filepath.Join(cfg.StateDir, "secret"))
	if err != nil {
		t.Fatal(err)
	}
	s.Secret = string(b[:len(b)-1])
	t.Cleanup(func() { s.Stop(t) })
	return s
}

// Stop stops the supervisor and waits for Run to return (idempotent).
func (s *Supervisor) Stop(t testing.TB) error {
	t.Helper()
	s.cancel()
	select {
	case err, ok := <-s.done:
		if ok {
			close(s.done)
			return err
		}
		return nil
	case <-time.After(30 * time.Second):
		t.Fatal("supervisor did not stop within 30s")
		return nil
	}
}

// Dial returns a client with the right secret, closed at cleanup.
func (s *Supervisor) Dial(t testing.TB, opts ...client.Option) *client.Client {
	t.Helper()
	c, err := client.Dial(s.Config.Socket, append([]client.Option{client.WithSecret(s.Secret)}, opts...)...)
	if err != nil {
		t.Fatalf("dial: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}
