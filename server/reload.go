package server

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/chatbus/chatbus/server/reload"
)

// A reload (SIGHUP, AdminService.Reload) reads the config again through
// Config.Reload and hands it to the reload package, which brings the
// running supervisor to it (see there for what applies live and what
// needs a restart). A config Reload refuses (a mistake in it) changes
// nothing. Reloads run one at a time.

// Reload errors.
var (
	// ErrReloadUnsupported: the supervisor was built without Config.Reload.
	ErrReloadUnsupported = errors.New("this supervisor cannot reload its config")
	// ErrNotServing: the supervisor does not serve yet (or any more).
	ErrNotServing = errors.New("supervisor not serving")
)

// Reload reads the config again and applies what changed. The error is
// non-nil only if no reload could be tried (ErrReloadUnsupported, ctx
// ended while another reload ran); a refused config is a result.
func (s *Server) Reload(ctx context.Context) (reload.Result, error) {
	if s.cfg.Reload == nil {
		return reload.Result{}, ErrReloadUnsupported
	}
	select {
	case <-s.servingC:
	default:
		return reload.Result{}, fmt.Errorf("reload: %w", ErrNotServing)
	}
	select {
	case <-s.drainingC:
		return reload.Result{}, fmt.Errorf("reload: stopping: %w", ErrNotServing)
	default:
	}
	select {
	case s.reloadMu <- struct{}{}:
	case <-ctx.Done():
		return reload.Result{}, ctx.Err()
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
	return s.reloader.Reload(ctx, func(ctx context.Context) (reload.Settings, error) {
		next, err := s.cfg.Reload(ctx)
		if err == nil {
			err = next.setDefaults()
		}
		return next.reloadSettings(), err
	}), nil
}

// newReloader returns the reloader of the parts Run built, with cfg's
// settings running.
func (s *Server) newReloader() *reload.Reloader {
	rc := reload.Config{
		Providers:          s.provs,
		Doctor:             s.doctor,
		Bindings:           s.core,
		Events:             s.hub,
		SetLogLevel:        s.cfg.SetLogLevel,
		SetShutdownTimeout: func(d time.Duration) { s.shutdownTimeout.Store(int64(d)) },
		ConfigPath:         s.cfg.ConfigPath,
		Logger:             s.log,
	}
	if ls, ok := s.store.(reload.LimitSetter); ok {
		rc.Store = ls
	}
	return reload.New(rc, s.cfg.reloadSettings())
}

// reloadSettings are c's settings as a reload compares them: the start-
// only ones are the server's own, in this order, then the embedder's
// (StartOnly), by key.
func (c Config) reloadSettings() reload.Settings {
	st := reload.Settings{LogLevel: c.LogLevel, ShutdownTimeout: c.ShutdownTimeout, Journal: c.Journal, Providers: c.Providers}
	add := func(key string, v any) { st.StartOnly = append(st.StartOnly, reload.Setting{Key: key, Value: v}) }
	add("profile", c.Profile)
	add("socket", c.Socket)
	add("state_dir", c.StateDir)
	add("heartbeat_interval", c.HeartbeatInterval)
	add("stale_after", c.StaleAfter)
	add("max_followers", c.MaxFollowers)
	add("lock_timeout", c.LockTimeout)
	add("handoff_ttl", c.HandoffTTL)
	add("reconcile_grace", c.ReconcileGrace)
	add("calls.keep", c.CallKeep)
	add("calls.max_per_binding", c.CallsPerBinding)
	add("console.enabled", !c.Console.Off)
	add("console.port", c.Console.Port)
	add("close_offline_after", c.CloseOfflineAfter)
	add("metrics.listen", c.Metrics.Listen)
	add("metrics.allow_non_loopback", c.Metrics.AllowNonLoopback)
	keys := make([]string, 0, len(c.StartOnly))
	for k := range c.StartOnly {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		add(k, c.StartOnly[k])
	}
	return st
}
