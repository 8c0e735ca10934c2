// Package discordtest is a stand-in Discord for tests: one guild with text
// channels and their threads, one bot application, and the people who
// write in it. It owns an in-memory model of the guild (channels, threads,
// messages, reactions, attachments, interactions, application
// commands and people running them: commands.go), of the bot's gateway
// sessions (sequence numbers, the replay buffer a RESUME is served from,
// the resume window) and of REST rate-limit buckets, plus fault injection
// for Discord's real failure modes.
//
// It speaks the real wire format on one 127.0.0.1 port:
//
//   - the gateway over a real WebSocket (gorilla/websocket, the library
//     disgo uses) at /gateway, and at /resume for resume_gateway_url: HELLO
//     with heartbeat_interval, IDENTIFY → READY and GUILD_CREATE, DISPATCH
//     with s, HEARTBEAT/HEARTBEAT_ACK, RESUME → the missed dispatches
//     replayed and RESUMED, INVALID_SESSION (d true or false), RECONNECT,
//     and close codes 4004 (authentication failed), 4014 (disallowed
//     intents), 4009 (session timed out), 4005, 4002;
//   - REST under /api/v10 with "Authorization: Bot <token>": users/@me,
//     oauth2/applications/@me, gateway/bot, channels and threads, messages
//     (JSON and multipart, after/before paging, message components checked
//     as Discord checks buttons, replies with fail_if_not_exists,
//     allowed_mentions, nonces with enforce_nonce over a window),
//     reactions kept on the message, typing, interaction callbacks and
//     follow-up webhooks (ephemeral ones in no channel's history), a
//     deferred response and its edit through @original within the
//     token's 15 minutes, the guild's application commands (GET and the
//     bulk-overwrite PUT, checked as Discord checks them), with
//     Discord's error bodies ({"message","code"}, Invalid Form Body's
//     nested errors), rate-limit headers per bucket and 429s with
//     retry_after and global, and, when asked, Discord's per-route
//     buckets and global limit (ratelimit.go);
//   - attachments at /attachments/..., like the CDN (no authorization).
//
// Where the model is approximate, the code says so in a comment.
package discordtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chatbus/chatbus/provider/providertest/tblog"
)

// DefaultToken is the bot token a Server accepts unless WithToken is given.
const DefaultToken = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GdTest.discordtest-token-0123456789abcdef"

// Gateway intents the stand-in knows (Discord's bit values).
const (
	IntentGuilds                = 1 << 0
	IntentGuildMessages         = 1 << 9
	IntentGuildMessageReactions = 1 << 10
	IntentMessageContent        = 1 << 15
)

// Channel types.
const (
	ChannelText         = 0
	ChannelPublicThread = 11
	ChannelForum        = 15
)

// Option configures a Server.
type Option func(*Server)

// WithToken sets the bot token the server accepts.
func WithToken(token string) Option { return func(s *Server) { s.token = token } }

// WithHeartbeatInterval sets the heartbeat_interval sent in HELLO. The
// default is 1s (Discord sends about 41.25s).
func WithHeartbeatInterval(d time.Duration) Option { return func(s *Server) { s.heartbeat = d } }

// WithResumeWindow sets how long a disconnected session stays resumable.
// The default is 2 minutes. Discord does not publish its window; sessions
// are known to be resumable for a few minutes.
func WithResumeWindow(d time.Duration) Option { return func(s *Server) { s.resumeWindow = d } }

// WithRateLimit sets every REST bucket to limit requests per window,
// with no global limit. The default is 50 per second, generous enough not
// to get in a test's way. (Discord's real limits vary by route, e.g. 5
// messages per 5s per channel: WithRateLimits(DiscordLimits).)
func WithRateLimit(limit int, window time.Duration) Option {
	return func(s *Server) { s.limits = RateLimits{Default: Bucket{limit, window}} }
}

// WithReplayBuffer bounds the dispatches a session keeps for RESUME; a
// RESUME from further back is refused with INVALID_SESSION. The default
// is 100000.
func WithReplayBuffer(n int) Option { return func(s *Server) { s.replayMax = n } }

// WithNonceWindow sets how long a message nonce is remembered for
// enforce_nonce: a create with the nonce of a message made longer ago
// makes a new message. Discord checks "the past few minutes" without
// saying how many; the default is 5 minutes.
func WithNonceWindow(d time.Duration) Option { return func(s *Server) { s.nonceWindow = d } }

// WithoutHeartbeatTimeout stops the server from closing connections that
// do not heartbeat (Discord closes them; the default closes after three
// missed intervals plus two seconds, generous for loaded test machines).
func WithoutHeartbeatTimeout() Option { return func(s *Server) { s.noHeartbeatTimeout = true } }

// User is a Discord user object (the fields the stand-in models).
type User struct {
	ID         string  `json:"id"`
	Username   string  `json:"username"`
	GlobalName *string `json:"global_name"`
	Bot        bool    `json:"bot,omitempty"`
	// Discriminator is "0" for migrated usernames.
	Discriminator string `json:"discriminator"`
}

// ThreadMetadata is a thread's archive state.
type ThreadMetadata struct {
	Archived            bool   `json:"archived"`
	Locked              bool   `json:"locked"`
	AutoArchiveDuration int    `json:"auto_archive_duration"`
	ArchiveTimestamp    string `json:"archive_timestamp"`
}

// Channel is a Discord channel object: a text channel or a thread.
type Channel struct {
	ID             string          `json:"id"`
	Type           int             `json:"type"`
	GuildID        string          `json:"guild_id"`
	Name           string          `json:"name"`
	ParentID       *string         `json:"parent_id,omitempty"`
	OwnerID        string          `json:"owner_id,omitempty"`
	LastMessageID  *string         `json:"last_message_id"`
	MessageCount   int             `json:"message_count,omitempty"`
	ThreadMetadata *ThreadMetadata `json:"thread_metadata,omitempty"`
}

// Attachment is a file on a message.
type Attachment struct {
	ID          string `json:"id"`
	Filename    string `json:"filename"`
	Size        int    `json:"size"`
	URL         string `json:"url"`
	ProxyURL    string `json:"proxy_url"`
	ContentType string `json:"content_type,omitempty"`
	// A voice message's attachment: its length and a base64 waveform.
	DurationSecs float64 `json:"duration_secs,omitempty"`
	Waveform     string  `json:"waveform,omitempty"`
}

// MessageReference points at another message (a reply).
type MessageReference struct {
	Type      int    `json:"type,omitempty"`
	MessageID string `json:"message_id,omitempty"`
	ChannelID string `json:"channel_id,omitempty"`
	GuildID   string `json:"guild_id,omitempty"`
}

// Message is a Discord message object.
type Message struct {
	ID               string            `json:"id"`
	ChannelID        string            `json:"channel_id"`
	GuildID          string            `json:"guild_id,omitempty"`
	Author           User              `json:"author"`
	Content          string            `json:"content"`
	Timestamp        string            `json:"timestamp"`
	EditedTimestamp  *string           `json:"edited_timestamp"`
	Type             int               `json:"type"`
	Attachments      []Attachment      `json:"attachments"`
	Embeds           []json.RawMessage `json:"embeds"`
	Components       []json.RawMessage `json:"components"`
	MessageReference *MessageReference `json:"message_reference,omitempty"`
	Reactions        []Reaction        `json:"reactions,omitempty"`
	MentionEveryone  bool              `json:"mention_everyone"`
	Nonce            string            `json:"nonce,omitempty"`
	WebhookID        string            `json:"webhook_id,omitempty"`
	ApplicationID    string            `json:"application_id,omitempty"`
	Flags            int               `json:"flags"`
	Pinned           bool              `json:"pinned"`
	TTS              bool              `json:"tts"`
}

// Reaction is one emoji's reactions on a message.
type Reaction struct {
	Count int `json:"count"`
	// Me: the bot is one of them.
	Me    bool  `json:"me"`
	Emoji Emoji `json:"emoji"`
	users map[string]bool
}

// Emoji is a unicode emoji (ID nil) or a custom one.
type Emoji struct {
	ID   *string `json:"id"`
	Name string  `json:"name"`
}

// file is an attachment's bytes.
type file struct {
	att  Attachment
	data []byte
}

// interaction is a pressed button waiting for (or past) its callback.
type interaction struct {
	id, token, channel, message, user string
	created                           time.Time
	callback                          int // the callback type answered, 0 if none
	callbacks                         int // callback requests, answered or not
	// answers are the messages the interaction was answered with (a
	// type 4 callback's, follow-ups), ephemeral ones too, oldest first.
	answers []Message
	// command: an APPLICATION_COMMAND (RunCommand); original its
	// response's message once answered with type 4 or 5 (the one stored
	// in the channel, unless ephemeral).
	command  bool
	original *Message
}

// sentNonce is a message made with a nonce, and when.
type sentNonce struct {
	m  *Message
	at time.Time
}

// Fault is an injected REST failure; a faulted request has no other
// effect.
type Fault struct {
	// Status is the HTTP status; if zero, 500. 429 is answered in
	// Discord's rate-limit shape with RetryAfter and Global.
	Status int
	// Code is Discord's JSON error code in the body (e.g. 10003).
	Code int
	// Message is the body's message; if empty, a generic one.
	Message string
	// RetryAfter is the 429's retry_after.
	RetryAfter time.Duration
	// Global marks a 429 as the global rate limit.
	Global bool
	// Delay holds the request this long and then serves it normally (no
	// failure: the request takes effect).
	Delay time.Duration
	// Hang holds the request until the client gives up or the server
	// closes, then drops the connection; the request takes no effect.
	Hang bool
}

// Server is a stand-in Discord on a 127.0.0.1 port. All methods are safe
// for concurrent use.
type Server struct {
	tb                 testing.TB
	hs                 *tblog.Server
	heartbeat          time.Duration
	resumeWindow       time.Duration
	limits             RateLimits
	replayMax          int
	nonceWindow        time.Duration
	noHeartbeatTimeout bool

	mu sync.Mutex // guards every field below; never held while writing to a socket
	// Identity.
	token         string
	bot           User
	appID         string
	contentIntent bool // the privileged Message Content intent is enabled for the app
	guildID       string
	lastID        uint64
	identifyAt    []time.Time
	sessionLimit  int // remaining session starts; <0 unlimited
	// Guild contents.
	channels     map[string]*Channel
	order        []string              // channel ids in creation order
	messages     map[string][]*Message // by channel, oldest first
	files        map[string]*file      // by attachment path
	interactions map[string]*interaction
	tokens       map[string]*interaction // by interaction token
	nonces       map[string]sentNonce    // by author+nonce
	typings      map[string]int          // typing indicators triggered, by channel
	users        map[string]User
	// Application commands of the guild (commands.go).
	commands        []appCommand
	noCommandsScope bool
	// Gateway.
	sessions map[string]*session
	conns    map[*gwConn]struct{}
	down     bool           // the gateway refuses connections (502)
	counts   map[string]int // gateway counters (identify, resume, resume@/gateway, ...)
	// REST.
	calls   map[string]int // by route ("POST /channels/{id}/messages")
	faults  map[string][]Fault
	buckets map[string]*bucket
	global  globalLimit
	limited int // 429s answered
}

// New starts a Server on 127.0.0.1 with one guild and one text channel
// (see Channel) and closes it when the test ends.
func New(tb testing.TB, opts ...Option) *Server {
	tb.Helper()
	s := &Server{
		tb:            tb,
		heartbeat:     time.Second,
		resumeWindow:  2 * time.Minute,
		limits:        RateLimits{Default: Bucket{50, time.Second}},
		replayMax:     100000,
		token:         DefaultToken,
		contentIntent: true,
		sessionLimit:  -1,
		channels:      map[string]*Channel{},
		messages:      map[string][]*Message{},
		files:         map[string]*file{},
		interactions:  map[string]*interaction{},
		tokens:        map[string]*interaction{},
		nonces:        map[string]sentNonce{},
		typings:       map[string]int{},
		nonceWindow:   5 * time.Minute,
		users:         map[string]User{},
		sessions:      map[string]*session{},
		conns:         map[*gwConn]struct{}{},
		counts:        map[string]int{},
		calls:         map[string]int{},
		faults:        map[string][]Fault{},
		buckets:       map[string]*bucket{},
	}
	for _, o := range opts {
		o(s)
	}
	s.guildID = s.newIDLocked()
	s.appID = s.newIDLocked()
	s.bot = User{ID: s.appID, Username: "chatbus-test", Bot: true, Discriminator: "0"}
	s.users[s.bot.ID] = s.bot
	s.addChannelLocked(&Channel{Type: ChannelText, Name: "agents"})

	s.hs = tblog.Start(tb, "discordtest: ", http.HandlerFunc(s.serveHTTP), nil, s.DropConnections)
	return s
}

// Close stops the server: gateway connections are dropped, hung requests
// end, and Close returns once every handler has returned. It is
// idempotent and runs when the test ends.
func (s *Server) Close() { s.hs.Close() }

// URL is the API base without the version ("http://127.0.0.1:port/api"),
// what the provider's base_url takes.
func (s *Server) URL() string { return s.hs.URL + "/api" }

// GatewayURL is the gateway's URL ("ws://127.0.0.1:port/gateway"), what
// GET /gateway/bot answers and the provider's gateway_url takes.
func (s *Server) GatewayURL() string { return "ws" + strings.TrimPrefix(s.hs.URL, "http") + "/gateway" }

// resumeURL is what READY sends as resume_gateway_url.
func (s *Server) resumeURL() string { return "ws" + strings.TrimPrefix(s.hs.URL, "http") + "/resume" }

// Token is the bot token the server accepts.
func (s *Server) Token() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.token
}

// SetToken changes the accepted token, as resetting it in the Developer
// Portal does: the old one now fails (REST 401, IDENTIFY 4004).
func (s *Server) SetToken(token string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.token = token
}

// SetMessageContentIntent enables or disables the privileged Message
// Content intent for the application (enabled by default). Disabled, an
// IDENTIFY asking for it is closed with 4014.
func (s *Server) SetMessageContentIntent(enabled bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.contentIntent = enabled
}

// SetSessionStartLimit sets how many session starts (IDENTIFYs)
// /gateway/bot reports as remaining; negative is unlimited (the default).
func (s *Server) SetSessionStartLimit(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sessionLimit = n
}

// Bot is the bot user.
func (s *Server) Bot() User {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bot
}

// GuildID is the guild's id.
func (s *Server) GuildID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.guildID
}

// Channel is the id of the first text channel (made by New).
func (s *Server) Channel() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.order[0]
}

// AddChannel adds a text channel (or a forum, with ChannelForum) and
// returns its id.
func (s *Server) AddChannel(typ int, name string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.addChannelLocked(&Channel{Type: typ, Name: name}).ID
}

// AddUser adds a person who can write in the guild.
func (s *Server) AddUser(username string) User {
	s.mu.Lock()
	defer s.mu.Unlock()
	u := User{ID: s.newIDLocked(), Username: username, GlobalName: &username, Discriminator: "0"}
	s.users[u.ID] = u
	return u
}

// newIDLocked returns a fresh snowflake, increasing: milliseconds since
// the Discord epoch in the top bits, like Discord's.
func (s *Server) newIDLocked() string {
	const epoch = 1420070400000
	id := uint64(time.Now().UnixMilli()-epoch) << 22
	if id <= s.lastID {
		id = s.lastID + 1
	}
	s.lastID = id
	return fmt.Sprint(id)
}

func (s *Server) addChannelLocked(c *Channel) *Channel {
	c.ID = s.newIDLocked()
	c.GuildID = s.guildID
	s.channels[c.ID] = c
	s.order = append(s.order, c.ID)
	return c
}

// CreateThread makes a thread in parent as owner (a person: no
// follower's) would, dispatching THREAD_CREATE, and returns its id.
func (s *Server) CreateThread(parent string, owner User, name string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	th := s.newThreadLocked(parent, name, owner.ID)
	return th.ID
}

func (s *Server) newThreadLocked(parent, name, owner string) *Channel {
	p := parent
	th := s.addChannelLocked(&Channel{Type: ChannelPublicThread, Name: name, ParentID: &p, OwnerID: owner,
		ThreadMetadata: &ThreadMetadata{AutoArchiveDuration: 10080, ArchiveTimestamp: stamp(time.Now())}})
	s.dispatchLocked("THREAD_CREATE", IntentGuilds, withNewlyCreated(th))
	return th
}

func withNewlyCreated(c *Channel) any {
	return struct {
		*Channel
		NewlyCreated bool `json:"newly_created"`
	}{c, true}
}

// Thread returns a channel or thread by id.
func (s *Server) Thread(id string) (Channel, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.channels[id]
	if !ok {
		return Channel{}, false
	}
	return *c, true
}

// Threads lists the threads of parent in creation order.
func (s *Server) Threads(parent string) []Channel {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Channel
	for _, id := range s.order {
		c := s.channels[id]
		if c.ParentID != nil && *c.ParentID == parent {
			out = append(out, *c)
		}
	}
	return out
}

// DeleteThread deletes a thread as a moderator would: THREAD_DELETE is
// dispatched and every later request naming it is 404 Unknown Channel.
func (s *Server) DeleteThread(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.channels[id]
	if !ok {
		return
	}
	delete(s.channels, id)
	delete(s.messages, id)
	s.dispatchLocked("THREAD_DELETE", IntentGuilds, map[string]any{"id": c.ID, "guild_id": c.GuildID, "parent_id": c.ParentID, "type": c.Type})
}

// ArchiveThread archives a thread as Discord does after its
// auto_archive_duration of inactivity.
func (s *Server) ArchiveThread(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.channels[id]; ok && c.ThreadMetadata != nil {
		c.ThreadMetadata.Archived = true
		c.ThreadMetadata.ArchiveTimestamp = stamp(time.Now())
		s.dispatchLocked("THREAD_UPDATE", IntentGuilds, c)
	}
}

// Messages returns the messages of a channel or thread, oldest first,
// deleted ones excluded: what the bot sent and what people wrote.
func (s *Server) Messages(channel string) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Message, 0, len(s.messages[channel]))
	for _, m := range s.messages[channel] {
		out = append(out, *m)
	}
	return out
}

// BotMessages returns what the bot sent into channel (also through
// interaction follow-ups), oldest first.
func (s *Server) BotMessages(channel string) []Message {
	var out []Message
	for _, m := range s.Messages(channel) {
		if m.Author.ID == s.Bot().ID {
			out = append(out, m)
		}
	}
	return out
}

// Message returns one message.
func (s *Server) Message(channel, id string) (Message, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if m := s.findLocked(channel, id); m != nil {
		return *m, true
	}
	return Message{}, false
}

func (s *Server) findLocked(channel, id string) *Message {
	for _, m := range s.messages[channel] {
		if m.ID == id {
			return m
		}
	}
	return nil
}

// Counts are the gateway's counters: "identify", "resume" (through the
// resume URL), "resume_main" (a RESUME on the main gateway URL), "ready",
// "resumed", "invalid_session", "heartbeat", "heartbeat_ack",
// "connections", and "close_<code>" for each close the server sent or
// the client sent.
func (s *Server) Counts() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make(map[string]int, len(s.counts))
	for k, v := range s.counts {
		out[k] = v
	}
	return out
}

// Count is one of Counts.
func (s *Server) Count(name string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.counts[name]
}

// Calls is how many REST requests reached route, e.g.
// "POST /channels/{id}/messages" (faulted and rate-limited ones too).
func (s *Server) Calls(route string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[route]
}

// Routes lists the REST routes called so far, sorted.
func (s *Server) Routes() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for r := range s.calls {
		out = append(out, r)
	}
	sort.Strings(out)
	return out
}

// RateLimited is how many 429s the server answered (injected ones and
// those of its own buckets).
func (s *Server) RateLimited() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.limited
}

// Fail queues one-shot faults for route (see Calls for the form); they
// apply to the next requests, in order.
func (s *Server) Fail(route string, faults ...Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.faults[route] = append(s.faults[route], faults...)
}

// Interaction reports what became of an interaction: the callback type it
// was answered with (0: none) and how many callback requests came.
func (s *Server) Interaction(id string) (callbackType, requests int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	in, ok := s.interactions[id]
	if !ok {
		return 0, 0
	}
	return in.callback, in.callbacks
}

// Answers are the messages interaction id was answered with (its type 4
// callback's message and its follow-ups), oldest first, ephemeral ones
// included: what the person who pressed saw. An ephemeral message (flags
// 64) is in no channel's history and dispatches nothing.
func (s *Server) Answers(id string) []Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	in, ok := s.interactions[id]
	if !ok {
		return nil
	}
	return append([]Message(nil), in.answers...)
}

// Typing is how many typing indicators the bot triggered in channel.
func (s *Server) Typing(channel string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.typings[channel]
}

// BotReactions are the emoji the bot reacted to a message with, in the
// order first added (a custom emoji as name:id).
func (s *Server) BotReactions(channel, message string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.findLocked(channel, message)
	if m == nil {
		return nil
	}
	var out []string
	for _, r := range m.Reactions {
		if r.Me {
			out = append(out, emojiKey(r.Emoji))
		}
	}
	return out
}

func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000000+00:00") }
