package server

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"path/filepath"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/server/control"
	"github.com/chatbus/chatbus/server/hub"
	"github.com/chatbus/chatbus/server/launch"
)

// LaunchConfig is the launch templates (server/launch, docs/launch.md):
// the sessions the allowed users may start from the chat. Off while
// there is no template.
type LaunchConfig struct {
	// Templates are the templates, checked (launch.Check).
	Templates []launch.Template
	// Socket is the tmux server's socket. If empty, tmux.sock beside the
	// supervisor's socket.
	Socket string
	// Tmux is the tmux binary. If empty, tmux on PATH.
	Tmux string
}

// newLauncher makes the launcher when templates are configured (nil
// otherwise). Launched sessions get CHATBUS_PROFILE, so that their
// followers find this supervisor.
func (s *Server) newLauncher() (*launch.Launcher, error) {
	lc := s.cfg.Launch
	if len(lc.Templates) == 0 {
		return nil, nil
	}
	sock := lc.Socket
	if sock == "" {
		sock = filepath.Join(filepath.Dir(s.cfg.Socket), "tmux.sock")
	}
	var env []string
	if s.cfg.Profile != "" {
		env = append(env, "CHATBUS_PROFILE="+s.cfg.Profile)
	}
	return launch.New(launch.Config{
		Templates:  lc.Templates,
		Socket:     sock,
		Tmux:       lc.Tmux,
		SessionEnv: env,
		Logger:     s.log,
		Publish:    s.hub.Publish,
		Say:        s.say,
		Park:       func(key, instance string) { s.core.Park(key, instance) },
	})
}

// Launcher is Config.Launcher, else the launcher of the config's launch
// templates; nil when there is neither (new and stop then say so).
func (s *Server) Launcher() control.Launcher {
	switch {
	case s.cfg.Launcher != nil:
		return s.cfg.Launcher
	case s.launcher != nil:
		return s.launcher
	}
	return nil
}

// launched tells the launcher that a follower registered with a launch id.
func (s *Server) launched(launchID string, reg hub.Registration) {
	if launchID == "" || s.launcher == nil || reg.Origin == hub.OriginDetached {
		return
	}
	s.launcher.Registered(launchID, launch.Follower{BindingKey: reg.Binding.Key, Slot: reg.Binding.Slot,
		Thread: reg.Binding.ThreadName, InstanceID: reg.Follower.InstanceID})
}

// say writes text in the thread of binding key, as the supervisor (once:
// its own idempotency key).
func (s *Server) say(ctx context.Context, key, text string) error {
	b, err := s.store.GetBinding(key)
	if err != nil {
		return err
	}
	params, err := verbJSON.Marshal(&providerv1.SendParams{Text: text})
	if err != nil {
		return err
	}
	id := make([]byte, 8)
	rand.Read(id)
	_, err = s.provs.Call(ctx, hub.Call{BindingKey: key, Target: b.Target, Method: hub.VerbSend, Params: params,
		Key: "chatbus:" + hex.EncodeToString(id)})
	if err != nil {
		return fmt.Errorf("saying in the thread of %s: %w", key, err)
	}
	return nil
}
