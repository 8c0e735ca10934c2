// Package slacktest is a stand-in Slack for tests. It owns an in-memory
// model of one workspace with one app installed: its channels and their
// messages, threads, reactions and files; the app's Socket Mode
// connections and the envelopes in flight on them, with Slack's
// redelivery of what was not acknowledged; and fault injection for the
// platform's failure modes (HTTP 429 with Retry-After, ok=false errors,
// revoked tokens, dropped or silent connections, Socket Mode turned off),
// and, when asked, Slack's rate limits (limits.go).
//
// It speaks the real wire format on 127.0.0.1: the Web API at
// POST /api/<method> with JSON or form bodies (token as a Bearer header or
// a token parameter) answering {"ok": …} with Slack's error codes;
// apps.connections.open returning a ws:// URL; a WebSocket (gorilla/
// websocket, the library slack-go uses) speaking Socket Mode frames:
// hello, events_api, interactive and slash_commands envelopes (a slash
// command waits 3 s for its acknowledgement, whose payload is its answer,
// and is not sent again after that), disconnect, pings; and the
// external upload flow and private file URLs. Block Kit is checked as
// Slack checks it (invalid_blocks), reactions take Slack's emoji names
// (invalid_name), and a reply into a thread whose root was deleted before
// anyone replied is posted at the top level and answered ok, as Slack
// does. A person's message mentioning the bot is also an app_mention
// event. Tests act as people (PostMessage, Edit, React, PressButton,
// SlashCommand,
// PostFile, DeleteMessage, SetMember to invite or remove the bot), break
// the connection (DropLinks, StallLinks, Disconnect, DisableSocketMode,
// Revoke) and count what it received (Stats, Event, Calls, Sent, Message,
// Ephemeral). Where the model is an
// approximation of Slack (an undocumented behaviour, or a simplification),
// the code says so in a comment.
package slacktest

import (
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/gorilla/websocket"

	"github.com/chatbus/chatbus/provider/providertest/tblog"
)

// The identities of the workspace and its app.
const (
	AppToken  = "xapp-1-A0SLACKTEST-1-0123456789abcdef"
	BotToken  = "xoxb-1-0123456789-slacktest-abcdefghij"
	TeamID    = "T0SLACKTEST"
	TeamName  = "slacktest"
	AppID     = "A0SLACKTEST"
	BotUserID = "U0BOTUSER"
	BotID     = "B0BOTID"
	BotName   = "chatbus"
	// verificationToken is the deprecated token Slack still puts in
	// payloads.
	verificationToken = "slacktest-verification-token"
)

// Option configures a Server.
type Option func(*Server)

// WithRetrySchedule sets when Slack redelivers an envelope that was not
// acknowledged: the i-th redelivery follows the previous delivery by
// after[i]; once the schedule is used up Slack gives up on the event
// (Stats.Expired). The default is Slack's documented 1 min and 5 min.
func WithRetrySchedule(after ...time.Duration) Option {
	return func(s *Server) { s.schedule = append([]time.Duration(nil), after...) }
}

// WithPingInterval sets how often the server pings each connection. The
// default is 5s. Zero: it never pings.
func WithPingInterval(d time.Duration) Option { return func(s *Server) { s.pingEvery = d } }

// Fault is an injected Web API failure. A faulted call has no other
// effect: nothing is posted, changed or counted as done.
type Fault struct {
	// Status is the HTTP status. 429 answers {"ok":false,"error":
	// "ratelimited"} with Retry-After; another status answers an HTML
	// error page (what a proxy in front of Slack sends). Zero with Error
	// set: HTTP 200.
	Status int
	// RetryAfter is the Retry-After of a 429, in seconds. If zero, 1.
	RetryAfter int
	// Error is the error code of an {"ok": false} answer (HTTP 200), e.g.
	// "internal_error", "channel_not_found".
	Error string
	// Delay holds the request this long and then serves it normally (a
	// slow Slack); it is no failure.
	Delay time.Duration
}

// Server is the stand-in. All methods are safe for concurrent use.
type Server struct {
	tb        testing.TB
	hs        *tblog.Server // its WG: the dispatcher and every link's goroutines
	upgrader  websocket.Upgrader
	schedule  []time.Duration
	pingEvery time.Duration

	kick chan struct{} // cap 1: wake the dispatcher

	mu sync.Mutex // guards every field below
	// Tokens and Socket Mode.
	revoked  bool
	disabled bool            // Socket Mode turned off
	loseAcks bool            // acknowledgements are dropped (LoseAcks)
	tickets  map[string]bool // apps.connections.open tickets not yet used
	links    map[int]*link
	nlinks   int
	rr       int // round robin over links
	// Envelopes: every event Slack must deliver, in order.
	events     []*pending
	byKey      map[string]*pending // event id or trigger id
	byEnvelope map[string]*pending
	// The workspace.
	channels map[string]*channel
	files    map[string]*file
	clock    int64 // the last ts handed out, in microseconds
	seq      int
	// Accounting and fault injection, keyed by method name.
	calls  map[string]int
	faults map[string][]Fault
	always map[string]Fault
	stats  Stats
	// limits, if set, enforces Slack's rate limits (limits.go).
	limits *limiter
}

// Stats counts what the Socket Mode side saw.
type Stats struct {
	// Connections is how many WebSocket connections were accepted; Live
	// how many are open.
	Connections, Live int
	// Envelopes is how many envelope frames were sent, Redeliveries how
	// many of them were retries.
	Envelopes, Redeliveries int
	// Acked is how many events were acknowledged; Acks how many
	// acknowledgements arrived (a second one for an event counts here
	// only); BadAcks how many named no envelope sent (an empty id, as an
	// acknowledgement of hello or disconnect would be, or an unknown one).
	Acked, Acks, BadAcks int
	// LostAcks is how many acknowledgements LoseAcks dropped.
	LostAcks int
	// Expired is how many events Slack gave up on (the retry schedule ran
	// out, or a slash command's 3 s passed); Pending how many are neither
	// acknowledged nor expired.
	Expired, Pending int
	// LateAcks is how many slash commands were acknowledged after their
	// 3 s (the person had seen operation_timeout).
	LateAcks int
}

// New starts a Server on 127.0.0.1 and closes it when the test ends.
func New(tb testing.TB, opts ...Option) *Server {
	tb.Helper()
	s := &Server{
		tb:         tb,
		schedule:   []time.Duration{time.Minute, 5 * time.Minute},
		pingEvery:  5 * time.Second,
		kick:       make(chan struct{}, 1),
		tickets:    map[string]bool{},
		links:      map[int]*link{},
		byKey:      map[string]*pending{},
		byEnvelope: map[string]*pending{},
		channels:   map[string]*channel{},
		files:      map[string]*file{},
		clock:      1700000000 * 1e6,
		calls:      map[string]int{},
		faults:     map[string][]Fault{},
		always:     map[string]Fault{},
	}
	// Slack's clients send Origin: https://api.slack.com (slack-go does);
	// the link URL is the credential, so any origin is taken.
	s.upgrader.CheckOrigin = func(*http.Request) bool { return true }
	for _, o := range opts {
		o(s)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/api/", s.serveAPI)
	mux.HandleFunc("/link/", s.serveLink)
	mux.HandleFunc("/upload/", s.serveUpload)
	mux.HandleFunc("/files-pri/", s.serveFile)
	s.hs = tblog.Start(tb, "slacktest: ", mux, nil, s.closeLinks)
	s.hs.WG.Go(s.dispatch)
	return s
}

// Close stops the server: connections are closed and Close returns once
// every goroutine of the server has returned. Idempotent; called when the
// test ends.
func (s *Server) Close() { s.hs.Close() }

// URL is the Web API's base URL, for the provider's base_url
// ("http://127.0.0.1:port/api/").
func (s *Server) URL() string { return s.hs.URL + "/api/" }

// AddChannel creates a channel. member says whether the bot is in it
// (posting into a channel it is not in answers not_in_channel).
func (s *Server) AddChannel(id, name string, member bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.channels[id] = &channel{id: id, name: name, member: member, members: map[string]bool{}, byTS: map[string]*Message{}}
}

// SetMember adds the bot to a channel (as /invite @bot does) or removes
// it, and sends the app member_joined_channel or member_left_channel for
// its bot user.
func (s *Server) SetMember(id string, member bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.channels[id]
	if c == nil || c.member == member {
		return
	}
	c.member = member
	ev := obj{"type": "member_left_channel", "user": BotUserID, "channel": c.id, "channel_type": "C", "team": TeamID,
		"event_ts": s.newTSLocked()}
	if member {
		ev["type"], ev["inviter"] = "member_joined_channel", "U0INVITER"
	}
	s.callbackLocked(ev)
}

// Ephemeral returns the ephemeral messages posted in channel, oldest
// first (User is the person who sees it).
func (s *Server) Ephemeral(channelID string) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Message
	if c := s.channels[channelID]; c != nil {
		for _, m := range c.ephemeral {
			out = append(out, copyMessage(&m))
		}
	}
	return out
}

// Revoke revokes both tokens, as uninstalling the app does: every call
// answers token_revoked and the Socket Mode connections are closed.
// Restore undoes it.
func (s *Server) Revoke() {
	s.mu.Lock()
	s.revoked = true
	s.mu.Unlock()
	s.closeLinks()
}

// closeLinks closes every Socket Mode connection.
func (s *Server) closeLinks() {
	s.mu.Lock()
	links := s.linkList()
	s.mu.Unlock()
	for _, l := range links {
		l.conn.Close()
	}
}

// Restore makes the tokens valid again.
func (s *Server) Restore() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.revoked = false
}

// Calls returns how many times method was called (faulted calls
// included). Uploads to the upload URL count as "upload", private file
// downloads as "download".
func (s *Server) Calls(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[method]
}

// Fail injects f into the next call of method (one-shot, queued in order).
func (s *Server) Fail(method string, f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults[method] = append(s.faults[method], f)
}

// FailAlways injects f into every call of method until ClearFaults.
func (s *Server) FailAlways(method string, f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.always[method] = f
}

// ClearFaults removes every injected fault.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults = map[string][]Fault{}
	s.always = map[string]Fault{}
}

// Stats returns the Socket Mode counters.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stats
	st.Live = len(s.links)
	for _, e := range s.events {
		if !e.acked && !e.expired {
			st.Pending++
		}
	}
	return st
}

// EventStats is what happened to one event.
type EventStats struct {
	// Deliveries is how many times it was sent on a connection.
	Deliveries int
	// Acks is how many acknowledgements named one of its envelopes.
	Acks    int
	Acked   bool
	Expired bool
	// Response is the payload of a slash command's acknowledgement (nil:
	// an empty one), Late whether one came after its 3 s.
	Response []byte
	Late     bool
}

// Event returns what happened to the event with key (an event id, or an
// interaction's trigger id).
func (s *Server) Event(key string) EventStats {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.byKey[key]
	if e == nil {
		return EventStats{}
	}
	return EventStats{Deliveries: e.deliveries, Acks: e.acks, Acked: e.acked, Expired: e.expired,
		Response: append([]byte(nil), e.response...), Late: e.late}
}

// newTSLocked hands out a message timestamp: unique and increasing, in
// Slack's "seconds.microseconds" form.
func (s *Server) newTSLocked() string {
	now := time.Now().UnixMicro()
	s.clock = max(s.clock+1, now)
	return fmt.Sprintf("%d.%06d", s.clock/1e6, s.clock%1e6)
}

// newIDLocked hands out an id with prefix ("Ev", "F", …) in Slack's
// upper-case form.
func (s *Server) newIDLocked(prefix string) string {
	s.seq++
	return fmt.Sprintf("%s%08X", prefix, s.seq)
}

// channel is one conversation and its messages.
type channel struct {
	id, name  string
	member    bool            // the bot is in it
	members   map[string]bool // people in it (who posted or were added)
	msgs      []*Message      // in ts order
	byTS      map[string]*Message
	ephemeral []Message
}

// Message is a message as the stand-in holds it.
type Message struct {
	Channel  string
	TS       string
	ThreadTS string // "" for a top-level message without replies
	User     string
	BotID    string // set for the bot's messages
	Subtype  string
	Text     string
	Blocks   []byte // JSON, if any
	Files    []string
	// EditedTS is when it was last edited, "" if never.
	EditedTS string
	Deleted  bool
	// Reactions by name, each with the users who reacted.
	Reactions map[string][]string
	Replies   int
}

// Sent returns the bot's messages in thread of channel (thread "": the
// channel's top level), not deleted, oldest first.
func (s *Server) Sent(channelID, thread string) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Message
	if c := s.channels[channelID]; c != nil {
		for _, m := range c.msgs {
			if m.BotID == BotID && !m.Deleted && threadOf(m) == thread {
				out = append(out, copyMessage(m))
			}
		}
	}
	return out
}

// Message returns the message ts of channel.
func (s *Server) Message(channelID, ts string) (Message, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c := s.channels[channelID]; c != nil {
		if m := c.byTS[ts]; m != nil {
			return copyMessage(m), true
		}
	}
	return Message{}, false
}

// threadOf is the thread a message is in: "" for a top-level one (a
// thread's root is top-level too).
func threadOf(m *Message) string {
	if m.ThreadTS == m.TS {
		return ""
	}
	return m.ThreadTS
}

func copyMessage(m *Message) Message {
	c := *m
	c.Files = append([]string(nil), m.Files...)
	c.Reactions = map[string][]string{}
	for k, v := range m.Reactions {
		c.Reactions[k] = append([]string(nil), v...)
	}
	return c
}

// file is an uploaded or shared file.
type file struct {
	id, name, title, mimetype string
	subtype                   string // "slack_audio": a clip recorded in Slack
	durationMS                int
	data                      []byte
	uploaded                  bool // the bytes arrived at the upload URL
	length                    int  // announced by files.getUploadURLExternal
	shared                    bool
}
