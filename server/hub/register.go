package hub

import (
	"context"
	"errors"
	"fmt"

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

// Register registers a follower and resolves its binding, in this order:
// a handoff token; the binding of the same profile key (REUSE);
// else a fresh thread from the provider, or none (DETACHED) when no
// provider is configured.
func (h *Hub) Register(ctx context.Context, info registry.Info, req Request) (Registration, error) {
	// Refused anyway: do not provision a thread first.
	if err := h.reg.Admits(info.InstanceID); err != nil {
		return Registration{}, err
	}
	// The profile's binding changes under its lock (a handoff's binding
	// is the profile's too): no fresh registration takes its thread and
	// no lifecycle step closes it meanwhile.
	unlock := h.locks.Lock(info.ProfileKey)
	defer unlock()
	b, origin, err := h.resolve(ctx, info, req)
	if err != nil {
		return Registration{}, err
	}
	if origin == OriginReuse || origin == OriginHandoff {
		b = h.reopenReused(ctx, b)
	}
	f, replaced, err := h.reg.Register(info)
	if err != nil {
		return Registration{}, err
	}
	if replaced != nil {
		h.ended(replaced, registry.Replaced)
	}
	if origin == OriginDetached {
		return Registration{Follower: f, Origin: origin}, nil
	}
	// The provider is told of the follower (its occupancy) while the
	// binding is written: two round trips of their own, neither needing
	// the other. Both must succeed; whichever did is undone if the other
	// failed, so a failed Register leaves the binding as resolve left it
	// and the provider without the follower.
	attached := make(chan error, 1)
	go func() { attached <- h.cfg.Providers.Attach(ctx, b.Target.Provider, info.InstanceID, b.Target) }()
	resolved := b
	b.InstanceID = info.InstanceID
	b.Status = store.StatusActive
	b.LastError = ""
	if info.ThreadName != "" && b.ThreadName == "" {
		b.ThreadName = info.ThreadName
	}
	putErr := h.putBinding(b)
	attachErr := <-attached
	if putErr != nil || attachErr != nil {
		if attachErr == nil {
			h.cfg.Providers.Detach(b.Target.Provider, info.InstanceID)
		} else if putErr == nil {
			if err := h.putBinding(resolved); err != nil {
				h.log.Error().Err(err).Str("binding", b.Key).Msg("restoring a binding after a failed attach")
			}
		}
		h.Unregister(f)
		if attachErr != nil {
			return Registration{}, fmt.Errorf("attach to provider %s: %w", b.Target.Provider, attachErr)
		}
		return Registration{}, putErr
	}
	// Another live session that held the thread (a handoff, or the same
	// profile key from a new process) loses it, and is told how.
	why := fmt.Sprintf("profile key %q registered again by instance %q, which took the thread over", b.Key, info.InstanceID)
	if origin == OriginHandoff {
		why = fmt.Sprintf("the binding of profile key %q was handed to its successor, instance %q", b.Key, info.InstanceID)
	}
	prev, err := h.reg.Bind(f, b.Key, b.Target.Provider, why)
	if err != nil {
		return Registration{}, err // it ended meanwhile (replaced again, shutdown)
	}
	if prev != nil {
		h.ended(prev, registry.TakenOver)
	}
	h.publish(events.BindingChanged, info.InstanceID, "binding "+b.LastAction, map[string]string{
		"binding": b.Key, "provider": b.Target.Provider, "chat": b.Target.Chat,
		"thread": b.Target.Thread, "slot": b.Slot, "origin": origin.String()})
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

// reusable: the profile's binding still has its thread, on a configured
// provider. A binding reconciliation retired (reality-offline) is
// reusable too, as long as no fresh binding took its thread over: its
// thread kept receiving the person's updates into its journal, and the
// binding must own the thread throughout the registration (a fresh one
// would drop it while the thread is provisioned again, and what is
// written then would go unrouted). A PreviousTarget that names another
// thread does not stop the reuse: the profile key is authoritative.
func (h *Hub) reusable(b store.Binding, req Request) bool {
	if b.Target.IsZero() || b.Status == store.StatusFailed {
		return false
	}
	if req.Provider != "" && req.Provider != b.Target.Provider {
		return false
	}
	return h.cfg.Providers.Configured(b.Target.Provider)
}

// fresh provisions a thread: the thread of another offline binding
// (parked) if there is one on the provider, taken over with its slot,
// else a new one in the next free slot. old is the profile's previous
// binding record, if any (zero Key otherwise): its journal carries over;
// it has no thread of its own it could take up again (resolve reuses
// those). The profile's lock is held.
func (h *Hub) fresh(ctx context.Context, info registry.Info, req Request, old store.Binding) (store.Binding, Origin, error) {
	provider := req.Provider
	if provider == "" {
		provider = h.cfg.Providers.Default()
		if provider == "" {
			return store.Binding{}, OriginDetached, nil
		}
	}
	if !h.cfg.Providers.Configured(provider) {
		return store.Binding{}, 0, fmt.Errorf("%w: %q", ErrUnknownProvider, provider)
	}
	if err := h.slots.ensure(h.store); err != nil {
		return store.Binding{}, 0, err
	}
	if err := h.threads.ensure(h.store); err != nil {
		return store.Binding{}, 0, err
	}
	parked, release := h.claimParked(provider)
	defer release()
	var slot string
	var reuse *store.Target
	if parked != nil {
		slot, reuse = parked.Slot, &parked.Target
	} else {
		// Slots count per provider: it provisions in its own chat.
		var err error
		slot, err = h.store.AllocateSlot(provider, "", func(s string) bool { return h.slotInUse(provider, s) })
		if err != nil {
			return store.Binding{}, 0, err
		}
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
	t, err := h.cfg.Providers.Provision(ctx, provider, name, reuse)
	if err != nil {
		b.Status = store.StatusFailed
		b.LastError = err.Error()
		if perr := h.putBinding(b); perr != nil {
			h.log.Error().Err(perr).Str("binding", b.Key).Msg("recording a failed provisioning")
		}
		h.publish(events.BindingFailed, info.InstanceID, "could not provision a thread", map[string]string{
			"binding": b.Key, "provider": provider, "error": err.Error()})
		if errors.Is(err, ErrProviderNotServing) {
			return store.Binding{}, 0, err // it says it all: nothing was attempted
		}
		return store.Binding{}, 0, fmt.Errorf("%w on %s: %v", ErrProvision, provider, err)
	}
	if parked != nil {
		// The offline binding gives its slot up, and its thread if it was
		// reused; its journal stays under its own key.
		if err := h.supersede(*parked, b.Key, t == parked.Target); err != nil {
			b.Status, b.Target, b.LastError = store.StatusFailed, store.Target{}, err.Error()
			if perr := h.putBinding(b); perr != nil {
				h.log.Error().Err(perr).Str("binding", b.Key).Msg("recording a failed provisioning")
			}
			return store.Binding{}, 0, fmt.Errorf("%w on %s: taking over the thread of binding %q: %v", ErrProvision, provider, parked.Key, err)
		}
	}
	b.Target = t
	// Written at once (still starting): the thread's updates route here
	// from now on.
	if err := h.putBinding(b); err != nil {
		return store.Binding{}, 0, err
	}
	if !old.Target.IsZero() {
		// The profile left its old thread (the store forgot what was sent
		// there when the binding moved), or starts afresh in it: so does
		// the scope in memory.
		h.forgetScope(old.Target)
	}
	return b, OriginFresh, nil
}

// slotInUse says whether slot is taken on provider (slotTable.inUse).
func (h *Hub) slotInUse(provider, slot string) bool { return h.slots.inUse(provider, slot) }

// threadTitle names a thread "<slot> · <name>", within the provider
// contract's 128
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
