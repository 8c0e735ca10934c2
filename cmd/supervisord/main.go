// Command supervisord is the chatbus supervisor: it owns the bus socket and
// serves followers and operators until it is told to stop.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/coreos/go-systemd/v22/daemon"
	"github.com/mattn/go-isatty"
	"github.com/rs/zerolog"
	"github.com/spf13/cobra"

	"github.com/chatbus/chatbus/internal/version"
	"github.com/chatbus/chatbus/paths"
	"github.com/chatbus/chatbus/server"
	"github.com/chatbus/chatbus/server/store"
)

func main() {
	zerolog.TimeFieldFormat = "2006-01-02T15:04:05.000Z07:00" // milliseconds
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	err := newCommand(os.Stderr).ExecuteContext(ctx)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "supervisord:", err)
		os.Exit(1)
	}
}

type flags struct {
	profile, socket, stateDir, config string
	logLevel, logFormat               string
	heartbeat, staleAfter, lockWait   time.Duration
	shutdownTimeout                   time.Duration
	maxFollowers                      int
	defaultPlayground, console        bool
	consolePort                       int
}

func newCommand(stderr io.Writer) *cobra.Command {
	var f flags
	cmd := &cobra.Command{
		Use:   "supervisord",
		Short: "chatbus supervisor: one owner for your chat bot, shared by every agent session",
		Long: `supervisord owns the chat connections of one profile and serves agent
sessions ("followers") and operators (busctl) over gRPC on a private Unix socket.

Files (for profile P):
  socket   $XDG_RUNTIME_DIR/chatbus/P/supervisor.sock
           (else ~/.cache/chatbus/run/P, else /tmp/chatbus-<uid>/P)
  state    $XDG_STATE_HOME/chatbus/P (else ~/.local/state/chatbus/P):
           secret (bearer secret, 0600), supervisord.log
  config   $XDG_CONFIG_HOME/chatbus/P.yaml (else ~/.config/chatbus/P.yaml)

Precedence: flags, then the config file, then defaults. Only one supervisord
serves a profile: a second one exits with "already running (pid N)".
Stops gracefully on SIGINT or SIGTERM. With systemd (Type=notify) it reports
READY=1 once it serves.`,
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version.Version,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return run(cmd, f, stderr)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.profile, "profile", paths.DefaultProfile, "profile name: one supervisor, socket and state dir per profile")
	fl.StringVar(&f.socket, "socket", "", "socket path (default: see above; at most 107 bytes)")
	fl.StringVar(&f.stateDir, "state-dir", "", "state directory (default: see above)")
	fl.StringVar(&f.config, "config", "", "config file (default: see above; optional unless named here)")
	fl.StringVar(&f.logLevel, "log-level", "", "debug, info, warn or error (default info)")
	fl.StringVar(&f.logFormat, "log-format", "", "json, console or auto: console when stderr is a terminal (default auto)")
	fl.DurationVar(&f.heartbeat, "heartbeat-interval", 0, "heartbeat interval followers are told to keep (default 1s)")
	fl.DurationVar(&f.staleAfter, "stale-after", 0, "prune a follower silent this long (default 5s)")
	fl.DurationVar(&f.lockWait, "lock-timeout", 0, "wait at most this long for the startup lock (default 5s, max 120s)")
	fl.DurationVar(&f.shutdownTimeout, "shutdown-timeout", 0, "bound on a graceful stop before open streams are cut (default 5s)")
	fl.IntVar(&f.maxFollowers, "max-followers", 0, "maximum registered followers (default 16384)")
	fl.BoolVar(&f.defaultPlayground, "default-playground", true, "with no provider configured, run the playground (a web chat on 127.0.0.1)")
	fl.BoolVar(&f.console, "console", true, "serve the operator console on 127.0.0.1")
	fl.IntVar(&f.consolePort, "console-port", 0, "the console's port on 127.0.0.1 (default: derived from the profile name)")
	return cmd
}

func run(cmd *cobra.Command, f flags, stderr io.Writer) error {
	p, err := paths.Resolve(f.profile, os.Getenv, os.Getuid())
	if err != nil {
		return err
	}
	cfgPath, required := p.Config, false
	if f.config != "" {
		cfgPath, required = f.config, true
	}
	fc, found, err := loadConfig(cfgPath, required)
	if err != nil {
		return err
	}
	if fc.Socket != "" {
		p.SetSocket(fc.Socket)
	}
	if f.socket != "" {
		p.SetSocket(f.socket)
	}
	if fc.StateDir != "" {
		p.SetStateDir(fc.StateDir)
	}
	if f.stateDir != "" {
		p.SetStateDir(f.stateDir)
	}
	if err := paths.CheckSocket(p.Socket); err != nil {
		return err
	}

	log, err := newLogger(stderr, pick(f.logLevel, fc.LogLevel), pick(f.logFormat, fc.LogFormat))
	if err != nil {
		return err
	}
	if !found {
		cfgPath = ""
	}
	specs, err := fc.providerSpecs()
	if err != nil {
		return fmt.Errorf("config %s: %w", cfgPath, err)
	}
	playground := f.defaultPlayground
	if !cmd.Flags().Changed("default-playground") && fc.DefaultPlayground != nil {
		playground = *fc.DefaultPlayground
	}
	switch {
	case len(specs) == 0 && playground:
		specs = append(specs, playgroundSpec())
		log.Info().Str("config", p.Config).Msg("no providers configured: running the playground, a chat on a local web page (its URL follows); add a providers: section to the config file for a real chat (see deploy/config.example.yaml)")
	case len(specs) == 0:
		log.Info().Str("config", p.Config).Msg("no providers configured: followers can register but get no thread; add a providers: section to the config file (see deploy/config.example.yaml)")
	}
	consoleOn := f.console
	if !cmd.Flags().Changed("console") && fc.Console.Enabled != nil {
		consoleOn = *fc.Console.Enabled
	}

	srv, err := server.New(server.Config{
		Profile:           p.Profile,
		Socket:            p.Socket,
		StateDir:          p.StateDir,
		ConfigPath:        cfgPath,
		LockTimeout:       pickDur(f.lockWait, fc.LockTimeout),
		HeartbeatInterval: pickDur(f.heartbeat, fc.HeartbeatInterval),
		StaleAfter:        pickDur(f.staleAfter, fc.StaleAfter),
		ShutdownTimeout:   pickDur(f.shutdownTimeout, fc.ShutdownTimeout),
		MaxFollowers:      max(f.maxFollowers, fc.MaxFollowers),
		Providers:         specs,
		HandoffTTL:        time.Duration(fc.HandoffTTL),
		CallKeep:          time.Duration(fc.Calls.Keep),
		CallsPerBinding:   fc.Calls.MaxPerBinding,
		ReconcileGrace:    time.Duration(fc.ReconcileGrace),
		Console:           server.ConsoleConfig{Off: !consoleOn, Port: max(f.consolePort, fc.Console.Port)},
		Journal: store.Limits{
			MaxCount: fc.Journal.MaxCount,
			MaxBytes: fc.Journal.MaxBytes,
			MaxAge:   time.Duration(fc.Journal.MaxAge),
		},
		Version: version.Version,
		Logger:  log,
		OnReady: func() {
			log.Info().Str("socket", p.Socket).Str("profile", p.Profile).Str("secret", p.Secret).Int("pid", os.Getpid()).Msg("serving")
			if ok, err := daemon.SdNotify(false, daemon.SdNotifyReady); err != nil {
				log.Warn().Err(err).Msg("sd_notify READY failed")
			} else if ok {
				log.Debug().Msg("told systemd READY=1")
			}
		},
	})
	if err != nil {
		return err
	}
	err = srv.Run(cmd.Context())
	if cmd.Context().Err() != nil {
		daemon.SdNotify(false, daemon.SdNotifyStopping)
		log.Info().Msg("stopped")
	}
	return err
}

func pick(flag, file string) string {
	if flag != "" {
		return flag
	}
	return file
}

func pickDur(flag time.Duration, file duration) time.Duration {
	if flag != 0 {
		return flag
	}
	return time.Duration(file)
}

func newLogger(w io.Writer, level, format string) (zerolog.Logger, error) {
	lvl := zerolog.InfoLevel
	if level != "" {
		var err error
		if lvl, err = zerolog.ParseLevel(level); err != nil || level == "" {
			return zerolog.Logger{}, fmt.Errorf("log level %q: want debug, info, warn or error", level)
		}
	}
	switch format {
	case "", "auto":
		if f, ok := w.(*os.File); ok && isatty.IsTerminal(f.Fd()) {
			w = zerolog.ConsoleWriter{Out: w, TimeFormat: time.TimeOnly}
		}
	case "console":
		w = zerolog.ConsoleWriter{Out: w, TimeFormat: time.TimeOnly, NoColor: true}
	case "json":
	default:
		return zerolog.Logger{}, fmt.Errorf("log format %q: want json, console or auto", format)
	}
	return zerolog.New(w).Level(lvl).With().Timestamp().Logger(), nil
}
