package providers

import (
	"context"
	"errors"
	"fmt"
	"time"

	"google.golang.org/protobuf/encoding/protojson"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/server/hub"
	"github.com/chatbus/chatbus/server/outbound"
	"github.com/chatbus/chatbus/server/store"
)

// Pacing: every call of a provider goes through its outbound scheduler
// (server/outbound), which starts it when the platform's limits allow,
// prompts first, threads in turn; this file is what the providers know of
// it: the lanes and limits the child declared, and how a call becomes a
// job.

// ErrQueueFull: the provider's outbound queue refused the call: full, or
// the platform's limits would not let it start before the caller's
// deadline. Nothing was sent; the error says how long to wait
// (CallError.RetryAfter).
var ErrQueueFull = errors.New("outbound queue full")

// pacing is what the last child declared about pacing.
type pacing struct {
	lanes map[string]outbound.Lane // by method
	lasts map[string]time.Duration // verbs and methods whose effect lasts (typing)
	// overwrites are the methods whose calls overwrite the messages they
	// name, with the names of their message parameters.
	overwrites map[string][]string
}

// pacingFrom reads a DescribeResponse's lanes and limits.
func pacingFrom(resp *providerv1.DescribeResponse) (*pacing, []outbound.Limit, error) {
	pc := &pacing{lanes: map[string]outbound.Lane{}, lasts: map[string]time.Duration{}, overwrites: map[string][]string{}}
	for _, m := range resp.GetMethods() {
		pc.lanes[m.GetName()] = laneFrom(m.GetLane())
		if d := m.GetLasts().AsDuration(); d > 0 {
			pc.lasts[m.GetName()] = d
		}
		if m.GetOverwrites() {
			names := []string{}
			for _, p := range m.GetParams() {
				if p.GetKind() == providerv1.ReferenceKind_REFERENCE_KIND_MESSAGE {
					names = append(names, p.GetName())
				}
			}
			pc.overwrites[m.GetName()] = names
		}
	}
	for _, v := range resp.GetVerbs() {
		if d := v.GetLasts().AsDuration(); d > 0 {
			pc.lasts[v.GetName()] = d
		}
	}
	var limits []outbound.Limit
	for _, l := range resp.GetLimits() {
		s, ok := scopeFrom(l.GetScope())
		if !ok {
			return nil, nil, fmt.Errorf("limit %q: unknown scope %v", l.GetName(), l.GetScope())
		}
		limits = append(limits, outbound.Limit{Name: l.GetName(), Scope: s, Count: int(l.GetCount()), Per: l.GetPer().AsDuration(), Methods: l.GetMethods()})
	}
	return pc, limits, nil
}

// laneFrom maps the contract's lanes to the scheduler's (the one table).
func laneFrom(l providerv1.Lane) outbound.Lane {
	switch l {
	case providerv1.Lane_LANE_PROMPT:
		return outbound.LanePrompt
	case providerv1.Lane_LANE_EDIT:
		return outbound.LaneEdit
	case providerv1.Lane_LANE_AMBIENT:
		return outbound.LaneAmbient
	}
	return outbound.LaneMessage
}

// scopeFrom maps the contract's scopes to the scheduler's.
func scopeFrom(s providerv1.LimitScope) (outbound.Scope, bool) {
	switch s {
	case providerv1.LimitScope_LIMIT_SCOPE_BOT:
		return outbound.ScopeBot, true
	case providerv1.LimitScope_LIMIT_SCOPE_CHAT:
		return outbound.ScopeChat, true
	case providerv1.LimitScope_LIMIT_SCOPE_THREAD:
		return outbound.ScopeThread, true
	}
	return 0, false
}

// scopeNamed reads the scope a rate-limited call's ErrorInfo names
// ("bot", "chat", "thread"); a chat's if it names none.
func scopeNamed(name string) outbound.Scope {
	switch name {
	case "bot":
		return outbound.ScopeBot
	case "thread":
		return outbound.ScopeThread
	}
	return outbound.ScopeChat
}

// job is c as the scheduler sees it: its thread, lane, what it overwrites
// (an edit of a message), how long its effect lasts (typing) and when its
// caller stops waiting (ctx's deadline).
func (p *provider) job(ctx context.Context, c hub.Call) *outbound.Job {
	j := &outbound.Job{Thread: outbound.Thread{Chat: c.Target.Chat, Thread: c.Target.Thread}, Method: c.Method, Lane: outbound.LaneMessage}
	pc := p.pacing.Load()
	switch c.Method {
	case hub.VerbSend:
		var sp providerv1.SendParams
		if verbParams.Unmarshal(c.Params, &sp) == nil && sp.GetPrompt() {
			j.Lane = outbound.LanePrompt
		}
	case hub.VerbAnswer:
		j.Lane = outbound.LanePrompt
	case hub.VerbEdit:
		j.Lane = outbound.LaneEdit
		if id := editedMessage(c); id != "" {
			j.Coalesce = "edit/" + id
		}
	case hub.VerbDraft:
		// A draft replaces the stream's previous one: only the last
		// text of a queued run is shown.
		j.Lane = outbound.LaneEdit
		var dp providerv1.DraftParams
		if verbParams.Unmarshal(c.Params, &dp) == nil && dp.GetStreamId() != "" {
			j.Coalesce = "draft/" + dp.GetStreamId()
		}
	case hub.VerbReact, hub.VerbTyping:
		j.Lane = outbound.LaneAmbient
	default:
		if pc != nil {
			if l, ok := pc.lanes[c.Method]; ok {
				j.Lane = l
			}
			if names, ok := pc.overwrites[c.Method]; ok {
				j.Coalesce = overwritten(c, names)
			}
		}
	}
	if pc != nil {
		j.Lasts = pc.lasts[c.Method]
	}
	if d, ok := ctx.Deadline(); ok {
		j.Deadline = d
	}
	return j
}

// overwritten is the coalescing key of a raw call that overwrites the
// messages its parameters names name: the method and those ids; "" (not
// coalesced) if it names none.
func overwritten(c hub.Call, names []string) string {
	key := "raw/" + c.Method
	named := false
	for _, n := range names {
		if id, ok := hub.ParamID(c.Params, n); ok {
			key += "/" + n + "=" + id
			named = true
		}
	}
	if !named {
		return ""
	}
	return key
}

// verbParams reads a verb's params as the provider will (unknown fields
// are the provider's to refuse).
var verbParams = protojson.UnmarshalOptions{DiscardUnknown: true}

// editedMessage is the message an edit verb names, "" if it names none.
func editedMessage(c hub.Call) string {
	var ep providerv1.EditParams
	if verbParams.Unmarshal(c.Params, &ep) != nil {
		return ""
	}
	return ep.GetMessageId()
}

// outcomeOf is what a made call tells the scheduler: how many messages it
// sent (a long text in parts) and whether the platform said its scope is
// out of room.
func outcomeOf(res hub.Result, pause *providerv1.Pause) outbound.Outcome {
	o := outbound.Outcome{Sent: 1}
	n := 0
	for _, r := range res.Refs {
		if r.Kind == store.RefMessage {
			n++
		}
	}
	if n > 1 {
		o.Sent = n
	}
	if d := pause.GetAfter().AsDuration(); d > 0 {
		s, ok := scopeFrom(pause.GetScope())
		if !ok {
			s = outbound.ScopeChat
		}
		o.Pause, o.Scope, o.MethodOnly = d, s, pause.GetMethodOnly()
	}
	return o
}

// rateLimitedOutcome is the outcome of a call the platform refused as rate
// limited, if err is one: it waits its turn again (a platform that named no
// delay: a second).
func rateLimitedOutcome(err error) (outbound.Outcome, bool) {
	var ce *CallError
	if !errors.As(err, &ce) || ce.Class != ErrRateLimited {
		return outbound.Outcome{}, false
	}
	d := ce.RetryAfter
	if d <= 0 {
		d = time.Second
	}
	return outbound.Outcome{RetryAfter: d, Scope: scopeNamed(ce.Scope)}, true
}

// refusal is a scheduler's refusal as a call error: nothing was sent.
func refusal(err error) error {
	var we *outbound.WaitError
	if errors.As(err, &we) {
		return &CallError{Class: ErrQueueFull, Message: we.Error(), RetryAfter: we.RetryAfter}
	}
	return err
}

// aborted is the error of a call the scheduler ended without its outcome
// (outbound.Job.Abort): a refusal (nothing was sent) when the platform's
// pause outlasts its caller's deadline, an unknown outcome, logged with
// its stack, when making it panicked.
func (p *provider) aborted(c hub.Call, err error) error {
	var pe *outbound.PanicError
	if errors.As(err, &pe) {
		p.log.Error().Str("method", c.Method).Str("key", c.Key).Interface("panic", pe.Value).Bytes("stack", pe.Stack).
			Msg("making a call panicked: its outcome is unknown; the other calls go on")
		return ambiguous("the supervisor failed while making the call: its outcome is unknown")
	}
	return refusal(err)
}

// pacingStore is a store that keeps the outbound windows across a restart
// (store.Bolt); without one, a supervisor started again paces as if no
// call had gone out lately.
type pacingStore interface {
	SavePacing(provider string, ws []store.PaceWindow) <-chan error
	Pacing(provider string) ([]store.PaceWindow, error)
}

// pacingSaveEvery is the least time between the starts of two saves of a
// provider's windows.
const pacingSaveEvery = 100 * time.Millisecond

// savePacing saves the scheduler's windows (a call was made), without
// waiting: a call made less than pacingSaveEvery (and a store commit)
// before a kill -9 may not be saved yet. Saves are coalesced: while one
// is under way, a call only marks the windows changed, and the next save,
// started when it is done and pacingSaveEvery after it started, takes
// them as they are then. So a provider writes its windows at most ten
// times a second however many calls it makes (a write of its own for each
// call halved the calls a supervisor could make, each waiting behind
// commits of windows: docs/performance.md), and the saves still reach
// the store in the order their windows were taken. A provider that
// declares no limits has no windows, and writes nothing once its empty
// windows are saved.
func (p *provider) savePacing() {
	if p.paceStore == nil {
		return
	}
	p.savingMu.Lock()
	defer p.savingMu.Unlock()
	if p.saving {
		p.saveAgain = true
		return
	}
	p.saving = true
	go p.savePacingLoop()
}

// savePacingLoop saves the windows until no call was made during the last
// save.
func (p *provider) savePacingLoop() {
	for {
		started := time.Now()
		var ws []store.PaceWindow
		for _, w := range p.sched.Windows() {
			ws = append(ws, store.PaceWindow{Limit: w.Limit, Key: w.Key, Times: w.Times})
		}
		p.savingMu.Lock()
		skip := len(ws) == 0 && p.savedEmpty
		p.savingMu.Unlock()
		if !skip {
			err := <-p.paceStore.SavePacing(p.spec.Name, ws)
			if err != nil {
				p.log.Warn().Err(err).Msg("saving the outbound pacing windows; a restart may pace as if fewer calls had gone out")
			}
			p.savingMu.Lock()
			p.savedEmpty = err == nil && len(ws) == 0
			p.savingMu.Unlock()
		}
		p.savingMu.Lock()
		if !p.saveAgain {
			p.saving = false
			p.savingMu.Unlock()
			return
		}
		p.saveAgain = false
		p.savingMu.Unlock()
		time.Sleep(time.Until(started.Add(pacingSaveEvery)))
	}
}

// restorePacing takes up the windows the previous run saved.
func (p *provider) restorePacing() error {
	if p.paceStore == nil {
		return nil
	}
	saved, err := p.paceStore.Pacing(p.spec.Name)
	if err != nil {
		return err
	}
	var ws []outbound.WindowState
	for _, w := range saved {
		ws = append(ws, outbound.WindowState{Limit: w.Limit, Key: w.Key, Times: w.Times})
	}
	p.sched.Restore(ws)
	return nil
}

// syncAdmission keeps the scheduler open exactly while the provider
// admits calls, until ctx ends.
func (p *provider) syncAdmission(ctx context.Context) {
	for {
		open, changed := p.adm.state()
		p.sched.SetOpen(open)
		select {
		case <-ctx.Done():
			return
		case <-changed:
		}
	}
}
