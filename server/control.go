package server

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/server/control"
	"github.com/chatbus/chatbus/server/doctor"
	"github.com/chatbus/chatbus/server/hub"
	"github.com/chatbus/chatbus/server/registry"
	"github.com/chatbus/chatbus/server/store"
)

// The chat's control surface (server/control): what its commands read and
// do in the supervisor, and how their answers go out: through the
// providers' outbound path (paced, queued, recorded at most once per
// key), as any follower's message does.

// controlSide implements control.Supervisor and control.Messenger.
type controlSide struct{ s *Server }

// workingWithin: a session that made a call this recently is working.
const workingWithin = 30 * time.Second

func (c controlSide) Sessions() []control.Session {
	s := c.s
	bs, err := s.store.ListBindings()
	if err != nil {
		s.log.Error().Err(err).Msg("sessions: listing the bindings")
		return nil
	}
	live := map[string]*registry.Follower{}
	for _, f := range s.core.Followers() {
		if key := s.core.Binding(f); key != "" {
			live[key] = f
		}
	}
	host, _ := os.Hostname()
	now := time.Now()
	out := make([]control.Session, 0, len(bs))
	for _, b := range bs {
		if b.Target.IsZero() {
			continue // no thread: nothing to show in the chat
		}
		d, _ := s.provs.Description(b.Target.Provider)
		ss := control.Session{
			Slot: b.Slot, Provider: b.Target.Provider, Chat: b.Target.Chat, Thread: b.Target.Thread,
			ThreadName: b.ThreadName, Status: string(b.Status), Host: host,
			Link: control.Link(d.ThreadLink, b.Target.Thread),
		}
		queued, lasting := s.provs.Thread(b.Target)
		ss.Queued = queued
		if f := live[b.Key]; f != nil {
			ss.Live = true
			ss.Dir, ss.Agent, ss.LastMessage = f.Cwd, f.Agent, f.LastMessage()
			ss.Working = lasting || queued > 0 || now.Sub(f.LastCall()) < workingWithin
		}
		out = append(out, ss)
	}
	return out
}

func (c controlSide) Status() control.Status {
	s := c.s
	host, _ := os.Hostname()
	st := control.Status{Version: s.cfg.Version, Started: s.started, Host: host, PID: os.Getpid(),
		Followers: s.core.FollowerCount(), Leader: s.cfg.ClusterNode}
	for _, p := range s.provs.Statuses() {
		ps := control.ProviderStatus{Name: p.Name, Platform: p.Platform, State: strings.ToLower(p.State.String()), Serving: p.Serving,
			Detail: p.HealthDetail, Attached: p.Attached, Queued: p.Outbound.Queued, Held: p.CallsHeld}
		if !p.Serving && ps.Detail == "" {
			ps.Detail = p.LastError
		}
		st.Providers = append(st.Providers, ps)
	}
	return st
}

func (c controlSide) CommandPrefix(provider string) string {
	d, _ := c.s.provs.Description(provider)
	return d.CommandPrefix
}

func (c controlSide) link(provider, thread string) string {
	d, _ := c.s.provs.Description(provider)
	return control.Link(d.ThreadLink, thread)
}

func (c controlSide) Restart(ctx context.Context, provider string, step func(string)) (string, bool, error) {
	out, err := c.s.doctor.Restart(ctx, provider, doctor.RestartOptions{}, func(p doctor.Progress) {
		msg := p.Phase.String()
		if p.Message != "" {
			msg += ": " + p.Message
		}
		step(msg)
	})
	if err != nil {
		return "", false, err
	}
	summary := out.Kind.String()
	if out.Reason != doctor.NoReason {
		summary += " (" + out.Reason.String() + ")"
	}
	if out.Message != "" {
		summary += ": " + out.Message
	}
	summary += fmt.Sprintf(" in %s", out.Elapsed.Round(time.Millisecond))
	return summary, out.Kind == doctor.Restarted, nil
}

func (c controlSide) RequestStop(provider, chat, slot string, by control.Requester) (control.Session, error) {
	var found *registry.Follower
	var b store.Binding
	for _, f := range c.s.core.Followers() {
		key := c.s.core.Binding(f)
		if key == "" {
			continue
		}
		bnd, err := c.s.store.GetBinding(key)
		if err != nil || !strings.EqualFold(bnd.Slot, slot) || bnd.Target.Provider != provider ||
			(chat != "" && bnd.Target.Chat != chat) {
			continue
		}
		found, b = f, bnd
		break
	}
	if found == nil {
		return control.Session{}, control.ErrNoSession
	}
	who := by.Name
	if who == "" {
		who = by.Sender
	}
	found.RequestStop(registry.StopRequest{Provider: by.Provider, By: who})
	return control.Session{Slot: b.Slot, Provider: provider, Chat: b.Target.Chat, Thread: b.Target.Thread,
		ThreadName: b.ThreadName, Live: true, Dir: found.Cwd, Agent: found.Agent,
		Link: c.link(provider, b.Target.Thread)}, nil
}

func (c controlSide) call(ctx context.Context, t store.Target, verb string, params proto.Message, key string) (hub.Result, error) {
	js, err := verbJSON.Marshal(params)
	if err != nil {
		return hub.Result{}, err
	}
	return c.s.provs.Call(ctx, hub.Call{BindingKey: control.RecordBinding, Target: t, Method: verb, Params: js, Key: key})
}

func controlButtons(bs []control.Button) []*providerv1.Button {
	out := make([]*providerv1.Button, 0, len(bs))
	for _, b := range bs {
		out = append(out, &providerv1.Button{Label: b.Label, Data: b.Data})
	}
	return out
}

func (c controlSide) Send(ctx context.Context, t store.Target, m control.Message, key string) (string, error) {
	res, err := c.call(ctx, t, hub.VerbSend, &providerv1.SendParams{Text: m.Text, ReplyTo: m.ReplyTo, Buttons: controlButtons(m.Buttons)}, key)
	if err != nil {
		return "", err
	}
	if ids := messageIDs(res.Refs); len(ids) > 0 {
		return ids[0], nil
	}
	return "", nil
}

func (c controlSide) Edit(ctx context.Context, t store.Target, id string, m control.Message, key string) error {
	_, err := c.call(ctx, t, hub.VerbEdit, &providerv1.EditParams{MessageId: id, Text: m.Text, Buttons: controlButtons(m.Buttons)}, key)
	return err
}

func (c controlSide) Answer(ctx context.Context, t store.Target, interactionID, text string) error {
	_, err := c.call(ctx, t, hub.VerbAnswer, &providerv1.AnswerParams{InteractionId: interactionID, Text: text}, "")
	return err
}
