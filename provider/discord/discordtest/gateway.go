package discordtest

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// Gateway opcodes.
const (
	opDispatch       = 0
	opHeartbeat      = 1
	opIdentify       = 2
	opPresence       = 3
	opVoiceState     = 4
	opResume         = 6
	opReconnect      = 7
	opRequestMembers = 8
	opInvalidSession = 9
	opHello          = 10
	opHeartbeatACK   = 11
)

// frame is a gateway payload as Discord writes it.
type frame struct {
	Op int             `json:"op"`
	D  json.RawMessage `json:"d"`
	S  *int            `json:"s"`
	T  *string         `json:"t"`
}

// dispatch is one event of a session, kept for RESUME.
type dispatch struct {
	s int
	t string
	d json.RawMessage
}

// session is one gateway session of the bot: its sequence, its replay
// buffer, and the connection it is attached to (nil while disconnected).
type session struct {
	id      string
	intents int
	seq     int
	buf     []dispatch
	conn    *gwConn
	// gone is when the session lost its connection (zero while attached).
	gone time.Time
	dead bool
}

// gwConn is one gateway WebSocket connection. Its writes go through one
// writer goroutine, fed by a queue, so the server never writes to a
// socket while holding its lock.
type gwConn struct {
	srv  *Server
	ws   *websocket.Conn
	path string

	qmu     sync.Mutex // guards queue, closing, signal
	queue   []outFrame
	closing bool
	signal  chan struct{}

	// Fields below are guarded by Server.mu.
	sess       *session // the session once IDENTIFY or RESUME succeeded
	lastBeat   time.Time
	noAck      bool // this connection's heartbeats go unacknowledged
	killed     bool
	clientCode int // close code the client sent, if any
}

type outFrame struct {
	data      []byte
	closeCode int // a close frame when non-zero
	text      string
}

var upgrader = websocket.Upgrader{CheckOrigin: func(*http.Request) bool { return true }}

// serveGateway upgrades a gateway request and runs the connection.
func (s *Server) serveGateway(w http.ResponseWriter, r *http.Request) {
	if v := r.URL.Query().Get("v"); v != "" && v != "10" {
		http.Error(w, "unsupported gateway version", http.StatusBadRequest)
		return
	}
	if enc := r.URL.Query().Get("encoding"); enc != "" && enc != "json" {
		http.Error(w, "the stand-in speaks encoding=json only", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	down := s.down
	if down {
		s.counts["refused"]++
	}
	s.mu.Unlock()
	if down {
		http.Error(w, "502 Bad Gateway", http.StatusBadGateway)
		return
	}
	ws, err := upgrader.Upgrade(w, r, nil)
	if err != nil {
		return
	}
	c := &gwConn{srv: s, ws: ws, path: r.URL.Path, signal: make(chan struct{}, 1)}
	s.mu.Lock()
	select {
	case <-s.hs.Done:
		s.mu.Unlock()
		ws.Close()
		return
	default:
	}
	s.conns[c] = struct{}{}
	s.counts["connections"]++
	c.lastBeat = time.Now()
	s.hs.WG.Add(2)
	s.mu.Unlock()
	go func() { defer s.hs.WG.Done(); c.writer() }()
	go func() { defer s.hs.WG.Done(); c.watchHeartbeats() }()
	c.sendOp(opHello, map[string]int{"heartbeat_interval": int(s.heartbeat / time.Millisecond)})
	c.reader()
}

// writer writes queued frames until the connection closes, and closes
// the socket when it is done (after a close frame, if one was queued).
func (c *gwConn) writer() {
	defer c.ws.Close()
	for {
		<-c.signal
		c.qmu.Lock()
		q := c.queue
		c.queue = nil
		c.qmu.Unlock()
		for _, f := range q {
			if f.closeCode != 0 {
				c.ws.WriteControl(websocket.CloseMessage, websocket.FormatCloseMessage(f.closeCode, f.text), time.Now().Add(time.Second))
				// Give the client a moment to read the close frame, as a
				// real server's TCP close would.
				time.Sleep(20 * time.Millisecond)
				return
			}
			if err := c.ws.WriteMessage(websocket.TextMessage, f.data); err != nil {
				return
			}
		}
		c.qmu.Lock()
		closing := c.closing && len(c.queue) == 0
		c.qmu.Unlock()
		if closing {
			return
		}
	}
}

func (c *gwConn) enqueue(f outFrame) {
	c.qmu.Lock()
	if c.closing {
		c.qmu.Unlock()
		return
	}
	if f.closeCode != 0 {
		c.closing = true
	}
	c.queue = append(c.queue, f)
	c.qmu.Unlock()
	c.wake()
}

// finish has the writer write what is queued (a close frame too) and
// close the socket.
func (c *gwConn) finish() {
	c.qmu.Lock()
	c.closing = true
	c.qmu.Unlock()
	c.wake()
}

// wake tells the writer there is something to do.
func (c *gwConn) wake() {
	select {
	case c.signal <- struct{}{}:
	default:
	}
}

func (c *gwConn) sendOp(op int, d any) {
	raw, _ := json.Marshal(d)
	b, _ := json.Marshal(frame{Op: op, D: raw})
	c.enqueue(outFrame{data: b})
}

func (c *gwConn) sendDispatch(d dispatch) {
	s, t := d.s, d.t
	b, _ := json.Marshal(frame{Op: opDispatch, D: d.d, S: &s, T: &t})
	c.enqueue(outFrame{data: b})
}

// closeWith sends a close frame with code and closes the connection.
// Server.mu is held.
func (c *gwConn) closeWith(code int, text string) {
	c.srv.counts[fmt.Sprintf("close_%d", code)]++
	c.enqueue(outFrame{closeCode: code, text: text})
}

// kill drops the TCP connection without a close frame (a network
// failure). Server.mu is held.
func (c *gwConn) kill() {
	c.killed = true
	c.finish()
	c.ws.Close()
}

// watchHeartbeats closes a connection that stopped heartbeating, as
// Discord does (generously: three intervals plus two seconds).
func (c *gwConn) watchHeartbeats() {
	s := c.srv
	t := time.NewTicker(s.heartbeat / 2)
	defer t.Stop()
	for {
		select {
		case <-s.hs.Done:
			return
		case <-t.C:
		}
		s.mu.Lock()
		c.qmu.Lock()
		closing := c.closing
		c.qmu.Unlock()
		if closing || c.killed {
			s.mu.Unlock()
			return
		}
		if !s.noHeartbeatTimeout && time.Since(c.lastBeat) > 3*s.heartbeat+2*time.Second {
			if c.sess != nil {
				c.sess.dead = true
			}
			c.closeWith(4009, "Session timed out")
			s.mu.Unlock()
			return
		}
		s.mu.Unlock()
	}
}

// reader handles the client's payloads until the connection ends, then
// detaches the session (it stays resumable, unless the client closed with
// 1000 or 1001, which ends it).
func (c *gwConn) reader() {
	s := c.srv
	defer func() {
		s.mu.Lock()
		delete(s.conns, c)
		if sess := c.sess; sess != nil && sess.conn == c {
			sess.conn = nil
			sess.gone = time.Now()
			if c.clientCode == websocket.CloseNormalClosure || c.clientCode == websocket.CloseGoingAway {
				sess.dead = true
			}
		}
		s.mu.Unlock()
		c.finish()
	}()
	for {
		mt, data, err := c.ws.ReadMessage()
		if err != nil {
			if ce, ok := err.(*websocket.CloseError); ok {
				s.mu.Lock()
				c.clientCode = ce.Code
				s.counts[fmt.Sprintf("client_close_%d", ce.Code)]++
				s.mu.Unlock()
			}
			return
		}
		if mt != websocket.TextMessage {
			s.mu.Lock()
			c.closeWith(4002, "Error while decoding payload.")
			s.mu.Unlock()
			return
		}
		var f struct {
			Op int             `json:"op"`
			D  json.RawMessage `json:"d"`
		}
		if err := json.Unmarshal(data, &f); err != nil {
			s.mu.Lock()
			c.closeWith(4002, "Error while decoding payload.")
			s.mu.Unlock()
			return
		}
		s.mu.Lock()
		c.handleLocked(f.Op, f.D)
		s.mu.Unlock()
	}
}

// handleLocked acts on one client payload. Server.mu is held.
func (c *gwConn) handleLocked(op int, d json.RawMessage) {
	s := c.srv
	switch op {
	case opHeartbeat:
		s.counts["heartbeat"]++
		c.lastBeat = time.Now()
		if !c.noAck {
			s.counts["heartbeat_ack"]++
			c.sendOp(opHeartbeatACK, nil)
		}
	case opIdentify, opResume:
		c.authenticateLocked(op, d)
	case opPresence, opVoiceState, opRequestMembers:
		if c.sess == nil {
			c.closeWith(4003, "Not authenticated.")
		}
	default:
		c.closeWith(4001, "Unknown opcode.")
	}
}

// authPayload is the d of an IDENTIFY or of a RESUME.
type authPayload struct {
	Token string `json:"token"`
	// IDENTIFY's.
	Intents    *int            `json:"intents"`
	Properties json.RawMessage `json:"properties"`
	// RESUME's.
	SessionID string `json:"session_id"`
	Seq       *int   `json:"seq"`
}

// authenticateLocked handles an IDENTIFY or a RESUME: refused on a
// connection that is authenticated already (4005) and when it does not
// decode (4002); counted ("identify", "resume" on the resume URL,
// "resume_main" on the main one), then refused with a wrong token (4004).
func (c *gwConn) authenticateLocked(op int, d json.RawMessage) {
	s := c.srv
	if c.sess != nil {
		c.closeWith(4005, "Already authenticated.")
		return
	}
	var p authPayload
	valid := json.Unmarshal(d, &p) == nil
	counter := "identify"
	switch {
	case op == opIdentify:
		valid = valid && p.Intents != nil && len(p.Properties) > 0
	case c.path == "/resume":
		valid, counter = valid && p.Seq != nil, "resume"
	default:
		valid, counter = valid && p.Seq != nil, "resume_main"
	}
	if !valid {
		c.closeWith(4002, "Error while decoding payload.")
		return
	}
	s.counts[counter]++
	if p.Token != s.token {
		c.closeWith(4004, "Authentication failed.")
		return
	}
	if op == opIdentify {
		c.identifyLocked(*p.Intents)
	} else {
		c.resumeLocked(p.SessionID, *p.Seq)
	}
}

// identifyLocked starts a session with intents.
func (c *gwConn) identifyLocked(intents int) {
	s := c.srv
	if intents&IntentMessageContent != 0 && !s.contentIntent {
		c.closeWith(4014, "Disallowed intent(s).")
		return
	}
	if s.sessionLimit == 0 {
		// Approximate: Discord refuses with INVALID_SESSION or resets the
		// token after too many; the stand-in answers INVALID_SESSION.
		s.counts["invalid_session"]++
		c.sendOp(opInvalidSession, false)
		return
	}
	if s.sessionLimit > 0 {
		s.sessionLimit--
	}
	s.identifyAt = append(s.identifyAt, time.Now())
	sess := &session{id: randomHex(16), intents: intents, conn: c}
	s.sessions[sess.id] = sess
	c.sess = sess
	s.counts["ready"]++
	ready := map[string]any{
		"v":                  10,
		"user":               s.bot,
		"guilds":             []any{map[string]any{"id": s.guildID, "unavailable": true}},
		"session_id":         sess.id,
		"resume_gateway_url": s.resumeURL(),
		"shard":              []int{0, 1},
		"application":        map[string]any{"id": s.appID, "flags": 0},
	}
	s.sendToLocked(sess, "READY", ready)
	if sess.intents&IntentGuilds != 0 {
		s.sendToLocked(sess, "GUILD_CREATE", s.guildCreateLocked())
	}
}

// resumeLocked attaches the connection to session id and replays what
// came after seq.
func (c *gwConn) resumeLocked(id string, seq int) {
	s := c.srv
	sess := s.liveSessionLocked(id)
	switch {
	case sess == nil:
		s.counts["invalid_session"]++
		c.sendOp(opInvalidSession, false)
		return
	case seq > sess.seq:
		c.closeWith(4007, "Invalid seq.")
		sess.dead = true
		return
	case len(sess.buf) > 0 && seq < sess.buf[0].s-1:
		// The replay buffer no longer reaches back that far.
		s.counts["invalid_session"]++
		sess.dead = true
		c.sendOp(opInvalidSession, false)
		return
	}
	if old := sess.conn; old != nil && old != c {
		// A resume takes the session over from a connection the client
		// gave up on (a zombie).
		old.sess = nil
		old.kill()
	}
	sess.conn, sess.gone, c.sess = c, time.Time{}, sess
	for _, ev := range sess.buf {
		if ev.s > seq {
			c.sendDispatch(ev)
			s.counts["replayed"]++
		}
	}
	s.counts["resumed"]++
	s.sendToLocked(sess, "RESUMED", map[string]any{})
}

// liveSessionLocked returns the session if it can still be resumed.
func (s *Server) liveSessionLocked(id string) *session {
	sess, ok := s.sessions[id]
	if !ok || sess.dead {
		return nil
	}
	if sess.conn == nil && !sess.gone.IsZero() && time.Since(sess.gone) > s.resumeWindow {
		sess.dead = true
		return nil
	}
	return sess
}

// sendToLocked appends one dispatch to sess and sends it if attached.
func (s *Server) sendToLocked(sess *session, t string, payload any) {
	raw, err := json.Marshal(payload)
	if err != nil {
		panic(fmt.Sprintf("discordtest: %s payload: %v", t, err))
	}
	sess.seq++
	ev := dispatch{s: sess.seq, t: t, d: raw}
	sess.buf = append(sess.buf, ev)
	if len(sess.buf) > s.replayMax {
		sess.buf = sess.buf[len(sess.buf)-s.replayMax:]
	}
	if sess.conn != nil {
		sess.conn.sendDispatch(ev)
	}
}

// dispatchLocked sends an event to every session that can still receive
// it and subscribed to intent (0: always sent, like INTERACTION_CREATE).
// A disconnected session within its resume window buffers it for RESUME.
func (s *Server) dispatchLocked(t string, intent int, payload any) {
	s.dispatchEachLocked(t, intent, func(*session) any { return payload })
}

func (s *Server) dispatchEachLocked(t string, intent int, payload func(*session) any) {
	for _, sess := range s.sessions {
		if s.liveSessionLocked(sess.id) == nil {
			continue
		}
		if intent != 0 && sess.intents&intent == 0 {
			continue
		}
		s.sendToLocked(sess, t, payload(sess))
	}
}

// dispatchMessageLocked sends MESSAGE_CREATE or MESSAGE_UPDATE. Sessions
// without the Message Content intent get the message without content,
// attachments, embeds and components, unless the bot wrote it (Discord
// also keeps them for messages mentioning the bot and in DMs; not
// modelled).
func (s *Server) dispatchMessageLocked(t string, m *Message) {
	s.dispatchEachLocked(t, IntentGuildMessages, func(sess *session) any {
		out := *m
		out.GuildID = s.guildID
		if sess.intents&IntentMessageContent == 0 && m.Author.ID != s.bot.ID {
			out.Content, out.Attachments, out.Embeds, out.Components = "", []Attachment{}, []json.RawMessage{}, []json.RawMessage{}
		}
		return struct {
			Message
			Member map[string]any `json:"member"`
		}{out, map[string]any{"roles": []string{}, "joined_at": stamp(time.Now()), "nick": nil}}
	})
}

func (s *Server) guildCreateLocked() map[string]any {
	var channels, threads []*Channel
	for _, id := range s.order {
		c := s.channels[id]
		switch {
		case c == nil:
		case c.Type == ChannelPublicThread:
			if c.ThreadMetadata == nil || !c.ThreadMetadata.Archived {
				threads = append(threads, c)
			}
		default:
			channels = append(channels, c)
		}
	}
	return map[string]any{
		"id": s.guildID, "name": "chatbus test guild", "unavailable": false, "member_count": len(s.users),
		"channels": channels, "threads": threads, "members": []any{}, "roles": []any{},
	}
}

// DropConnections drops every gateway connection without a close frame,
// as a network failure does: the sessions stay resumable.
func (s *Server) DropConnections() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.conns {
		c.kill()
	}
}

// SetGatewayDown makes the gateway refuse new connections (502, as
// Discord's edge does in an outage) or accept them again. Connections
// open now are not touched: drop them with DropConnections.
func (s *Server) SetGatewayDown(down bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.down = down
}

// Reconnect sends RECONNECT (op 7) on every connection: the client should
// close it and resume.
func (s *Server) Reconnect() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.conns {
		if c.sess != nil {
			c.sendOp(opReconnect, nil)
		}
	}
}

// InvalidateSessions sends INVALID_SESSION (op 9) with d = resumable on
// every identified connection. Not resumable, the sessions end: a RESUME
// of them is refused and the client must identify afresh.
func (s *Server) InvalidateSessions(resumable bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.conns {
		if c.sess == nil {
			continue
		}
		s.counts["invalid_session"]++
		c.sendOp(opInvalidSession, resumable)
		if !resumable {
			c.sess.dead = true
			c.sess.conn = nil
			c.sess = nil
		}
	}
}

// CloseConnections closes every connection with code. 4009 (session
// timed out) and 4007 (invalid seq) also end their sessions, as Discord's
// do; with other codes the sessions stay resumable.
func (s *Server) CloseConnections(code int, text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.conns {
		if c.sess != nil && (code == 4009 || code == 4007) {
			c.sess.dead = true
		}
		c.closeWith(code, text)
	}
}

// IgnoreHeartbeats stops acknowledging heartbeats on the connections open
// now (a zombied connection); later connections are acknowledged again.
func (s *Server) IgnoreHeartbeats() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for c := range s.conns {
		c.noAck = true
	}
}

// ExpireSessions ends every session, as a long outage past the resume
// window does: connections are dropped and a RESUME is refused with
// INVALID_SESSION; events from now on reach only new sessions.
func (s *Server) ExpireSessions() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, sess := range s.sessions {
		sess.dead = true
	}
	for c := range s.conns {
		c.kill()
	}
}

// SessionInfo describes one gateway session.
type SessionInfo struct {
	ID        string
	Seq       int
	Connected bool
	Live      bool // resumable or connected
}

// Sessions lists the bot's sessions.
func (s *Server) Sessions() []SessionInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []SessionInfo
	for _, sess := range s.sessions {
		out = append(out, SessionInfo{ID: sess.id, Seq: sess.seq, Connected: sess.conn != nil, Live: s.liveSessionLocked(sess.id) != nil})
	}
	return out
}

// Connected reports how many gateway connections are identified (or
// resumed) now.
func (s *Server) Connected() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for c := range s.conns {
		if c.sess != nil && !c.killed {
			n++
		}
	}
	return n
}

func randomHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// DispatchRaw sends a dispatch of type t with payload d, verbatim, to
// every session that can still receive it (no intent checked): what
// Discord sends that the provider may not expect (a field of another
// type, after an API change). NewID makes ids for it.
func (s *Server) DispatchRaw(t string, d json.RawMessage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.dispatchLocked(t, 0, d)
}

// NewID returns a new snowflake, later than every id made before.
func (s *Server) NewID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.newIDLocked()
}
