package child

import (
	"github.com/chatbus/chatbus/provider"

	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"buf.build/go/protovalidate"
	protovalidatemw "github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/protovalidate"
	"github.com/grpc-ecosystem/go-grpc-middleware/v2/interceptors/recovery"
	"github.com/rs/zerolog"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health"
	"google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"github.com/chatbus/chatbus/internal/contract"
	"github.com/chatbus/chatbus/internal/proc"
	"github.com/chatbus/chatbus/paths"
	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
)

// The child contract's constants (README.md). Only cmd/provider-<name>
// reads the environment; the names are here so the supervisor and the
// children agree.
const (
	// EnvSocket names the environment variable holding the socket path the
	// child must listen on.
	EnvSocket = contract.EnvSocket
	// EnvName names the environment variable holding the provider name.
	EnvName = contract.EnvName
	// HandshakeVersion is the first field of the handshake line.
	HandshakeVersion = contract.HandshakeVersion
	// Generation is the provider protocol generation this SDK speaks.
	Generation = contract.Generation
	// MaxMessageBytes bounds one gRPC message either way.
	MaxMessageBytes = 4 << 20
)

// Config configures a provider child. Name, Socket and Platform are
// required.
type Config struct {
	// Name is the provider name ("telegram"): the health service name and
	// what Identify reports.
	Name string
	// Socket is the Unix socket to listen on (from CHATBUS_PROVIDER_SOCKET).
	// A stale socket file is removed first; a live one is an error
	// ([provider.ErrAlreadyRunning]). Its directory is created 0700 if missing.
	Socket string
	// Platform is the chat platform.
	Platform provider.Platform
	// Secret is the bearer secret the supervisor handed this incarnation
	// (the "secret" key of the settings on stdin; see [SplitSettings]).
	// Every call but grpc.health.v1 must carry it as "authorization:
	// Bearer <secret>", else it is refused with UNAUTHENTICATED before it
	// reaches the Platform. Required: a provider child is reachable only
	// by the supervisor that started it.
	Secret string
	// Generation is the protocol generation reported by Identify and
	// checked by the fence. If zero, [Generation].
	Generation uint32
	// Handshake receives the one handshake line. If nil, os.Stdout.
	Handshake io.Writer
	// Logger receives the provider's log (stderr, in a child). The zero
	// Logger discards.
	Logger zerolog.Logger
	// Now is the clock of the fence lease and received_at stamps. If nil,
	// time.Now.
	Now func() time.Time
	// Health, if set, is where the Platform reports whether its platform
	// connection works; it drives the health status of Name. If nil, Name
	// is SERVING whenever the process serves.
	Health *provider.Health
	// ShutdownTimeout bounds the graceful stop once Serve decided to
	// return; after it, remaining RPCs are cut and Serve returns even if a
	// Platform method ignores its ctx. If zero, 10s.
	ShutdownTimeout time.Duration
}

func (c *Config) setDefaults() error {
	switch {
	case c.Name == "" || strings.ContainsAny(c.Name, "|\n"):
		return fmt.Errorf("provider: Config.Name %q: required, without '|' or newlines", c.Name)
	case c.Socket == "":
		return errors.New("provider: Config.Socket is required")
	case paths.CheckSocket(c.Socket) != nil:
		return fmt.Errorf("provider: %w", paths.CheckSocket(c.Socket))
	case strings.ContainsAny(c.Socket, "|\n"):
		return fmt.Errorf("provider: socket path %q contains '|' or a newline", c.Socket)
	case c.Platform == nil:
		return errors.New("provider: Config.Platform is required")
	case len(c.Secret) < minSecretLen:
		return fmt.Errorf("provider: Config.Secret must be at least %d bytes (the supervisor hands one in the settings)", minSecretLen)
	}
	if c.Generation == 0 {
		c.Generation = Generation
	}
	if c.Handshake == nil {
		c.Handshake = os.Stdout
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.ShutdownTimeout <= 0 {
		c.ShutdownTimeout = 10 * time.Second
	}
	return nil
}

// Server is one provider child's server. Most children just call [Serve];
// New and [Server.Serve] let tests and embedders look at the occupancy and
// the fence while it runs.
type Server struct {
	cfg  Config
	log  zerolog.Logger
	inc  proc.Incarnation
	gate *gate

	// stopCtx is cancelled when Serve starts shutting down: long-lived
	// streams (Updates, WatchOccupancy) end on it.
	stopCtx  context.Context
	stopNow  context.CancelFunc
	served   atomic.Bool
	describe provider.Description // the Platform's, checked by New
	idMu     sync.Mutex           // guards identity
	identity *provider.Identity   // cached after the first successful Identify

	streamMu sync.Mutex // guards stream
	stream   *updStream // the current Updates stream
}

// New checks cfg and prepares a server; it does not listen yet.
func New(cfg Config) (*Server, error) {
	if err := cfg.setDefaults(); err != nil {
		return nil, err
	}
	inc, err := proc.Self()
	if err != nil {
		return nil, fmt.Errorf("provider: own incarnation: %w", err)
	}
	desc := cfg.Platform.Describe()
	if err := checkDescription(desc); err != nil {
		return nil, fmt.Errorf("provider: Platform.Describe: %w", err)
	}
	if desc.Verbs, err = verbs(cfg.Platform, desc); err != nil {
		return nil, fmt.Errorf("provider: Platform.Describe: %w", err)
	}
	log := cfg.Logger.With().Str("provider", cfg.Name).Logger()
	stopCtx, stopNow := context.WithCancel(context.Background())
	return &Server{
		cfg:      cfg,
		log:      log,
		inc:      inc,
		describe: desc,
		gate:     newGate(cfg.Now, log.With().Str("component", "fence").Logger(), inc, cfg.Generation),
		stopCtx:  stopCtx,
		stopNow:  stopNow,
	}, nil
}

// Serve runs a provider child until ctx ends or a doctor Commit has
// settled: it listens on cfg.Socket, writes the handshake line, serves
// ProviderService and grpc.health.v1, and stops gracefully. It returns nil
// in both of those cases (the process should then exit 0) and an error if
// it could not start or the listener failed.
func Serve(ctx context.Context, cfg Config) error {
	s, err := New(cfg)
	if err != nil {
		return err
	}
	return s.Serve(ctx)
}

// Occupancy returns the occupancy now.
func (s *Server) Occupancy() Occupancy { return s.gate.occupancy() }

// Status returns the fence and the occupancy now.
func (s *Server) Status() FenceStatus { return s.gate.status() }

// Incarnation returns this process's incarnation, as Identify reports it.
func (s *Server) Incarnation() proc.Incarnation { return s.inc }

// Serve serves until ctx ends or a doctor Commit settled; see [Serve]. It
// may be called once.
func (s *Server) Serve(ctx context.Context) error {
	if !s.served.CompareAndSwap(false, true) {
		return errors.New("provider: Serve called twice")
	}
	defer s.stopNow()
	defer s.gate.stop()

	ln, err := listen(s.cfg.Socket)
	if err != nil {
		return err
	}
	defer ln.Close() // also removes the socket file

	gs, err := s.grpcServer()
	if err != nil {
		return err
	}
	hs := health.NewServer()
	grpc_health_v1.RegisterHealthServer(gs, hs)
	providerv1.RegisterProviderServiceServer(gs, &service{s: s})
	hs.SetServingStatus("", grpc_health_v1.HealthCheckResponse_SERVING)
	if s.cfg.Health != nil {
		publishHealth(s.cfg.Health, hs, s.cfg.Name, s.log.With().Str("component", "health").Logger())
	} else {
		hs.SetServingStatus(s.cfg.Name, grpc_health_v1.HealthCheckResponse_SERVING)
	}

	serveErr := make(chan error, 1)
	go func() { serveErr <- gs.Serve(ln) }()

	// Connections queue on the listener already; announce it.
	if _, err := fmt.Fprintf(s.cfg.Handshake, "%d|unix|%s|grpc\n", HandshakeVersion, s.cfg.Socket); err != nil {
		s.stop(gs, hs)
		<-serveErr
		return fmt.Errorf("provider: write handshake: %w", err)
	}
	s.log.Info().Str("socket", s.cfg.Socket).Stringer("incarnation", s.inc).Msg("provider serving")

	var result error
	select {
	case <-ctx.Done():
		s.log.Info().Msg("stopping: context ended")
	case <-s.gate.done():
		s.log.Info().Msg("stopping: doctor commit settled")
	case err := <-serveErr:
		result = fmt.Errorf("provider: serve: %w", err)
		serveErr <- nil // keep the channel full for the drain below
	}
	s.stop(gs, hs)
	<-serveErr
	s.log.Info().Msg("provider stopped")
	return result
}

// stop shuts down in order: refuse new work, report NOT_SERVING, end the
// long-lived streams (their Runs return), let the remaining RPCs finish
// within ShutdownTimeout, then cut what is left.
func (s *Server) stop(gs *grpc.Server, hs *health.Server) {
	s.gate.stop()
	hs.Shutdown()
	s.stopNow()
	stopped := make(chan struct{})
	go func() { gs.GracefulStop(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(s.cfg.ShutdownTimeout):
		// Stop closes every connection but, unlike GracefulStop, does not
		// wait for handlers: a Platform method deaf to its ctx may outlive
		// Serve (together with the GracefulStop goroutine).
		s.log.Warn().Dur("timeout", s.cfg.ShutdownTimeout).Msg("graceful stop timed out; cutting remaining RPCs")
		gs.Stop()
	}
}

func (s *Server) grpcServer() (*grpc.Server, error) {
	validator, err := protovalidate.New()
	if err != nil {
		return nil, fmt.Errorf("provider: protovalidate: %w", err)
	}
	rec := recovery.WithRecoveryHandlerContext(func(ctx context.Context, p any) error {
		m, _ := grpc.Method(ctx)
		s.log.Error().Str("method", m).Str("panic", fmt.Sprint(p)).Msg("handler panicked")
		return status.Error(codes.Internal, "internal error")
	})
	return grpc.NewServer(
		grpc.ChainUnaryInterceptor(
			recovery.UnaryServerInterceptor(rec),
			s.authUnary,
			protovalidatemw.UnaryServerInterceptor(validator),
		),
		grpc.ChainStreamInterceptor(
			recovery.StreamServerInterceptor(rec),
			s.authStream,
			protovalidatemw.StreamServerInterceptor(validator),
		),
		grpc.MaxRecvMsgSize(MaxMessageBytes),
		grpc.MaxSendMsgSize(MaxMessageBytes),
	), nil
}

// listen binds the socket like the supervisor's: if something answers on
// it, refuse; a stale socket file is removed (anything else at the path is
// left alone and refused); the socket is made 0600.
func listen(path string) (net.Listener, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("provider: socket directory: %w", err)
	}
	if conn, err := net.DialTimeout("unix", path, time.Second); err == nil {
		conn.Close()
		return nil, fmt.Errorf("provider: %s: %w", path, provider.ErrAlreadyRunning)
	}
	fi, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return nil, fmt.Errorf("provider: %w", err)
	case fi.Mode()&fs.ModeSocket == 0:
		return nil, fmt.Errorf("provider: %s exists and is not a socket; not removing it", path)
	default:
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("provider: remove stale socket: %w", err)
		}
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, fmt.Errorf("provider: listen: %w", err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		return nil, fmt.Errorf("provider: chmod socket: %w", err)
	}
	return ln, nil
}

// ParseHandshake parses a child's handshake line ("1|unix|<path>|grpc",
// trailing newline allowed) and returns the socket path. The supervisor
// uses it; any other version, network or protocol is an error.
func ParseHandshake(line string) (socket string, err error) {
	f := strings.Split(strings.TrimRight(line, "\r\n"), "|")
	if len(f) != 4 {
		return "", fmt.Errorf("handshake %q: want 4 fields separated by '|'", line)
	}
	if f[0] != fmt.Sprint(HandshakeVersion) {
		return "", fmt.Errorf("handshake %q: unsupported version %q (want %d)", line, f[0], HandshakeVersion)
	}
	if f[1] != "unix" || f[3] != "grpc" || f[2] == "" {
		return "", fmt.Errorf("handshake %q: want unix|<path>|grpc", line)
	}
	return f[2], nil
}

// identify returns the platform identity, asking the platform only until
// it answers once.
func (s *Server) identify(ctx context.Context) (provider.Identity, error) {
	s.idMu.Lock()
	defer s.idMu.Unlock()
	if s.identity != nil {
		return *s.identity, nil
	}
	id, err := s.cfg.Platform.Identify(ctx)
	if err != nil {
		return provider.Identity{}, fmt.Errorf("identify: %w", err)
	}
	s.identity = &id
	return id, nil
}
