// Command supervisord is the chatbus supervisor: it owns the bus socket and
// serves followers and operators until it is told to stop.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/rs/zerolog"
	"github.com/spf13/cobra"
	"gopkg.in/natefinch/lumberjack.v2"

	"github.com/chatbus/chatbus/internal/version"
	"github.com/chatbus/chatbus/paths"
	"github.com/chatbus/chatbus/server"
	"github.com/chatbus/chatbus/server/providers"
	"github.com/chatbus/chatbus/server/store"
)

func main() {
	zerolog.TimeFieldFormat = "2006-01-02T15:04:05.000Z07:00" // milliseconds
	// SIGHUP reloads the config (reload.go): caught from the first moment,
	// so that it never kills supervisord.
	signal.Notify(hups, syscall.SIGHUP)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	err := newCommand(os.Stdout, os.Stderr).ExecuteContext(ctx)
	stop()
	if err != nil {
		os.Exit(printErr(os.Stderr, err))
	}
}

// exitConfig is the exit code of a start refused for its config
// (sysexits.h EX_CONFIG): the systemd unit does not restart on it.
const exitConfig = 78

// printErr prints err, one line per problem, and returns the exit code.
func printErr(w io.Writer, err error) int {
	var ce *ConfigError
	if errors.As(err, &ce) {
		for _, l := range ce.Lines() {
			fmt.Fprintln(w, "supervisord:", l)
		}
		return exitConfig
	}
	if errors.Is(err, errChecked) {
		return 1
	}
	fmt.Fprintln(w, "supervisord:", err)
	return 1
}

// errChecked: --check-config found problems and printed them.
var errChecked = errors.New("config check failed")

type flags struct {
	profile, socket, stateDir, config string
	logLevel, logFormat, logFile      string
	logMaxSizeMB, logMaxBackups       int
	heartbeat, staleAfter, lockWait   time.Duration
	subscribedHeartbeat               time.Duration
	shutdownTimeout                   time.Duration
	maxFollowers                      int
	defaultPlayground, console        bool
	consolePort                       int
	checkConfig                       bool
	online                            bool
}

// Defaults of the log file's rotation.
const (
	defaultLogMaxSizeMB  = 10
	defaultLogMaxBackups = 3
)

func newCommand(stdout, stderr io.Writer) *cobra.Command {
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
On macOS the same XDG variables when set; else the socket in
$TMPDIR/chatbus/P and the state and config in
~/Library/Application Support/chatbus (P/ and P.yaml).

Precedence: flags, then the config file, then defaults. The config is
checked before anything starts, each provider's settings by the provider
itself (provider-<name> --check): a mistake stops supervisord with one line
per problem naming the file, the key and what is wrong, and exit code 78.
--check-config does only that, and exits 0 or 1. Only one supervisord serves a profile: a second one exits
with "already running (pid N)".
Stops gracefully on SIGINT or SIGTERM (or busctl stop). SIGHUP (or busctl
reload) reads the config file again and applies what changed: the log
level, journal bounds and shutdown timeout at once; a provider whose
settings changed is restarted through the doctor protocol, an added one
started, a removed one drained and stopped; what cannot change while it runs
(socket, state dir, profile, timings, console, log file) is reported as
needing a restart. A config with a mistake is refused and the running one
kept. With systemd (Type=notify) it reports READY=1 once it serves,
RELOADING=1 and READY=1 around a reload, STOPPING=1 when it stops, and,
with WatchdogSec=, WATCHDOG=1 while its own loops answer.`,
		Args:          cobra.NoArgs,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version.String(),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return run(cmd, f, stdout, stderr)
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
	fl.DurationVar(&f.subscribedHeartbeat, "subscribed-heartbeat-interval", 0, "heartbeat interval of followers with an open update stream (default 60s)")
	fl.DurationVar(&f.lockWait, "lock-timeout", 0, "wait at most this long for the startup lock (default 5s, max 120s)")
	fl.DurationVar(&f.shutdownTimeout, "shutdown-timeout", 0, "bound on a graceful stop before open streams are cut (default 5s)")
	fl.IntVar(&f.maxFollowers, "max-followers", 0, "maximum registered followers (default 16384)")
	fl.BoolVar(&f.defaultPlayground, "default-playground", true, "with no provider configured, run the playground (a web chat on 127.0.0.1)")
	fl.BoolVar(&f.console, "console", true, "serve the operator console on 127.0.0.1")
	fl.IntVar(&f.consolePort, "console-port", 0, "the console's port on 127.0.0.1 (default: derived from the profile name)")
	fl.StringVar(&f.logFile, "log-file", "", "write the log to this file, rotated by size, instead of stderr")
	fl.IntVar(&f.logMaxSizeMB, "log-max-size", 0, "with --log-file: rotate it at this many MiB (default 10)")
	fl.IntVar(&f.logMaxBackups, "log-max-backups", -1, "with --log-file: keep this many rotated files (default 3)")
	fl.BoolVar(&f.checkConfig, "check-config", false, "check the config file (and each provider's settings, with provider-<name> --check), print what is wrong, and exit 0 or 1 without starting anything")
	fl.BoolVar(&f.online, "online", false, "with --check-config: also let each provider look at its platform once with its settings (provider-<name> --probe: the token accepted, the chat usable)")
	cmd.SetVersionTemplate(version.CobraTemplate)
	cmd.AddCommand(newClusterCertsCommand())
	addTestFlags(cmd)
	return cmd
}

func run(cmd *cobra.Command, f flags, stdout, stderr io.Writer) error {
	base, err := paths.Resolve(f.profile, os.Getenv, os.Getuid())
	if err != nil {
		return err
	}
	cfgPath, required := base.Config, false
	if f.config != "" {
		cfgPath, required = f.config, true
	}
	if err := checkFlags(cmd, f); err != nil {
		return err
	}
	fc, specs, err := checkAll(cmd.Context(), cfgPath, required)
	if f.checkConfig {
		if f.online && err == nil {
			if probs := probeProviders(cmd.Context(), fc, specs, os.Environ()); len(probs) > 0 {
				err = &ConfigError{Path: fc.path, Problems: probs}
			}
		}
		return reportCheck(stdout, fc, specs, err)
	}
	if err != nil {
		return err
	}
	p := resolvePaths(base, f, fc)
	if err := paths.CheckSocket(p.Socket); err != nil {
		return fmt.Errorf("%w: choose a shorter --socket or profile name (the socket is under $XDG_RUNTIME_DIR, on macOS $TMPDIR)", err)
	}

	logOut := stderr
	if file := pick(f.logFile, fc.LogFile); file != "" {
		lj := &lumberjack.Logger{
			Filename:   file,
			MaxSize:    pickInt(f.logMaxSizeMB, fc.LogMaxSizeMB, defaultLogMaxSizeMB),
			MaxBackups: pickBackups(f.logMaxBackups, fc),
		}
		defer lj.Close()
		if err := prepareLogFile(file); err != nil {
			return err
		}
		logOut = lj
	}
	level, err := parseLevel(pick(f.logLevel, fc.LogLevel))
	if err != nil {
		return err
	}
	log, err := newLogger(logOut, pick(f.logFormat, fc.LogFormat))
	if err != nil {
		return err
	}
	// The level is zerolog's process-wide one, so that a reload changes it
	// for every logger at once (the loggers themselves log from debug up).
	zerolog.SetGlobalLevel(level)
	if logOut != stderr {
		// What stops the start goes into the log too, where busctl start
		// and an operator look for it.
		defer func() {
			if err != nil {
				log.Error().Err(err).Msg("supervisord cannot run")
			}
		}()
	}
	specs = withPlayground(cmd, f, fc, specs, log)
	storePath := filepath.Join(p.StateDir, "state.db")
	if fi, serr := os.Stat(storePath); serr == nil && fi.Mode().IsRegular() && fi.Size() == 0 {
		log.Warn().Str("store", storePath).Msg("the state file is empty (0 bytes): starting with an empty state; " +
			"bindings, held updates and cursors it may have had are gone (restore it from a backup before starting to keep them)")
	}

	cfg := serverConfig(cmd, f, p, cfgPath, fc, specs)
	cfg.LogLevel = level
	cfg.SetLogLevel = zerolog.SetGlobalLevel
	cfg.Logger = log
	cfg.Reload = func(ctx context.Context) (server.Config, error) {
		return reloadConfig(ctx, cmd, f, base, cfgPath, required, log)
	}
	n := newNotifier(log)
	cfg.OnReady = func() { n.ready(p) }
	cfg.OnReloading = n.reloading
	cfg.OnStopping = n.stopping
	cfg.Watchdog = n.watchdog()
	applyTestFlags(&cfg)
	if fc.clusterOn() {
		err = runCluster(cmd.Context(), cfg, fc, log)
		if n.served() {
			n.stopping()
			log.Info().Msg("stopped")
		}
		return err
	}
	srv, err := server.New(cfg)
	if err != nil {
		return err
	}
	installTestHooks(cmd.Context(), srv, log)
	go reloadOnSignal(cmd.Context(), srv, log)
	err = srv.Run(cmd.Context())
	if n.served() {
		n.stopping()
		log.Info().Msg("stopped")
	}
	return err
}

// resolvePaths applies the paths of the config file, then the flags, to
// the profile's defaults.
func resolvePaths(p paths.Paths, f flags, fc *config) paths.Paths {
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
	return p
}

// withPlayground returns specs, or the playground alone when none is
// configured and the playground is on; it says which.
func withPlayground(cmd *cobra.Command, f flags, fc *config, specs []providers.Spec, log zerolog.Logger) []providers.Spec {
	playground := f.defaultPlayground
	if !cmd.Flags().Changed("default-playground") && fc.DefaultPlayground != nil {
		playground = *fc.DefaultPlayground
	}
	switch {
	case len(specs) == 0 && playground:
		specs = append(specs, playgroundSpec())
		log.Info().Str("config", fc.path).Msg("no providers configured: running the playground, a chat on a local web page (its URL follows); add a providers: section to the config file for a real chat (see deploy/config.example.yaml)")
	case len(specs) == 0:
		log.Info().Str("config", fc.path).Bool("config_exists", fc.found).Msg("no providers configured: followers can register but get no thread; add a providers: section to the config file (see deploy/config.example.yaml)")
	}
	return specs
}

// serverConfig is the server's config from the flags, then the file, then
// the defaults (the hooks are the caller's to set).
func serverConfig(cmd *cobra.Command, f flags, p paths.Paths, cfgPath string, fc *config, specs []providers.Spec) server.Config {
	consoleOn := f.console
	if !cmd.Flags().Changed("console") && fc.Console.Enabled != nil {
		consoleOn = *fc.Console.Enabled
	}
	return server.Config{
		Profile:           p.Profile,
		Socket:            p.Socket,
		StateDir:          p.StateDir,
		ConfigPath:        cfgPath,
		Store:             filepath.Join(p.StateDir, "state.db"),
		LockTimeout:       pickDur(f.lockWait, fc.LockTimeout),
		HeartbeatInterval: pickDur(f.heartbeat, fc.HeartbeatInterval),
		StaleAfter:        pickDur(f.staleAfter, fc.StaleAfter),
		ShutdownTimeout:   pickDur(f.shutdownTimeout, fc.ShutdownTimeout),
		MaxFollowers:      pickInt(f.maxFollowers, fc.MaxFollowers, 0),
		Providers:         specs,
		HandoffTTL:        time.Duration(fc.HandoffTTL),
		CallKeep:          time.Duration(fc.Calls.Keep),
		CallsPerBinding:   fc.Calls.MaxPerBinding,
		ReconcileGrace:    time.Duration(fc.ReconcileGrace),
		CloseOfflineAfter: time.Duration(fc.CloseOfflineAfter),
		Console:           server.ConsoleConfig{Off: !consoleOn, Port: max(f.consolePort, fc.Console.Port)},
		Metrics:           fc.Metrics.server(),
		Transcriber:       fc.Transcriber.server(),
		Launch:            fc.launchServer(),
		Journal: store.Limits{
			MaxCount: fc.Journal.MaxCount,
			MaxBytes: fc.Journal.MaxBytes,
			MaxAge:   time.Duration(fc.Journal.MaxAge),

			TotalBytes: fc.Journal.MaxTotalBytes,
		},
		SubscribedHeartbeatInterval: pickDur(f.subscribedHeartbeat, fc.SubscribedHeartbeatInterval),
		StartOnly: map[string]string{
			"log_file":         pick(f.logFile, fc.LogFile),
			"log_format":       pick(f.logFormat, fc.LogFormat),
			"log_max_size_mb":  strconv.Itoa(pickInt(f.logMaxSizeMB, fc.LogMaxSizeMB, defaultLogMaxSizeMB)),
			"log_max_backups":  strconv.Itoa(pickBackups(f.logMaxBackups, fc)),
			"transcriber":      fmt.Sprintf("%+v", fc.Transcriber),
			"launch_templates": fc.launchStartOnly(),
		},
		Version: version.Get().Version,
	}
}

// checkFlags refuses flag values out of range (a flag left out is 0 or -1).
func checkFlags(cmd *cobra.Command, f flags) error {
	fl := cmd.Flags()
	switch {
	case f.online && !f.checkConfig:
		return errors.New("--online goes with --check-config")
	case fl.Changed("max-followers") && f.maxFollowers < 1:
		return fmt.Errorf("--max-followers %d: at least 1 (leave it out for the default 16384)", f.maxFollowers)
	case fl.Changed("log-max-size") && f.logMaxSizeMB < 1:
		return fmt.Errorf("--log-max-size %d: at least 1 (MiB)", f.logMaxSizeMB)
	case fl.Changed("log-max-backups") && f.logMaxBackups < 0:
		return fmt.Errorf("--log-max-backups %d: 0 or more", f.logMaxBackups)
	case fl.Changed("lock-timeout") && (f.lockWait <= 0 || f.lockWait > maxLockTimeout):
		return fmt.Errorf("--lock-timeout %s: more than 0 and at most %s", f.lockWait, maxLockTimeout)
	}
	for _, name := range []string{"heartbeat-interval", "stale-after", "subscribed-heartbeat-interval", "shutdown-timeout"} {
		if fl.Changed(name) {
			if d, _ := fl.GetDuration(name); d <= 0 {
				return fmt.Errorf("--%s %s: more than 0 (leave it out for the default)", name, d)
			}
		}
	}
	return nil
}

// checkAll loads and checks the config file, then each provider's
// settings with the provider itself: every problem found, file and
// providers, is in the *ConfigError.
func checkAll(ctx context.Context, path string, required bool) (*config, []providers.Spec, error) {
	c, err := loadConfig(path, required)
	var ce *ConfigError
	if err != nil && !errors.As(err, &ce) {
		return c, nil, err
	}
	specs := c.providerSpecs()
	probs := checkProviderSettings(ctx, c, specs, os.Environ())
	probs = append(probs, c.checkCluster(len(specs))...)
	if ce == nil && len(probs) == 0 {
		return c, specs, nil
	}
	if ce == nil {
		ce = &ConfigError{Path: path}
	}
	ce.Problems = append(ce.Problems, probs...)
	return c, specs, ce
}

// reportCheck is --check-config's answer: what is wrong, one line each,
// or that the file is fine; errChecked if anything is wrong.
func reportCheck(w io.Writer, c *config, specs []providers.Spec, err error) error {
	var ce *ConfigError
	switch {
	case errors.As(err, &ce):
		for _, l := range ce.Lines() {
			fmt.Fprintln(w, l)
		}
		return errChecked
	case err != nil:
		return err
	case !c.found:
		fmt.Fprintf(w, "config %s: not present; the defaults apply\n", c.path)
		return nil
	}
	checked := "no providers configured"
	if len(specs) > 0 {
		names := make([]string, 0, len(specs))
		for _, s := range specs {
			names = append(names, s.Name)
		}
		checked = "providers checked: " + strings.Join(names, ", ")
	}
	if ts := c.launchTemplates(); len(ts) > 0 {
		names := make([]string, 0, len(ts))
		for _, t := range ts {
			names = append(names, t.Name)
		}
		checked += "; launch templates: " + strings.Join(names, ", ")
	}
	fmt.Fprintf(w, "config %s: ok (%s)\n", c.path, checked)
	return nil
}

// prepareLogFile creates the log file 0600 (lumberjack keeps an existing
// file's mode), and its directory 0700 if missing.
func prepareLogFile(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("log file: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("log file: %w", err)
	}
	return f.Close()
}

func pickInt(flag, file, def int) int {
	switch {
	case flag > 0:
		return flag
	case file > 0:
		return file
	}
	return def
}

// pickBackups: the flag (-1 when left out), else the file's key if
// present, else the default.
func pickBackups(flag int, c *config) int {
	if flag >= 0 {
		return flag
	}
	if _, ok := c.lines["log_max_backups"]; ok {
		return c.LogMaxBackups
	}
	return defaultLogMaxBackups
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

// parseLevel reads a log level ("": info).
func parseLevel(level string) (zerolog.Level, error) {
	if level == "" {
		return zerolog.InfoLevel, nil
	}
	lvl, err := zerolog.ParseLevel(level)
	if err != nil || lvl < zerolog.DebugLevel || lvl > zerolog.ErrorLevel {
		return zerolog.NoLevel, fmt.Errorf("log level %q: want debug, info, warn or error", level)
	}
	return lvl, nil
}

// newLogger logs from debug up; the process-wide level (SetGlobalLevel)
// decides what is written.
func newLogger(w io.Writer, format string) (zerolog.Logger, error) {
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
	return zerolog.New(w).Level(zerolog.DebugLevel).With().Timestamp().Logger(), nil
}
