package hub

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/chatbus/chatbus/server/events"
	"github.com/chatbus/chatbus/server/registry"
	"github.com/chatbus/chatbus/server/store"
)

// Request is what Register needs beyond the follower's identity.
type Request struct {
	// Provider to bind on; "" = the default.
	Provider string
	// PreviousTarget is the thread the follower had before, if any.
	PreviousTarget *store.Target
	// HandoffToken from a predecessor's Suspend.
	HandoffToken string
}

// Registration is Register's result.
type Registration struct {
	Follower *registry.Follower
	Binding  store.Binding // zero when Origin is OriginDetached
	Origin   Origin
}

// Register registers a follower and resolves its binding, in the order of
// DESIGN §4: a handoff token; the binding of the same profile key (REUSE);
// else a fresh thread from the provider, or none (DETACHED) when no
// provider is configured.
func (h *Hub) Register(ctx context.Context, info registry.Info, req Request) (Registration, error) {
	b, origin, err := h.resolve(ctx, info, req)
	if err != nil {
		return Registration{}, err
	}
	f, err := h.cfg.Registry.Register(info)
	if err != nil {
		return Registration{}, err
	}
	if origin == OriginDetached {
		h.mu.Lock()
		h.sessions[info.InstanceID] = &session{f: f}
		h.mu.Unlock()
		return Registration{Follower: f, Origin: origin}, nil
	}
	if err := h.cfg.Providers.Attach(ctx, b.Target.Provider, info.InstanceID, b.Target); err != nil {
		h.cfg.Registry.Unregister(f)
		return Registration{}, fmt.Errorf("attach to provider %s: %w", b.Target.Provider, err)
	}

	b.InstanceID = info.InstanceID
	b.Status = store.StatusActive
	b.LastError = ""
	if info.ThreadName != "" && b.ThreadName == "" {
		b.ThreadName = info.ThreadName
	}
	if err := h.putBinding(b); err != nil {
		h.cfg.Registry.Unregister(f)
		return Registration{}, err
	}

	s := &session{f: f, bindingKey: b.Key, provider: b.Target.Provider}
	h.mu.Lock()
	prev := h.holders[b.Key]
	h.sessions[info.InstanceID] = s
	h.holders[b.Key] = s
	h.mu.Unlock()
	if prev != nil && prev.f != f && prev.f.InstanceID != info.InstanceID {
		// Another live session held the thread (a handoff, or the same
		// profile key from a new process): it loses it.
		h.cfg.Registry.Supersede(prev.f, info.InstanceID)
	}
	h.publish(events.BindingChanged, info.InstanceID, "binding "+b.LastAction, map[string]string{
		"binding": b.Key, "provider": b.Target.Provider, "chat_id": strconv.FormatInt(b.Target.ChatID, 10),
		"thread_id": strconv.FormatInt(b.Target.ThreadID, 10), "slot": b.Slot, "origin": origin.String()})
	return Registration{Follower: f, Binding: b, Origin: origin}, nil
}

func (o Origin) String() string {
	switch o {
	case OriginFresh:
		return "fresh"
	case OriginReuse:
		return "reuse"
	case OriginHandoff:
		return "handoff"
	}
	return "detached"
}

// resolve finds or makes the binding; it does not mark it active.
func (h *Hub) resolve(ctx context.Context, info registry.Info, req Request) (store.Binding, Origin, error) {
	now := h.cfg.Now()
	if req.HandoffToken != "" {
		key, err := h.store.TakeHandoff(req.HandoffToken, now)
		if errors.Is(err, store.ErrHandoffUnknown) || errors.Is(err, store.ErrHandoffExpired) {
			return store.Binding{}, 0, fmt.Errorf("%w: %v", ErrHandoff, err)
		}
		if err != nil {
			return store.Binding{}, 0, err
		}
		b, err := h.store.GetBinding(key)
		if err != nil || b.Status != store.StatusSuspended {
			return store.Binding{}, 0, fmt.Errorf("%w: binding %q is no longer held for a handoff", ErrHandoff, key)
		}
		if b.Key != info.ProfileKey {
			return store.Binding{}, 0, fmt.Errorf("%w (binding %q, registered %q)", ErrHandoffProfile, b.Key, info.ProfileKey)
		}
		b.LastAction = store.ActionSessionHandoff
		return b, OriginHandoff, nil
	}

	b, err := h.store.GetBinding(info.ProfileKey)
	switch {
	case err == nil && h.reusable(b, req):
		b.LastAction = store.ActionRegisterReuse
		return b, OriginReuse, nil
	case err != nil && !errors.Is(err, store.ErrNotFound):
		return store.Binding{}, 0, err
	}
	return h.fresh(ctx, info, req, b)
}

// reusable: the profile's binding has a thread on a configured provider and
// was not forgotten by reconciliation. A PreviousTarget that names another
// thread does not stop the reuse: the profile key is authoritative.
func (h *Hub) reusable(b store.Binding, req Request) bool {
	if b.Target.IsZero() || b.Status == store.StatusFailed || b.LastAction == store.ActionRealityOffline {
		return false
	}
	if req.Provider != "" && req.Provider != b.Target.Provider {
		return false
	}
	_, ok := h.cfg.Providers.ForumChat(b.Target.Provider)
	return ok
}

// fresh provisions a new thread. old is the profile's previous binding
// record, if any (zero Key otherwise): its journal carries over.
func (h *Hub) fresh(ctx context.Context, info registry.Info, req Request, old store.Binding) (store.Binding, Origin, error) {
	provider := req.Provider
	if provider == "" {
		provider = h.cfg.Providers.Default()
		if provider == "" {
			return store.Binding{}, OriginDetached, nil
		}
	}
	chat, ok := h.cfg.Providers.ForumChat(provider)
	if !ok {
		return store.Binding{}, 0, fmt.Errorf("%w: %q", ErrUnknownProvider, provider)
	}
	inUse, err := h.slotsInUse(provider, chat)
	if err != nil {
		return store.Binding{}, 0, err
	}
	slot, err := h.store.AllocateSlot(provider, chat, func(s string) bool { return inUse[s] })
	if err != nil {
		return store.Binding{}, 0, err
	}
	name := threadTitle(slot, info.ThreadName)
	b := store.Binding{
		Key:        info.ProfileKey,
		OwnerKind:  store.OwnerManualFollower,
		InstanceID: info.InstanceID,
		Slot:       slot,
		ThreadName: info.ThreadName,
		Status:     store.StatusStarting,
		LastAction: store.ActionFresh,
		Created:    old.Created,
	}
	// Record the attempt first: a crash during provisioning leaves a
	// "starting" binding that says what was being done.
	if err := h.putBinding(b); err != nil {
		return store.Binding{}, 0, err
	}
	t, err := h.cfg.Providers.Provision(ctx, provider, chat, name)
	if err != nil {
		b.Status = store.StatusFailed
		b.LastError = err.Error()
		if perr := h.putBinding(b); perr != nil {
			h.log.Error().Err(perr).Str("binding", b.Key).Msg("recording a failed provisioning")
		}
		h.publish(events.BindingFailed, info.InstanceID, "could not provision a thread", map[string]string{
			"binding": b.Key, "provider": provider, "error": err.Error()})
		return store.Binding{}, 0, fmt.Errorf("%w on %s: %v", ErrProvision, provider, err)
	}
	b.Target = t
	return b, OriginFresh, nil
}

// slotHold is the slot a binding holds: none when it has no slot or is
// offline or failed. A binding whose thread is still being provisioned
// (no target yet) holds its slot in every chat.
type slotHold struct {
	slot     string
	provider string
	chat     int64
	anyChat  bool
}

func holdOf(b store.Binding) slotHold {
	if b.Slot == "" || b.Status == store.StatusOffline || b.Status == store.StatusFailed {
		return slotHold{}
	}
	return slotHold{slot: b.Slot, provider: b.Target.Provider, chat: b.Target.ChatID, anyChat: b.Target.IsZero()}
}

// slotsInUse returns the slots held in the chat, from the slot cache.
func (h *Hub) slotsInUse(provider string, chat int64) (map[string]bool, error) {
	h.slotsMu.Lock()
	defer h.slotsMu.Unlock()
	if h.slots == nil {
		bs, err := h.store.ListBindings()
		if err != nil {
			return nil, err
		}
		h.slots = make(map[string]slotHold, len(bs))
		for _, b := range bs {
			h.slots[b.Key] = holdOf(b)
		}
	}
	used := make(map[string]bool)
	for _, s := range h.slots {
		if s.slot != "" && (s.anyChat || (s.provider == provider && s.chat == chat)) {
			used[s.slot] = true
		}
	}
	return used, nil
}

// threadTitle names a thread "<slot> · <name>", within Telegram's 128
// characters.
func threadTitle(slot, name string) string {
	if name == "" {
		name = "session"
	}
	title := slot + " · " + name
	if r := []rune(title); len(r) > 128 {
		title = string(r[:128])
	}
	return title
}

// Ended is the registry's OnEnd hook: the follower's binding goes offline
// (pruned, unregistered) unless another session took it over; the provider
// is told the follower detached.
func (h *Hub) Ended(f *registry.Follower, reason registry.EndReason) {
	h.mu.Lock()
	s := h.sessions[f.InstanceID]
	if s == nil || s.f != f {
		h.mu.Unlock()
		return
	}
	delete(h.sessions, f.InstanceID)
	holds := s.bindingKey != "" && h.holders[s.bindingKey] == s
	if holds {
		delete(h.holders, s.bindingKey)
	}
	h.mu.Unlock()
	if s.bindingKey == "" {
		return
	}
	h.cfg.Providers.Detach(s.provider, f.InstanceID)
	if !holds || reason == registry.Shutdown {
		// A successor holds it, or the supervisor is stopping: bindings
		// stay as they are for reconciliation after the restart.
		return
	}
	b, err := h.store.GetBinding(s.bindingKey)
	if err != nil || b.InstanceID != f.InstanceID || b.Status == store.StatusSuspended {
		return
	}
	b.Status = store.StatusOffline
	if err := h.putBinding(b); err != nil {
		h.log.Error().Err(err).Str("binding", b.Key).Msg("marking binding offline")
	}
}
