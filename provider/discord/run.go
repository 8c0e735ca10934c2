package discord

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"sync/atomic"
	"time"

	"github.com/disgoorg/disgo/discord"
	"github.com/disgoorg/disgo/rest"
	"google.golang.org/protobuf/types/known/timestamppb"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/provider"
)

// maxBatch bounds the updates handed to one Sink.Deliver.
const maxBatch = 512

// pageSize is the REST catch-up's page (Discord's maximum).
const pageSize = 100

// Run implements provider.Platform. It resumes the gateway session the
// cursor names (Discord replays what came after the cursor's sequence
// number) or, when there is none or it cannot be resumed, identifies
// afresh and catches up by REST on every thread that may hold a
// follower's messages (see runner.owes).
func (p *Platform) Run(ctx context.Context, state []byte, sink provider.Sink) error {
	cur, err := decodeCursor(state, p.channel)
	if err != nil {
		p.log.Error().Err(err).Msg("starting without the stored cursor: a fresh session; the bound threads are caught up from their start")
	}
	bot, err := p.bot(ctx)
	if err != nil {
		return nil // ctx ended
	}
	if err := p.checkChannel(ctx); err != nil {
		return nil // ctx ended
	}
	q := newEventQueue(p.o.MaxQueued)
	gctx, stop := context.WithCancel(ctx)
	registered := make(chan struct{})
	if p.commandSettled.Load() {
		close(registered)
	} else {
		go func() {
			defer close(registered)
			if p.registerCommand(gctx) {
				p.commandSettled.Store(true)
			}
		}()
	}
	g := &gatewayClient{q: q, cfg: gatewayConfig{
		Token:      p.s.Token,
		URL:        p.identifyURL,
		Dialer:     p.o.Dialer,
		Log:        p.log.With().Str("component", "gateway").Logger(),
		OnDispatch: p.onDispatch,
		OnState:    p.health,
		Timing:     p.o.Timing,
	}}
	gwDone := make(chan struct{})
	go func() {
		defer close(gwDone)
		g.run(gctx, session{ID: cur.Session, Seq: cur.Seq, ResumeURL: cur.ResumeURL})
	}()
	p.log.Info().Str("session", cur.Session).Int("seq", cur.Seq).Int("threads", len(cur.Threads)).Msg("gateway starting")
	r := &runner{p: p, sink: sink, cur: cur, bot: bot, q: q, caught: map[string]bool{}, settled: map[string]bool{}}
	err = r.loop(gctx)
	stop()
	<-gwDone
	<-registered
	p.acks.Wait()
	if ctx.Err() != nil {
		return nil
	}
	return err
}

// checkChannel waits until the configured channel is a text channel of
// the configured guild that the bot can see; until then the provider is
// NOT_SERVING with the reason (a wrong id, a bot not invited or not
// allowed to see the channel, a forum or voice channel).
func (p *Platform) checkChannel(ctx context.Context) error {
	for attempt := 0; ; attempt++ {
		var c struct {
			Type    int    `json:"type"`
			GuildID string `json:"guild_id"`
		}
		err := p.get(ctx, rest.GetChannel.Compile(nil, p.channel), &c)
		why := ""
		switch {
		case err == nil && c.GuildID != p.guild:
			why = fmt.Sprintf("channel_id %s is in guild %s, not guild_id %s", p.channel, c.GuildID, p.guild)
		case err == nil && c.Type != channelText:
			why = fmt.Sprintf("channel_id %s is not a text channel (type %d); threads go in a text channel", p.channel, c.Type)
		case err == nil:
			return nil
		case ctx.Err() != nil:
			return ctx.Err()
		case isCode(err, codeUnknownChannel) || isCode(err, codeMissingAccess):
			why = fmt.Sprintf("channel_id %s: %v: is the bot in the server, and may it view the channel?", p.channel, err)
		}
		wait := p.o.Timing.backoff(attempt + 1)
		if why != "" {
			p.health(false, why)
			wait = p.o.Timing.fatalBackoff(attempt)
			p.log.Error().Str("why", why).Dur("retry_after", wait).Msg("the configured channel is not usable")
		} else {
			p.log.Warn().Err(err).Dur("retry_after", wait).Msg("looking up the configured channel failed")
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
}

// channelText is Discord's GUILD_TEXT channel type.
const channelText = 0

// runner turns dispatches into updates and delivers them. It owns the
// head cursor: the cursor as of the last dispatch it processed, which
// each update it makes carries. The runner's goroutine is Run's.
type runner struct {
	p    *Platform
	sink provider.Sink
	cur  cursor
	bot  string
	q    *eventQueue
	// pending are updates made and not yet acknowledged, in order.
	pending []*providerv1.Update
	// caught are the message ids a catch-up delivered since the last
	// READY: their MESSAGE_CREATE, queued behind the READY, is skipped.
	caught map[string]bool
	// fresh: this process identified the session (READY) rather than
	// resumed it, so what was written before READY is to be had by REST
	// only; settled are the threads caught up since that READY.
	fresh   bool
	settled map[string]bool
}

// loop processes and delivers until ctx ends or the stream does.
func (r *runner) loop(ctx context.Context) error {
	for {
		if len(r.pending) > 0 {
			if stop, err := r.deliver(ctx); stop || err != nil {
				return err
			}
			continue
		}
		if err := r.takeNotes(ctx); err != nil {
			return nil // ctx ended during a catch-up
		}
		if len(r.pending) > 0 {
			continue
		}
		evs, err := r.q.take(ctx, r.p.wake)
		if err != nil {
			return nil
		}
		for _, ev := range evs {
			if err := r.processContained(ctx, ev); err != nil {
				return nil // ctx ended during a catch-up
			}
		}
	}
}

// deliver hands the pending updates to the sink, a batch at a time, and
// forgets what was acknowledged. While a doctor closed admission it
// waits and returns (the dispatches meanwhile stay queued or at
// Discord). stop: the stream ended.
func (r *runner) deliver(ctx context.Context) (stop bool, err error) {
	n := min(len(r.pending), maxBatch)
	acked, err := r.sink.Deliver(ctx, r.pending[:n])
	k := 0
	for k < n && r.pending[k].GetUpdateId() <= acked {
		k++
	}
	clear(r.pending[:k])
	r.pending = r.pending[k:]
	switch {
	case err == nil:
		return false, nil
	case errors.Is(err, provider.ErrShuttingDown), ctx.Err() != nil, errors.Is(err, provider.ErrStreamEnded):
		return true, nil
	case errors.Is(err, provider.ErrNotAdmitting):
		select {
		case <-ctx.Done():
			return true, nil
		case <-time.After(r.p.o.Timing.Retry):
		}
		return false, nil
	}
	return true, err
}

// add numbers u, stamps it and gives it the head cursor.
func (r *runner) add(u *providerv1.Update) {
	u.UpdateId = r.p.nextUpdate.Add(1)
	u.ReceivedAt = timestamppb.Now()
	u.Cursor = r.cur.encode()
	r.pending = append(r.pending, u)
}

// dispatchHook, if set (by tests), is called with each dispatch where the
// gateway reader and where the runner take it up: a test makes them
// panic.
var dispatchHook atomic.Pointer[func(t string, d json.RawMessage)]

func callDispatchHook(t string, d json.RawMessage) {
	if h := dispatchHook.Load(); h != nil {
		(*h)(t, d)
	}
}

// processContained is process with its panic contained: the dispatch is
// set aside as a dead letter (provider.Convert), the head cursor moved
// past it, and the dispatches after it flow.
func (r *runner) processContained(ctx context.Context, ev event) (err error) {
	dead := provider.Convert(dispatchPayload(ev), func() (*providerv1.Update, error) {
		callDispatchHook(ev.T, ev.D)
		err = r.process(ctx, ev)
		return nil, nil
	})
	if dead != nil {
		if ev.T != "READY" {
			r.cur.Session, r.cur.Seq = ev.Session, ev.S
		}
		r.addDead(dead, deadDispatchID(ev))
	}
	return err
}

// addDead numbers a dead letter and gives it the head cursor and its
// dedup id.
func (r *runner) addDead(u *providerv1.Update, dedup string) {
	u.DedupId = dedup
	r.add(u)
}

// process applies one dispatch to the head cursor and makes its update,
// if it is one for the followers. Only a catch-up fails, when ctx ends.
func (r *runner) process(ctx context.Context, ev event) error {
	if ev.T == "READY" {
		return r.ready(ctx, ev)
	}
	r.cur.Session, r.cur.Seq = ev.Session, ev.S
	switch ev.T {
	case "GUILD_CREATE":
		return r.guildCreate(ctx, ev.D)
	case "THREAD_CREATE", "THREAD_UPDATE":
		var c struct {
			NewlyCreated bool `json:"newly_created"`
		}
		if id, ours := r.threadInfo(ev.D); ours && ev.T == "THREAD_CREATE" && json.Unmarshal(ev.D, &c) == nil && c.NewlyCreated {
			// Made during the session: all of it comes by the gateway.
			// (THREAD_CREATE also tells of an old thread the bot was
			// added to: not newly created.)
			r.settled[id] = true
		}
	case "THREAD_LIST_SYNC":
		var s struct {
			GuildID string            `json:"guild_id"`
			Threads []json.RawMessage `json:"threads"`
		}
		if json.Unmarshal(ev.D, &s) == nil && s.GuildID == r.p.guild {
			return r.activeThreads(ctx, s.Threads)
		}
	case "THREAD_DELETE":
		var t struct {
			ID       string `json:"id"`
			ParentID string `json:"parent_id"`
		}
		if json.Unmarshal(ev.D, &t) == nil && t.ParentID == r.p.channel {
			r.p.forgetThread(t.ID)
			delete(r.cur.Threads, t.ID)
		}
	case "MESSAGE_CREATE":
		return r.message(ctx, ev.D, false)
	case "MESSAGE_REACTION_ADD":
		return r.reaction(ctx, ev)
	case "INTERACTION_CREATE":
		return r.interaction(ctx, ev)
	}
	return nil
}

// ready starts a new session in the head cursor and catches up on every
// known thread: what was written while no session was connected is only
// to be had by REST.
func (r *runner) ready(ctx context.Context, ev event) error {
	var rd struct {
		SessionID   string `json:"session_id"`
		ResumeURL   string `json:"resume_gateway_url"`
		User        struct{ ID string }
		Application struct{ ID string }
	}
	if err := json.Unmarshal(ev.D, &rd); err != nil {
		r.p.log.Error().Err(err).Msg("malformed READY")
	}
	r.cur.Session, r.cur.Seq, r.cur.ResumeURL = rd.SessionID, ev.S, rd.ResumeURL
	r.p.mu.Lock()
	if rd.User.ID != "" {
		r.p.botID, r.bot = rd.User.ID, rd.User.ID
	}
	if rd.Application.ID != "" {
		r.p.appID = rd.Application.ID
	}
	r.p.mu.Unlock()
	clear(r.caught)
	clear(r.settled)
	r.fresh = true
	return r.catchUp(ctx)
}

// guildCreate learns the guild's other channels as not the provider's
// (their messages need no lookup) and its active threads, and catches up
// on the bot's among them.
func (r *runner) guildCreate(ctx context.Context, d json.RawMessage) error {
	var g struct {
		ID       string            `json:"id"`
		Threads  []json.RawMessage `json:"threads"`
		Channels []struct {
			ID string `json:"id"`
		} `json:"channels"`
	}
	if json.Unmarshal(d, &g) != nil || g.ID != r.p.guild {
		return nil
	}
	for _, c := range g.Channels {
		if c.ID != r.p.channel && isSnowflake(c.ID) {
			r.p.learnThread(c.ID, false, "")
		}
	}
	return r.activeThreads(ctx, g.Threads)
}

// activeThreads learns the guild's active threads (GUILD_CREATE,
// THREAD_LIST_SYNC) and, in a fresh session, catches up on those of the
// channel that the bot made: a follower's thread whose follower has not
// come back yet is one, and a message written in it during the outage is
// what made it active if it had been archived.
func (r *runner) activeThreads(ctx context.Context, threads []json.RawMessage) error {
	var ids []string
	for _, t := range threads {
		if id, ours := r.threadInfo(t); ours && r.owes(id) {
			ids = append(ids, id)
		}
	}
	return r.settleAll(ctx, ids)
}

// threadInfo learns from a channel object whether it is a thread of the
// configured channel and whether the bot made it; ours: it is one of the
// channel's threads.
func (r *runner) threadInfo(d json.RawMessage) (id string, ours bool) {
	var c struct {
		ID       string  `json:"id"`
		Type     int     `json:"type"`
		GuildID  string  `json:"guild_id"`
		ParentID *string `json:"parent_id"`
		OwnerID  string  `json:"owner_id"`
	}
	if json.Unmarshal(d, &c) != nil || !isSnowflake(c.ID) || (c.GuildID != "" && c.GuildID != r.p.guild) || !isThreadType(c.Type) {
		return "", false
	}
	ours = c.ParentID != nil && *c.ParentID == r.p.channel
	r.p.learnThread(c.ID, ours, c.OwnerID)
	return c.ID, ours
}

// Thread channel types: announcement, public and private threads.
func isThreadType(t int) bool { return t == 10 || t == 11 || t == 12 }

// catchUp catches up, at READY, on every thread with a mark in the
// cursor and every thread bound now, before any dispatch queued behind
// the READY.
func (r *runner) catchUp(ctx context.Context) error {
	todo := map[string]bool{}
	for t := range r.cur.Threads {
		todo[t] = true
	}
	for _, t := range r.p.bound() {
		todo[t] = true
	}
	before := len(r.pending)
	if err := r.settleAll(ctx, slices.Collect(maps.Keys(todo))); err != nil {
		return err
	}
	if len(todo) > 0 {
		r.p.log.Info().Int("threads", len(todo)).Int("messages", len(r.pending)-before).Msg("caught up by REST after a fresh gateway session")
	}
	return nil
}

// A fresh session owes a thread the messages written in it before READY
// that no update carried yet; the runner settles that debt once per
// session and thread, before anything else of the thread is processed:
//
//   - at READY, for every thread with a mark in the cursor and every
//     thread bound (attached or provisioned by this process);
//   - at GUILD_CREATE (and THREAD_LIST_SYNC), for every active thread of
//     the channel the bot made (a follower's thread whose follower is not
//     back yet);
//   - when a thread is attached after READY (a follower that came back
//     later);
//   - before a dispatch of a bound thread or one the bot made, if none of
//     the above came first (a thread archived before READY and written
//     in again).
//
// Where a catch-up starts: after the thread's mark in the cursor (every
// message up to it was journalled); after the last message of a thread
// this process reused, if later; else after the thread's own id. A
// thread's id is a snowflake, the time it was made, so every message in
// it comes after: a new thread's start point is durable from the moment
// it exists, with nothing to store, while a mark in the cursor would be
// durable only once something is journalled (the thread's first message
// may be the very one written while no provider ran). A thread whose mark
// was lost (the cursor dropped, or the mark pushed out of it) is read from
// its start again; the supervisor's de-duplication window drops what it
// journalled before.

// owes reports whether the session owes thread a catch-up.
func (r *runner) owes(thread string) bool {
	return r.fresh && !r.settled[thread] && (r.p.isBound(thread) || r.p.isOwned(thread))
}

// settle catches up on thread once per fresh session (nothing, in a
// resumed one: Discord replays). It fails only when ctx ends.
func (r *runner) settle(ctx context.Context, thread string) error {
	if !r.fresh || r.settled[thread] {
		return nil
	}
	r.settled[thread] = true
	after := r.cur.Threads[thread]
	if m := r.p.provisionedMark(thread); later(m, after) {
		after = m
	}
	if !later(after, thread) {
		after = thread
	}
	return r.catchUpThread(ctx, thread, after)
}

// takeNotes reads what was attached or provisioned since it last looked:
// a reused thread's mark goes into the cursor; a thread made or reused
// now owes nothing (what is written in it from now on comes by the
// gateway; what came before was not its binding's); a fresh session
// catches up on an attached thread it has not caught up on yet.
func (r *runner) takeNotes(ctx context.Context) error {
	notes := r.p.takeNotes()
	ids := make([]string, 0, len(notes))
	for t, n := range notes {
		if n.mark != "" {
			r.cur.mark(t, n.mark, r.p.isBound)
		}
		if n.made {
			r.settled[t] = true
			continue
		}
		ids = append(ids, t)
	}
	return r.settleAll(ctx, ids)
}

// settleAll settles threads in the order of their ids (oldest first).
func (r *runner) settleAll(ctx context.Context, threads []string) error {
	sort.Slice(threads, func(i, j int) bool { return later(threads[j], threads[i]) })
	for _, t := range threads {
		if err := r.settle(ctx, t); err != nil {
			return err
		}
	}
	return nil
}

// catchUpThread pages GET /channels/{thread}/messages?after= to the end.
// Transient failures are retried until ctx ends: a thread given up on
// would lose what was written in it.
func (r *runner) catchUpThread(ctx context.Context, thread, after string) error {
	r.p.learnThread(thread, true, "")
	for failures := 0; ; {
		var page []json.RawMessage
		ep := rest.GetMessages.Compile(discord.QueryValues{"after": after, "limit": pageSize}, thread)
		err := r.p.get(ctx, ep, &page)
		switch {
		case err == nil:
			failures = 0
		case ctx.Err() != nil:
			return ctx.Err()
		case isCode(err, codeUnknownChannel):
			r.p.log.Info().Str("thread", thread).Msg("thread deleted; forgotten")
			r.p.forgetThread(thread)
			delete(r.cur.Threads, thread)
			return nil
		default:
			merr := r.p.mapErr(err, false, true)
			if errors.Is(merr, provider.ErrPermissionDenied) {
				r.p.log.Error().Err(err).Str("thread", thread).Msg("catch-up refused: the bot cannot read this thread's history (Read Message History)")
				return nil
			}
			wait, ok := provider.RetryAfter(merr)
			if !ok {
				wait = r.p.o.Timing.retryBackoff(failures)
			}
			failures++
			r.p.log.Warn().Err(err).Str("thread", thread).Dur("retry_after", wait).Msg("catch-up failed; retrying")
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(wait):
			}
			continue
		}
		msgs := make([]catchUpMessage, 0, len(page))
		for _, raw := range page {
			var m struct {
				ID string `json:"id"`
			}
			if json.Unmarshal(raw, &m) == nil && isSnowflake(m.ID) {
				msgs = append(msgs, catchUpMessage{id: m.ID, raw: raw})
			}
		}
		// Discord answers newest first, also for after=.
		sort.Slice(msgs, func(i, j int) bool { return later(msgs[j].id, msgs[i].id) })
		for _, m := range msgs {
			if err := r.message(ctx, m.raw, true); err != nil {
				return err
			}
			after = m.id
		}
		if len(page) < pageSize {
			return nil
		}
	}
}

type catchUpMessage struct {
	id  string
	raw json.RawMessage
}
