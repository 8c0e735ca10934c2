package discord

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
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
// afresh and catches up by REST on every thread it knows of: those with a
// mark in the cursor, those attached, those it provisioned.
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
	r := &runner{p: p, sink: sink, cur: cur, bot: bot, q: q, caught: map[string]bool{}}
	err = r.loop(gctx)
	stop()
	<-gwDone
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
		evs, err := r.q.take(ctx)
		if err != nil {
			return nil
		}
		for _, ev := range evs {
			if err := r.process(ctx, ev); err != nil {
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

// process applies one dispatch to the head cursor and makes its update,
// if it is one for the followers. Only a catch-up fails, when ctx ends.
func (r *runner) process(ctx context.Context, ev event) error {
	if ev.T == "READY" {
		return r.ready(ctx, ev)
	}
	r.cur.Session, r.cur.Seq = ev.Session, ev.S
	switch ev.T {
	case "GUILD_CREATE":
		r.guildCreate(ev.D)
	case "THREAD_CREATE", "THREAD_UPDATE":
		r.threadInfo(ev.D)
	case "THREAD_LIST_SYNC":
		var s struct {
			GuildID string            `json:"guild_id"`
			Threads []json.RawMessage `json:"threads"`
		}
		if json.Unmarshal(ev.D, &s) == nil && s.GuildID == r.p.guild {
			for _, t := range s.Threads {
				r.threadInfo(t)
			}
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
		r.message(ctx, ev.D, false)
	case "MESSAGE_REACTION_ADD":
		r.reaction(ctx, ev)
	case "INTERACTION_CREATE":
		r.interaction(ctx, ev)
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
	return r.catchUp(ctx)
}

// guildCreate learns the guild's active threads, and its other channels
// as not the provider's (their messages need no lookup).
func (r *runner) guildCreate(d json.RawMessage) {
	var g struct {
		ID       string            `json:"id"`
		Threads  []json.RawMessage `json:"threads"`
		Channels []struct {
			ID string `json:"id"`
		} `json:"channels"`
	}
	if json.Unmarshal(d, &g) != nil || g.ID != r.p.guild {
		return
	}
	for _, t := range g.Threads {
		r.threadInfo(t)
	}
	for _, c := range g.Channels {
		if c.ID != r.p.channel && isSnowflake(c.ID) {
			r.p.learnThread(c.ID, false)
		}
	}
}

// threadInfo learns from a channel object whether it is a thread of the
// configured channel.
func (r *runner) threadInfo(d json.RawMessage) {
	var c struct {
		ID       string  `json:"id"`
		Type     int     `json:"type"`
		GuildID  string  `json:"guild_id"`
		ParentID *string `json:"parent_id"`
	}
	if json.Unmarshal(d, &c) != nil || !isSnowflake(c.ID) || (c.GuildID != "" && c.GuildID != r.p.guild) || !isThreadType(c.Type) {
		return
	}
	r.p.learnThread(c.ID, c.ParentID != nil && *c.ParentID == r.p.channel)
}

// Thread channel types: announcement, public and private threads.
func isThreadType(t int) bool { return t == 10 || t == 11 || t == 12 }

// catchUp fetches, for every known thread, the messages after its mark
// (its own id when it has none: from its start; a reused thread's last
// message then) and makes their updates, before any dispatch queued
// behind the READY. A thread deleted meanwhile is forgotten.
func (r *runner) catchUp(ctx context.Context) error {
	bound := r.p.bound()
	todo := map[string]string{}
	for t, m := range r.cur.Threads {
		todo[t] = m
	}
	for t, m := range bound {
		if todo[t] == "" {
			todo[t] = m
		}
	}
	ids := make([]string, 0, len(todo))
	for t := range todo {
		ids = append(ids, t)
	}
	sort.Strings(ids)
	before := len(r.pending)
	for _, t := range ids {
		after := todo[t]
		if after == "" {
			after = t
		}
		if err := r.catchUpThread(ctx, t, after); err != nil {
			return err
		}
	}
	if len(ids) > 0 {
		r.p.log.Info().Int("threads", len(ids)).Int("messages", len(r.pending)-before).Msg("caught up by REST after a fresh gateway session")
	}
	return nil
}

// catchUpThread pages GET /channels/{thread}/messages?after= to the end.
// Transient failures are retried until ctx ends: a thread given up on
// would lose what was written in it.
func (r *runner) catchUpThread(ctx context.Context, thread, after string) error {
	r.p.learnThread(thread, true)
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
				wait = expo(r.p.o.Timing.Retry, r.p.o.Timing.BackoffMax, failures)
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
			r.message(ctx, m.raw, true)
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
