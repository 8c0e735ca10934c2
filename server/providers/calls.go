package providers

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/server/hub"
	"github.com/chatbus/chatbus/server/metrics"
	"github.com/chatbus/chatbus/server/store"
)

// ErrHeld: a call's deadline passed while it was still held (its provider
// does not admit, or an earlier call of its thread is held) or still being
// sent. It is not lost: it is sent once, and repeating it with the same
// idempotency key returns its outcome.
var ErrHeld = errors.New("call not finished")

// ErrTooManyHeld: the provider holds too many calls already.
var ErrTooManyHeld = errors.New("too many calls held for the provider")

// Call bounds.
const (
	// callTimeout bounds one attempt at a platform call, whatever the
	// caller's deadline: a caller that stops waiting does not cut the call
	// off mid-way (which would leave its outcome unknown).
	callTimeout = 2 * time.Minute
	// DefaultCallKeep is how long settled call records answer repeats.
	DefaultCallKeep = 24 * time.Hour
	// DefaultCallsPerBinding bounds the settled records kept per binding.
	DefaultCallsPerBinding = 10000
	// maxOpenCalls bounds the calls one provider holds or sends at once.
	maxOpenCalls = 10000
)

// Call implements hub.Providers. A call without an idempotency key goes
// straight to the running child, as it always did, unless it must wait
// (the provider does not admit, or a call of its thread is held); then,
// like a keyed call, it takes the at-most-once path (calls).
func (m *Manager) Call(ctx context.Context, c hub.Call) (hub.Result, error) {
	p, err := m.get(c.Target.Provider)
	if err != nil {
		return hub.Result{}, err
	}
	if c.Key == "" {
		if p.adm.open() && !p.calls.holds(c.Target) {
			res, err := p.callOnce(ctx, c)
			if !notAdmitting(err) {
				return res, err
			}
			p.adm.refused()
		}
		// Held: it gets a record like any call, so it is sent once.
		c.Key = "auto:" + randomKey()
	}
	return p.calls.do(ctx, c)
}

// callOnce makes the call on the running child.
func (p *provider) callOnce(ctx context.Context, c hub.Call) (hub.Result, error) {
	cl, _, err := p.client(ctx)
	if err != nil {
		return hub.Result{}, err
	}
	resp, err := cl.Call(ctx, &providerv1.CallRequest{Method: c.Method, ParamsJson: c.Params, IdempotencyKey: c.Key, Target: targetProto(c.Target)})
	if err != nil {
		if notAdmitting(err) {
			return hub.Result{}, err // the caller holds it
		}
		return hub.Result{}, p.classify(err)
	}
	return hub.Result{JSON: resp.GetResultJson(), Refs: refsFrom(resp.GetReferences())}, nil
}

// calls is a provider's at-most-once call path. Every call with an
// idempotency key (and every call that must wait) has a durable record,
// written before the platform is called (store.CallRecord): a repeat of a
// settled key gets the recorded outcome without calling the platform, a
// repeat while the first is in flight waits for it, and a call whose
// outcome is unknown (the child died mid-call) is reported as such on every
// repeat, never sent again.
//
// Calls are sent by their own goroutine, detached from the caller (so a
// caller that stops waiting does not cut a call off): at once when the
// provider admits and nothing of the thread is held, else from the held
// queue of the thread, in the order they were made, once admission
// reopens. The sender goroutine (run) wakes on admission changes.
type calls struct {
	p     *provider
	store store.Store

	mu       sync.Mutex          // guards below
	inflight map[callKey]*flight // every call being made or held now
	held     map[threadKey][]*flight
	kick     chan struct{} // cap 1: held calls to send
}

type callKey struct{ binding, key string }
type threadKey struct{ chat, thread string }

// flight is one call being made or held; done is closed with its outcome.
type flight struct {
	rec  store.CallRecord
	done chan struct{}
	res  hub.Result
	err  error
	// cutOff: the previous run stopped while sending it. It is sent again
	// only if its method is idempotent on the platform; else its outcome
	// stays unknown. (Which it is, the child says once it runs.)
	cutOff bool
}

func newCalls(p *provider, st store.Store) *calls {
	return &calls{p: p, store: st, inflight: map[callKey]*flight{}, held: map[threadKey][]*flight{}, kick: make(chan struct{}, 1)}
}

func threadOf(t store.Target) threadKey { return threadKey{t.Chat, t.Thread} }

// counts returns how many calls are held, and how many are being made or
// held.
func (cs *calls) counts() (held, open int) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	for _, q := range cs.held {
		held += len(q)
	}
	return held, len(cs.inflight)
}

// holds reports whether calls of thread t are held.
func (cs *calls) holds(t store.Target) bool {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return len(cs.held[threadOf(t)]) > 0
}

// do makes a keyed call at most once and waits for its outcome or ctx.
func (cs *calls) do(ctx context.Context, c hub.Call) (hub.Result, error) {
	k := callKey{c.BindingKey, c.Key}
	cs.mu.Lock()
	if f := cs.inflight[k]; f != nil {
		cs.mu.Unlock()
		cs.p.metrics.CallRepeat(cs.p.spec.Name, metrics.RepeatInFlight)
		return f.wait(ctx, cs.p.spec.Name) // a repeat while the first is under way
	}
	if len(cs.inflight) >= maxOpenCalls {
		cs.mu.Unlock()
		return hub.Result{}, fmt.Errorf("%w (%d)", ErrTooManyHeld, maxOpenCalls)
	}
	f := &flight{done: make(chan struct{})}
	cs.inflight[k] = f
	now := cs.p.adm.open() && len(cs.held[threadOf(c.Target)]) == 0
	cs.mu.Unlock()

	state := store.CallQueued
	if now {
		state = store.CallSending
	}
	rec, created, err := cs.store.BeginCall(store.CallRecord{
		BindingKey: c.BindingKey, Key: c.Key, Provider: c.Target.Provider, Chat: c.Target.Chat, Thread: c.Target.Thread,
		Method: c.Method, Params: c.Params, State: state,
	})
	f.rec = rec
	switch {
	case err != nil:
		cs.settle(f, hub.Result{}, err)
	case !created:
		// Recorded by an earlier attempt that is no longer in flight.
		cs.p.metrics.CallRepeat(cs.p.spec.Name, metrics.RepeatRecorded)
		res, err := recorded(rec)
		cs.settle(f, res, err)
	case now:
		go cs.send(f)
	default:
		cs.hold(f)
	}
	return f.wait(ctx, cs.p.spec.Name)
}

// wait returns f's outcome, or, when ctx ends first, ErrHeld: the call
// goes on without the caller.
func (f *flight) wait(ctx context.Context, provider string) (hub.Result, error) {
	select {
	case <-f.done:
		return f.res, f.err
	case <-ctx.Done():
	}
	select {
	case <-f.done:
		return f.res, f.err
	default:
	}
	return hub.Result{}, fmt.Errorf("%w: the call (key %q) to %s is held or still being sent and will be made once; repeat it with the same key for its outcome: %w",
		ErrHeld, f.rec.Key, provider, ctx.Err())
}

// settle records f's outcome in memory and wakes its waiters.
func (cs *calls) settle(f *flight, res hub.Result, err error) {
	cs.mu.Lock()
	if cs.inflight[callKey{f.rec.BindingKey, f.rec.Key}] == f {
		delete(cs.inflight, callKey{f.rec.BindingKey, f.rec.Key})
	}
	cs.mu.Unlock()
	f.res, f.err = res, err
	close(f.done)
}

// hold puts f in its thread's held queue, in the order calls were made.
func (cs *calls) hold(f *flight) {
	tk := threadOf(store.Target{Chat: f.rec.Chat, Thread: f.rec.Thread})
	cs.mu.Lock()
	q := append(cs.held[tk], f)
	sort.SliceStable(q, func(i, j int) bool { return q[i].rec.Order < q[j].rec.Order })
	cs.held[tk] = q
	cs.mu.Unlock()
	cs.kickRun()
}

func (cs *calls) kickRun() {
	select {
	case cs.kick <- struct{}{}:
	default:
	}
}

// send makes f's call, records its outcome durably, and settles it. A
// call the child refused as not admitting was not made: it is held again.
// It reports whether it was settled.
func (cs *calls) send(f *flight) bool {
	if f.cutOff && !cs.p.idempotent(f.rec.Method) {
		cs.p.log.Warn().Str("key", f.rec.Key).Str("binding", f.rec.BindingKey).Str("method", f.rec.Method).
			Msg("a call was cut off by the supervisor's stop: its outcome is unknown and it is not sent again")
		cs.finish(f, hub.Result{}, ambiguous("the supervisor stopped while the call was being sent; it may or may not have reached the platform"))
		return true
	}
	ctx, cancel := context.WithTimeout(context.Background(), callTimeout)
	defer cancel()
	c := hub.Call{BindingKey: f.rec.BindingKey, Key: f.rec.Key, Method: f.rec.Method, Params: f.rec.Params,
		Target: store.Target{Provider: f.rec.Provider, Chat: f.rec.Chat, Thread: f.rec.Thread}}
	if f.rec.State == store.CallQueued {
		f.rec.State = store.CallSending
		if err := cs.store.SetCall(f.rec); err != nil {
			// Not sent, and not recorded as sending: it stays queued.
			cs.p.log.Error().Err(err).Str("key", f.rec.Key).Msg("recording a held call as being sent; it stays held")
			f.rec.State = store.CallQueued
			cs.hold(f)
			return false
		}
	}
	res, err := cs.p.callOnce(ctx, c)
	if notAdmitting(err) {
		cs.p.adm.refused()
		f.rec.State = store.CallQueued
		if serr := cs.store.SetCall(f.rec); serr != nil {
			cs.p.log.Error().Err(serr).Str("key", f.rec.Key).Msg("recording a refused call as held")
		}
		cs.hold(f)
		return false
	}
	cs.finish(f, res, err)
	return true
}

// finish records the outcome of a call that was made (or certainly was
// not, and may be tried again) and settles it.
func (cs *calls) finish(f *flight, res hub.Result, err error) {
	rec := f.rec
	switch {
	case err == nil:
		rec.State, rec.Result, rec.Refs = store.CallDone, res.JSON, res.Refs
	case retryable(err), errors.Is(err, ErrTargetGone):
		// Certainly not made, and it may pass later (rate limited, the
		// platform unreachable) or elsewhere (the thread was deleted: the
		// hub makes it again in the binding's new thread): forget the
		// record so the key can be tried again.
		if derr := cs.store.DeleteCall(rec.BindingKey, rec.Key); derr != nil {
			cs.p.log.Error().Err(derr).Str("key", rec.Key).Msg("forgetting a call that was not made")
		}
		cs.settle(f, res, err)
		return
	case errors.Is(err, ErrAmbiguous) && cs.p.idempotent(rec.Method):
		// The platform de-duplicates it by key: send it again (held, in
		// its thread's order) rather than leave its outcome unknown.
		cs.p.log.Info().Str("key", rec.Key).Str("method", rec.Method).Err(err).
			Msg("a call's outcome is unknown; the platform de-duplicates it by key: sending it again")
		f.rec.State = store.CallQueued
		if serr := cs.store.SetCall(f.rec); serr != nil {
			cs.p.log.Error().Err(serr).Str("key", rec.Key).Msg("recording a call to send again")
		}
		cs.hold(f)
		return
	case errors.Is(err, ErrAmbiguous):
		rec.State, rec.Failure = store.CallUnknown, encodeFailure(err)
	default:
		rec.State, rec.Failure = store.CallFailed, encodeFailure(err)
	}
	if serr := cs.store.SetCall(rec); serr != nil {
		cs.p.log.Error().Err(serr).Str("key", rec.Key).Str("state", string(rec.State)).Msg("recording a call's outcome")
	}
	cs.p.log.Debug().Str("key", rec.Key).Str("method", rec.Method).Str("state", string(rec.State)).Err(err).Msg("call settled")
	cs.settle(f, res, err)
}

// idempotent reports whether the provider declared method as made at most
// once per idempotency key by its platform.
func (p *provider) idempotent(method string) bool {
	d := p.desc.Load()
	if d == nil {
		return false
	}
	for _, m := range d.Methods {
		if m.Name == method {
			return m.Idempotent
		}
	}
	return false
}

// retryable: the call certainly did not reach the platform, and trying
// again later may succeed.
func retryable(err error) bool {
	var ce *CallError
	if errors.As(err, &ce) {
		return ce.Class == ErrRateLimited || ce.Class == ErrUnavailable
	}
	return errors.Is(err, ErrUnavailable) // the child never came up within the attempt
}

// run sends the held calls whenever admission is open, thread by thread,
// each thread's in order, until ctx ends.
func (cs *calls) run(ctx context.Context) {
	for {
		open, changed := cs.p.adm.state()
		if open {
			cs.sendHeld(ctx)
			_, changed = cs.p.adm.state()
		}
		select {
		case <-ctx.Done():
			return
		case <-changed:
		case <-cs.kick:
		}
	}
}

// sendHeld sends what is held while admission stays open.
func (cs *calls) sendHeld(ctx context.Context) {
	for ctx.Err() == nil && cs.p.adm.open() {
		f := cs.nextHeld()
		if f == nil {
			return
		}
		if !cs.send(f) {
			return // refused again: wait for admission to change
		}
	}
}

// nextHeld takes the oldest held call of some thread off its queue.
func (cs *calls) nextHeld() *flight {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	var best threadKey
	var first *flight
	for tk, q := range cs.held {
		if len(q) > 0 && (first == nil || q[0].rec.Order < first.rec.Order) {
			best, first = tk, q[0]
		}
	}
	if first == nil {
		return nil
	}
	if q := cs.held[best][1:]; len(q) > 0 {
		cs.held[best] = q
	} else {
		delete(cs.held, best)
	}
	return first
}

// load takes up the provider's open records after a supervisor start:
// queued ones are held again, to be sent; sending ones were cut off by the
// stop and may or may not have reached the platform: they are sent again
// if their method is idempotent on the platform, else they become unknown
// (see send).
func (cs *calls) load() error {
	open, err := cs.store.OpenCalls(cs.p.spec.Name)
	if err != nil {
		return err
	}
	for _, rec := range open {
		// A call cut off mid-send waits in its thread's order too: once the
		// child runs, its method says whether it may be sent again.
		f := &flight{rec: rec, done: make(chan struct{}), cutOff: rec.State == store.CallSending}
		cs.mu.Lock()
		cs.inflight[callKey{rec.BindingKey, rec.Key}] = f
		cs.mu.Unlock()
		cs.hold(f)
	}
	if n := len(open); n > 0 {
		cs.p.log.Info().Int("open", n).Msg("calls left open by the previous run taken up")
	}
	return nil
}

// recorded is the outcome a settled record answers repeats with.
func recorded(rec store.CallRecord) (hub.Result, error) {
	switch rec.State {
	case store.CallDone:
		return hub.Result{JSON: rec.Result, Refs: rec.Refs}, nil
	case store.CallFailed, store.CallUnknown:
		return hub.Result{}, decodeFailure(rec.Failure, rec.State)
	}
	// Open, with nobody making it: not possible after load; say so rather
	// than send it twice.
	return hub.Result{}, ambiguous("call %q is %s with no attempt under way", rec.Key, rec.State)
}

func encodeFailure(err error) []byte {
	b, _ := json.Marshal(recordError(err))
	return b
}

func decodeFailure(b []byte, st store.CallState) error {
	var r recordedError
	if err := json.Unmarshal(b, &r); err != nil || r.Class == "" {
		if st == store.CallUnknown {
			return ambiguous("an earlier attempt's outcome is unknown")
		}
		return &CallError{Class: ErrRefused, Message: "an earlier attempt failed"}
	}
	return r.err()
}

// notAdmitting: the owner closed admission for a doctor restart.
func notAdmitting(err error) bool { return status.Code(err) == codes.FailedPrecondition }

func randomKey() string {
	b := make([]byte, 12)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
