// Package slack is the Slack provider: a provider.Platform on Socket Mode
// and the Web API, serving Slack threads as chatbus threads. A follower's
// thread is a thread under a root message the provider posts in the
// configured channel (Target{Chat: channel id, Thread: the root's ts}).
//
// Inbound, it holds Socket Mode connections (socket.go) and hands each
// events_api and interactive envelope to the supervisor, acknowledging
// the envelope to Slack only once the supervisor has journalled it
// (receive.go): Slack redelivers what was not acknowledged, and the
// supervisor journals a redelivered event once, by its event id. Outbound,
// it makes the message verbs (verbs.go: Markdown as mrkdwn, buttons as
// Block Kit, reactions by Slack's emoji names from emoji.go), scopes each
// raw follower call to the caller's thread (scope.go) and forwards it;
// files go through Slack's external upload flow (files.go). A reply Slack
// posted outside its thread, because the root was deleted, is taken back
// and reported as the thread gone (checkThreaded).
//
// The channel's top level is chatbus's control place: a /chatbus slash
// command, or a mention of the bot opening a top-level message, is an
// update of kind COMMAND there, and the send verb posts the answers at
// the top level (control.go).
//
// The provider owns the in-memory map from message ts to thread
// (threads.go) that routes reactions, and the health of its two tokens and
// of the bot's membership of its channel (channel.go).
package slack

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"
	"github.com/rs/zerolog"
	"github.com/slack-go/slack"

	"github.com/chatbus/chatbus/internal/backoff"
	"github.com/chatbus/chatbus/provider"
)

// Config configures a Platform.
type Config struct {
	// Settings, checked by ParseSettings and with both tokens filled in.
	Settings Settings
	// Logger receives the provider's log. The zero Logger discards.
	Logger zerolog.Logger
	// Health, if set, is told when a token stops working or Socket Mode is
	// turned off, and when it works again.
	Health *provider.Health
	// HTTPClient makes the Web API calls and file transfers. If nil, a
	// client with the default transport and no overall timeout (calls
	// are bounded by their contexts).
	HTTPClient *http.Client
}

// Platform implements provider.Platform for Slack. Safe for concurrent
// use; Run is called at most once at a time (the SDK's rule).
type Platform struct {
	s         Settings
	log       zerolog.Logger
	health    *healthState
	api       *slack.Client // slack-go, bot token (and the app token for Socket Mode)
	web       *webAPI       // followers' calls, passed through as JSON
	hc        *http.Client
	dialer    *websocket.Dialer
	allowed   map[string]bool
	threads   *threadIndex
	deadAfter time.Duration
	authRetry time.Duration
	limits    []provider.RateLimit // DefaultLimits as the settings left them

	lastID atomic.Int64 // the last update id handed out (see nextUpdateID)

	idMu sync.Mutex // guards id
	id   *identity  // nil until auth.test answered
}

// identity is who the bot token is (auth.test).
type identity struct {
	UserID, BotID, User, TeamID, Team string
}

// New returns the Slack platform. It does not reach Slack.
func New(cfg Config) (*Platform, error) {
	s := cfg.Settings
	if err := s.CheckTokens(); err != nil {
		return nil, err
	}
	if s.BaseURL == "" {
		s.BaseURL = DefaultBaseURL
	}
	hc := cfg.HTTPClient
	if hc == nil {
		hc = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	}
	deadAfter, authRetry, err := s.durations()
	if err != nil {
		return nil, err
	}
	p := &Platform{
		s:      s,
		log:    cfg.Logger,
		health: &healthState{h: cfg.Health, bad: map[string]string{}, said: map[string]uint64{}},
		api: slack.New(s.BotToken, slack.OptionAppLevelToken(s.AppToken), slack.OptionAPIURL(s.BaseURL),
			slack.OptionHTTPClient(hc)),
		web:       &webAPI{base: s.BaseURL, token: s.BotToken, hc: hc},
		hc:        hc,
		dialer:    &websocket.Dialer{Proxy: http.ProxyFromEnvironment, HandshakeTimeout: 15 * time.Second},
		allowed:   map[string]bool{},
		threads:   newThreadIndex(threadIndexSize),
		deadAfter: deadAfter,
		authRetry: authRetry,
	}
	if p.limits, err = s.Limits.Apply(DefaultLimits); err != nil {
		return nil, err
	}
	for _, id := range s.AllowedUserIDs {
		p.allowed[id] = true
	}
	if len(p.allowed) == 0 {
		p.log.Warn().Msg("allowed_user_ids is empty: every update will be dropped; add your Slack member id")
	}
	return p, nil
}

// Close releases idle HTTP connections. The Platform must not be used
// after.
func (p *Platform) Close() { p.hc.CloseIdleConnections() }

// Identify implements provider.Platform: auth.test of the bot token. The
// owner id is the bot's user id.
func (p *Platform) Identify(ctx context.Context) (provider.Identity, error) {
	id, err := p.identity(ctx)
	if err != nil {
		return provider.Identity{}, err
	}
	return provider.Identity{OwnerID: id.UserID, Account: "@" + id.User + " (" + id.Team + ")"}, nil
}

// identity returns who the bot token is, asking Slack until it answered
// once.
func (p *Platform) identity(ctx context.Context) (identity, error) {
	p.idMu.Lock()
	defer p.idMu.Unlock()
	if p.id != nil {
		return *p.id, nil
	}
	at, err := p.api.AuthTestContext(ctx)
	if err != nil {
		p.noteBotErr(err)
		return identity{}, mapErr(err)
	}
	p.health.set(componentBot, true, "")
	p.id = &identity{UserID: at.UserID, BotID: at.BotID, User: at.User, TeamID: at.TeamID, Team: at.Team}
	return *p.id, nil
}

// noteBotErr turns the health NOT_SERVING when err says the bot token no
// longer works.
func (p *Platform) noteBotErr(err error) {
	if why := authProblem(err); why != "" {
		p.health.set(componentBot, false, "bot token: "+why)
	}
}

// own reports whether a user or bot id is this bot.
func (id identity) own(user, botID string) bool {
	return (user != "" && user == id.UserID) || (botID != "" && botID == id.BotID)
}

// nextUpdateID numbers updates: strictly increasing on every stream and
// across Runs, and (being at least the clock in microseconds) across
// restarts of the provider too, so no two updates of this provider ever
// share an id. The supervisor de-duplicates by dedup_id, not by this.
func (p *Platform) nextUpdateID() int64 {
	for {
		last := p.lastID.Load()
		next := max(last+1, time.Now().UnixMicro())
		if p.lastID.CompareAndSwap(last, next) {
			return next
		}
	}
}

// waitIdentity asks auth.test until it answers or ctx ends. A refused
// token turns the health NOT_SERVING and is asked again after authRetry;
// other failures back off.
func (p *Platform) waitIdentity(ctx context.Context) (identity, error) {
	bo := backoff.Policy{Initial: time.Second, Max: 30 * time.Second, Jitter: 0.2}.New()
	for {
		cctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		id, err := p.identity(cctx)
		cancel()
		if err == nil {
			return id, nil
		}
		if ctx.Err() != nil {
			return identity{}, ctx.Err()
		}
		wait := bo.NextBackOff()
		if errors.Is(err, provider.ErrPermissionDenied) && authProblem(err) != "" {
			wait = p.authRetry
		}
		p.log.Warn().Err(err).Dur("retry_in", wait).Msg("auth.test failed")
		if backoff.Sleep(ctx, wait) != nil {
			return identity{}, ctx.Err()
		}
	}
}

// watchBot asks auth.test every authRetry while a call has found the bot
// token refused, so that the health recovers once the token works again.
func (p *Platform) watchBot(ctx context.Context) {
	for backoff.Sleep(ctx, p.authRetry) == nil {
		if !p.health.broken(componentBot) {
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		_, err := p.api.AuthTestContext(cctx)
		cancel()
		switch {
		case err == nil:
			p.health.set(componentBot, true, "")
		default:
			p.noteBotErr(err)
		}
	}
}

// fits reports whether ctx's deadline leaves room to wait d (as Slack
// asked after a 429) and call again.
func fits(ctx context.Context, d time.Duration) bool {
	dl, ok := ctx.Deadline()
	return !ok || time.Until(dl) >= d
}
