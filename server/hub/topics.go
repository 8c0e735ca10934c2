package hub

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sort"
	"time"

	"github.com/chatbus/chatbus/server/events"
	"github.com/chatbus/chatbus/server/registry"
	"github.com/chatbus/chatbus/server/store"
)

// A thread (a topic, a root message and its replies, whatever the
// platform calls it) lives longer than the sessions that use it, and
// people change it in the chat app. This file is its lifecycle:
//
//   - Reuse. A binding whose follower went away (offline) keeps its thread
//     and slot: its thread is parked. A fresh registration on the provider
//     takes a parked thread if there is one (its own first, else the one
//     offline longest) with its slot, and the provider renames and reopens
//     it instead of creating one, so threads created never exceed the
//     slots in use at once. The offline binding is superseded: it keeps its
//     key and its journal (what people wrote to it stays readable, and is
//     delivered to its profile if that comes back, in a new thread), but
//     no longer a thread or a slot. Its updates are never delivered to the
//     new binding, whose session is another agent's.
//   - Closing. A parked thread is closed on the platform (CloseTarget)
//     once its binding has been offline for CloseOfflineAfter; it is
//     reopened when it is reused (by its own profile coming back, or by a
//     fresh binding), or when a person writes in it.
//   - People. A thread a person deleted is found out by the call that
//     meets it (ErrTargetGone: nothing was sent) or by an update saying
//     so. A binding in use gets a new thread in its slot (same key, journal
//     kept), its follower is told (Heartbeat's notice, the open stream, a
//     binding_changed event) and the call that found out is made once
//     more in the new thread. An offline binding just loses the thread.
//     An update saying a person closed or reopened a thread marks it so.
//
// Every change of a binding that spans a provider call is made under the
// binding's lock (h.locks); the lifecycle goroutine (Run) makes those not
// caused by a follower's own request.

// DefaultCloseOfflineAfter is Config.CloseOfflineAfter's default: a day,
// long enough that a session paused overnight or over a meeting comes back
// to an open thread, short enough that the chat shows which sessions are
// gone.
const DefaultCloseOfflineAfter = 24 * time.Hour

// ThreadState is what an update says happened to its thread itself.
type ThreadState int

const (
	// ThreadUnchanged: an ordinary update.
	ThreadUnchanged ThreadState = iota
	// ThreadOpened: a person reopened the thread.
	ThreadOpened
	// ThreadClosedByPerson: a person closed the thread.
	ThreadClosedByPerson
	// ThreadDeleted: the thread was deleted.
	ThreadDeleted
)

// claimParked picks the parked thread a fresh binding on provider takes:
// the one whose binding reconciliation retired, else the one offline
// longest, skipping a slot a live binding holds too (left from before
// threads were reused) and bindings whose lock is taken (being registered
// or closed right now; the fresh binding's own is, by its caller, but a
// profile's own parked thread never comes here: it is reused). It returns
// the parked binding as stored, holding its lock until release; nil if
// there is none.
func (h *Hub) claimParked(provider string) (*store.Binding, func()) {
	var cands []parkedThread
	for _, p := range h.threads.parkedOn(provider) {
		if h.slots.free(p.hold) {
			cands = append(cands, p)
		}
	}
	sort.Slice(cands, func(i, j int) bool {
		a, b := cands[i], cands[j]
		switch {
		case a.forgotten != b.forgotten:
			return a.forgotten
		case !a.since.Equal(b.since):
			return a.since.Before(b.since)
		}
		return a.key < b.key
	})
	for _, c := range cands {
		unlock, ok := h.locks.TryLock(c.key)
		if !ok {
			continue
		}
		b, err := h.store.GetBinding(c.key)
		if p, ok := parkedOf(b); err != nil || !ok || p.target != c.target || p.hold != c.hold {
			unlock() // changed since the cache was read
			continue
		}
		return &b, unlock
	}
	return nil, func() {}
}

// supersede takes the parked binding p's slot (and, if reused, its thread)
// for binding by: p stays offline with its key and journal but no thread
// or slot. p's lock is held.
func (h *Hub) supersede(p store.Binding, by string, reused bool) error {
	old := p.Target
	why := fmt.Sprintf("its thread %s (slot %s) was reused by binding %q", old.Thread, p.Slot, by)
	if !reused {
		why = fmt.Sprintf("its thread %s was deleted on the platform; its slot %s went to binding %q", old.Thread, p.Slot, by)
	}
	p.Target, p.Slot, p.InstanceID, p.ThreadClosed = store.Target{}, "", "", time.Time{}
	p.LastAction, p.LastError = store.ActionSuperseded, why
	if err := h.putBinding(p); err != nil {
		return err
	}
	h.forgetScope(old)
	h.publish(events.BindingChanged, "", "binding superseded: "+why, map[string]string{
		"binding": p.Key, "provider": old.Provider, "chat": old.Chat, "old_thread": old.Thread,
		"change": "superseded", "by": by})
	return nil
}

// forgetScope drops what thread t's scope remembers in memory (its owner
// changed; the store forgot its sent ids when the binding moved).
func (h *Hub) forgetScope(t store.Target) { h.scopes.forget(t) }

// reopenReused reopens the closed thread of a binding its profile takes up
// again (REUSE, HANDOFF), or gives it a new one if the old one is gone. A
// failure leaves the thread as it is (the follower can still use a closed
// one): it is logged. The binding's lock is held; the caller writes the
// binding.
func (h *Hub) reopenReused(ctx context.Context, b store.Binding) store.Binding {
	if b.ThreadClosed.IsZero() || b.Target.IsZero() {
		return b
	}
	old := b.Target
	t, err := h.cfg.Providers.Provision(ctx, old.Provider, threadTitle(b.Slot, b.ThreadName), &old)
	if err != nil {
		h.log.Warn().Err(err).Str("binding", b.Key).Str("thread", old.Thread).Msg("reopening the closed thread of a binding taken up again; it stays closed")
		return b
	}
	b.Target, b.ThreadClosed = t, time.Time{}
	if t != old {
		b.LastError = fmt.Sprintf("thread %s was deleted on the platform; replaced by thread %s", old.Thread, t.Thread)
		h.forgetScope(old)
		h.publishMoved(b, old)
	}
	return b
}

// replaceThread gives the binding key a new thread in place of gone,
// which a call found deleted, unless that was done already (by a
// concurrent call): it returns the binding with its thread now.
func (h *Hub) replaceThread(ctx context.Context, key string, gone store.Target) (store.Binding, error) {
	unlock := h.locks.Lock(key)
	defer unlock()
	b, err := h.store.GetBinding(key)
	switch {
	case err != nil:
		return store.Binding{}, err
	case b.Target.IsZero():
		return store.Binding{}, fmt.Errorf("binding %q: %w (it has no thread)", key, ErrNotActive)
	case b.Target != gone:
		return b, nil // replaced meanwhile
	}
	return h.replaceLocked(ctx, b, "a call found it deleted")
}

// replaceLocked provisions a new thread for b in its slot, in place of its
// deleted one, and tells whoever holds b. Creating a thread is not
// idempotent: it is not retried. b's lock is held.
func (h *Hub) replaceLocked(ctx context.Context, b store.Binding, why string) (store.Binding, error) {
	gone := b.Target
	t, err := h.cfg.Providers.Provision(ctx, gone.Provider, threadTitle(b.Slot, b.ThreadName), nil)
	if err != nil {
		h.publish(events.BindingFailed, b.InstanceID, "could not replace a deleted thread", map[string]string{
			"binding": b.Key, "provider": gone.Provider, "old_thread": gone.Thread, "error": err.Error()})
		return store.Binding{}, fmt.Errorf("%w on %s: replacing deleted thread %s: %v", ErrProvision, gone.Provider, gone.Thread, err)
	}
	b.Target, b.ThreadClosed = t, time.Time{}
	b.LastAction = store.ActionThreadReplaced
	b.LastError = fmt.Sprintf("thread %s was deleted on the platform (%s); replaced by thread %s", gone.Thread, why, t.Thread)
	if err := h.putBinding(b); err != nil {
		return store.Binding{}, err
	}
	h.forgetScope(gone)
	if b.InstanceID != "" && h.reg.Holder(b.Key) != nil {
		// The provider's attachment names the thread (a provider may
		// catch up on attached threads): it follows.
		if err := h.cfg.Providers.Attach(ctx, t.Provider, b.InstanceID, t); err != nil {
			h.log.Warn().Err(err).Str("binding", b.Key).Msg("attaching the follower to its new thread")
		}
	}
	h.tellMoved(b)
	h.publishMoved(b, gone)
	return b, nil
}

// dropGoneLocked records that offline binding b's thread was deleted: it
// keeps its key and journal, and gets a new thread if its profile comes
// back. b's lock is held.
func (h *Hub) dropGoneLocked(b store.Binding) {
	gone := b.Target
	b.Target, b.Slot, b.ThreadClosed = store.Target{}, "", time.Time{}
	b.LastError = fmt.Sprintf("its thread %s was deleted on the platform", gone.Thread)
	if err := h.putBinding(b); err != nil {
		h.log.Error().Err(err).Str("binding", b.Key).Msg("recording a deleted thread")
		return
	}
	h.forgetScope(gone)
	h.publish(events.BindingChanged, "", "binding lost its thread: "+b.LastError, map[string]string{
		"binding": b.Key, "provider": gone.Provider, "chat": gone.Chat, "old_thread": gone.Thread, "change": "thread_gone"})
}

func (h *Hub) publishMoved(b store.Binding, old store.Target) {
	h.publish(events.BindingChanged, b.InstanceID, "thread replaced: the old one was deleted on the platform", map[string]string{
		"binding": b.Key, "provider": b.Target.Provider, "chat": b.Target.Chat, "thread": b.Target.Thread,
		"old_thread": old.Thread, "slot": b.Slot, "change": "thread_replaced"})
}

// tellMoved tells the live follower holding b that its thread is now
// b.Target: its next Heartbeat carries the notice, its open stream is
// woken (ThreadChanged).
func (h *Hub) tellMoved(b store.Binding) { h.moves.tell(h.reg.Holder(b.Key), b) }

// ThreadNotice returns, once, the binding of f if its thread was replaced
// since f registered or was last told.
func (h *Hub) ThreadNotice(f *registry.Follower) (store.Binding, bool) { return h.moves.take(f) }

// ThreadChanged returns a channel closed the next time the thread of f's
// binding is replaced; nil (never closed) while f is detached. Call
// release once no longer waiting on it.
func (h *Hub) ThreadChanged(f *registry.Follower) (changed <-chan struct{}, release func()) {
	key, _ := f.Binding()
	if key == "" {
		return nil, func() {}
	}
	return h.moves.changed(key)
}

// BindingOf returns the binding f holds as stored now.
func (h *Hub) BindingOf(f *registry.Follower) (store.Binding, error) {
	key, _ := f.Binding()
	if key == "" {
		return store.Binding{}, ErrDetached
	}
	return h.store.GetBinding(key)
}

// threadEvent is something an update said about its thread, for the
// lifecycle goroutine.
type threadEvent struct {
	key   string
	t     store.Target
	state ThreadState // ThreadUnchanged: a person wrote in the closed thread
	at    time.Time
}

// Intake is what the providers' update pumps hand batches to: Ingest, and
// then, once the batch is durable, what it says about its threads (see
// observeThreads).
type Intake struct{ h *Hub }

// Intake returns the hub's Intake.
func (h *Hub) Intake() Intake { return Intake{h} }

// Ingest is Hub.Ingest followed by what the batch says about threads.
func (in Intake) Ingest(ctx context.Context, provider string, batch []Inbound, cursor []byte) (int64, error) {
	acked, err := in.h.Ingest(ctx, provider, batch, cursor)
	if err == nil {
		in.h.observeThreads(provider, batch)
	}
	return acked, err
}

// observeThreads hands the lifecycle goroutine what a durable batch says
// about bound threads: closed, reopened or deleted (any sender: it is a
// fact about the thread), or written in by an allowed person while closed
// (it is reopened). It does not block: an event that does not fit is
// logged and dropped (the update itself is journalled).
func (h *Hub) observeThreads(provider string, batch []Inbound) {
	for _, in := range batch {
		u := &in.Update
		if u.Thread == "" || (in.ThreadState == ThreadUnchanged && (!in.Allowed || !h.threads.anyClosed())) {
			continue
		}
		t := store.Target{Provider: provider, Chat: u.Chat, Thread: u.Thread}
		key, err := h.route(t)
		if err != nil || key == "" {
			continue
		}
		if in.ThreadState == ThreadUnchanged {
			if !h.threads.isClosed(key, t) {
				continue
			}
		} else if h.threads.ensure(h.store) == nil {
			// Marked in the book at once, before the lifecycle writes it:
			// a message right after (in this batch or the next) sees it.
			h.threads.mark(key, t, in.ThreadState)
		}
		at := u.ReceivedAt
		if at.IsZero() {
			at = h.cfg.Now()
		}
		select {
		case h.threadEvents <- threadEvent{key: key, t: t, state: in.ThreadState, at: at}:
		default:
			h.log.Warn().Str("binding", key).Str("thread", t.Thread).Msg("too many thread changes at once: one is not applied")
		}
	}
}

// lifecycle is Run's goroutine for thread changes: it applies what updates
// said about threads and, every scan, closes the threads of bindings
// offline for CloseOfflineAfter.
func (h *Hub) lifecycle(ctx context.Context) {
	var scan <-chan time.Time
	if h.cfg.CloseOfflineAfter > 0 {
		t := time.NewTicker(min(max(h.cfg.CloseOfflineAfter/4, time.Second), time.Minute))
		defer t.Stop()
		scan = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return
		case ev := <-h.threadEvents:
			h.contained("applying a thread change", func() { h.applyThreadEvent(ctx, ev) })
		case <-scan:
			h.contained("closing the threads of offline bindings", func() {
				if _, err := h.closeOffline(ctx); err != nil {
					h.log.Error().Err(err).Msg("closing the threads of offline bindings")
				}
			})
		}
	}
}

// contained runs one step of a long-lived goroutine and contains its
// panic: logged with its stack, the step is given up (its locks are
// released by their defers) and the goroutine goes on, rather than the
// supervisor dying with every follower's stream on one bad step.
func (h *Hub) contained(what string, step func()) {
	defer func() {
		if r := recover(); r != nil {
			h.log.Error().Str("panic", fmt.Sprint(r)).Bytes("stack", debug.Stack()).Msg(what + " panicked; given up")
		}
	}()
	step()
}

// applyThreadEvent applies one thing an update said about a thread.
func (h *Hub) applyThreadEvent(ctx context.Context, ev threadEvent) {
	unlock := h.locks.Lock(ev.key)
	defer unlock()
	b, err := h.store.GetBinding(ev.key)
	if err != nil || b.Target != ev.t {
		return // it moved on
	}
	switch ev.state {
	case ThreadClosedByPerson:
		if b.ThreadClosed.IsZero() {
			b.ThreadClosed = ev.at
			h.putLogged(b, "recording a thread a person closed")
		}
	case ThreadOpened:
		if !b.ThreadClosed.IsZero() {
			b.ThreadClosed = time.Time{}
			h.putLogged(b, "recording a thread a person reopened")
		}
	case ThreadDeleted:
		if b.Status == store.StatusOffline {
			h.dropGoneLocked(b)
			return
		}
		if _, err := h.replaceLocked(ctx, b, "the platform said so"); err != nil {
			h.log.Error().Err(err).Str("binding", b.Key).Msg("replacing a deleted thread")
		}
	case ThreadUnchanged:
		if b.ThreadClosed.IsZero() {
			return
		}
		t, err := h.cfg.Providers.Provision(ctx, b.Target.Provider, threadTitle(b.Slot, b.ThreadName), &b.Target)
		if err != nil {
			h.log.Warn().Err(err).Str("binding", b.Key).Msg("reopening a closed thread a person wrote in")
			return
		}
		old := b.Target
		b.Target, b.ThreadClosed = t, time.Time{}
		if err := h.putBinding(b); err != nil {
			h.log.Error().Err(err).Str("binding", b.Key).Msg("recording a reopened thread")
			return
		}
		if t != old { // gone meanwhile: it got a new one
			h.forgetScope(old)
			h.tellMoved(b)
			h.publishMoved(b, old)
			return
		}
		h.publish(events.BindingChanged, b.InstanceID, "thread reopened: a person wrote in it", map[string]string{
			"binding": b.Key, "provider": t.Provider, "chat": t.Chat, "thread": t.Thread, "change": "thread_reopened"})
	}
}

func (h *Hub) putLogged(b store.Binding, what string) {
	if err := h.putBinding(b); err != nil {
		h.log.Error().Err(err).Str("binding", b.Key).Msg(what)
	}
}

// closeOffline closes the parked threads whose binding has been offline
// for CloseOfflineAfter and returns how many it closed. A thread found
// deleted is dropped from its binding; a failure is logged and tried again
// at the next scan. Bindings being changed right now are left for the
// next scan.
func (h *Hub) closeOffline(ctx context.Context) (int, error) {
	if h.cfg.CloseOfflineAfter <= 0 {
		return 0, nil
	}
	if err := h.threads.ensure(h.store); err != nil {
		return 0, err
	}
	now := h.cfg.Now()
	due := h.threads.due(now, h.cfg.CloseOfflineAfter)
	n := 0
	for _, key := range due {
		if ctx.Err() != nil {
			return n, ctx.Err()
		}
		if h.closeParked(ctx, key, now) {
			n++
		}
	}
	return n, nil
}

// closeParked closes the thread of parked binding key if it is still
// due; it reports whether it did.
func (h *Hub) closeParked(ctx context.Context, key string, now time.Time) bool {
	unlock, ok := h.locks.TryLock(key)
	if !ok {
		return false
	}
	defer unlock()
	b, err := h.store.GetBinding(key)
	p, parked := parkedOf(b)
	if err != nil || !parked || p.closed || now.Sub(p.since) < h.cfg.CloseOfflineAfter {
		return false
	}
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	err = h.cfg.Providers.CloseTarget(cctx, b.Target)
	cancel()
	switch {
	case errors.Is(err, ErrTargetGone):
		h.dropGoneLocked(b)
		return false
	case err != nil:
		h.log.Warn().Err(err).Str("binding", key).Str("thread", b.Target.Thread).Msg("closing the thread of an offline binding; trying again later")
		return false
	}
	offline := now.Sub(p.since).Round(time.Second)
	b.ThreadClosed = now
	if err := h.putBinding(b); err != nil {
		h.log.Error().Err(err).Str("binding", key).Msg("recording a closed thread")
		return false
	}
	h.publish(events.BindingChanged, "", fmt.Sprintf("thread closed: its binding was offline for %s", offline), map[string]string{
		"binding": key, "provider": b.Target.Provider, "chat": b.Target.Chat, "thread": b.Target.Thread, "change": "thread_closed"})
	return true
}
