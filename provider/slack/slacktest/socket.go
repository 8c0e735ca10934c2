package slacktest

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// pending is one event Slack must deliver to the app: an events_api
// callback or an interaction, and its delivery attempts.
type pending struct {
	key     string // event id or trigger id
	typ     string // "events_api" or "interactive"
	payload json.RawMessage
	// The attempt under way: on link (nil: waiting for one) until due
	// (its acknowledgement deadline), or waiting to be sent from due.
	link *link
	due  time.Time
	// reason is the retry_reason of the next attempt.
	reason     string
	retries    int // redeliveries after a timeout, against the schedule
	deliveries int
	acks       int
	acked      bool
	expired    bool
	// A slash command: acknowledged within slashWindow or never (Slack
	// shows the person operation_timeout and does not send it again; it
	// is sent again only when its connection was lost before its
	// deadline); response is the payload of its acknowledgement.
	slash    bool
	response json.RawMessage
	late     bool // an acknowledgement came after the deadline
}

// slashWindow is how long Slack waits for a slash command's
// acknowledgement.
const slashWindow = 3 * time.Second

// link is one Socket Mode WebSocket connection. Its reader goroutine is
// the only reader; frames are written under wmu (control frames through
// WriteControl, which gorilla allows alongside).
type link struct {
	id   int
	conn *websocket.Conn
	wmu  sync.Mutex
	done chan struct{} // closed when the connection ended
	// stalled (guarded by Server.mu): see StallLinks.
	stalled bool
}

// frame is an envelope as Slack sends it.
type frame struct {
	EnvelopeID             string          `json:"envelope_id"`
	Type                   string          `json:"type"`
	Payload                json.RawMessage `json:"payload"`
	AcceptsResponsePayload bool            `json:"accepts_response_payload"`
	RetryAttempt           int             `json:"retry_attempt"`
	RetryReason            string          `json:"retry_reason"`
}

// serveLink upgrades a connection apps.connections.open handed out. A
// ticket works once. (Slack's answer to a bad ticket is not documented;
// this answers 401.)
func (s *Server) serveLink(w http.ResponseWriter, r *http.Request) {
	ticket := r.URL.Query().Get("ticket")
	s.mu.Lock()
	ok := s.tickets[ticket]
	delete(s.tickets, ticket)
	s.mu.Unlock()
	if !ok {
		http.Error(w, "invalid ticket", http.StatusUnauthorized)
		return
	}
	conn, err := s.upgrader.Upgrade(w, r, nil)
	if err != nil {
		return // Upgrade answered the client
	}
	s.mu.Lock()
	select {
	case <-s.hs.Done:
		s.mu.Unlock()
		conn.Close()
		return
	default:
	}
	s.nlinks++
	l := &link{id: s.nlinks, conn: conn, done: make(chan struct{})}
	disabled := s.disabled
	if !disabled {
		s.links[l.id] = l
		s.stats.Connections++
	}
	n := len(s.links)
	s.mu.Unlock()
	if disabled {
		// What Slack does when a disabled app connects is not documented;
		// it says link_disabled at once, as it does to a live connection
		// when Socket Mode is turned off.
		s.writeJSON(l, map[string]any{"type": "disconnect", "reason": "link_disabled", "debug_info": map[string]any{"host": "slacktest"}})
		conn.Close()
		return
	}
	s.writeJSON(l, map[string]any{
		"type": "hello", "num_connections": n,
		"debug_info":      map[string]any{"host": "slacktest-applink-1", "build_number": 1, "approximate_connection_time": 18060},
		"connection_info": map[string]any{"app_id": AppID},
	})
	s.hs.WG.Go(func() { s.readLink(l) })
	if s.pingEvery > 0 {
		s.hs.WG.Go(func() { s.pingLink(l) })
	}
	s.wake()
}

// readLink reads acknowledgements until the connection ends, then hands
// the link's unacknowledged envelopes back for redelivery.
func (s *Server) readLink(l *link) {
	defer s.dropLink(l)
	// A stalled link is a dead network path: what the app sends is lost
	// and its pings go unanswered.
	l.conn.SetPingHandler(func(data string) error {
		s.mu.Lock()
		stalled := l.stalled
		s.mu.Unlock()
		if stalled {
			return nil
		}
		err := l.conn.WriteControl(websocket.PongMessage, []byte(data), time.Now().Add(5*time.Second))
		if err != nil && !errors.Is(err, websocket.ErrCloseSent) {
			var ne net.Error
			if !errors.As(err, &ne) {
				return err
			}
		}
		return nil
	})
	for {
		_, data, err := l.conn.ReadMessage()
		if err != nil {
			return
		}
		var ack struct {
			EnvelopeID string          `json:"envelope_id"`
			Payload    json.RawMessage `json:"payload"`
		}
		_ = json.Unmarshal(data, &ack)
		s.mu.Lock()
		e := s.byEnvelope[ack.EnvelopeID]
		switch {
		case l.stalled:
			// lost on the dead path
		case s.loseAcks:
			s.stats.LostAcks++
		case e == nil:
			s.stats.BadAcks++
		case e.expired:
			e.acks++
			if e.slash && !e.late {
				e.late = true
				s.stats.LateAcks++
			}
		default:
			e.acks++
			if e.slash && !e.acked && len(ack.Payload) > 0 && string(ack.Payload) != "null" {
				e.response = append(json.RawMessage(nil), ack.Payload...)
			}
			if !e.acked {
				// An acknowledgement of an earlier attempt of the event
				// acknowledges it too (on any connection of the app: how
				// Slack treats an acknowledgement on another connection
				// than the envelope's is not documented).
				e.acked, e.link = true, nil
				s.stats.Acked++
			} else {
				s.stats.Acks++
			}
		}
		s.mu.Unlock()
	}
}

// dropLink forgets a link whose connection ended; its envelopes are
// redelivered on the next connection at once.
func (s *Server) dropLink(l *link) {
	l.conn.Close()
	s.mu.Lock()
	delete(s.links, l.id)
	select {
	case <-l.done:
	default:
		close(l.done)
	}
	now := time.Now()
	for _, e := range s.events {
		if e.link == l {
			// How soon Slack redelivers after a connection is lost is not
			// documented; here, on the next connection, not against the
			// retry schedule.
			e.link, e.due, e.reason = nil, now, "connection_lost"
		}
	}
	s.mu.Unlock()
	s.wake()
}

func (s *Server) pingLink(l *link) {
	t := time.NewTicker(s.pingEvery)
	defer t.Stop()
	for {
		select {
		case <-l.done:
			return
		case <-s.hs.Done:
			return
		case <-t.C:
		}
		s.mu.Lock()
		stalled := l.stalled
		s.mu.Unlock()
		if !stalled {
			l.conn.WriteControl(websocket.PingMessage, []byte("slacktest"), time.Now().Add(5*time.Second))
		}
	}
}

func (s *Server) writeJSON(l *link, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	l.wmu.Lock()
	defer l.wmu.Unlock()
	l.conn.SetWriteDeadline(time.Now().Add(5 * time.Second))
	return l.conn.WriteMessage(websocket.TextMessage, b)
}

func (s *Server) wake() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// enqueueLocked adds an event to deliver.
func (s *Server) enqueueLocked(typ, key string, payload json.RawMessage) *pending {
	e := &pending{key: key, typ: typ, payload: payload, due: time.Now()}
	s.events = append(s.events, e)
	s.byKey[key] = e
	s.wake()
	return e
}

// dispatch sends due envelopes on the live connections (round robin),
// expires acknowledgement deadlines into redeliveries along the retry
// schedule, and sleeps until the next deadline or a change.
func (s *Server) dispatch() {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		sends, next := s.plan()
		for _, sd := range sends {
			if err := s.writeJSON(sd.l, sd.f); err != nil {
				sd.l.conn.Close() // the reader notices and hands the envelope back
			}
		}
		timer.Reset(next)
		select {
		case <-s.hs.Done:
			return
		case <-s.kick:
		case <-timer.C:
		}
	}
}

type send struct {
	l *link
	f frame
}

// plan decides, under the lock, what to send now and how long to sleep.
func (s *Server) plan() ([]send, time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	next := time.Hour
	var live []*link
	for _, l := range s.linkList() {
		if !l.stalled {
			live = append(live, l)
		}
	}
	var sends []send
	for _, e := range s.events {
		if e.acked || e.expired {
			continue
		}
		if e.link != nil && !now.Before(e.due) { // no acknowledgement in time
			if e.slash || e.retries >= len(s.schedule) {
				e.expired, e.link = true, nil
				s.stats.Expired++
				continue
			}
			e.retries++
			e.link, e.reason = nil, "timeout"
		}
		if e.link == nil && !now.Before(e.due) && len(live) > 0 {
			l := live[s.rr%len(live)]
			s.rr++
			id := s.newEnvelopeIDLocked()
			s.byEnvelope[id] = e
			f := frame{EnvelopeID: id, Type: e.typ, Payload: e.payload, RetryAttempt: e.deliveries, RetryReason: e.reason,
				AcceptsResponsePayload: e.slash}
			if e.deliveries > 0 {
				s.stats.Redeliveries++
			}
			e.deliveries++
			s.stats.Envelopes++
			wait := time.Hour
			switch {
			case e.slash:
				wait = slashWindow
			case len(s.schedule) > 0:
				wait = s.schedule[min(e.retries, len(s.schedule)-1)]
			}
			e.link, e.due = l, now.Add(wait)
			sends = append(sends, send{l, f})
		}
		if !e.acked && !e.expired && (e.link != nil || len(live) > 0) {
			next = min(next, max(e.due.Sub(now), time.Millisecond))
		}
	}
	return sends, next
}

// newEnvelopeIDLocked mints an envelope id, UUID-shaped as Slack's are:
// one per delivery attempt (whether Slack keeps the id across retries is
// not documented; a new one is the harder case for the app).
func (s *Server) newEnvelopeIDLocked() string {
	s.seq++
	return fmt.Sprintf("%08x-5c4c-4e57-8a1e-%012x", s.seq, s.clock)
}

// linkList returns the live links in id order; s.mu must be held.
func (s *Server) linkList() []*link {
	out := make([]*link, 0, len(s.links))
	for id := 1; id <= s.nlinks; id++ {
		if l, ok := s.links[id]; ok {
			out = append(out, l)
		}
	}
	return out
}

// LoseAcks makes acknowledgements get lost on the way (true) or arrive
// again (false): lost ones are counted (Stats.LostAcks) and do nothing,
// so their envelopes are redelivered.
func (s *Server) LoseAcks(lose bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.loseAcks = lose
}

// DropLinks cuts every Socket Mode connection mid-stream, without a close
// frame (what a network failure looks like to both ends).
func (s *Server) DropLinks() {
	s.mu.Lock()
	links := s.linkList()
	s.mu.Unlock()
	for _, l := range links {
		l.conn.NetConn().Close()
	}
}

// Disconnect sends a disconnect frame with reason (refresh_requested,
// warning, link_disabled…) on every connection, then closes each one
// after a grace of a second if the app has not.
func (s *Server) Disconnect(reason string) {
	s.mu.Lock()
	links := s.linkList()
	s.mu.Unlock()
	for _, l := range links {
		s.writeJSON(l, map[string]any{"type": "disconnect", "reason": reason, "debug_info": map[string]any{"host": "slacktest-applink-1"}})
		s.hs.WG.Go(func() {
			select {
			case <-l.done:
			case <-s.hs.Done:
			case <-time.After(time.Second):
				l.conn.Close()
			}
		})
	}
}

// DisableSocketMode turns Socket Mode off for the app: every connection
// gets disconnect with reason link_disabled, and so does every new one
// until EnableSocketMode.
func (s *Server) DisableSocketMode() {
	s.mu.Lock()
	s.disabled = true
	s.mu.Unlock()
	s.Disconnect("link_disabled")
}

// EnableSocketMode turns Socket Mode back on.
func (s *Server) EnableSocketMode() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.disabled = false
}

// StallLinks makes every open connection silent, as a dead network path
// is: the server stops sending (envelopes, pings), drops what arrives
// (acknowledgements, pings go unanswered), but keeps the TCP connection. Envelopes already on
// a stalled connection wait for their acknowledgement deadline. New
// connections are not stalled. ResumeLinks ends it.
func (s *Server) StallLinks() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, l := range s.links {
		l.stalled = true
	}
}

// ResumeLinks ends StallLinks.
func (s *Server) ResumeLinks() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, l := range s.links {
		l.stalled = false
	}
	s.wake()
}
