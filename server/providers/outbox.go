package providers

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/server/hub"
	"github.com/chatbus/chatbus/server/store"
)

// ErrHeld: a call's deadline passed while it waited in the outbox for a
// restarting provider. It stays there and is sent once the successor is
// ready; repeating the call with the same idempotency key returns its
// result then.
var ErrHeld = errors.New("call held in the outbox")

// outboxKeep is how long completed outbox entries answer retries.
const outboxKeep = time.Hour

// outcome is what a waiting caller gets.
type outcome struct {
	result hub.Result
	err    error
}

// callViaOutbox makes the call durable first, then waits for the flusher
// to send it on a ready child: the call happens once, after the restart,
// and the caller returns when it really was delivered.
func (m *Manager) callViaOutbox(ctx context.Context, p *provider, t store.Target, method string, params json.RawMessage, key string) (hub.Result, error) {
	if key == "" {
		key = "auto:" + randomKey()
	}
	// Keys are the caller's, and two followers may choose the same one:
	// an entry is one thread's call (idempotency is per binding).
	key = p.spec.Name + "/" + t.Chat + "/" + t.Thread + "/" + key
	ch := make(chan outcome, 1)
	p.outMu.Lock()
	p.waiters[key] = append(p.waiters[key], ch)
	p.outMu.Unlock()
	defer p.dropWaiter(key, ch)

	e, err := m.cfg.Store.PutOutbox(store.OutboxEntry{Key: key, Provider: p.spec.Name, Chat: t.Chat, Thread: t.Thread, Method: method, Params: params})
	if err != nil {
		return hub.Result{}, err
	}
	if e.Done {
		return decodeOutcome(e.Result)
	}
	m.kickFlush(p)
	select {
	case o := <-ch:
		return o.result, o.err
	case <-ctx.Done():
		return hub.Result{}, fmt.Errorf("%w: %s is restarting; the call (key %q) will be sent once it is back: %w", ErrHeld, p.spec.Name, key, ctx.Err())
	}
}

func (p *provider) dropWaiter(key string, ch chan outcome) {
	p.outMu.Lock()
	defer p.outMu.Unlock()
	ws := p.waiters[key]
	for i, w := range ws {
		if w == ch {
			p.waiters[key] = append(ws[:i], ws[i+1:]...)
			break
		}
	}
	if len(p.waiters[key]) == 0 {
		delete(p.waiters, key)
	}
}

func (p *provider) answer(key string, o outcome) {
	p.outMu.Lock()
	ws := p.waiters[key]
	delete(p.waiters, key)
	p.outMu.Unlock()
	for _, w := range ws {
		w <- o
	}
}

// kickFlush asks the provider's flusher to run.
func (m *Manager) kickFlush(p *provider) {
	select {
	case p.flushKick <- struct{}{}:
	default:
	}
}

// flusher sends the provider's outbox whenever kicked and not restarting.
func (m *Manager) flusher(ctx context.Context, p *provider) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-p.flushKick:
		}
		if p.restarting.Load() {
			continue // EndRestart kicks again
		}
		m.flush(ctx, p)
	}
}

// flush sends every pending entry, in order, once, on the running child.
func (m *Manager) flush(ctx context.Context, p *provider) {
	entries, err := m.cfg.Store.ListOutbox(p.spec.Name)
	if err != nil {
		p.log.Error().Err(err).Msg("reading the outbox")
		return
	}
	for _, e := range entries {
		if p.restarting.Load() {
			return
		}
		wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		cl, _, err := p.client(wctx)
		if err != nil {
			cancel()
			p.log.Warn().Err(err).Msg("outbox waits for the provider")
			return
		}
		resp, err := cl.Call(wctx, &providerv1.CallRequest{Method: e.Method, ParamsJson: e.Params, IdempotencyKey: e.Key,
			Target: &providerv1.Target{Chat: e.Chat, Thread: e.Thread}})
		cancel()
		if err != nil && (notAdmitting(err) || status.Code(err) == codes.Unavailable) {
			// Refused (not sent), or the child went away: the next ready
			// child gets it. A child that died mid-call may have made it;
			// that risk is the platform's lack of idempotency.
			return
		}
		var o outcome
		var rec []byte
		if err != nil {
			o.err = classify(err)
			rec, _ = json.Marshal(outboxResult{Error: recordError(o.err)})
		} else {
			o.result = hub.Result{JSON: resp.GetResultJson(), Refs: refsFrom(resp.GetReferences())}
			rec, _ = json.Marshal(outboxResult{Result: o.result.JSON, Refs: o.result.Refs})
		}
		if cerr := m.cfg.Store.CompleteOutbox(e.Key, rec); cerr != nil {
			p.log.Error().Err(cerr).Str("key", e.Key).Msg("recording an outbox delivery")
		}
		p.log.Info().Str("key", e.Key).Str("method", e.Method).Err(o.err).Msg("outbox call delivered")
		p.answer(e.Key, o)
	}
	if _, err := m.cfg.Store.PruneOutbox(time.Now().Add(-outboxKeep)); err != nil {
		p.log.Warn().Err(err).Msg("pruning the outbox")
	}
}

// outboxResult is a completed outbox call as recorded.
type outboxResult struct {
	Result json.RawMessage `json:"result,omitempty"`
	Refs   []store.Ref     `json:"refs,omitempty"`
	Error  *recordedError  `json:"error,omitempty"`
}

func decodeOutcome(rec []byte) (hub.Result, error) {
	var r outboxResult
	if err := json.Unmarshal(rec, &r); err != nil {
		return hub.Result{}, fmt.Errorf("outbox record: %w", err)
	}
	if r.Error != nil {
		return hub.Result{}, r.Error.err()
	}
	return hub.Result{JSON: r.Result, Refs: r.Refs}, nil
}

func randomKey() string {
	b := make([]byte, 12)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

// BeginRestart holds the provider's new calls in the outbox until
// EndRestart. It fails if a restart is already under way.
func (m *Manager) BeginRestart(name string) error {
	p, err := m.get(name)
	if err != nil {
		return err
	}
	if !p.restarting.CompareAndSwap(false, true) {
		return fmt.Errorf("provider %s: a restart is already under way", name)
	}
	return nil
}

// EndRestart sends what the outbox held and lets calls through again.
func (m *Manager) EndRestart(name string) {
	p, err := m.get(name)
	if err != nil {
		return
	}
	p.restarting.Store(false)
	m.kickFlush(p)
}
