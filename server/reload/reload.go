// Package reload brings a running supervisor to its config read again
// (SIGHUP, AdminService.Reload), item by item:
//
//   - log level, journal bounds, shutdown timeout: applied at once;
//   - a provider whose binary, settings (its allow list, its token…) or
//     supervision bounds changed: restarted through the doctor protocol
//     with the new ones (calls are held meanwhile, inbound updates stay at
//     the platform: nothing is lost);
//   - an added provider: started; a removed one: drained and stopped
//     through the doctor protocol, its bindings offline with their
//     journals kept (hub.ProviderRemoved);
//   - the default provider: applied at once;
//   - everything else the server names start-only (socket, state dir,
//     profile, heartbeat and prune timing, follower bound, handoff and
//     reconcile timing, call records, console, log destination and
//     format): reported as needing a restart, not applied.
//
// It owns the running settings (what the last reload left in effect) and
// the diff between them and the new ones, and applies the changes
// through the parts it is given (providers, doctor, bindings, store); it
// knows nothing of gRPC or of the server's Config. The server calls it
// (server.Server.Reload), one reload at a time: a Reloader is not safe for
// concurrent use.
package reload

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/rs/zerolog"

	"github.com/chatbus/chatbus/server/doctor"
	"github.com/chatbus/chatbus/server/events"
	"github.com/chatbus/chatbus/server/providers"
	"github.com/chatbus/chatbus/server/store"
	"github.com/chatbus/chatbus/server/supervise"
)

// Action is what a reload did with one change.
type Action int

// Actions (the server maps each to chatbus.v1.ConfigChangeAction through
// a table, tested against the proto).
const (
	Applied Action = iota + 1
	RestartedProvider
	Started
	Stopped
	NeedsRestart
	Failed
)

var actionNames = map[Action]string{Applied: "applied", RestartedProvider: "restarted provider", Started: "started",
	Stopped: "stopped", NeedsRestart: "needs restart", Failed: "failed"}

func (a Action) String() string { return actionNames[a] }

// Change is one setting or provider that differed.
type Change struct {
	Key      string // config key, or providers.<name>
	Action   Action
	Old, New string // as written; "" for "not set"; provider settings are never shown
	Detail   string
}

// Result is what a reload did.
type Result struct {
	ConfigPath string
	// Refused holds one line per mistake when the new config was refused
	// as a whole; nothing changed then.
	Refused []string
	Changes []Change
}

// Settings are what a reload compares: those that can change while the
// supervisor runs, and those that take effect only at a start.
type Settings struct {
	LogLevel        zerolog.Level
	ShutdownTimeout time.Duration
	Journal         store.Limits
	Providers       []providers.Spec
	// StartOnly are the settings that take effect only at a start, by
	// config key, in the order they are reported; a value is compared as
	// Show renders it. One that differs is reported as needing a restart.
	StartOnly []Setting
}

// Setting is one start-only setting.
type Setting struct {
	Key   string
	Value any
}

// Providers is what a reload needs of the provider children
// (providers.Manager).
type Providers interface {
	Add(providers.Spec) error
	Respec(providers.Spec) error
	Remove(name string) error
	SetDefault(name string) error
	Supervisor(name string) (*supervise.Supervisor, error)
}

// Doctor restarts and retires providers (doctor.Doctor).
type Doctor interface {
	Restart(ctx context.Context, name string, opts doctor.RestartOptions, progress func(doctor.Progress)) (doctor.Outcome, error)
	Retire(ctx context.Context, name string, opts doctor.RestartOptions, progress func(doctor.Progress)) (doctor.Outcome, error)
}

// Bindings marks the bindings of a removed provider offline
// (hub.Hub.ProviderRemoved).
type Bindings interface {
	ProviderRemoved(provider string) (int, error)
}

// LimitSetter is a store whose journal bounds can change live.
type LimitSetter interface {
	SetLimits(ctx context.Context, l store.Limits) error
}

// Config configures a Reloader. Providers, Doctor, Bindings and Events are
// required.
type Config struct {
	Providers Providers
	Doctor    Doctor
	Bindings  Bindings
	Events    *events.Hub
	// Store takes new journal bounds; if nil, they need a restart.
	Store LimitSetter
	// SetLogLevel applies a new log level; if nil, it needs a restart.
	SetLogLevel func(zerolog.Level)
	// SetShutdownTimeout applies a new bound on a graceful stop. Required.
	SetShutdownTimeout func(time.Duration)
	// ConfigPath is the config file, for the result, the log and events.
	ConfigPath string
	Logger     zerolog.Logger
}

// Reloader applies reloads to the running supervisor.
type Reloader struct {
	cfg     Config
	log     zerolog.Logger
	running Settings // what the last reload left in effect
}

// New returns a Reloader whose running settings are running (the
// supervisor's at its start).
func New(cfg Config, running Settings) *Reloader {
	return &Reloader{cfg: cfg, log: cfg.Logger, running: running}
}

// providerRestart bounds a reload's doctor restart or retirement of one
// provider.
var providerRestart = doctor.RestartOptions{Drain: 10 * time.Second, Deadline: 60 * time.Second}

// Reload reads the new settings with read and applies what changed. An
// error from read refuses the reload as a whole (nothing changes): if it
// has a Lines() []string method, each line is one reason. Either way the
// result is logged and published (ConfigRefused, ConfigReloaded).
func (r *Reloader) Reload(ctx context.Context, read func(context.Context) (Settings, error)) Result {
	res := Result{ConfigPath: r.cfg.ConfigPath}
	next, err := read(ctx)
	if err != nil {
		res.Refused = refusalLines(err)
		for _, l := range res.Refused {
			r.log.Error().Str("config", r.cfg.ConfigPath).Msg("reload refused: " + l)
		}
		r.cfg.Events.Publish(events.Event{Kind: events.ConfigRefused, Message: "config reload refused; the running config is kept",
			Attrs: map[string]string{"config": r.cfg.ConfigPath, "problems": strings.Join(res.Refused, "\n")}})
		return res
	}
	cur := r.running
	res.Changes = append(res.Changes, r.applySettings(ctx, &cur, next)...)
	res.Changes = append(res.Changes, r.applyProviders(ctx, &cur, next.Providers)...)
	r.running = cur
	counts := map[Action]int{}
	for _, c := range res.Changes {
		counts[c.Action]++
		r.log.Info().Str("key", c.Key).Str("action", c.Action.String()).Str("old", c.Old).Str("new", c.New).Msg("reload: " + c.Detail)
	}
	attrs := map[string]string{"config": r.cfg.ConfigPath, "changes": fmt.Sprint(len(res.Changes))}
	for a, n := range counts {
		attrs[strings.ReplaceAll(a.String(), " ", "_")] = fmt.Sprint(n)
	}
	r.cfg.Events.Publish(events.Event{Kind: events.ConfigReloaded, Message: fmt.Sprintf("config reloaded: %d change(s)", len(res.Changes)), Attrs: attrs})
	r.log.Debug().Int("changes", len(res.Changes)).Msg("reload finished")
	return res
}

// refusalLines are the reasons err gives, one per line.
func refusalLines(err error) []string {
	var lined interface{ Lines() []string }
	if errors.As(err, &lined) {
		return lined.Lines()
	}
	return strings.Split(err.Error(), "\n")
}
