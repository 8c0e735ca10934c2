package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/chatbus/chatbus/server/doctor"
	"github.com/chatbus/chatbus/server/events"
	"github.com/chatbus/chatbus/server/providers"
	"github.com/chatbus/chatbus/server/store"
	"github.com/chatbus/chatbus/server/supervise"
)

// A reload (SIGHUP, AdminService.Reload) reads the config again through
// Config.Reload and brings the running supervisor to it, item by item:
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
//   - everything else (socket, state dir, profile, heartbeat and prune
//     timing, follower bound, handoff and reconcile timing, call records,
//     console, log destination and format): reported as needing a restart,
//     not applied.
//
// A config Reload refuses (a mistake in it) changes nothing. Reloads run
// one at a time.

// Reload errors.
var (
	// ErrReloadUnsupported: the supervisor was built without Config.Reload.
	ErrReloadUnsupported = errors.New("this supervisor cannot reload its config")
	// ErrNotServing: the supervisor does not serve yet (or any more).
	ErrNotServing = errors.New("supervisor not serving")
)

// ChangeAction is what a reload did with one change.
type ChangeAction int

// Change actions (changeActions maps them to chatbus.v1.ConfigChangeAction).
const (
	Applied ChangeAction = iota + 1
	RestartedProvider
	Started
	Stopped
	NeedsRestart
	Failed
)

var actionNames = map[ChangeAction]string{Applied: "applied", RestartedProvider: "restarted provider", Started: "started",
	Stopped: "stopped", NeedsRestart: "needs restart", Failed: "failed"}

func (a ChangeAction) String() string { return actionNames[a] }

// Change is one setting or provider that differed.
type Change struct {
	Key      string // config key, or providers.<name>
	Action   ChangeAction
	Old, New string // as written; "" for "not set"; provider settings are never shown
	Detail   string
}

// ReloadResult is what a reload did.
type ReloadResult struct {
	ConfigPath string
	// Refused holds one line per mistake when the new config was refused
	// as a whole; nothing changed then.
	Refused []string
	Changes []Change
}

// providerRestart bounds a reload's doctor restart or retirement of one
// provider.
var providerRestart = doctor.RestartOptions{Drain: 10 * time.Second, Deadline: 60 * time.Second}

// Reload reads the config again and applies what changed (see above). The
// error is non-nil only if no reload could be tried (ErrReloadUnsupported,
// ctx ended while another reload ran); a refused config is a result.
func (s *Server) Reload(ctx context.Context) (ReloadResult, error) {
	if s.cfg.Reload == nil {
		return ReloadResult{}, ErrReloadUnsupported
	}
	select {
	case <-s.servingC:
	default:
		return ReloadResult{}, fmt.Errorf("reload: %w", ErrNotServing)
	}
	select {
	case <-s.drainingC:
		return ReloadResult{}, fmt.Errorf("reload: stopping: %w", ErrNotServing)
	default:
	}
	select {
	case s.reloadMu <- struct{}{}:
	case <-ctx.Done():
		return ReloadResult{}, ctx.Err()
	}
	defer func() { <-s.reloadMu }()
	if s.cfg.OnReloading != nil {
		s.cfg.OnReloading()
	}
	defer func() {
		if s.cfg.OnReady != nil {
			s.cfg.OnReady()
		}
	}()

	res := ReloadResult{ConfigPath: s.cfg.ConfigPath}
	next, err := s.cfg.Reload(ctx)
	if err == nil {
		err = next.setDefaults()
	}
	if err != nil {
		res.Refused = refusalLines(err)
		for _, l := range res.Refused {
			s.log.Error().Str("config", s.cfg.ConfigPath).Msg("reload refused: " + l)
		}
		s.hub.Publish(events.Event{Kind: events.ConfigRefused, Message: "config reload refused; the running config is kept",
			Attrs: map[string]string{"config": s.cfg.ConfigPath, "problems": strings.Join(res.Refused, "\n")}})
		return res, nil
	}
	cur := s.running
	res.Changes = append(res.Changes, s.reloadSettings(ctx, &cur, next)...)
	res.Changes = append(res.Changes, s.reloadProviders(ctx, &cur, next.Providers)...)
	s.running = cur
	counts := map[ChangeAction]int{}
	for _, c := range res.Changes {
		counts[c.Action]++
		s.log.Info().Str("key", c.Key).Str("action", c.Action.String()).Str("old", c.Old).Str("new", c.New).Msg("reload: " + c.Detail)
	}
	attrs := map[string]string{"config": s.cfg.ConfigPath, "changes": fmt.Sprint(len(res.Changes))}
	for a, n := range counts {
		attrs[strings.ReplaceAll(a.String(), " ", "_")] = fmt.Sprint(n)
	}
	s.hub.Publish(events.Event{Kind: events.ConfigReloaded, Message: fmt.Sprintf("config reloaded: %d change(s)", len(res.Changes)), Attrs: attrs})
	s.log.Debug().Int("changes", len(res.Changes)).Msg("reload finished")
	return res, nil
}

// refusalLines are the reasons err gives, one per line.
func refusalLines(err error) []string {
	var lined interface{ Lines() []string }
	if errors.As(err, &lined) {
		return lined.Lines()
	}
	return strings.Split(err.Error(), "\n")
}

// limitSetter is a Store whose journal bounds can change live.
type limitSetter interface {
	SetLimits(ctx context.Context, l store.Limits) error
}

// reloadSettings applies the supervisor's own settings of next that can
// change live into cur and reports the others.
func (s *Server) reloadSettings(ctx context.Context, cur *Config, next Config) []Change {
	var out []Change
	if cur.LogLevel != next.LogLevel {
		c := Change{Key: "log_level", Old: cur.LogLevel.String(), New: next.LogLevel.String()}
		if s.cfg.SetLogLevel != nil {
			s.cfg.SetLogLevel(next.LogLevel)
			cur.LogLevel = next.LogLevel
			c.Action, c.Detail = Applied, "logging at "+next.LogLevel.String()
		} else {
			c.Action, c.Detail = NeedsRestart, "the log level cannot change while this supervisor runs"
		}
		out = append(out, c)
	}
	if cur.ShutdownTimeout != next.ShutdownTimeout {
		s.shutdownTimeout.Store(int64(next.ShutdownTimeout))
		out = append(out, Change{Key: "shutdown_timeout", Action: Applied, Old: cur.ShutdownTimeout.String(), New: next.ShutdownTimeout.String(),
			Detail: "bounds the next graceful stop"})
		cur.ShutdownTimeout = next.ShutdownTimeout
	}
	if cur.Journal != next.Journal {
		out = append(out, s.reloadJournal(ctx, cur, next.Journal)...)
	}
	for _, f := range startOnly(*cur, next) {
		out = append(out, Change{Key: f.key, Action: NeedsRestart, Old: f.old, New: f.new,
			Detail: "cannot change while the supervisor runs: restart it to apply (the running value holds)"})
	}
	return out
}

// reloadJournal applies new journal bounds: one change per bound.
func (s *Server) reloadJournal(ctx context.Context, cur *Config, next store.Limits) []Change {
	old := cur.Journal
	var out []Change
	add := func(key string, o, n any) {
		if os, ns := show(o), show(n); os != ns {
			out = append(out, Change{Key: key, Old: os, New: ns})
		}
	}
	add("journal.max_count", old.MaxCount, next.MaxCount)
	add("journal.max_bytes", old.MaxBytes, next.MaxBytes)
	add("journal.max_age", old.MaxAge, next.MaxAge)
	ls, ok := s.store.(limitSetter)
	var err error
	if ok {
		err = ls.SetLimits(ctx, next)
	}
	for i := range out {
		switch {
		case !ok:
			out[i].Action, out[i].Detail = NeedsRestart, "this store's bounds cannot change while it is open"
		case err != nil:
			out[i].Action, out[i].Detail = Failed, err.Error()
		default:
			out[i].Action, out[i].Detail = Applied, "every journal is held to the new bounds now"
		}
	}
	if ok && err == nil {
		cur.Journal = next
	}
	return out
}

type fixedField struct{ key, old, new string }

// startOnly lists the settings that differ between cur and next and take
// effect only at a start.
func startOnly(cur, next Config) []fixedField {
	var out []fixedField
	add := func(key string, o, n any) {
		if os, ns := show(o), show(n); os != ns {
			out = append(out, fixedField{key, os, ns})
		}
	}
	add("profile", cur.Profile, next.Profile)
	add("socket", cur.Socket, next.Socket)
	add("state_dir", cur.StateDir, next.StateDir)
	add("heartbeat_interval", cur.HeartbeatInterval, next.HeartbeatInterval)
	add("stale_after", cur.StaleAfter, next.StaleAfter)
	add("max_followers", cur.MaxFollowers, next.MaxFollowers)
	add("lock_timeout", cur.LockTimeout, next.LockTimeout)
	add("handoff_ttl", cur.HandoffTTL, next.HandoffTTL)
	add("reconcile_grace", cur.ReconcileGrace, next.ReconcileGrace)
	add("calls.keep", cur.CallKeep, next.CallKeep)
	add("calls.max_per_binding", cur.CallsPerBinding, next.CallsPerBinding)
	add("console.enabled", !cur.Console.Off, !next.Console.Off)
	add("console.port", cur.Console.Port, next.Console.Port)
	add("close_offline_after", cur.CloseOfflineAfter, next.CloseOfflineAfter)
	add("metrics.listen", cur.Metrics.Listen, next.Metrics.Listen)
	add("metrics.allow_non_loopback", cur.Metrics.AllowNonLoopback, next.Metrics.AllowNonLoopback)
	keys := map[string]bool{}
	for k := range cur.StartOnly {
		keys[k] = true
	}
	for k := range next.StartOnly {
		keys[k] = true
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	for _, k := range sorted {
		add(k, cur.StartOnly[k], next.StartOnly[k])
	}
	return out
}

// show renders a setting's value; zero is "(default)".
func show(v any) string {
	switch x := v.(type) {
	case string:
		if x == "" {
			return "(default)"
		}
	case int:
		if x == 0 {
			return "(default)"
		}
	case int64:
		if x == 0 {
			return "(default)"
		}
	case time.Duration:
		if x == 0 {
			return "(default)"
		}
	}
	return fmt.Sprint(v)
}

// reloadProviders brings the running providers to next: added ones
// started, changed ones restarted with their new settings, the default
// set, removed ones drained and stopped. cur.Providers is updated with
// what took effect.
func (s *Server) reloadProviders(ctx context.Context, cur *Config, next []providers.Spec) []Change {
	old := map[string]providers.Spec{}
	for _, sp := range cur.Providers {
		old[sp.Name] = sp
	}
	want := map[string]providers.Spec{}
	for _, sp := range next {
		want[sp.Name] = sp
	}
	var out []Change
	running := map[string]providers.Spec{} // what runs after this reload
	for _, sp := range cur.Providers {
		running[sp.Name] = sp
	}
	for _, sp := range next {
		o, had := old[sp.Name]
		switch {
		case !had:
			c := s.startProvider(ctx, sp)
			if c.Action == Started {
				running[sp.Name] = sp
			}
			out = append(out, c)
		case launchDiff(o, sp) != "":
			c := s.restartProvider(ctx, o, sp)
			if c.Action == RestartedProvider {
				running[sp.Name] = sp
			}
			out = append(out, c)
		default:
			running[sp.Name] = sp // Default may differ: applied below
		}
	}
	// The default before any removal, so fresh followers never meet a
	// default that is going away.
	after := make([]providers.Spec, 0, len(running))
	for _, sp := range next {
		if r, ok := running[sp.Name]; ok {
			after = append(after, r)
		}
	}
	for _, sp := range cur.Providers {
		if _, ok := want[sp.Name]; !ok {
			after = append(after, sp) // still running until removed below
		}
	}
	if oldDef, newDef := providers.DefaultOf(cur.Providers), providers.DefaultOf(next); oldDef != newDef {
		c := Change{Key: "providers." + newDef + ".default", Old: oldDef, New: newDef}
		if _, ok := running[newDef]; !ok && newDef != "" {
			c.Action, c.Detail = Failed, "the new default provider is not running; fresh followers still bind on "+oldDef
		} else if err := s.provs.SetDefault(newDef); err != nil {
			c.Action, c.Detail = Failed, err.Error()
		} else {
			c.Action, c.Detail = Applied, "fresh followers bind on "+orNone(newDef)
		}
		out = append(out, c)
	}
	var removed []string
	for _, sp := range cur.Providers {
		if _, ok := want[sp.Name]; ok {
			continue
		}
		c := s.stopProvider(ctx, sp.Name)
		if c.Action == Stopped {
			removed = append(removed, sp.Name)
		}
		out = append(out, c)
	}
	cur.Providers = after[:0:0]
	for _, sp := range after {
		if !contains(removed, sp.Name) {
			cur.Providers = append(cur.Providers, sp)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func orNone(s string) string {
	if s == "" {
		return "none (followers register without a thread)"
	}
	return s
}

// launchDiff says what differs between two specs of one provider in what
// its child is started from ("" if nothing). Setting values are not shown:
// they may be secrets.
func launchDiff(a, b providers.Spec) string {
	var what []string
	if a.Binary != b.Binary {
		what = append(what, fmt.Sprintf("binary %s → %s", show(a.Binary), show(b.Binary)))
	}
	if a.StartLimit != b.StartLimit || a.StartTimeout != b.StartTimeout || a.BackoffMax != b.BackoffMax {
		what = append(what, "supervision bounds")
	}
	if keys := settingsDiff(a.Settings, b.Settings); len(keys) > 0 {
		what = append(what, "settings "+strings.Join(keys, ", "))
	}
	return strings.Join(what, "; ")
}

// settingsDiff returns the keys whose values differ, sorted.
func settingsDiff(a, b map[string]any) []string {
	keys := map[string]bool{}
	for k := range a {
		keys[k] = true
	}
	for k := range b {
		keys[k] = true
	}
	var out []string
	for k := range keys {
		av, aok := a[k]
		bv, bok := b[k]
		aj, _ := json.Marshal(av)
		bj, _ := json.Marshal(bv)
		if aok != bok || !bytes.Equal(aj, bj) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// startProvider starts an added provider and waits (bounded) for its
// first child.
func (s *Server) startProvider(ctx context.Context, sp providers.Spec) Change {
	c := Change{Key: "providers." + sp.Name, New: "configured"}
	if err := s.provs.Add(sp); err != nil {
		c.Action, c.Detail = Failed, err.Error()
		return c
	}
	c.Action = Started
	sup, err := s.provs.Supervisor(sp.Name)
	if err != nil {
		c.Detail = err.Error()
		return c
	}
	wctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	if child, err := sup.WaitRunning(wctx); err == nil {
		c.Detail = fmt.Sprintf("running (pid %d)", child.Incarnation.PID)
	} else {
		c.Detail = fmt.Sprintf("started, not running yet: %s %s", sup.Status().State, sup.Status().LastError)
	}
	return c
}

// restartProvider gives the provider its new spec and restarts it through
// the doctor protocol. If that fails, the old spec is put back.
func (s *Server) restartProvider(ctx context.Context, old, next providers.Spec) Change {
	c := Change{Key: "providers." + next.Name, Old: "running", New: "changed", Detail: launchDiff(old, next)}
	fail := func(why string) Change {
		if err := s.provs.Respec(old); err != nil {
			why += "; restoring its old settings failed too: " + err.Error()
		}
		c.Action, c.Detail = Failed, c.Detail+": "+why+" (it keeps running with its old settings)"
		return c
	}
	if err := s.provs.Respec(next); err != nil {
		return fail(err.Error())
	}
	sup, err := s.provs.Supervisor(next.Name)
	if err != nil {
		return fail(err.Error())
	}
	switch sup.Status().State {
	case supervise.StateFatal, supervise.StateBackoff:
		// No child runs: the next start takes the new settings; start it now.
		if err := sup.Restart(); err != nil && !errors.Is(err, supervise.ErrState) {
			return fail(err.Error())
		}
		c.Action, c.Detail = RestartedProvider, c.Detail+": no child was running; started with the new settings"
		return c
	case supervise.StateStarting:
		wctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		_, err := sup.WaitRunning(wctx)
		cancel()
		if err != nil {
			return fail("its child did not come up to be restarted: " + err.Error())
		}
	}
	out, err := s.doctor.Restart(ctx, next.Name, providerRestart, nil)
	if err != nil {
		return fail(err.Error())
	}
	if out.Kind != doctor.Restarted {
		if out.Kind == doctor.OldOwnerExitTimeout || out.Kind == doctor.SuccessorRefused {
			// The old child was committed: what starts next is the new
			// spec, whatever happened. Say so rather than pretend to undo.
			c.Action, c.Detail = Failed, fmt.Sprintf("%s: restart %s %s: %s (the new settings apply to the next child)", c.Detail, out.Kind, out.Reason, out.Message)
			return c
		}
		return fail(fmt.Sprintf("restart %s %s: %s", out.Kind, out.Reason, out.Message))
	}
	c.Action, c.Detail = RestartedProvider, fmt.Sprintf("%s: %s", c.Detail, out.Message)
	return c
}

// stopProvider drains and stops a removed provider through the doctor
// protocol, then forgets it; its bindings go offline.
func (s *Server) stopProvider(ctx context.Context, name string) Change {
	c := Change{Key: "providers." + name, Old: "configured", New: "removed"}
	out, err := s.doctor.Retire(ctx, name, providerRestart, nil)
	switch {
	case err != nil:
		c.Action, c.Detail = Failed, err.Error()+" (it keeps running)"
		return c
	case out.Kind == doctor.Retired:
		c.Detail = out.Message
	case out.Kind == doctor.OwnerUnavailable && out.Reason == doctor.NoState:
		c.Detail = "no child was running"
	default:
		c.Action, c.Detail = Failed, fmt.Sprintf("retire %s %s: %s (it keeps running)", out.Kind, out.Reason, out.Message)
		return c
	}
	if err := s.provs.Remove(name); err != nil {
		c.Action, c.Detail = Failed, err.Error()
		return c
	}
	n, err := s.core.ProviderRemoved(name)
	if err != nil {
		c.Detail += fmt.Sprintf("; marking its bindings offline failed: %v", err)
	} else {
		c.Detail += fmt.Sprintf("; %d binding(s) offline, their journals kept", n)
	}
	c.Action = Stopped
	return c
}
