// Package providertest runs a provider child in-process for tests: a
// [child.Server] on a real Unix socket, dialled the way the supervisor
// dials it, and [Fake], a scriptable Platform that needs no network.
//
// [Run] is the provider contract (provider/README.md) as a suite every
// provider passes against the stand-in of its platform.
package providertest

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/health/grpc_health_v1"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/provider/child"
)

// Context is a test's context: it ends when the test is cleaned up, or
// after 30 seconds, which bounds every blocking call the test makes.
func Context(t testing.TB) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// Download reads file id through c's DownloadFile to its end, as the
// supervisor does, and returns its bytes.
func Download(ctx context.Context, c providerv1.ProviderServiceClient, id string) ([]byte, error) {
	d, err := c.DownloadFile(ctx, &providerv1.DownloadFileRequest{FileId: id})
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	for {
		r, err := d.Recv()
		if err == io.EOF {
			return out.Bytes(), nil
		}
		if err != nil {
			return nil, err
		}
		out.Write(r.GetChunk())
	}
}

// Harness is a running provider server and a client connection to it.
type Harness struct {
	Server *child.Server
	// Socket is where it listens (a short path under os.TempDir: Unix
	// socket paths are limited to 107 bytes, which t.TempDir can exceed).
	Socket string
	// Handshake is the line Serve wrote, newline included.
	Handshake string
	// Secret is the bearer secret the server requires; Conn sends it.
	Secret string
	// Conn is a connection the way the supervisor dials: with the secret.
	Conn   *grpc.ClientConn
	Client providerv1.ProviderServiceClient
	Health grpc_health_v1.HealthClient

	cancel context.CancelFunc
	done   chan struct{}
	err    error // Serve's result, valid once done is closed
}

// Start serves cfg (Name defaults to "fake", Socket to a fresh temporary
// path, Secret to a random one) and waits for the handshake. The server is stopped and the
// connection closed in t.Cleanup; Serve must have returned by then.
func Start(t testing.TB, cfg child.Config) *Harness {
	t.Helper()
	if cfg.Name == "" {
		cfg.Name = "fake"
	}
	if cfg.Socket == "" {
		dir, err := os.MkdirTemp("", "pv")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
		cfg.Socket = filepath.Join(dir, cfg.Name+".sock")
	}
	if cfg.Secret == "" {
		b := make([]byte, 32)
		rand.Read(b)
		cfg.Secret = base64.RawURLEncoding.EncodeToString(b)
	}
	hs := &lineWriter{line: make(chan string, 1)}
	cfg.Handshake = hs

	srv, err := child.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	h := &Harness{Server: srv, Socket: cfg.Socket, Secret: cfg.Secret, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(h.done)
		h.err = srv.Serve(ctx)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-h.done:
		case <-time.After(30 * time.Second):
			t.Error("providertest: Serve did not return within 30s of cancellation")
		}
	})

	select {
	case h.Handshake = <-hs.line:
	case <-h.done:
		t.Fatalf("providertest: Serve returned before the handshake: %v", h.err)
	case <-time.After(10 * time.Second):
		t.Fatal("providertest: no handshake within 10s")
	}

	conn, err := grpc.NewClient("unix://"+cfg.Socket, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithPerRPCCredentials(Bearer(cfg.Secret)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	h.Conn = conn
	h.Client = providerv1.NewProviderServiceClient(conn)
	h.Health = grpc_health_v1.NewHealthClient(conn)
	return h
}

// Bearer sends "authorization: Bearer <secret>" on every call, over the
// insecure transport a Unix socket in a private directory is.
type Bearer string

// GetRequestMetadata implements credentials.PerRPCCredentials.
func (b Bearer) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": "Bearer " + string(b)}, nil
}

// RequireTransportSecurity implements credentials.PerRPCCredentials.
func (Bearer) RequireTransportSecurity() bool { return false }

// Done is closed when Serve has returned.
func (h *Harness) Done() <-chan struct{} { return h.done }

// Err is Serve's result; call it after Done is closed.
func (h *Harness) Err() error {
	select {
	case <-h.done:
		return h.err
	default:
		return errors.New("providertest: Serve is still running")
	}
}

// Stop cancels Serve's context and returns its result.
func (h *Harness) Stop() error {
	h.cancel()
	<-h.done
	return h.err
}

// lineWriter hands the first complete line written to it to line.
type lineWriter struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	sent bool
	line chan string
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if s := w.buf.String(); !w.sent && strings.Contains(s, "\n") {
		w.sent = true
		w.line <- s[:strings.Index(s, "\n")+1]
	}
	return len(p), nil
}
