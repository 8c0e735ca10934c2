package main

import (
	"context"
	"os"
	"strconv"
	"sync"

	"github.com/coreos/go-systemd/v22/daemon"
	"github.com/rs/zerolog"
	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"

	"github.com/chatbus/chatbus/paths"
	"github.com/chatbus/chatbus/server"
)

// hups receives SIGHUP from the start of main (signal.Notify there).
var hups = make(chan os.Signal, 1)

// reloadOnSignal reloads the config at every SIGHUP until ctx ends. The
// server logs and publishes what changed, or why the file was refused.
func reloadOnSignal(ctx context.Context, srv *server.Server, log zerolog.Logger) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-hups:
		}
		log.Info().Msg("SIGHUP: reading the config again")
		res, err := srv.Reload(ctx)
		switch {
		case err != nil:
			log.Warn().Err(err).Msg("SIGHUP: no reload")
		case len(res.Refused) > 0:
			log.Error().Str("config", res.ConfigPath).Int("problems", len(res.Refused)).Msg("SIGHUP: the new config is refused; the running one is kept")
		default:
			log.Info().Str("config", res.ConfigPath).Int("changes", len(res.Changes)).Msg("SIGHUP: config reloaded")
		}
	}
}

// reloadConfig reads and checks the config file again exactly as a start
// does (providers' --check included) and returns the server config it
// now says, with the flags still taking precedence.
func reloadConfig(ctx context.Context, cmd *cobra.Command, f flags, base paths.Paths, cfgPath string, required bool, log zerolog.Logger) (server.Config, error) {
	fc, specs, err := checkAll(ctx, cfgPath, required)
	if err != nil {
		return server.Config{}, err
	}
	level, err := parseLevel(pick(f.logLevel, fc.LogLevel))
	if err != nil {
		return server.Config{}, err
	}
	specs = withPlayground(cmd, f, fc, specs, log)
	c := serverConfig(cmd, f, resolvePaths(base, f, fc), cfgPath, fc, specs)
	c.LogLevel = level
	return c, nil
}

// notifier tells systemd (sd_notify, when NOTIFY_SOCKET is set) where
// supervisord is: READY=1 once it serves and after each reload,
// RELOADING=1 while one runs, STOPPING=1 once, WATCHDOG=1 while its loops
// answer.
type notifier struct {
	log       zerolog.Logger
	firstOnce sync.Once
	stopOnce  sync.Once
	servedMu  sync.Mutex
	isServed  bool
}

func newNotifier(log zerolog.Logger) *notifier { return &notifier{log: log} }

func (n *notifier) send(state string) {
	if ok, err := daemon.SdNotify(false, state); err != nil {
		n.log.Warn().Err(err).Str("state", state).Msg("sd_notify failed")
	} else if ok {
		n.log.Debug().Str("state", state).Msg("told systemd")
	}
}

// ready: the socket serves (first call), or a reload ended.
func (n *notifier) ready(p paths.Paths) {
	n.firstOnce.Do(func() {
		n.servedMu.Lock()
		n.isServed = true
		n.servedMu.Unlock()
		n.log.Info().Str("socket", p.Socket).Str("profile", p.Profile).Str("secret", p.Secret).Int("pid", os.Getpid()).Msg("serving")
	})
	n.send(daemon.SdNotifyReady)
}

func (n *notifier) served() bool {
	n.servedMu.Lock()
	defer n.servedMu.Unlock()
	return n.isServed
}

// reloading: a reload begins. MONOTONIC_USEC is what Type=notify-reload
// asks for with it (systemd 253 and later; earlier ones ignore it).
func (n *notifier) reloading() {
	var ts unix.Timespec
	usec := ""
	if err := unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts); err == nil {
		usec = "\nMONOTONIC_USEC=" + strconv.FormatInt(ts.Nano()/1000, 10)
	}
	n.send(daemon.SdNotifyReloading + usec)
}

func (n *notifier) stopping() { n.stopOnce.Do(func() { n.send(daemon.SdNotifyStopping) }) }

// watchdog is the server's watchdog config: pings at half the interval
// systemd asked for (WATCHDOG_USEC, for this pid), none if it asked for
// none.
func (n *notifier) watchdog() server.WatchdogConfig {
	d, err := daemon.SdWatchdogEnabled(false)
	if err != nil {
		n.log.Warn().Err(err).Msg("watchdog settings unreadable: no watchdog pings")
		return server.WatchdogConfig{}
	}
	if d <= 0 {
		return server.WatchdogConfig{}
	}
	return server.WatchdogConfig{Interval: d / 2, Bound: d / 4, Notify: func() { n.send(daemon.SdNotifyWatchdog) }}
}
