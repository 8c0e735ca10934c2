package slack

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"sync"
	"time"

	"github.com/gorilla/websocket"
	"github.com/slack-go/slack"
	"github.com/slack-go/slack/socketmode"
)

// Socket Mode, on gorilla/websocket (the WebSocket library slack-go
// uses). slack-go's socketmode.Client is not used to run the connection:
// it swallows disconnect frames (their reason never reaches the caller,
// so link_disabled cannot be told from a refresh), and it writes
// acknowledgements from one queue shared by all its connections without
// saying whether one was written. The frame types are slack-go's
// (socketmode.Request, socketmode.Response).

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

// ack acknowledges an envelope: {"envelope_id": id}.
func (l *link) ack(id string) error {
	if l.closed() {
		return errLinkClosed
	}
	b, err := json.Marshal(socketmode.Response{EnvelopeID: id})
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

// connect keeps one Socket Mode connection open until ctx ends: it opens
// one (apps.connections.open with the app token, then the WebSocket),
// reads it until it ends, and opens the next, at once when Slack asked to
// reconnect, after a backoff when it broke, and after authRetry when
// Slack refused the token or turned Socket Mode off (the health says why
// meanwhile).
func (r *receiver) connect(ctx context.Context) {
	bo := newBackoff(250*time.Millisecond, 30*time.Second)
	for n := 1; ctx.Err() == nil; n++ {
		if !sleep(ctx, r.session(ctx, n, bo)) {
			return
		}
	}
}

// session runs connection n and returns how long to wait before the next.
func (r *receiver) session(ctx context.Context, n int, bo *backoff) time.Duration {
	p := r.p
	octx, cancel := context.WithTimeout(ctx, 15*time.Second)
	_, wsURL, err := p.api.StartSocketModeContext(octx)
	cancel()
	if err != nil {
		if ctx.Err() != nil {
			return 0
		}
		if why := authProblem(err); why != "" || slackCode(err) == "not_allowed_token_type" {
			if why == "" {
				why = "not_allowed_token_type: app_token is not an app-level token"
			}
			p.health.set(componentSocket, false, "Socket Mode: app token: "+why)
			r.log.Warn().Err(err).Dur("retry_in", p.authRetry).Msg("apps.connections.open refused the app token")
			return p.authRetry
		}
		var rl *slack.RateLimitedError
		if errors.As(err, &rl) {
			r.log.Warn().Dur("retry_in", rl.RetryAfter).Msg("apps.connections.open rate limited")
			return rl.RetryAfter
		}
		d := bo.next()
		r.log.Warn().Err(err).Dur("retry_in", d).Msg("apps.connections.open failed")
		return d
	}
	conn, resp, err := p.dialer.DialContext(ctx, wsURL, nil)
	if resp != nil && resp.Body != nil {
		resp.Body.Close()
	}
	if err != nil {
		if ctx.Err() != nil {
			return 0
		}
		d := bo.next()
		r.log.Warn().Err(err).Dur("retry_in", d).Msg("Socket Mode dial failed")
		return d
	}
	l := newLink(n, conn)
	var wg sync.WaitGroup
	defer wg.Wait()
	defer l.close()
	stop := context.AfterFunc(ctx, l.close) // unblocks the reader when the Run ends
	defer stop()
	r.cur.Store(l)
	defer r.cur.CompareAndSwap(l, nil)
	wg.Go(func() { l.pinger(p.deadAfter / 3) })
	return r.read(ctx, l, bo)
}

// read reads link l's frames until it ends: hello and disconnect are
// handled here (they carry no envelope id and are never acknowledged),
// every other request goes to the delivery loop.
func (r *receiver) read(ctx context.Context, l *link, bo *backoff) time.Duration {
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
			if ctx.Err() != nil {
				return 0
			}
			d := bo.next()
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				log.Warn().Dur("dead_after", p.deadAfter).Dur("retry_in", d).Msg("no frame from Slack for dead_after: the connection is dead; reconnecting")
			} else {
				log.Info().Err(err).Dur("retry_in", d).Msg("Socket Mode connection lost; reconnecting")
			}
			return d
		}
		var req socketmode.Request
		if err := json.Unmarshal(data, &req); err != nil {
			log.Warn().Err(err).Msg("a Socket Mode frame that is not JSON: ignored")
			continue
		}
		switch req.Type {
		case socketmode.RequestTypeHello:
			bo.reset()
			p.health.set(componentSocket, true, "")
			log.Info().Int("num_connections", req.NumConnections).Str("host", req.DebugInfo.Host).Msg("Socket Mode connected")
		case socketmode.RequestTypeDisconnect:
			if req.Reason == "link_disabled" {
				p.health.set(componentSocket, false, "Socket Mode is turned off for the app (disconnect: link_disabled): turn it on under Settings › Socket Mode")
				log.Warn().Dur("retry_in", p.authRetry).Msg("Slack turned Socket Mode off (link_disabled)")
				return p.authRetry
			}
			log.Info().Str("reason", req.Reason).Msg("Slack asked to reconnect")
			return 0
		default:
			if req.EnvelopeID == "" {
				log.Warn().Str("type", req.Type).Msg("a Socket Mode request without an envelope id: ignored")
				continue
			}
			env := &envelope{ID: req.EnvelopeID, Type: req.Type, Payload: req.Payload, Retry: req.RetryAttempt,
				RetryReason: req.RetryReason, link: l, received: time.Now()}
			select {
			case r.in <- env:
			case <-ctx.Done():
				return 0
			}
		}
	}
}
