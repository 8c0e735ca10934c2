// Package discord is the Discord provider: a provider.Platform that
// serves threads of one text channel as the followers' threads. It owns
// the bot's gateway session (identify, heartbeats with ACK tracking,
// resume, reconnect) and its REST client (disgo's, with disgo's rate
// limiter), and makes "nothing lost" hold on a platform that keeps no
// cursor for the bot: the cursor it reports with each update holds the
// gateway session, the last sequence number and the resume URL, so a
// successor RESUMEs and Discord replays what was not durable; and, per
// thread, the last message seen, so that when a session cannot be resumed
// the successor identifies afresh and catches up by REST (GET
// /channels/{thread}/messages?after=…) on every thread that may hold a
// follower's messages, from its mark or, without one, from the thread's
// own id (see runner.owes). An update's dedup_id is the message (or
// interaction) id, so what arrives twice — by gateway and by REST — is
// journalled once.
//
// The configured channel itself is chatbus's control place: the /chatbus
// application command (registered for the guild at start) and mentions
// of the bot opening a message there are updates of kind COMMAND, and the
// send verb answers them there (control.go).
//
// Goroutines: Run starts the gateway client (one connection at a time,
// with its heartbeater) and runs the runner loop itself; interaction
// acknowledgements run in their own goroutines, which Run waits for, and
// so does the registration of /chatbus (once a process).
package discord

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/disgoorg/disgo/rest"
	"github.com/gorilla/websocket"
	"github.com/rs/zerolog"

	"github.com/chatbus/chatbus/provider"
)

// MaxContent is the longest message content Discord accepts.
const MaxContent = 2000

// Options are the Platform's dependencies and timings; every field is
// optional.
type Options struct {
	// Logger receives the provider's log. The zero Logger discards.
	Logger zerolog.Logger
	// OnState is told when the gateway serves and when Discord refused
	// the bot (4004, 4014, a spent session start limit): what
	// provider.Health.Set takes. If nil, nothing is told.
	OnState func(serving bool, why string)
	// HTTPClient makes REST requests and downloads. If nil, one with a
	// 30s timeout.
	HTTPClient *http.Client
	// Dialer dials the gateway. If nil, websocket.DefaultDialer.
	Dialer *websocket.Dialer
	// Timing holds reconnect and retry waits; zero fields are Discord's
	// guidance.
	Timing Timing
	// MaxQueued bounds the gateway dispatches held in memory before they
	// are delivered; beyond it the provider leaves the gateway and resumes
	// later. If zero, 10000.
	MaxQueued int
}

// Platform implements provider.Platform (and provider.AttachWatcher) for
// Discord.
type Platform struct {
	s    Settings
	o    Options
	log  zerolog.Logger
	rest rest.Client // the provider's own requests, with disgo's limiter
	// pacedREST makes the calls the supervisor paces; buckets is its
	// limiter, which reads the answers' buckets (see newREST).
	pacedREST rest.Client
	buckets   *bucketReader
	limits    []provider.RateLimit // DefaultLimits as the settings left them
	http      *http.Client
	allowed   map[string]bool
	channel   string
	guild     string

	// nextUpdate numbers updates, strictly increasing for the process.
	nextUpdate atomic.Int64
	// acks are interaction callbacks in flight.
	acks sync.WaitGroup
	// commandSettled: /chatbus was registered (or found registered, or
	// refused) by this process (see registerCommand).
	commandSettled atomic.Bool

	// wake tells the runner that notes were added (cap 1).
	wake chan struct{}

	mu sync.Mutex // guards below
	// botID and appID are the bot's user and application ids, once known.
	botID, appID string
	// threads are the known threads of the channel (thread id → true), and
	// foreign the channels known not to be one (bounded).
	threads map[string]bool
	foreign map[string]bool
	// owned are the threads of the channel the bot made (owner_id is the
	// bot's): the followers' threads, bound now or not.
	owned map[string]bool
	// attached are the followers' threads by instance id; provisioned the
	// threads this incarnation made or reused, with the message id to
	// catch up after when the cursor has none.
	attached    map[string]string
	provisioned map[string]string
	// notes are the threads attached or provisioned since the runner last
	// looked.
	notes map[string]note
	// presses are the button presses this process acknowledges, by
	// interaction id, for Answer.
	presses map[string]*press
}

var (
	_ provider.Platform      = (*Platform)(nil)
	_ provider.AttachWatcher = (*Platform)(nil)
)

// New returns the Discord platform for s. It does not reach Discord.
func New(s Settings, o Options) (*Platform, error) {
	if s.GuildID == "" || s.ChannelID == "" {
		return nil, fmt.Errorf("discord: guild_id and channel_id are required")
	}
	if s.Token == "" {
		return nil, fmt.Errorf("discord: no bot token")
	}
	if s.BaseURL == "" {
		s.BaseURL = DefaultBaseURL
	}
	if o.HTTPClient == nil {
		o.HTTPClient = &http.Client{Timeout: 30 * time.Second}
	}
	if o.Dialer == nil {
		o.Dialer = websocket.DefaultDialer
	}
	if o.MaxQueued <= 0 {
		o.MaxQueued = 10000
	}
	o.Timing = o.Timing.withDefaults()
	restLog := o.Logger.With().Str("component", "rest").Logger()
	p := &Platform{
		s:           s,
		o:           o,
		log:         o.Logger,
		http:        o.HTTPClient,
		rest:        newREST(s.BaseURL, s.Token, o.HTTPClient, restLog, ownLimiter(restLog)),
		buckets:     newBucketReader(),
		allowed:     map[string]bool{},
		channel:     string(s.ChannelID),
		guild:       string(s.GuildID),
		wake:        make(chan struct{}, 1),
		threads:     map[string]bool{},
		foreign:     map[string]bool{},
		owned:       map[string]bool{},
		attached:    map[string]string{},
		provisioned: map[string]string{},
		notes:       map[string]note{},
		presses:     map[string]*press{},
	}
	p.pacedREST = newREST(s.BaseURL, s.Token, o.HTTPClient, restLog, p.buckets)
	var err error
	if p.limits, err = s.Limits.Apply(DefaultLimits); err != nil {
		return nil, err
	}
	for _, id := range s.AllowedUserIDs {
		p.allowed[string(id)] = true
	}
	if len(p.allowed) == 0 {
		p.log.Warn().Msg("allowed_user_ids is empty: every message will be dropped; add your Discord user id")
	}
	return p, nil
}

// Close releases the HTTP client's idle connections; call it once Serve
// returned. (Not disgo's rest.Client.Close: it reads the rate limiter's
// buckets without the lock its cleanup goroutine takes.)
func (p *Platform) Close() {
	p.http.CloseIdleConnections()
}

func (p *Platform) health(serving bool, why string) {
	if p.o.OnState != nil {
		p.o.OnState(serving, why)
	}
}

// Identify implements provider.Platform: the bot user (GET /users/@me).
func (p *Platform) Identify(ctx context.Context) (provider.Identity, error) {
	var me struct {
		ID       string `json:"id"`
		Username string `json:"username"`
	}
	if err := p.get(ctx, rest.GetCurrentUser.Compile(nil), &me); err != nil {
		return provider.Identity{}, p.mapErr(err, false, false)
	}
	p.mu.Lock()
	p.botID = me.ID
	p.mu.Unlock()
	return provider.Identity{OwnerID: me.ID, Account: "@" + me.Username}, nil
}

// bot returns the bot's user id, asking Discord until it answers (a
// refused token is retried slowly: NOT_SERVING says why meanwhile).
func (p *Platform) bot(ctx context.Context) (string, error) {
	for attempt := 0; ; attempt++ {
		p.mu.Lock()
		id := p.botID
		p.mu.Unlock()
		if id != "" {
			return id, nil
		}
		_, err := p.Identify(ctx)
		if err == nil {
			continue
		}
		wait := p.o.Timing.backoff(attempt + 1)
		if errors.Is(err, provider.ErrPermissionDenied) {
			wait = p.o.Timing.fatalBackoff(attempt)
		}
		p.log.Warn().Err(err).Dur("retry_after", wait).Msg("GET /users/@me failed; retrying")
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(wait):
		}
	}
}

// application returns the bot's application id (for interaction
// follow-ups): from READY, else GET /oauth2/applications/@me.
func (p *Platform) application(ctx context.Context) (string, error) {
	p.mu.Lock()
	id := p.appID
	p.mu.Unlock()
	if id != "" {
		return id, nil
	}
	var app struct {
		ID string `json:"id"`
	}
	if err := p.get(ctx, rest.GetBotApplicationInfo.Compile(nil), &app); err != nil {
		return "", p.mapErr(err, false, false)
	}
	p.mu.Lock()
	p.appID = app.ID
	p.mu.Unlock()
	return app.ID, nil
}

// Attached implements provider.AttachWatcher: the follower's thread is
// bound. If the gateway session is a fresh one that has not caught up on
// the thread yet (the follower came back after READY), the runner does
// so now.
func (p *Platform) Attached(instanceID string, t provider.Target) {
	if t.Chat != p.channel || !isSnowflake(t.Thread) {
		return
	}
	p.mu.Lock()
	p.attached[instanceID] = t.Thread
	p.threads[t.Thread] = true
	p.noteLocked(t.Thread, note{})
	p.mu.Unlock()
	p.kick()
}

// note is what the runner is told of a thread attached or provisioned.
type note struct {
	// made: the thread was made or reused by Provision just now; what is
	// written in it from now on is the binding's, and comes by the
	// gateway.
	made bool
	// mark: a reused thread's last message before it was reused ("" none).
	mark string
}

// noteLocked records n for thread; p.mu is held. Call kick after
// unlocking.
func (p *Platform) noteLocked(thread string, n note) {
	cur := p.notes[thread]
	cur.made = cur.made || n.made
	if later(n.mark, cur.mark) {
		cur.mark = n.mark
	}
	p.notes[thread] = cur
}

// kick wakes the runner to read the notes.
func (p *Platform) kick() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// takeNotes returns the notes and forgets them.
func (p *Platform) takeNotes() map[string]note {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.notes) == 0 {
		return nil
	}
	out := p.notes
	p.notes = map[string]note{}
	return out
}

// Detached implements provider.AttachWatcher.
func (p *Platform) Detached(instanceID string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.attached, instanceID)
}

// bound returns the threads bound now: attached, or provisioned by this
// incarnation.
func (p *Platform) bound() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]string, 0, len(p.attached)+len(p.provisioned))
	for _, t := range p.attached {
		out = append(out, t)
	}
	for t := range p.provisioned {
		out = append(out, t)
	}
	return out
}

// provisionedMark is the message a thread this incarnation reused starts
// after ("" none).
func (p *Platform) provisionedMark(thread string) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.provisioned[thread]
}

// isOwned reports whether thread is known to be one the bot made.
func (p *Platform) isOwned(thread string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.owned[thread]
}

// isBound reports whether thread is bound now.
func (p *Platform) isBound(thread string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.provisioned[thread]; ok {
		return true
	}
	for _, t := range p.attached {
		if t == thread {
			return true
		}
	}
	return false
}

// maxForeign bounds the cache of channels known not to be threads of the
// configured channel.
const maxForeign = 4096

// learnThread records whether channel id is a thread of the configured
// channel, and who made it (owner "" if not said).
func (p *Platform) learnThread(id string, ours bool, owner string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if ours {
		p.threads[id] = true
		delete(p.foreign, id)
		if owner != "" && p.botID != "" {
			p.owned[id] = owner == p.botID
		}
		return
	}
	delete(p.threads, id)
	delete(p.owned, id)
	if len(p.foreign) >= maxForeign {
		clear(p.foreign)
	}
	p.foreign[id] = true
}

// forgetThread drops a deleted thread.
func (p *Platform) forgetThread(id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.threads, id)
	delete(p.owned, id)
	delete(p.provisioned, id)
	p.foreign[id] = true
}

// threadKnown says whether channel id is known to be a thread of the
// configured channel (ours), known not to be (foreign), or unknown.
func (p *Platform) threadKnown(id string) (ours, foreign bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.threads[id], p.foreign[id]
}
