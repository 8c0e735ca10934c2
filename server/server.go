// Package server is the chatbus supervisor: it serves BusService (followers),
// AdminService and DoctorService (operators) on a private Unix socket, with
// grpc.health.v1 and server reflection beside them, and owns what joins the
// parts: the interceptor chain, the one table from domain errors to codes
// (errors.go), when a config reload may run (one at a time, while
// serving), and the watchdog's liveness ping (cmd/supervisord turns it
// into systemd's WATCHDOG=1).
//
// Handlers are thin; the domain lives in the subpackages: registry (live
// followers), hub (routing, streams, call scoping, thread lifecycle), store
// and journal (the durable state), providers and supervise (the provider
// children), doctor (restarting a provider), reload (a config read again,
// brought to the running supervisor), events (the runtime event
// feed), auth (the bearer secret), safesocket (the socket and its lock),
// liveness (the watchdog's view of its own loops), metrics (Prometheus),
// console (the operator's web page); servertest and metrics/metricstest
// serve tests. docs/design.md has the table of every package.
package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	"google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/reflection"

	"github.com/chatbus/chatbus/paths"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
	serverauth "github.com/chatbus/chatbus/server/auth"
	"github.com/chatbus/chatbus/server/console"
	"github.com/chatbus/chatbus/server/control"
	"github.com/chatbus/chatbus/server/doctor"
	"github.com/chatbus/chatbus/server/events"
	"github.com/chatbus/chatbus/server/hub"
	"github.com/chatbus/chatbus/server/journal/vfs"
	"github.com/chatbus/chatbus/server/launch"
	"github.com/chatbus/chatbus/server/liveness"
	"github.com/chatbus/chatbus/server/metrics"
	"github.com/chatbus/chatbus/server/providers"
	"github.com/chatbus/chatbus/server/registry"
	"github.com/chatbus/chatbus/server/reload"
	"github.com/chatbus/chatbus/server/safesocket"
	"github.com/chatbus/chatbus/server/store"
	"github.com/chatbus/chatbus/server/supervise"
	"github.com/chatbus/chatbus/server/transcribe"
)

// Config configures a supervisor. Socket and StateDir are required.
type Config struct {
	// Profile names this supervisor's profile (shown by GetInfo).
	Profile string
	// Socket is the Unix socket to serve on; its directory is made 0700.
	Socket string
	// StateDir holds the secret file; it is created 0700.
	StateDir string
	// ConfigPath is the config file that was read, for GetInfo only.
	ConfigPath string
	// LockTimeout bounds the wait for the startup lock. If zero, 5s.
	LockTimeout time.Duration
	// HeartbeatInterval is what followers are told to heartbeat at. If zero, 1s.
	HeartbeatInterval time.Duration
	// StaleAfter prunes a follower silent this long. If zero, 5s.
	StaleAfter time.Duration
	// SubscribedHeartbeatInterval is what followers are told to heartbeat
	// at while their Subscribe stream is open: the stream (kept alive by
	// the transport's keepalive, Keepalive below) is their liveness then.
	// Such a follower is pruned once silent for twice this plus StaleAfter,
	// or StaleAfter after its stream ended. If zero, 60s.
	SubscribedHeartbeatInterval time.Duration
	// Keepalive is how long a connection may be idle before the server
	// pings it, and KeepaliveTimeout how long it waits for the answer
	// before closing the connection (ending the streams of a peer that
	// stopped answering). If zero, 20s and 10s.
	Keepalive        time.Duration
	KeepaliveTimeout time.Duration
	// MaxFollowers bounds live registrations. If zero, 16384.
	MaxFollowers int
	// AllowUID is the uid peers must have. If zero, the process's own uid.
	AllowUID int
	// ShutdownTimeout bounds a graceful stop before open streams are cut.
	// If zero, 5s.
	ShutdownTimeout time.Duration
	// Version is reported by GetInfo.
	Version string
	// Logger receives the supervisor's log. The zero Logger discards.
	Logger zerolog.Logger
	// OnReady, if set, is called once the socket serves.
	OnReady func()

	// Store is the state file. If empty, <StateDir>/state.db.
	Store string
	// OpenStore, if set, opens the state instead of the file at Store
	// (a cluster node's etcd store, server/cluster); the options are
	// those the file would get. Nil: the embedded store.
	OpenStore func(store.Options) (store.Store, error)
	// Journal bounds each binding's held updates (zero fields: defaults).
	Journal store.Limits
	// JournalFS is the file system under the store's journal. If nil, the
	// operating system's. (supervisord built with -tags chatbus_testhooks
	// puts faults under it.)
	JournalFS vfs.FS
	// Providers are the chat providers to run as children.
	Providers []providers.Spec
	// HandoffTTL holds a suspended binding for its successor. If zero, 30s.
	HandoffTTL time.Duration
	// ReconcileGrace is how long after start bindings wait for their
	// followers before reconciliation. If zero, 5s.
	ReconcileGrace time.Duration
	// CloseOfflineAfter closes the thread of a binding offline this long
	// (reopened when it is reused). If zero, 24h; negative: never.
	CloseOfflineAfter time.Duration
	// CallKeep is how long the record of a call with an idempotency key
	// answers repeats. If zero, 24h.
	CallKeep time.Duration
	// CallsPerBinding bounds the settled call records kept per binding.
	// If zero, 10000.
	CallsPerBinding int
	// Console is the operator console on 127.0.0.1 (server/console).
	Console ConsoleConfig
	// Transcriber turns voice notes into text (server/transcribe,
	// docs/voice.md). The zero value is none: a voice note reaches its
	// follower as its file and a note saying so. Its Logger is the
	// supervisor's.
	Transcriber transcribe.Config

	// Reload, if set, reads the config again (SIGHUP, AdminService.Reload:
	// see Server.Reload) and returns the Config it now says; its hooks
	// (Logger, OnReady, Reload …) are ignored. An error refuses the reload
	// and changes nothing; if it has a Lines() []string method, each line
	// is one reason. If nil, reloads are refused.
	Reload func(ctx context.Context) (Config, error)
	// LogLevel is the level Logger logs at, for reloads to compare; a
	// reload that changes it calls SetLogLevel (nil: it needs a restart).
	LogLevel    zerolog.Level
	SetLogLevel func(zerolog.Level)
	// StartOnly are settings only the embedder applies, at start (log
	// file, log format …), by config key with their values as written: a
	// reload that changes one reports that it needs a restart.
	StartOnly map[string]string
	// OnReloading, if set, is called when a reload begins; OnReady is
	// called again when it has ended (systemd's RELOADING=1, READY=1).
	OnReloading func()
	// OnStopping, if set, is called once when a graceful stop begins
	// (systemd's STOPPING=1).
	OnStopping func()
	// Watchdog sends the liveness ping (see WatchdogConfig).
	Watchdog WatchdogConfig
	// Metrics is the opt-in Prometheus endpoint (off when its Listen is
	// empty).
	Metrics MetricsConfig
	// Events, if set, is the event feed the supervisor publishes into and
	// serves (WatchEvents, ListEvents) instead of one of its own: a
	// cluster node's, which outlives the supervisor of each of its terms
	// and carries the node's own events beside the supervisor's.
	Events *events.Hub
	// Launch is the launch templates: sessions started from the chat
	// (server/launch). The zero value is none.
	Launch LaunchConfig
	// Launcher starts and stops agent sessions (the chat's new and stop
	// commands, server/control). If nil, the launcher of Launch's
	// templates, if any; with neither, new says so, and stop only asks a
	// session to stop.
	Launcher control.Launcher
	// ClusterNode is the cluster node this supervisor leads for (the
	// chat's status command names it); "" when not clustered.
	ClusterNode string
	// Trace, if set, is told when each inbound update passes one of the
	// supervisor's stages (hub.Trace; busbench's profiled supervisor sets
	// it for its per-stage latency breakdown). If nil, nothing is traced.
	Trace hub.Trace
}

// ConsoleConfig configures the operator console.
type ConsoleConfig struct {
	// Off turns it off.
	Off bool
	// Port on 127.0.0.1. If zero, one derived from the profile name (the
	// next few, then any free port, when it is taken).
	Port int
}

func (c *Config) secretPath() string { return filepath.Join(c.StateDir, "secret") }

func (c *Config) setDefaults() error {
	if c.Socket == "" || c.StateDir == "" {
		return errors.New("server: Config.Socket and Config.StateDir are required")
	}
	if c.HeartbeatInterval <= 0 {
		c.HeartbeatInterval = time.Second
	}
	if c.StaleAfter <= 0 {
		c.StaleAfter = 5 * time.Second
	}
	if c.StaleAfter < c.HeartbeatInterval {
		return fmt.Errorf("stale-after %s is shorter than the heartbeat interval %s", c.StaleAfter, c.HeartbeatInterval)
	}
	if c.SubscribedHeartbeatInterval <= 0 {
		c.SubscribedHeartbeatInterval = 60 * time.Second
	}
	c.SubscribedHeartbeatInterval = max(c.SubscribedHeartbeatInterval, c.HeartbeatInterval)
	if c.Keepalive <= 0 {
		c.Keepalive = 20 * time.Second
	}
	if c.KeepaliveTimeout <= 0 {
		c.KeepaliveTimeout = 10 * time.Second
	}
	if c.AllowUID == 0 {
		c.AllowUID = os.Getuid()
	}
	if c.ShutdownTimeout <= 0 {
		c.ShutdownTimeout = 5 * time.Second
	}
	if c.Store == "" {
		c.Store = filepath.Join(c.StateDir, "state.db")
	}
	return nil
}

// Server is one supervisor.
type Server struct {
	cfg     Config
	log     zerolog.Logger
	rpcLog  zerolog.Logger
	hub     *events.Hub
	secret  string
	started time.Time

	// Set by Run once the store is open.
	store  store.Store
	core   *hub.Hub
	provs  *providers.Manager
	voice  *transcribe.Transcriber // nil: no transcriber
	doctor *doctor.Doctor
	// launcher starts sessions from the launch templates; nil: none
	// configured. Set by New, run by serve.
	launcher *launch.Launcher
	// control runs the commands people send from the chat.
	control *control.Controller

	draining atomic.Bool
	// streams are the answers followers stream (stream.go).
	streams streams
	// deposed is cancelled when a cluster node's supervisor learns it no
	// longer leads (fenced.go): every call in flight ends, and every call
	// is answered FENCED. Set by New.
	deposed     context.Context
	deposeCalls context.CancelFunc
	// console is the operator console, nil when off or before serve.
	console *console.Console

	// reloadMu (a one-slot semaphore, so that a waiter can give up) lets
	// one reload run at a time through reloader (set by Run, with the
	// other parts), which holds the settings as last applied.
	reloadMu chan struct{}
	reloader *reload.Reloader
	// shutdownTimeout is cfg.ShutdownTimeout as last reloaded.
	shutdownTimeout atomic.Int64
	// alive holds the liveness probes of the supervisor's own loops.
	alive *liveness.Registry
	// stop ends Run (Shutdown); drainingC is closed when a graceful stop
	// has begun. Both set by New.
	stop      context.CancelFunc
	stopCtx   context.Context
	drainingC chan struct{}
	// servingC is closed once the socket serves.
	servingC chan struct{}
	// metrics records and serves the metrics; nil (records nothing) when
	// they are off. metricsAddr is where they are served, metricsEP the
	// endpoint while it serves.
	metrics     *metrics.Metrics
	metricsAddr metrics.Addr
	metricsEP   atomic.Pointer[metrics.Endpoint]
}

// MaxMessageBytes bounds a single request or response.
const MaxMessageBytes = 4 << 20

// New prepares a supervisor: it creates the state dir and loads or creates
// the secret. It does not listen yet.
func New(cfg Config) (*Server, error) {
	if err := cfg.setDefaults(); err != nil {
		return nil, err
	}
	if err := paths.PrivateDir(cfg.StateDir); err != nil {
		return nil, fmt.Errorf("state dir: %w", err)
	}
	names := make([]string, 0, len(cfg.Providers))
	for _, p := range cfg.Providers {
		names = append(names, p.Name)
	}
	m, maddr, err := cfg.Metrics.newMetrics(names)
	if err != nil {
		return nil, err
	}
	secret, err := serverauth.LoadOrCreateSecret(cfg.secretPath())
	if err != nil {
		return nil, fmt.Errorf("secret: %w", err)
	}
	evs := cfg.Events
	if evs == nil {
		evs = events.NewHub(cfg.Logger.With().Str("component", "events").Logger())
	}
	s := &Server{
		cfg:    cfg,
		log:    cfg.Logger,
		rpcLog: cfg.Logger.With().Str("component", "grpc").Logger(),
		hub:    evs,
		secret: secret,

		reloadMu:    make(chan struct{}, 1),
		alive:       liveness.New(),
		drainingC:   make(chan struct{}),
		servingC:    make(chan struct{}),
		metrics:     m,
		metricsAddr: maddr,
	}
	s.shutdownTimeout.Store(int64(cfg.ShutdownTimeout))
	if s.launcher, err = s.newLauncher(); err != nil {
		return nil, err
	}
	s.stopCtx, s.stop = context.WithCancel(context.Background())
	s.deposed, s.deposeCalls = context.WithCancel(context.Background())
	return s, nil
}

// Events returns the event hub (tests and embedders watch it).
func (s *Server) Events() *events.Hub { return s.hub }

// Run takes the startup lock, listens and serves until ctx ends, then stops
// gracefully: followers are told the supervisor is draining, open streams
// end, and after ShutdownTimeout anything left is cut. The socket file is
// removed and the lock released before Run returns.
func (s *Server) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-s.stopCtx.Done(): // Shutdown
			cancel()
		case <-ctx.Done():
		}
	}()
	ln, err := safesocket.Listen(ctx, safesocket.Config{Socket: s.cfg.Socket, LockTimeout: s.cfg.LockTimeout})
	if err != nil {
		return err
	}
	defer ln.Close()
	// The store is opened under the startup lock, so a second supervisor
	// is told "already running" rather than "store locked".
	if err := s.open(); err != nil {
		return err
	}
	defer s.store.Close()
	defer s.voice.Close()     // before the store: a transcription may fetch through a provider
	defer s.metrics.Unwatch() // a recorder of the embedder's outlives this run
	return s.serve(ctx, ln)
}

// open opens the store and builds, in order, each part complete: the
// registry, the provider manager, the routing core over both, the doctor.
// The providers' updates reach the core when Run hands it to them.
func (s *Server) open() error {
	opts := store.Options{Limits: s.cfg.Journal, OnDrop: hub.DropReporter(s.hub), Logger: s.log, JournalFS: s.cfg.JournalFS}
	if m := s.metrics; m != nil {
		report := opts.OnDrop
		opts.OnDrop = func(key string, n int, reason string) { report(key, n, reason); m.Dropped(reason, n) }
		opts.OnCommit = m.Commit
	}
	var st store.Store
	var err error
	if s.cfg.OpenStore != nil {
		st, err = s.cfg.OpenStore(opts)
	} else {
		st, err = store.Open(s.cfg.Store, opts)
	}
	if err != nil {
		return fmt.Errorf("store: %w", err)
	}
	provs, err := providers.New(providers.Config{
		Specs:           s.cfg.Providers,
		SocketDir:       filepath.Join(filepath.Dir(s.cfg.Socket), "providers"),
		StateDir:        filepath.Join(s.cfg.StateDir, "providers"),
		Store:           st,
		Events:          s.hub,
		Logger:          s.log,
		CallKeep:        s.cfg.CallKeep,
		CallsPerBinding: s.cfg.CallsPerBinding,
		Liveness:        s.alive,
		Metrics:         s.metrics,
	})
	if err != nil {
		st.Close()
		return err
	}
	tcfg := s.cfg.Transcriber
	tcfg.Logger = s.log
	tcfg.OnResult = s.transcribed
	voice, err := transcribe.New(tcfg)
	if err != nil {
		st.Close()
		return err
	}
	reg := registry.New(registry.Config{
		StaleAfter:           s.cfg.StaleAfter,
		SubscribedStaleAfter: 2*s.cfg.SubscribedHeartbeatInterval + s.cfg.StaleAfter,
		PruneInterval:        min(s.cfg.HeartbeatInterval, s.cfg.StaleAfter/2),
		MaxFollowers:         s.cfg.MaxFollowers,
		Events:               s.hub,
	})
	s.store, s.provs = st, provs // for the control side, before the hub is made
	s.control = control.New(control.Config{Store: st, Supervisor: controlSide{s}, Messenger: controlSide{s},
		Launcher: s.Launcher(), Events: s.hub, Logger: s.log})
	core := hub.New(hub.Config{
		Store:             st,
		Registry:          reg,
		Providers:         provs,
		Events:            s.hub,
		Logger:            s.log,
		HandoffTTL:        s.cfg.HandoffTTL,
		ReconcileGrace:    s.cfg.ReconcileGrace,
		CloseOfflineAfter: s.cfg.CloseOfflineAfter,
		Liveness:          s.alive,
		Metrics:           s.metrics,
		Trace:             s.cfg.Trace,
		Transcriber:       voice,
		Control:           s.control,
	})
	if err := provs.LoadCalls(); err != nil {
		st.Close()
		return err
	}
	if p, ok := store.Store(st).(pinger); ok {
		s.alive.Register("store", p.Ping)
	}
	s.store, s.core, s.provs, s.voice = st, core, provs, voice
	s.doctor = doctor.New(doctor.Config{Providers: provs, Events: s.hub, Logger: s.log, Metrics: s.metrics})
	s.reloader = s.newReloader()
	s.metrics.Watch(metricsSource{s})
	s.metrics.WatchJournals(metricsSource{s})
	return nil
}

func (s *Server) serve(ctx context.Context, ln net.Listener) error {
	opts, err := s.interceptorOptions()
	if err != nil {
		return err
	}
	opts = append(opts,
		grpc.ForceServerCodecV2(newLenientCodec()),
		grpc.Creds(safesocket.PeerCredentials()),
		grpc.MaxRecvMsgSize(MaxMessageBytes),
		grpc.MaxSendMsgSize(MaxMessageBytes),
		grpc.MaxConcurrentStreams(1<<16),
		// Followers are many, long-lived and mostly idle: keep a
		// connection's read buffer small (messages of any size still
		// pass). Its write buffer is released between writes by default.
		grpc.ReadBufferSize(16<<10),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: 5 * time.Second, PermitWithoutStream: true}),
		// An idle connection is pinged: a peer that stopped answering (a
		// stopped or hung process) is cut off, which ends its Subscribe
		// stream, the liveness of a follower that heartbeats rarely.
		grpc.KeepaliveParams(keepalive.ServerParameters{Time: s.cfg.Keepalive, Timeout: s.cfg.KeepaliveTimeout}),
	)
	gs := grpc.NewServer(opts...)
	hs := health.NewServer()
	grpc_health_v1.RegisterHealthServer(gs, hs)
	chatbusv1.RegisterBusServiceServer(gs, &busService{s: s})
	chatbusv1.RegisterAdminServiceServer(gs, &adminService{s: s})
	chatbusv1.RegisterDoctorServiceServer(gs, &doctorService{s: s})
	reflection.Register(gs)

	// The metrics endpoint binds before anything starts: an address that
	// cannot be had stops the start. It stops last.
	stopMetrics, err := s.serveMetrics()
	if err != nil {
		return err
	}
	defer stopMetrics()

	runCtx, stopRun := context.WithCancel(ctx)
	defer stopRun()
	var wg sync.WaitGroup
	wg.Go(func() { s.core.Run(runCtx) })
	provCtx, haltProviders := context.WithCancelCause(context.Background())
	stopProviders := func() { haltProviders(nil) }
	defer stopProviders()
	var provWG sync.WaitGroup
	// Commands run while the supervisor runs; those the journal holds
	// from the previous run are taken up before the providers' updates
	// flow.
	s.control.Start(runCtx)
	defer s.control.Wait()
	if err := s.control.Replay(); err != nil {
		s.log.Error().Err(err).Msg("taking up the commands of the previous run")
	}
	provWG.Go(func() { s.provs.Run(provCtx, s.core.Intake()) })
	defer provWG.Wait()

	s.started = time.Now()
	// The console dials this socket lazily: it is ready before it serves.
	if !s.cfg.Console.Off {
		con, err := console.New(console.Config{Socket: s.cfg.Socket, Secret: s.secret, Profile: s.cfg.Profile,
			Port: s.cfg.Console.Port, Logger: s.log})
		if err != nil {
			// The bus serves without its page; say why.
			s.log.Error().Err(err).Msg("operator console not started")
		} else {
			s.console = con
			defer con.Close()
			s.log.Info().Str("url", con.URL()).Msg("operator console: open " + con.URL())
		}
	}
	serveErr := make(chan error, 1)
	go func() { serveErr <- gs.Serve(ln) }()
	hs.SetServingStatus("", grpc_health_v1.HealthCheckResponse_SERVING)
	hs.SetServingStatus(chatbusv1.BusService_ServiceDesc.ServiceName, grpc_health_v1.HealthCheckResponse_SERVING)
	s.hub.Publish(events.Event{Kind: events.SupervisorStarted, Message: "supervisord serving",
		Attrs: map[string]string{"socket": s.cfg.Socket, "profile": s.cfg.Profile, "pid": fmt.Sprint(os.Getpid())}})
	close(s.servingC)
	if s.cfg.OnReady != nil {
		s.cfg.OnReady()
	}
	wg.Go(func() { s.watchdog(runCtx) })
	if s.launcher != nil {
		// Launched sessions go on running when the supervisor stops; the
		// next one finds them.
		wg.Go(func() { s.launcher.Run(runCtx) })
		s.log.Info().Str("attach", s.launcher.AttachCommand()).Int("templates", len(s.cfg.Launch.Templates)).
			Msg("launch templates: sessions may be started from the chat; at the desk: " + s.launcher.AttachCommand())
	}

	select {
	case err := <-serveErr:
		if s.console != nil {
			s.console.Close()
		}
		stopProviders()
		stopRun()
		wg.Wait()
		s.core.Shutdown()
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}

	if deposedBy(ctx) {
		// No longer the leader (fenced.go): quiet at once, then stop.
		s.deposeCalls()
		haltProviders(supervise.ErrHalt)
		provWG.Wait()
		s.log.Warn().Err(context.Cause(ctx)).Msg("deposed: calls answered FENCED, provider children halted; stopping")
	}
	s.hub.Publish(events.Event{Kind: events.SupervisorStopping, Message: "supervisord stopping"})
	if s.cfg.OnStopping != nil {
		s.cfg.OnStopping()
	}
	s.draining.Store(true)
	close(s.drainingC)
	if s.console != nil {
		s.console.Close() // its streams would hold up the graceful stop
	}
	hs.Shutdown()
	stopRun()
	wg.Wait()
	s.core.Shutdown() // ends every Subscribe stream
	stopped := make(chan struct{})
	go func() { gs.GracefulStop(); close(stopped) }()
	select {
	case <-stopped:
	case <-time.After(time.Duration(s.shutdownTimeout.Load())):
		s.log.Warn().Dur("timeout", time.Duration(s.shutdownTimeout.Load())).Msg("graceful stop timed out; closing remaining connections")
		gs.Stop()
		<-stopped
	}
	// Providers stop last: calls in flight finished with the gRPC server.
	stopProviders()
	return nil
}

// transcribed reports a voice note's transcription: an event (warn when
// there is no transcript) and the metric.
func (s *Server) transcribed(k transcribe.Key, r transcribe.Result, took time.Duration) {
	s.metrics.Transcribed(r.Status.String())
	attrs := map[string]string{"provider": k.Provider, "file_id": k.FileID, "status": r.Status.String(),
		"took": took.Round(time.Millisecond).String()}
	msg := "voice note transcribed"
	if r.Status != transcribe.StatusDone {
		attrs["note"] = r.Note
		msg = "voice note not transcribed: " + r.Note
	}
	s.hub.Publish(events.Event{Kind: events.VoiceTranscribed, Message: msg, Attrs: attrs})
}
