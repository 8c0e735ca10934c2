package slack

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"slices"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"

	"github.com/chatbus/chatbus/internal/backoff"
)

// Socket Mode, on gorilla/websocket (the WebSocket library slack-go
// uses). slack-go's socketmode.Client (v0.35.0) is not used to run the
// connection: it swallows disconnect frames (their reason never reaches
// the caller, so link_disabled cannot be told from a refresh, and a
// refreshed connection is dropped before its successor is up); it writes
// acknowledgements from one queue shared by all its connections without
// saying whether one was written; and it never pings, so a dead path is
// seen only when Slack's own pings stop (its watchdog then does close
// the connection: the hang of slack-go issue #1093 is gone in v0.35.0).
// Here any frame (data, ping or pong) keeps a connection alive, the
// provider pings, and a connection silent for dead_after is replaced.
// The frame types are slack-go's (socketmode.Request, socketmode.Response).

// link is one Socket Mode WebSocket connection. Its session goroutine is
// the only reader; data writes (acknowledgements) are serialized by wmu;
// pings and pongs go through WriteControl, which gorilla allows alongside
// everything else.
type link struct {
	n    int // which connection of this Run, for the log
	conn *websocket.Conn
	wmu  sync.Mutex
	done chan struct{} // closed by close
	once sync.Once
}

var errLinkClosed = errors.New("socket mode connection closed")

func newLink(n int, conn *websocket.Conn) *link {
	return &link{n: n, conn: conn, done: make(chan struct{})}
}

func (l *link) closed() bool {
	select {
	case <-l.done:
		return true
	default:
		return false
	}
}

// close closes the connection (no close handshake: a reader blocked in
// ReadMessage returns at once). Idempotent.
func (l *link) close() {
	l.once.Do(func() {
		close(l.done)
		l.conn.Close()
	})
}

// ack acknowledges an envelope: {"envelope_id": id}, with payload (a
// slash command's answer) if not nil.
func (l *link) ack(id string, payload json.RawMessage) error {
	if l.closed() {
		return errLinkClosed
	}
	resp := socketmode.Response{EnvelopeID: id}
	if payload != nil {
		resp.Payload = payload
	}
	b, err := json.Marshal(resp)
	if err != nil {
		return err
	}
	l.wmu.Lock()
	defer l.wmu.Unlock()
	l.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	return l.conn.WriteMessage(websocket.TextMessage, b)
}

// pinger pings every interval until the link closes, so that a dead
// connection shows (no pong) even when Slack pings rarely.
func (l *link) pinger(every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-l.done:
			return
		case <-t.C:
			if err := l.conn.WriteControl(websocket.PingMessage, nil, time.Now().Add(5*time.Second)); err != nil {
				return
			}
		}
	}
}

// linkEvent is what a link's reader tells the connection loop.
type linkEvent struct {
	l      *link
	kind   linkEventKind
	reason string // disconnect: Slack's reason
	err    error  // ended: why
	dead   bool   // ended: no frame for dead_after
}

type linkEventKind int

const (
	evHello linkEventKind = iota + 1
	evDisconnect
	evEnded
)

// connect keeps a Socket Mode connection open until ctx ends. It opens
// one (apps.connections.open with the app token, then the WebSocket),
// whose reader runs in its own goroutine, and opens the next: at once when
// Slack asks to reconnect (refresh_requested, warning), after a backoff
// when the connection broke or went silent, and after authRetry when
// Slack refused the token or turned Socket Mode off (the health says why
// meanwhile). A connection Slack asked to leave is still read until its
// successor says hello (Slack closes it soon after anyway), so what Slack
// sends on it meanwhile is not left to its retries.
//
// Goroutines: connect owns every link; each link has a reader and a
// pinger, both ended (and waited for) when connect returns.
func (r *receiver) connect(ctx context.Context) {
	p := r.p
	bo := backoff.Policy{Initial: 250 * time.Millisecond, Max: 30 * time.Second, Jitter: 0.2}.New()
	events := make(chan linkEvent)
	var wg sync.WaitGroup
	var cur *link
	var leaving []*link
	defer func() {
		for _, l := range append(leaving, cur) {
			if l != nil {
				l.close()
			}
		}
		wg.Wait()
	}()
	var wait time.Duration
	for n := 1; ; {
		if cur == nil {
			if !r.sleepServing(ctx, wait, events, &leaving) {
				return
			}
			l, d := r.dial(ctx, n, bo)
			n++
			if l == nil {
				wait = d
				continue
			}
			cur = l
			r.cur.Store(l)
			stop := context.AfterFunc(ctx, l.close) // unblocks the reader when the Run ends
			wg.Go(func() { defer stop(); r.read(ctx, l, events) })
			wg.Go(func() { l.pinger(p.deadAfter / 3) })
		}
		var ev linkEvent
		select {
		case <-ctx.Done():
			return
		case ev = <-events:
		}
		log := r.log.With().Int("connection", ev.l.n).Logger()
		switch {
		case ev.kind == evHello && ev.l == cur:
			bo.Reset()
			p.health.set(componentSocket, true, "")
			for _, old := range leaving {
				old.close()
			}
		case ev.kind == evDisconnect && ev.reason == "link_disabled":
			p.health.set(componentSocket, false, "Socket Mode is turned off for the app (disconnect: link_disabled): turn it on under Settings › Socket Mode")
			log.Warn().Dur("retry_in", p.authRetry).Msg("Slack turned Socket Mode off (link_disabled)")
			ev.l.close()
			if ev.l == cur {
				cur, wait = nil, p.authRetry
			}
		case ev.kind == evDisconnect && ev.l == cur:
			log.Info().Str("reason", ev.reason).Msg("Slack asked to reconnect: opening the next connection")
			leaving = append(leaving, cur)
			cur, wait = nil, 0
		case ev.kind == evEnded:
			leaving = slices.DeleteFunc(leaving, func(l *link) bool { return l == ev.l })
			if ev.l != cur {
				break
			}
			cur, wait = nil, bo.NextBackOff()
			if ev.dead {
				log.Warn().Dur("dead_after", p.deadAfter).Dur("retry_in", wait).Msg("no frame from Slack for dead_after: the connection is dead; reconnecting")
			} else {
				log.Info().Err(ev.err).Dur("retry_in", wait).Msg("Socket Mode connection lost; reconnecting")
			}
		}
		r.cur.Store(cur)
	}
}

// sleepServing waits d while still handling the events of the leaving
// links (a link Slack asked to leave keeps delivering until it ends). It
// reports whether d passed before ctx ended.
func (r *receiver) sleepServing(ctx context.Context, d time.Duration, events <-chan linkEvent, leaving *[]*link) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
			return true
		case ev := <-events:
			if ev.kind == evEnded || ev.kind == evDisconnect {
				ev.l.close()
				*leaving = slices.DeleteFunc(*leaving, func(l *link) bool { return l == ev.l })
			}
		}
	}
}

// dial opens connection n; nil and how long to wait if it cannot.
func (r *receiver) dial(ctx context.Context, n int, bo *backoff.ExponentialBackOff) (*link, time.Duration) {
	p := r.p
	octx, cancel := context.WithTimeout(ctx, 15*time.Second)
	_, wsURL, err := p.api.StartSocketModeContext(octx)
	cancel()
	if err != nil {
		if ctx.Err() != nil {
			return nil, 0
		}
		if why := authProblem(err); why != "" || slackCode(err) == "not_allowed_token_type" {
			if why == "" {
				why = "not_allowed_token_type: app_token is not an app-level token"
			}
			p.health.set(componentSocket, false, "Socket Mode: app token: "+why)
			r.log.Warn().Err(err).Dur("retry_in", p.authRetry).Msg("apps.connections.open refused the app token")
			return nil, p.authRetry
		}
		var rl *slack.RateLimitedError
		if errors.As(err, &rl) {
			r.log.Warn().Dur("retry_in", rl.RetryAfter).Msg("apps.connections.open rate limited")
			return nil, rl.RetryAfter
		}
		d := bo.NextBackOff()
		r.log.Warn().Err(err).Dur("retry_in", d).Msg("apps.connections.open failed")
		return nil, d
	}
	conn, resp, err := p.dialer.DialContext(ctx, wsURL, nil)
	if resp != nil && resp.Body != nil {
		resp.Body.Close()
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil, 0
		}
		d := bo.NextBackOff()
		r.log.Warn().Err(err).Dur("retry_in", d).Msg("Socket Mode dial failed")
		return nil, d
	}
	return newLink(n, conn), 0
}

// read reads link l's frames until it ends, and says so on events: hello
// and disconnect are reported (they carry no envelope id and are never
// acknowledged), every other request goes to the delivery loop.
func (r *receiver) read(ctx context.Context, l *link, events chan<- linkEvent) {
	tell := func(ev linkEvent) bool {
		ev.l = l
		select {
		case events <- ev:
			return true
		case <-ctx.Done():
			return false
		}
	}
	p := r.p
	extend := func() { l.conn.SetReadDeadline(time.Now().Add(p.deadAfter)) }
	l.conn.SetPingHandler(func(data string) error {
		extend()
		err := l.conn.WriteControl(websocket.PongMessage, []byte(data), time.Now().Add(5*time.Second))
		var ne net.Error
		if err == nil || errors.Is(err, websocket.ErrCloseSent) || errors.As(err, &ne) {
			return nil // like gorilla's default: the read that follows reports a dead connection
		}
		return err
	})
	l.conn.SetPongHandler(func(string) error { extend(); return nil })
	l.conn.SetReadLimit(maxAnswerBytes)
	log := r.log.With().Int("connection", l.n).Logger()
	for {
		extend()
		_, data, err := l.conn.ReadMessage()
		if err != nil {
			l.close()
			var ne net.Error
			tell(linkEvent{kind: evEnded, err: err, dead: errors.As(err, &ne) && ne.Timeout()})
			return
		}
		req, kind, err := parseFrame(data)
		switch kind {
		case frameIgnored:
			log.Warn().Err(err).Str("type", req.Type).Msg("a Socket Mode frame ignored")
		case frameHello:
			log.Info().Int("num_connections", req.NumConnections).Str("host", req.DebugInfo.Host).Msg("Socket Mode connected")
			if !tell(linkEvent{kind: evHello}) {
				return
			}
		case frameDisconnect:
			if !tell(linkEvent{kind: evDisconnect, reason: req.Reason}) {
				return
			}
		case frameEnvelope:
			env := &envelope{ID: req.EnvelopeID, Type: req.Type, Payload: req.Payload, Retry: req.RetryAttempt,
				RetryReason: req.RetryReason, link: l, received: time.Now()}
			if env.Type == socketmode.RequestTypeSlashCommands {
				// Acknowledged now: Slack waits 3 s and does not send a
				// slash command again (see control.go).
				env.acked = true
				if err := l.ack(env.ID, p.slashAck(env.Payload)); err != nil {
					log.Debug().Err(err).Str("envelope", env.ID).Msg("a slash command's acknowledgement not written")
				}
			}
			select {
			case r.in <- env:
			case <-ctx.Done():
				return
			}
		}
	}
}

// frameKind is what a Socket Mode frame is to the receiver.
type frameKind int

const (
	// frameIgnored: not JSON, or a request without an envelope id.
	frameIgnored frameKind = iota
	// frameHello: the connection is up (no envelope id, never acked).
	frameHello
	// frameDisconnect: Slack asks to reconnect (no envelope id, never
	// acked).
	frameDisconnect
	// frameEnvelope: a request to deliver and acknowledge by its
	// envelope id (events_api, interactive, slash_commands…).
	frameEnvelope
)

// parseFrame reads one Socket Mode frame; err says why one is ignored.
func parseFrame(data []byte) (socketmode.Request, frameKind, error) {
	var req socketmode.Request
	if err := json.Unmarshal(data, &req); err != nil {
		return req, frameIgnored, fmt.Errorf("not JSON: %w", err)
	}
	switch req.Type {
	case socketmode.RequestTypeHello:
		return req, frameHello, nil
	case socketmode.RequestTypeDisconnect:
		return req, frameDisconnect, nil
	}
	if req.EnvelopeID == "" {
		return req, frameIgnored, errors.New("a request without an envelope id")
	}
	return req, frameEnvelope, nil
}
