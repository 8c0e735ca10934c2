package providers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"google.golang.org/protobuf/encoding/protojson"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/server/hub"
	"github.com/chatbus/chatbus/server/metrics"
	"github.com/chatbus/chatbus/server/outbound"
	"github.com/chatbus/chatbus/server/store"
)

// ErrHeld: a call's deadline passed while it was still waiting its turn
// (the platform's limits, a provider that does not admit) or being sent.
// A call with an idempotency key is not lost: it is sent once, and
// repeating it with the same key returns its outcome; one without was
// taken back and not sent.
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

// Call implements hub.Providers. Every call waits its turn in the
// provider's outbound scheduler (pacing.go): within the platform's limits,
// prompts first, threads in turn. A call with an idempotency key takes the
// at-most-once path (calls); one without is made once its turn comes, or
// not at all if its caller stops waiting first.
func (m *Manager) Call(ctx context.Context, c hub.Call) (hub.Result, error) {
	p, err := m.get(c.Target.Provider)
	if err != nil {
		return hub.Result{}, err
	}
	if c.Key == "" {
		return p.callUnkeyed(ctx, c, func(ctx context.Context) (hub.Result, *providerv1.Pause, error) { return p.callOnceDetail(ctx, c) })
	}
	return p.calls.do(ctx, c, nil)
}

// sendFunc makes a call on the running child once: a raw call or verb
// (callOnceDetail), an upload (uploadOnce). A refusal as not admitting is
// returned as the child's status (notAdmitting), anything else classified.
type sendFunc func(ctx context.Context) (hub.Result, *providerv1.Pause, error)

// callUnkeyed makes a call without a record: it waits its turn, then goes
// to the child (send) with the caller's ctx. A caller that stops waiting
// before its turn takes it back (nothing was sent).
func (p *provider) callUnkeyed(ctx context.Context, c hub.Call, send sendFunc) (hub.Result, error) {
	u := &unkeyed{done: make(chan struct{})}
	settle := u.settle
	j := p.job(ctx, c)
	j.Owner = u
	j.Run = func() outbound.Outcome {
		r, pause, cerr := send(ctx)
		if notAdmitting(cerr) {
			p.adm.refused()
			p.sched.SetOpen(false)
			return outbound.Outcome{Again: true}
		}
		if o, limited := rateLimitedOutcome(cerr); limited && ctx.Err() == nil {
			return o
		}
		settle(r, cerr)
		if cerr != nil {
			return outbound.Outcome{}
		}
		return outcomeOf(r, pause)
	}
	j.Superseded = func(by *outbound.Job) { superseded(c, by, settle) }
	j.Abort = func(aerr error) { settle(hub.Result{}, p.aborted(c, aerr)) }
	st, serr := p.sched.Submit(j)
	switch {
	case serr != nil:
		return hub.Result{}, refusal(serr)
	case st == outbound.Skipped:
		return hub.Result{JSON: json.RawMessage("{}")}, nil
	}
	select {
	case <-u.done:
		return u.res, u.err
	case <-ctx.Done():
	}
	if p.sched.Withdraw(j) {
		// Taken back: so are the calls it replaced, which follow it.
		settle(hub.Result{}, fmt.Errorf("%w: the call waited for its turn (the platform's limits, or a restart) and was not sent: %w", ErrHeld, ctx.Err()))
	}
	return u.answer() // under way: its outcome is the caller's
}

// answerer is a call's answer, once it has one: the Owner of every job of
// the provider's, so that a call a newer one replaced can take the newer
// one's (superseded).
type answerer interface{ answer() (hub.Result, error) }

// unkeyed is the answer of a call without a record.
type unkeyed struct {
	once sync.Once
	done chan struct{}
	res  hub.Result
	err  error
}

func (u *unkeyed) settle(res hub.Result, err error) {
	u.once.Do(func() { u.res, u.err = res, err; close(u.done) })
}

func (u *unkeyed) answer() (hub.Result, error) {
	<-u.done
	return u.res, u.err
}

// superseded answers c, which the newer call by replaced while it waited:
// an edit verb at once, as succeeded (supersededResult: the newer text is
// what the message shows); a raw call with the newer call's outcome, once
// it has one (the platform's own answer, which the caller can read).
func superseded(c hub.Call, by *outbound.Job, settle func(hub.Result, error)) {
	a, ok := by.Owner.(answerer)
	if hub.IsVerb(c.Method) || !ok {
		settle(supersededResult(c), nil)
		return
	}
	go func() { settle(a.answer()) }()
}

// supersededResult is the answer to an edit a newer edit of the same
// message replaced while it waited: it succeeded (the newer text is what
// the message shows), naming the message.
func supersededResult(c hub.Call) hub.Result {
	id := editedMessage(c)
	js, _ := protojson.MarshalOptions{UseProtoNames: true}.Marshal(&providerv1.VerbResult{MessageIds: []string{id}})
	return hub.Result{JSON: js, Refs: []store.Ref{{Kind: store.RefMessage, ID: id}}}
}

// callOnceDetail makes the call on the running child; the pause is the
// one the platform asked for.
func (p *provider) callOnceDetail(ctx context.Context, c hub.Call) (hub.Result, *providerv1.Pause, error) {
	cl, _, err := p.client(ctx)
	if err != nil {
		return hub.Result{}, nil, err
	}
	var at attempt
	resp, err := cl.Call(ctx, &providerv1.CallRequest{Method: c.Method, ParamsJson: c.Params, IdempotencyKey: c.Key, Target: targetProto(c.Target)}, at.opt())
	if err != nil {
		return hub.Result{}, nil, p.classifyHeld(err, &at)
	}
	return hub.Result{JSON: resp.GetResultJson(), Refs: refsFrom(resp.GetReferences())}, resp.GetPause(), nil
}

// calls is a provider's at-most-once call path. Every call with an
// idempotency key has a durable record, written before it waits its turn
// (store.CallRecord): a repeat of a settled key gets the recorded outcome
// without calling the platform, a repeat while the first waits or is under
// way waits for it, and a call whose outcome is unknown (the child died
// mid-call) is reported as such on every repeat, never sent again.
//
// A recorded call is sent from the provider's scheduler, detached from its
// caller (so a caller that stops waiting does not cut a call off, nor take
// it back: it is made once): when its turn comes, which is never while the
// provider does not admit (a doctor restart).
type calls struct {
	p     *provider
	store store.Store

	mu       sync.Mutex          // guards inflight
	inflight map[callKey]*flight // every recorded call waiting or under way
}

type callKey struct{ binding, key string }

// flight is one recorded call waiting or under way; done is closed with
// its outcome.
type flight struct {
	rec  store.CallRecord
	done chan struct{}
	res  hub.Result
	err  error
	// cutOff: the previous run stopped while sending it. It is sent again
	// only if its method is idempotent on the platform; else its outcome
	// stays unknown. (Which it is, the child says once it runs.)
	cutOff bool
	// spool is an upload's file (nil for a call); removed once settled.
	spool  *spool
	upload hub.Upload
}

func newCalls(p *provider, st store.Store) *calls {
	return &calls{p: p, store: st, inflight: map[callKey]*flight{}}
}

// counts returns how many recorded calls wait their turn, and how many
// wait or are under way.
func (cs *calls) counts() (held, open int) {
	cs.mu.Lock()
	open = len(cs.inflight)
	cs.mu.Unlock()
	return cs.p.sched.Stats().Queued, open
}

// do makes a keyed call at most once and waits for its outcome or ctx.
// sp, if set, is an upload's file: the call is that upload, and do owns sp
// (removed once the upload settles, at once for a repeat).
func (cs *calls) do(ctx context.Context, c hub.Call, sp *spool) (hub.Result, error) {
	k := callKey{c.BindingKey, c.Key}
	cs.mu.Lock()
	if f := cs.inflight[k]; f != nil {
		cs.mu.Unlock()
		sp.remove()
		cs.p.metrics.CallRepeat(cs.p.spec.Name, metrics.RepeatInFlight)
		return f.wait(ctx, cs.p.spec.Name) // a repeat while the first is under way
	}
	if len(cs.inflight) >= maxOpenCalls {
		cs.mu.Unlock()
		sp.remove()
		return hub.Result{}, fmt.Errorf("%w (%d)", ErrTooManyHeld, maxOpenCalls)
	}
	// f.rec names the key from the start: settle finds f in inflight by
	// it, also when no record could be written.
	f := &flight{done: make(chan struct{}), spool: sp, rec: store.CallRecord{BindingKey: c.BindingKey, Key: c.Key}}
	if sp != nil {
		_ = json.Unmarshal(c.Params, &f.upload)
	}
	cs.inflight[k] = f
	cs.mu.Unlock()

	rec, created, err := cs.store.BeginCall(store.CallRecord{
		BindingKey: c.BindingKey, Key: c.Key, Provider: c.Target.Provider, Chat: c.Target.Chat, Thread: c.Target.Thread,
		Method: c.Method, Params: c.Params, State: store.CallQueued,
	})
	switch {
	case err != nil:
		// Not recorded, never made: the key is free again (a repeat
		// begins anew rather than waiting on this flight for good).
		cs.settle(f, hub.Result{}, err)
	case !created:
		f.rec = rec
		// Recorded by an earlier attempt that is no longer in flight.
		cs.p.metrics.CallRepeat(cs.p.spec.Name, metrics.RepeatRecorded)
		res, err := recorded(rec)
		cs.settle(f, res, err)
	default:
		f.rec = rec
		if err := cs.submit(ctx, f); err != nil {
			// Refused by the scheduler: never made, so the key is free.
			if derr := cs.store.DeleteCall(rec.BindingKey, rec.Key); derr != nil {
				cs.p.log.Error().Err(derr).Str("key", rec.Key).Msg("forgetting a call the queue refused")
			}
			cs.settle(f, hub.Result{}, err)
		}
	}
	return f.wait(ctx, cs.p.spec.Name)
}

// submit queues f in the scheduler; ctx's deadline is its caller's.
func (cs *calls) submit(ctx context.Context, f *flight) error {
	c := f.call()
	j := cs.p.job(ctx, c)
	j.Owner = f
	j.Run = func() outbound.Outcome { return cs.send(f) }
	j.Superseded = func(by *outbound.Job) {
		superseded(c, by, func(res hub.Result, err error) {
			if cs.finish(f, res, err) {
				// The newer call is sent again (the platform de-duplicates
				// it by its key), not this one: its outcome is unknown.
				cs.unknown(f, ambiguous("a newer call replaced it, whose outcome is not known yet"))
			}
		})
	}
	j.Abort = func(err error) {
		select {
		case <-f.done:
			return // settled before its run panicked
		default:
		}
		err = cs.p.aborted(c, err)
		if errors.Is(err, ErrQueueFull) {
			// Never made (the platform refused it and its caller's
			// deadline is before the pause ends): the key is free.
			if derr := cs.store.DeleteCall(f.rec.BindingKey, f.rec.Key); derr != nil {
				cs.p.log.Error().Err(derr).Str("key", f.rec.Key).Msg("forgetting a call the platform's pause outlasts")
			}
			cs.settle(f, hub.Result{}, err)
			return
		}
		// Its run panicked: it may have reached the platform. Recorded as
		// unknown, never sent again (not even where the platform
		// de-duplicates: what panicked would again).
		cs.unknown(f, err)
	}
	st, err := cs.p.sched.Submit(j)
	switch {
	case err != nil:
		return refusal(err)
	case st == outbound.Skipped:
		cs.finish(f, hub.Result{JSON: json.RawMessage("{}")}, nil)
	}
	return nil
}

// unknown records f's outcome as unknown (err says why) and settles it.
func (cs *calls) unknown(f *flight, err error) {
	rec := f.rec
	rec.State, rec.Failure = store.CallUnknown, encodeFailure(err)
	if serr := cs.store.SetCall(rec); serr != nil {
		cs.p.log.Error().Err(serr).Str("key", rec.Key).Msg("recording a call's outcome as unknown")
	}
	cs.settle(f, hub.Result{}, err)
}

// answer is f's outcome, once it has one.
func (f *flight) answer() (hub.Result, error) {
	<-f.done
	return f.res, f.err
}

// call is the call f records.
func (f *flight) call() hub.Call {
	return hub.Call{BindingKey: f.rec.BindingKey, Key: f.rec.Key, Method: f.rec.Method, Params: f.rec.Params,
		Target: store.Target{Provider: f.rec.Provider, Chat: f.rec.Chat, Thread: f.rec.Thread}}
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
	f.spool.remove()
	cs.mu.Lock()
	if cs.inflight[callKey{f.rec.BindingKey, f.rec.Key}] == f {
		delete(cs.inflight, callKey{f.rec.BindingKey, f.rec.Key})
	}
	cs.mu.Unlock()
	f.res, f.err = res, err
	close(f.done)
}

// send makes f's call when its turn came, records its outcome durably and
// settles it, and tells the scheduler what happened. A call that was not
// made (the child does not admit, the platform asked to slow down, the
// store could not mark it sent) goes back to the queue, recorded as such.
func (cs *calls) send(f *flight) outbound.Outcome {
	if f.cutOff && !cs.p.idempotent(f.rec.Method) {
		cs.p.log.Warn().Str("key", f.rec.Key).Str("binding", f.rec.BindingKey).Str("method", f.rec.Method).
			Msg("a call was cut off by the supervisor's stop: its outcome is unknown and it is not sent again")
		cs.finish(f, hub.Result{}, ambiguous("the supervisor stopped while the call was being sent; it may or may not have reached the platform"))
		return outbound.Outcome{}
	}
	timeout := callTimeout
	if f.spool != nil {
		timeout = uploadTimeout
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	if f.rec.State == store.CallQueued {
		f.rec.State = store.CallSending
		if err := cs.store.SetCall(f.rec); err != nil {
			// Not sent, and not recorded as sending: it stays queued.
			cs.p.log.Error().Err(err).Str("key", f.rec.Key).Msg("recording a call as being sent; it waits and is tried again")
			f.rec.State = store.CallQueued
			return outbound.Outcome{Again: true, Pause: time.Second, Scope: outbound.ScopeBot}
		}
	}
	var (
		res   hub.Result
		pause *providerv1.Pause
		err   error
	)
	if f.spool != nil {
		res, pause, err = cs.p.uploadOnce(ctx, store.Target{Provider: f.rec.Provider, Chat: f.rec.Chat, Thread: f.rec.Thread}, f.upload, f.spool)
	} else {
		res, pause, err = cs.p.callOnceDetail(ctx, f.call())
	}
	if notAdmitting(err) {
		cs.p.adm.refused()
		cs.p.sched.SetOpen(false)
		cs.requeue(f, "refused by a provider that does not admit")
		return outbound.Outcome{Again: true}
	}
	if o, limited := rateLimitedOutcome(err); limited {
		cs.requeue(f, "rate limited by the platform")
		return o
	}
	if again := cs.finish(f, res, err); again {
		// Sent again after a pause: a child that keeps dying mid-call
		// is not called in a tight loop.
		return outbound.Outcome{Again: true, Pause: time.Second, Scope: outbound.ScopeThread}
	}
	if err != nil {
		return outbound.Outcome{}
	}
	return outcomeOf(res, pause)
}

// requeue records f as waiting again (it was not made).
func (cs *calls) requeue(f *flight, why string) {
	f.rec.State = store.CallQueued
	if err := cs.store.SetCall(f.rec); err != nil {
		cs.p.log.Error().Err(err).Str("key", f.rec.Key).Msg("recording a call as waiting again (" + why + ")")
	}
}

// finish records the outcome of a call that was made (or certainly was
// not, and may be tried again) and settles it; again says it was not
// settled but goes back to the queue (the platform de-duplicates it).
func (cs *calls) finish(f *flight, res hub.Result, err error) (again bool) {
	rec := f.rec
	switch {
	case err == nil:
		rec.State, rec.Result, rec.Refs = store.CallDone, res.JSON, res.Refs
	case retryable(err), errors.Is(err, ErrTargetGone):
		// Certainly not made, and it may pass later (the platform
		// unreachable) or elsewhere (the thread was deleted: the hub makes
		// it again in the binding's new thread): forget the record so the
		// key can be tried again.
		if derr := cs.store.DeleteCall(rec.BindingKey, rec.Key); derr != nil {
			cs.p.log.Error().Err(derr).Str("key", rec.Key).Msg("forgetting a call that was not made")
		}
		cs.settle(f, res, err)
		return false
	case errors.Is(err, ErrAmbiguous) && cs.p.idempotent(rec.Method):
		// The platform de-duplicates it by key: send it again (at the head
		// of its thread) rather than leave its outcome unknown.
		cs.p.log.Info().Str("key", rec.Key).Str("method", rec.Method).Err(err).
			Msg("a call's outcome is unknown; the platform de-duplicates it by key: sending it again")
		cs.requeue(f, "sent again")
		return true
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
	return false
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
// again later may succeed (the follower tries again with its key). A rate
// limit never gets here: the call waits its turn again instead.
func retryable(err error) bool {
	var ce *CallError
	if errors.As(err, &ce) {
		return ce.Class == ErrUnavailable
	}
	return errors.Is(err, ErrUnavailable) // the child never came up within the attempt
}

// load takes up the provider's open records after a supervisor start:
// queued ones wait their turn again, to be sent; sending ones were cut off
// by the stop and may or may not have reached the platform: they are sent
// again if their method is idempotent on the platform, else they become
// unknown (see send). They keep the order they were made in.
func (cs *calls) load() error {
	open, err := cs.store.OpenCalls(cs.p.spec.Name)
	if err != nil {
		return err
	}
	sort.SliceStable(open, func(i, j int) bool { return open[i].Order < open[j].Order })
	for _, rec := range open {
		if rec.Method == methodUpload {
			// Its file went with the previous run: one not yet begun is
			// forgotten (a repeat of its key uploads again), one under
			// way may or may not have reached the platform.
			cs.loadUpload(rec)
			continue
		}
		f := &flight{rec: rec, done: make(chan struct{}), cutOff: rec.State == store.CallSending}
		cs.mu.Lock()
		cs.inflight[callKey{rec.BindingKey, rec.Key}] = f
		cs.mu.Unlock()
		if err := cs.submit(context.Background(), f); err != nil {
			cs.p.log.Error().Err(err).Str("key", rec.Key).Msg("a call left open by the previous run could not be queued")
		}
	}
	if n := len(open); n > 0 {
		cs.p.log.Info().Int("open", n).Msg("calls left open by the previous run taken up")
	}
	return nil
}

// loadUpload settles an upload the previous run left open.
func (cs *calls) loadUpload(rec store.CallRecord) {
	if rec.State == store.CallQueued {
		if err := cs.store.DeleteCall(rec.BindingKey, rec.Key); err != nil {
			cs.p.log.Error().Err(err).Str("key", rec.Key).Msg("forgetting an upload the previous run had not begun")
		}
		return
	}
	rec.State, rec.Failure = store.CallUnknown, encodeFailure(ambiguous("the supervisor stopped while the file was being uploaded; it may or may not have reached the platform"))
	if err := cs.store.SetCall(rec); err != nil {
		cs.p.log.Error().Err(err).Str("key", rec.Key).Msg("recording an upload cut off by the previous run's stop")
	}
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
