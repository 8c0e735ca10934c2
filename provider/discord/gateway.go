package discord

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/disgoorg/disgo/gateway"
	"github.com/gorilla/websocket"
	"github.com/rs/zerolog"

	"github.com/chatbus/chatbus/internal/backoff"
	"github.com/chatbus/chatbus/provider"
)

// intents are what the provider asks the gateway for: guilds (thread
// create, update, delete and the active threads), guild messages and
// their content (privileged: the Message Content intent), and reactions.
// Interactions arrive without an intent.
const intents = gateway.IntentGuilds | gateway.IntentGuildMessages | gateway.IntentGuildMessageReactions | gateway.IntentMessageContent

// closeResumable is the close code the provider sends when it leaves a
// connection: anything but 1000 and 1001, which would end the session on
// Discord's side; the next incarnation resumes it.
const closeResumable = websocket.CloseServiceRestart

// session is what a connection resumes: the gateway session id, the
// sequence number of the last dispatch taken, and where to resume it.
type session struct {
	ID        string
	Seq       int
	ResumeURL string
}

// event is one gateway dispatch, tagged with the session it belongs to.
type event struct {
	T       string
	S       int
	D       json.RawMessage
	Session string
}

// eventQueue carries dispatches from the gateway's reader to the runner.
// It is bounded: a full queue makes the gateway stop reading, drop the
// connection, and resume once the runner has caught up, so the dispatches
// it could not take stay at Discord (in the session's replay buffer).
type eventQueue struct {
	max    int
	mu     sync.Mutex // guards items, room
	items  []event
	room   chan struct{} // closed and replaced when the queue falls below half
	signal chan struct{} // has an item when the queue became non-empty
}

func newEventQueue(max int) *eventQueue {
	return &eventQueue{max: max, room: make(chan struct{}), signal: make(chan struct{}, 1)}
}

// push appends e, or reports false if the queue is full.
func (q *eventQueue) push(e event) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.items) >= q.max {
		return false
	}
	q.items = append(q.items, e)
	select {
	case q.signal <- struct{}{}:
	default:
	}
	return true
}

// take waits for at least one event and returns every queued one; a
// receive on wake ends the wait with none.
func (q *eventQueue) take(ctx context.Context, wake <-chan struct{}) ([]event, error) {
	for {
		q.mu.Lock()
		if len(q.items) > 0 {
			out := q.items
			q.items = nil
			close(q.room)
			q.room = make(chan struct{})
			q.mu.Unlock()
			return out, nil
		}
		q.mu.Unlock()
		select {
		case <-q.signal:
		case <-wake:
			return nil, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// waitRoom waits until the queue is below half full.
func (q *eventQueue) waitRoom(ctx context.Context) error {
	for {
		q.mu.Lock()
		if len(q.items) < q.max/2 {
			q.mu.Unlock()
			return nil
		}
		room := q.room
		q.mu.Unlock()
		select {
		case <-room:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// endKind says how a connection ended, and so what the next one does.
type endKind int

const (
	// endResume: reconnect and RESUME (a dropped connection, RECONNECT,
	// INVALID_SESSION d=true, a missed heartbeat ACK, a resumable close).
	endResume endKind = iota
	// endFresh: the session is gone (INVALID_SESSION d=false, 4007, 4009):
	// IDENTIFY afresh after a short random wait.
	endFresh
	// endFatal: Discord refused the bot (4004, 4010–4014): NOT_SERVING,
	// retried with a long backoff.
	endFatal
	// endOverflow: the runner is behind: resume once the queue drained.
	endOverflow
	// endStopped: the context ended.
	endStopped
)

// connEnd is why a connection ended.
type connEnd struct {
	kind endKind
	why  string
	// ready: the connection reached READY or RESUMED (the backoff resets).
	ready bool
}

// gatewayConfig configures a gateway client.
type gatewayConfig struct {
	Token string
	// URL returns the URL to identify at (fresh sessions); resumes use the
	// session's resume URL.
	URL    func(ctx context.Context) (string, error)
	Dialer *websocket.Dialer
	Log    zerolog.Logger
	// OnDispatch is called from the reader for every dispatch before it is
	// queued; it must not block (interactions are acknowledged from it).
	OnDispatch func(t string, d json.RawMessage)
	// OnState is told when the connection serves and when Discord refused
	// the bot.
	OnState func(serving bool, why string)
	Timing  Timing
}

// gatewayClient keeps one gateway session going: connect, HELLO,
// IDENTIFY or RESUME, heartbeats with ACK tracking, dispatches into the
// queue; on a failure it reconnects with backoff and resumes, or
// identifies afresh when the session cannot be resumed. Its run loop owns
// all of its state; one connection exists at a time.
type gatewayClient struct {
	cfg gatewayConfig
	q   *eventQueue
	// resumeDials counts failed dials of the resume URL in a row.
	resumeDials int
}

// maxResumeDials is how many failed dials of the resume URL make the
// next RESUME go through the main gateway URL instead.
const maxResumeDials = 3

// run keeps a session going from st until ctx ends.
func (g *gatewayClient) run(ctx context.Context, st session) {
	failures := 0
	fatal := 0
	for {
		end := g.connect(ctx, &st)
		if ctx.Err() != nil || end.kind == endStopped {
			return
		}
		if end.ready {
			failures, fatal = 0, 0
		}
		log := g.cfg.Log.With().Str("why", end.why).Logger()
		var wait time.Duration
		switch end.kind {
		case endResume:
			wait = g.cfg.Timing.backoff(failures)
			failures++
			log.Info().Dur("after", wait).Msg("gateway connection ended; resuming")
		case endFresh:
			st = session{}
			wait = g.cfg.Timing.identifyDelay()
			failures++
			log.Info().Dur("after", wait).Msg("gateway session cannot be resumed; identifying afresh")
		case endFatal:
			st = session{}
			wait = g.cfg.Timing.fatalBackoff(fatal)
			fatal++
			log.Error().Dur("retry_after", wait).Msg("Discord refused the bot")
			g.cfg.OnState(false, end.why)
		case endOverflow:
			log.Warn().Int("queued", g.q.max).Msg("delivery is behind: leaving the gateway until it catches up")
			if err := g.q.waitRoom(ctx); err != nil {
				return
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}

// frame is a gateway payload.
type frame struct {
	Op gateway.Opcode  `json:"op"`
	D  json.RawMessage `json:"d"`
	S  *int            `json:"s,omitempty"`
	T  *string         `json:"t,omitempty"`
}

// wsConn serializes the writes of the reader and the heartbeater.
type wsConn struct {
	ws *websocket.Conn
	mu sync.Mutex // guards writes of data frames
}

func (c *wsConn) send(op gateway.Opcode, d any) error {
	raw, err := json.Marshal(d)
	if err != nil {
		return err
	}
	b, err := json.Marshal(frame{Op: op, D: raw})
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ws.SetWriteDeadline(time.Now().Add(10 * time.Second))
	return c.ws.WriteMessage(websocket.TextMessage, b)
}

// leave closes the connection so that the session stays resumable.
func (c *wsConn) leave(why string) {
	c.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(closeResumable, why), time.Now().Add(time.Second))
	c.ws.Close()
}

// connect runs one connection: it returns when the connection ended, with
// st updated to what the next one resumes. The steps: dial (the resume URL
// or the one to identify at), HELLO (the heartbeat interval), heartbeats,
// IDENTIFY or RESUME, then read until the connection ends.
func (g *gatewayClient) connect(ctx context.Context, st *session) connEnd {
	resuming := st.ID != ""
	c, end := g.dial(ctx, st)
	if c == nil {
		return end
	}
	stop := context.AfterFunc(ctx, func() { c.leave("provider stopping") })
	defer stop()
	defer c.ws.Close()

	interval, end, ok := g.hello(ctx, c)
	if !ok {
		return end
	}
	hb, stopBeats := startHeartbeats(ctx, c, interval, st.Seq)
	defer stopBeats()
	if err := g.identify(c, st, resuming); err != nil {
		return g.readEnd(ctx, err, false, "send IDENTIFY/RESUME")
	}
	return g.read(ctx, &conn{wsConn: c, st: st, hb: hb})
}

// dial opens a connection for st: to its resume URL if it resumes and has
// one, else to the URL to identify at. With no connection, nil and why.
func (g *gatewayClient) dial(ctx context.Context, st *session) (*wsConn, connEnd) {
	resuming := st.ID != ""
	url := st.ResumeURL
	if !resuming || url == "" {
		var err error
		if url, err = g.cfg.URL(ctx); err != nil {
			if ctx.Err() != nil {
				return nil, connEnd{kind: endStopped}
			}
			if e, ok := asAPIError(err); ok && e.Status == http.StatusUnauthorized {
				// The REST API's word for the gateway's 4004: the same
				// refusal, retried as slowly.
				return nil, connEnd{kind: endFatal, why: "401 Unauthorized at GET /gateway/bot: the bot token is wrong or was reset (Developer Portal → Bot → Reset Token)"}
			}
			return nil, connEnd{kind: endResume, why: err.Error()}
		}
	}
	dialCtx, cancel := context.WithTimeout(ctx, 15*time.Second)
	ws, resp, err := g.cfg.Dialer.DialContext(dialCtx, gatewayEndpoint(url), nil)
	cancel()
	if resp != nil && resp.Body != nil {
		resp.Body.Close()
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, connEnd{kind: endStopped}
		}
		if resuming && st.ResumeURL != "" {
			if g.resumeDials++; g.resumeDials >= maxResumeDials {
				// The resume URL may be gone; resume the session through
				// the main gateway URL.
				st.ResumeURL = ""
			}
		}
		return nil, connEnd{kind: endResume, why: fmt.Sprintf("dial gateway: %v", err)}
	}
	g.resumeDials = 0
	ws.SetReadLimit(64 << 20)
	return &wsConn{ws: ws}, connEnd{}
}

// hello reads the gateway's first payload, HELLO, and returns its
// heartbeat interval; ok false and why the connection ends if it is not
// one.
func (g *gatewayClient) hello(ctx context.Context, c *wsConn) (interval time.Duration, end connEnd, ok bool) {
	c.ws.SetReadDeadline(time.Now().Add(20 * time.Second))
	var hello frame
	if err := c.ws.ReadJSON(&hello); err != nil {
		return 0, g.readEnd(ctx, err, false, "waiting for HELLO"), false
	}
	if hello.Op != gateway.OpcodeHello {
		return 0, connEnd{kind: endResume, why: fmt.Sprintf("the gateway's first payload was op %d, not HELLO", hello.Op)}, false
	}
	var h gateway.MessageDataHello
	if err := json.Unmarshal(hello.D, &h); err != nil || h.HeartbeatInterval <= 0 {
		return 0, connEnd{kind: endResume, why: "malformed HELLO"}, false
	}
	c.ws.SetReadDeadline(time.Time{})
	return time.Duration(h.HeartbeatInterval) * time.Millisecond, connEnd{}, true
}

// startHeartbeats starts c's heartbeater at sequence number seq; stop
// ends it and waits for it.
func startHeartbeats(ctx context.Context, c *wsConn, interval time.Duration, seq int) (hb *heartbeater, stop func()) {
	hb = &heartbeater{c: c, interval: interval, seq: new(atomic.Int64), now: make(chan struct{}, 1)}
	hb.seq.Store(int64(seq))
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); hb.run(ctx) }()
	return hb, func() { cancel(); <-done }
}

// identify sends RESUME for st's session, or IDENTIFY for a new one.
func (g *gatewayClient) identify(c *wsConn, st *session, resuming bool) error {
	if resuming {
		return c.send(gateway.OpcodeResume, gateway.MessageDataResume{Token: g.cfg.Token, SessionID: st.ID, Seq: st.Seq})
	}
	return c.send(gateway.OpcodeIdentify, gateway.MessageDataIdentify{
		Token:      g.cfg.Token,
		Properties: gateway.IdentifyCommandDataProperties{OS: "linux", Browser: "chatbus", Device: "chatbus"},
		Intents:    intents,
		Shard:      &[2]int{0, 1},
	})
}

// conn is one identified connection as read: its session, its heartbeater
// and whether READY or RESUMED came on it. connect's goroutine owns it.
type conn struct {
	*wsConn
	st    *session
	hb    *heartbeater
	ready bool
}

// read reads c's payloads until the connection ends: dispatches go to the
// queue, heartbeat requests and ACKs to the heartbeater; RECONNECT and
// INVALID_SESSION end it.
func (g *gatewayClient) read(ctx context.Context, c *conn) connEnd {
	for {
		var f frame
		_, data, err := c.ws.ReadMessage()
		if err == nil {
			err = json.Unmarshal(data, &f)
			if err != nil {
				g.cfg.Log.Warn().Err(err).Msg("malformed gateway payload; ignored")
				continue
			}
		}
		if err != nil {
			if c.hb.zombie.Load() {
				return connEnd{kind: endResume, why: "no HEARTBEAT_ACK since the last heartbeat (zombie connection)", ready: c.ready}
			}
			return g.readEnd(ctx, err, c.ready, "read")
		}
		switch f.Op {
		case gateway.OpcodeDispatch:
			if end, ok := g.dispatch(c, f); !ok {
				return end
			}
		case gateway.OpcodeHeartbeat:
			select {
			case c.hb.now <- struct{}{}:
			default:
			}
		case gateway.OpcodeHeartbeatACK:
			c.hb.acked.Store(true)
		case gateway.OpcodeReconnect:
			c.leave("RECONNECT")
			return connEnd{kind: endResume, why: "RECONNECT", ready: c.ready}
		case gateway.OpcodeInvalidSession:
			var resumable bool
			json.Unmarshal(f.D, &resumable)
			c.leave("INVALID_SESSION")
			if resumable && c.st.ID != "" {
				return connEnd{kind: endResume, why: "INVALID_SESSION (resumable)", ready: c.ready}
			}
			return connEnd{kind: endFresh, why: "INVALID_SESSION", ready: c.ready}
		}
	}
}

// dispatch takes one dispatch: READY (a new session) and RESUMED make the
// connection ready; each goes to OnDispatch, then into the queue, and
// moves the session's sequence number. ok false and why the connection
// ends if READY is malformed or the queue is full.
func (g *gatewayClient) dispatch(c *conn, f frame) (end connEnd, ok bool) {
	if f.S == nil || f.T == nil {
		return connEnd{}, true
	}
	t, s := *f.T, *f.S
	switch t {
	case "READY":
		var r struct {
			SessionID string `json:"session_id"`
			ResumeURL string `json:"resume_gateway_url"`
		}
		if err := json.Unmarshal(f.D, &r); err != nil || r.SessionID == "" {
			return connEnd{kind: endFresh, why: "malformed READY"}, false
		}
		c.st.ID, c.st.ResumeURL = r.SessionID, r.ResumeURL
		c.ready = true
		g.cfg.OnState(true, "")
		g.cfg.Log.Info().Str("session", r.SessionID).Msg("gateway session ready")
	case "RESUMED":
		c.ready = true
		g.cfg.OnState(true, "")
		g.cfg.Log.Info().Str("session", c.st.ID).Int("seq", s).Msg("gateway session resumed")
	}
	if g.cfg.OnDispatch != nil {
		g.onDispatch(t, f.D)
	}
	if !g.q.push(event{T: t, S: s, D: f.D, Session: c.st.ID}) {
		c.leave("delivery behind")
		return connEnd{kind: endOverflow, why: "event queue full", ready: c.ready}, false
	}
	c.st.Seq = s
	c.hb.seq.Store(int64(s))
	return connEnd{}, true
}

// onDispatch calls OnDispatch and contains its panic: one dispatch it
// cannot read must not end the reader (and with it the process, in a
// crash loop on the same dispatch replayed). The dispatch still goes to
// the queue, where the runner sets it aside as a dead letter if it
// cannot convert it either.
func (g *gatewayClient) onDispatch(t string, d json.RawMessage) {
	defer func() {
		if r := recover(); r != nil {
			g.cfg.Log.Error().Err(provider.PanicError(r)).Str("type", t).Msg("reading a dispatch panicked; it goes on to the runner")
		}
	}()
	g.cfg.OnDispatch(t, d)
}

// readEnd classifies a failed read (or write): Discord's close codes, or
// a dropped connection.
func (g *gatewayClient) readEnd(ctx context.Context, err error, ready bool, what string) connEnd {
	if ctx.Err() != nil {
		return connEnd{kind: endStopped}
	}
	var ce *websocket.CloseError
	if !errors.As(err, &ce) {
		return connEnd{kind: endResume, why: fmt.Sprintf("%s: %v", what, err), ready: ready}
	}
	code := gateway.CloseEventCodeByCode(ce.Code)
	why := fmt.Sprintf("gateway closed the connection: %d %s", ce.Code, strings.TrimSpace(ce.Text))
	switch ce.Code {
	case gateway.CloseEventCodeAuthenticationFailed.Code:
		return connEnd{kind: endFatal, ready: ready, why: "4004 Authentication failed: the bot token is wrong or was reset (Developer Portal → Bot → Reset Token)"}
	case gateway.CloseEventCodeDisallowedIntent.Code:
		return connEnd{kind: endFatal, ready: ready, why: "4014 Disallowed intents: turn on the Message Content intent (Developer Portal → Bot → Privileged Gateway Intents)"}
	case gateway.CloseEventCodeInvalidSeq.Code, gateway.CloseEventCodeSessionTimed.Code:
		return connEnd{kind: endFresh, ready: ready, why: why}
	}
	if ce.Code >= 4000 && !code.Reconnect {
		return connEnd{kind: endFatal, ready: ready, why: fmt.Sprintf("%s (%s)", why, code.Explanation)}
	}
	return connEnd{kind: endResume, ready: ready, why: why}
}

// gatewayEndpoint adds the version and encoding to a gateway URL.
func gatewayEndpoint(u string) string {
	sep := "?"
	if strings.Contains(u, "?") {
		sep = "&"
	}
	return fmt.Sprintf("%s%sv=%d&encoding=json", u, sep, gateway.Version)
}

// heartbeater sends heartbeats every interval (the first after a random
// fraction of it, as Discord asks) and on request; a heartbeat whose ACK
// has not come by the next one marks the connection a zombie and closes
// it, so the reader ends and the session is resumed on a new connection.
type heartbeater struct {
	c        *wsConn
	interval time.Duration
	seq      *atomic.Int64 // the last sequence number taken; 0: none yet
	now      chan struct{}
	acked    atomic.Bool
	zombie   atomic.Bool
}

func (h *heartbeater) run(ctx context.Context) {
	h.acked.Store(true)
	t := time.NewTimer(time.Duration(rand.Float64() * float64(h.interval)))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-h.now:
		case <-t.C:
			if !h.acked.Load() {
				h.zombie.Store(true)
				h.c.leave("heartbeat ACK missed")
				return
			}
			t.Reset(h.interval)
		}
		var d *int
		if s := int(h.seq.Load()); s > 0 {
			d = &s
		}
		h.acked.Store(false)
		if err := h.c.send(gateway.OpcodeHeartbeat, d); err != nil {
			return // the reader sees the connection fail
		}
	}
}

// Timing holds the provider's waits. The zero value is Discord's
// guidance; tests shorten them.
type Timing struct {
	// BackoffMin and BackoffMax bound the wait before reconnecting after
	// a failure (the first reconnect is immediate). If zero, 1s and 30s.
	BackoffMin, BackoffMax time.Duration
	// FatalMin and FatalMax bound the wait after Discord refused the bot
	// (4004, 4014): every IDENTIFY counts against the 1000 a day. If zero,
	// 10s and 5m.
	FatalMin, FatalMax time.Duration
	// IdentifyMin and IdentifyMax bound the random wait before a fresh
	// IDENTIFY after an unresumable session. If zero, 1s and 5s.
	IdentifyMin, IdentifyMax time.Duration
	// Retry is the wait before retrying a delivery refused while a doctor
	// closed admission, or a failed REST catch-up. If zero, 250ms.
	Retry time.Duration
}

func (t Timing) withDefaults() Timing {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&t.BackoffMin, time.Second)
	def(&t.BackoffMax, 30*time.Second)
	def(&t.FatalMin, 10*time.Second)
	def(&t.FatalMax, 5*time.Minute)
	def(&t.IdentifyMin, time.Second)
	def(&t.IdentifyMax, 5*time.Second)
	def(&t.Retry, 250*time.Millisecond)
	return t
}

// backoff is the wait before reconnect attempt n (0: at once): from
// BackoffMin, doubling, up to BackoffMax, ±20%.
func (t Timing) backoff(n int) time.Duration {
	if n == 0 {
		return 0
	}
	return backoff.Policy{Initial: t.BackoffMin, Max: t.BackoffMax, Jitter: 0.2}.Delay(n)
}

// fatalBackoff is the wait after the n-th refusal in a row (from 0): from
// FatalMin, doubling, up to FatalMax, ±20%.
func (t Timing) fatalBackoff(n int) time.Duration {
	return backoff.Policy{Initial: t.FatalMin, Max: t.FatalMax, Jitter: 0.2}.Delay(n + 1)
}

// retryBackoff is the wait before retrying a REST call after n failures
// in a row (from 0): from Retry, doubling, up to BackoffMax.
func (t Timing) retryBackoff(n int) time.Duration {
	return backoff.Policy{Initial: t.Retry, Max: t.BackoffMax}.Delay(n + 1)
}

func (t Timing) identifyDelay() time.Duration {
	return t.IdentifyMin + time.Duration(rand.Int64N(int64(t.IdentifyMax-t.IdentifyMin)+1))
}

// identifyURL returns a func that names the gateway to identify at: the
// configured one, else GET /gateway/bot's. It also honours the session
// start limit /gateway/bot reports: with none left it waits (NOT_SERVING)
// instead of spending IDENTIFYs Discord would refuse.
func (p *Platform) identifyURL(ctx context.Context) (string, error) {
	var gb struct {
		URL               string `json:"url"`
		SessionStartLimit struct {
			Total      int   `json:"total"`
			Remaining  int   `json:"remaining"`
			ResetAfter int64 `json:"reset_after"`
		} `json:"session_start_limit"`
	}
	err := p.get(ctx, gatewayBot(), &gb)
	switch {
	case err != nil && p.s.GatewayURL != "":
		p.log.Warn().Err(err).Msg("GET /gateway/bot failed; identifying at the configured gateway_url")
		return p.s.GatewayURL, nil
	case err != nil:
		return "", fmt.Errorf("GET /gateway/bot: %w", err)
	case gb.SessionStartLimit.Total > 0 && gb.SessionStartLimit.Remaining == 0:
		wait := time.Duration(gb.SessionStartLimit.ResetAfter) * time.Millisecond
		why := fmt.Sprintf("the bot used its %d session starts for today; Discord resets them in %s", gb.SessionStartLimit.Total, wait.Round(time.Second))
		p.health(false, why)
		return "", errors.New(why)
	case p.s.GatewayURL != "":
		return p.s.GatewayURL, nil
	case gb.URL == "":
		return "", errors.New("GET /gateway/bot named no gateway URL")
	}
	return gb.URL, nil
}
