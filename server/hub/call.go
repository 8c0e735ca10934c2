package hub

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/chatbus/chatbus/server/events"
	"github.com/chatbus/chatbus/server/registry"
	"github.com/chatbus/chatbus/server/store"
)

// allowed lists the platform methods a follower may call, and whether the
// method takes the thread id (message_thread_id) that the hub fills in.
var allowed = map[string]struct{ thread bool }{
	"sendMessage":         {thread: true},
	"editMessageText":     {},
	"deleteMessage":       {},
	"sendChatAction":      {thread: true},
	"answerCallbackQuery": {},
	"editForumTopic":      {thread: true},
	"closeForumTopic":     {thread: true},
}

// AllowedMethods returns the allow-list (for docs and errors).
func AllowedMethods() []string {
	out := make([]string, 0, len(allowed))
	for m := range allowed {
		out = append(out, m)
	}
	return out
}

// Call makes a platform call scoped to the follower's own thread: chat_id
// and message_thread_id are filled in from the binding and may not name
// others; a message id must be one the thread has seen (sent or received);
// a callback query id must have come from the thread.
func (h *Hub) Call(ctx context.Context, f *registry.Follower, method string, params []byte, idempotencyKey string) (json.RawMessage, error) {
	b, err := h.activeBinding(f, "call "+method)
	if err != nil {
		return nil, err
	}
	scoped, err := h.scopeCall(b.Target, method, params)
	if err != nil {
		return nil, err
	}
	res, err := h.cfg.Providers.Call(ctx, b.Target.Provider, method, scoped, idempotencyKey)
	if err != nil {
		return nil, err
	}
	h.learnResult(b.Target, res)
	return res, nil
}

func (h *Hub) scopeCall(t store.Target, method string, params []byte) (json.RawMessage, error) {
	rule, ok := allowed[method]
	if !ok {
		return nil, fmt.Errorf("%w: %s (allowed: sendMessage, editMessageText, deleteMessage, sendChatAction, answerCallbackQuery, editForumTopic, closeForumTopic; files through UploadFile/DownloadFile)", ErrMethodNotAllowed, method)
	}
	m := map[string]json.RawMessage{}
	if len(bytes.TrimSpace(params)) > 0 {
		dec := json.NewDecoder(bytes.NewReader(params))
		dec.UseNumber()
		if err := dec.Decode(&m); err != nil || m == nil {
			return nil, fmt.Errorf("%w: %v", ErrBadParams, err)
		}
	}
	if v, ok := m["chat_id"]; ok && !sameID(v, t.ChatID) {
		return nil, fmt.Errorf("%w: chat_id %s is not your chat", ErrOutOfScope, v)
	}
	if v, ok := m["message_thread_id"]; ok && !sameID(v, t.ThreadID) {
		return nil, fmt.Errorf("%w: message_thread_id %s is not your thread", ErrOutOfScope, v)
	}
	if _, ok := m["inline_message_id"]; ok {
		return nil, fmt.Errorf("%w: inline messages cannot be scoped to a thread", ErrOutOfScope)
	}
	sc := h.scopeOf(t)
	if v, ok := m["message_id"]; ok || method == "editMessageText" || method == "deleteMessage" {
		id, err := strconv.ParseInt(string(bytes.Trim(v, `"`)), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%w: %s needs a numeric message_id", ErrBadParams, method)
		}
		if !sc.hasMessage(id) {
			return nil, fmt.Errorf("%w: message %d was not sent or received in your thread", ErrOutOfScope, id)
		}
	}
	if method == "answerCallbackQuery" {
		var id string
		if err := json.Unmarshal(m["callback_query_id"], &id); err != nil || !sc.hasQuery(id) {
			return nil, fmt.Errorf("%w: callback query %q did not come from your thread", ErrOutOfScope, id)
		}
	}
	m["chat_id"] = json.RawMessage(strconv.FormatInt(t.ChatID, 10))
	if rule.thread && t.ThreadID != 0 {
		m["message_thread_id"] = json.RawMessage(strconv.FormatInt(t.ThreadID, 10))
	}
	return json.Marshal(m)
}

func sameID(v json.RawMessage, want int64) bool {
	got, err := strconv.ParseInt(string(bytes.Trim(v, `"`)), 10, 64)
	return err == nil && got == want
}

// scope remembers, per thread, the message, callback query and file ids
// seen in it, so edits, deletes, answers and downloads cannot reach other
// threads. It is bounded (the most recent scopeCap of each). What the
// thread's followers sent is also kept in the store and reloaded after a
// supervisor restart (a follower keeps editing its own messages); what
// arrived before a restart is not known after it.
type scope struct {
	load     sync.Once // the sent ids from the store
	mu       sync.Mutex
	messages *ring[int64]
	queries  *ring[string]
	files    *ring[string]
}

const scopeCap = 4096

func (h *Hub) scopeOf(t store.Target) *scope {
	h.mu.Lock()
	sc, ok := h.scopes[t]
	if !ok {
		sc = &scope{messages: newRing[int64](scopeCap), queries: newRing[string](scopeCap), files: newRing[string](scopeCap)}
		h.scopes[t] = sc
	}
	h.mu.Unlock()
	sc.load.Do(func() {
		msgs, files, err := h.store.Sent(t)
		if err != nil {
			h.log.Error().Err(err).Str("provider", t.Provider).Int64("chat_id", t.ChatID).Int64("thread_id", t.ThreadID).
				Msg("reading what the thread's followers sent: calls naming those messages are refused")
		}
		sc.add(msgs, nil, files)
	})
	return sc
}

// add records ids seen in the thread.
func (s *scope) add(messages []int64, queries, files []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range messages {
		s.messages.add(id)
	}
	for _, id := range queries {
		s.queries.add(id)
	}
	for _, id := range files {
		s.files.add(id)
	}
}

func (s *scope) hasMessage(id int64) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.messages.has(id)
}
func (s *scope) hasQuery(id string) bool { s.mu.Lock(); defer s.mu.Unlock(); return s.queries.has(id) }
func (s *scope) hasFile(id string) bool  { s.mu.Lock(); defer s.mu.Unlock(); return s.files.has(id) }

// message is the part of a platform message the scope needs.
type message struct {
	MessageID int64 `json:"message_id"`
	Document  *struct {
		FileID string `json:"file_id"`
	} `json:"document"`
	Photo []struct {
		FileID string `json:"file_id"`
	} `json:"photo"`
}

func (s *scope) addMessage(m *message) {
	if m == nil {
		return
	}
	s.messages.add(m.MessageID)
	for _, id := range m.fileIDs() {
		s.files.add(id)
	}
}

// fileIDs lists the files the message carries.
func (m *message) fileIDs() []string {
	var ids []string
	if m.Document != nil {
		ids = append(ids, m.Document.FileID)
	}
	for _, p := range m.Photo {
		ids = append(ids, p.FileID)
	}
	return ids
}

// learnRefs records the ids a provider reported for an update that
// arrived in thread t.
func (h *Hub) learnRefs(t store.Target, r *Refs) {
	if len(r.MessageIDs)+len(r.CallbackQueryIDs)+len(r.FileIDs) == 0 {
		return
	}
	h.scopeOf(t).add(r.MessageIDs, r.CallbackQueryIDs, r.FileIDs)
}

// learn records the ids of an inbound update routed to a binding, read
// from its Telegram-shaped payload (for providers that do not report them).
func (h *Hub) learn(u store.Update) {
	var p struct {
		Message       *message `json:"message"`
		EditedMessage *message `json:"edited_message"`
		CallbackQuery *struct {
			ID      string   `json:"id"`
			Message *message `json:"message"`
		} `json:"callback_query"`
	}
	if json.Unmarshal(u.Payload, &p) != nil {
		return
	}
	sc := h.scopeOf(store.Target{Provider: u.Provider, ChatID: u.ChatID, ThreadID: u.ThreadID})
	sc.mu.Lock()
	defer sc.mu.Unlock()
	sc.addMessage(p.Message)
	sc.addMessage(p.EditedMessage)
	if q := p.CallbackQuery; q != nil {
		sc.queries.add(q.ID)
		sc.addMessage(q.Message)
	}
}

// learnResult records the message a call sent into thread t, in memory at
// once and in the store without waiting for it.
func (h *Hub) learnResult(t store.Target, res json.RawMessage) {
	var m message
	if json.Unmarshal(res, &m) != nil || m.MessageID == 0 {
		return
	}
	sc := h.scopeOf(t)
	sc.mu.Lock()
	known := sc.messages.has(m.MessageID) // an edit: remembered already
	sc.addMessage(&m)
	sc.mu.Unlock()
	if known {
		return
	}
	done := h.store.RememberSent(t, []int64{m.MessageID}, m.fileIDs())
	go func() {
		if err := <-done; err != nil {
			h.log.Warn().Err(err).Int64("message_id", m.MessageID).Int64("thread_id", t.ThreadID).
				Msg("remembering a sent message: after a restart it cannot be edited or deleted")
		}
	}()
}

// ring is a bounded set that forgets its oldest members. It grows as
// members arrive: most threads see far fewer than its bound.
type ring[T comparable] struct {
	set   map[T]struct{}
	order []T
	max   int
	next  int
}

func newRing[T comparable](n int) *ring[T] {
	return &ring[T]{set: make(map[T]struct{}), max: n}
}

func (r *ring[T]) add(v T) {
	if _, ok := r.set[v]; ok {
		return
	}
	if len(r.order) < r.max {
		r.order = append(r.order, v)
	} else {
		delete(r.set, r.order[r.next])
		r.order[r.next] = v
		r.next = (r.next + 1) % len(r.order)
	}
	r.set[v] = struct{}{}
}

func (r *ring[T]) has(v T) bool { _, ok := r.set[v]; return ok }

// Suspend holds the follower's binding for a successor (session
// replacement) and returns the handoff token and its deadline. The token is
// shown once; the store keeps only its hash.
func (h *Hub) Suspend(f *registry.Follower) (string, time.Time, error) {
	key := h.Binding(f)
	if key == "" {
		return "", time.Time{}, fmt.Errorf("suspend: %w", ErrDetached)
	}
	b, err := h.store.GetBinding(key)
	if err != nil {
		return "", time.Time{}, err
	}
	token := newToken()
	expires := h.cfg.Now().Add(h.cfg.HandoffTTL)
	if err := h.store.PutHandoff(token, key, expires); err != nil {
		return "", time.Time{}, err
	}
	b.Status = store.StatusSuspended
	if err := h.putBinding(b); err != nil {
		return "", time.Time{}, err
	}
	h.publish(events.BindingChanged, f.InstanceID, "binding suspended for a session handoff",
		map[string]string{"binding": key, "expires": expires.UTC().Format(time.RFC3339)})
	return token, expires, nil
}

// expireHandoffs lets bindings whose handoff expired go offline.
func (h *Hub) expireHandoffs() {
	keys, err := h.store.ExpireHandoffs(h.cfg.Now())
	if err != nil {
		h.log.Error().Err(err).Msg("expiring handoffs")
		return
	}
	for _, key := range keys {
		b, err := h.store.GetBinding(key)
		if err != nil || b.Status != store.StatusSuspended {
			continue
		}
		b.Status = store.StatusOffline
		if err := h.putBinding(b); err != nil {
			h.log.Error().Err(err).Str("binding", key).Msg("expiring a handoff")
			continue
		}
		h.publish(events.BindingChanged, b.InstanceID, "handoff expired: binding offline", map[string]string{"binding": key})
	}
}

// Reconcile marks offline, forgetting their identity, the bindings whose
// follower has not come back and that were not refreshed within
// ReconcileFresh, and realigns the slot cursors so freed slots are reused.
// It returns how many bindings it retired.
func (h *Hub) Reconcile() (int, error) {
	bs, err := h.store.ListBindings()
	if err != nil {
		return 0, err
	}
	now := h.cfg.Now()
	h.mu.Lock()
	live := make(map[string]bool, len(h.holders))
	for k := range h.holders {
		live[k] = true
	}
	h.mu.Unlock()
	type chat struct {
		provider string
		id       int64
	}
	freed := map[chat][]string{}
	n := 0
	for _, b := range bs {
		if live[b.Key] || b.LastAction == store.ActionRealityOffline || now.Sub(b.Updated) < h.cfg.ReconcileFresh {
			continue
		}
		if b.Status == store.StatusSuspended {
			continue // its handoff deadline decides
		}
		b.Status = store.StatusOffline
		b.LastAction = store.ActionRealityOffline
		b.InstanceID = ""
		if err := h.putBinding(b); err != nil {
			return n, err
		}
		n++
		if !b.Target.IsZero() && b.Slot != "" {
			c := chat{b.Target.Provider, b.Target.ChatID}
			freed[c] = append(freed[c], b.Slot)
		}
	}
	for c, slots := range freed {
		if err := h.store.RealignCursor(c.provider, c.id, slotBefore(earliest(slots))); err != nil {
			return n, err
		}
	}
	h.publish(events.Reconciled, "", fmt.Sprintf("reconciliation: %d binding(s) offline", n),
		map[string]string{"offline": strconv.Itoa(n), "bindings": strconv.Itoa(len(bs))})
	return n, nil
}

// earliest returns the first slot in allocation order (A < B < … < Z < AA).
func earliest(slots []string) string {
	best := slots[0]
	for _, s := range slots[1:] {
		if len(s) < len(best) || (len(s) == len(best) && s < best) {
			best = s
		}
	}
	return best
}

// slotBefore returns the slot preceding s in allocation order, "" before A.
func slotBefore(s string) string {
	b := []byte(s)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] > 'A' {
			b[i]--
			return string(b)
		}
		b[i] = 'Z'
	}
	// s was A, AA, AAA…: the one before is one letter shorter.
	if len(b) == 1 {
		return ""
	}
	return string(b[1:])
}
