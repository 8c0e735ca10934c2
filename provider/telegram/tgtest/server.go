// Package tgtest is a stand-in Telegram Bot API server for tests. It owns
// an in-memory model of one bot: its update queue with Telegram's
// getUpdates confirmation and long-poll rules, forum chats and their
// topics, the messages and files the bot sent, and one-shot or permanent
// fault injection for the platform's real failure modes (409, 429 with
// retry_after, 5xx, HTML error pages, malformed JSON, hung requests).
//
// It speaks the real wire format: POST or GET /bot<token>/<method> with
// JSON, application/x-www-form-urlencoded, multipart/form-data or query
// parameters; answers in the {"ok":…,"result":…} envelope with Telegram's
// error descriptions; and serves downloads at /file/bot<token>/<path>.
// Where the model is approximate (an error text not verified against the
// real service, or a simplification), the code says so in a comment.
package tgtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chatbus/chatbus/provider/telegram/botapi"

	"github.com/chatbus/chatbus/provider/providertest/tblog"
)

// DefaultToken is the bot token a Server accepts unless WithToken is given.
const DefaultToken = "123456789:AAE-tgtest_0123456789abcdefghijklmnopq"

// DownloadMethod is the name under which requests to the file download
// endpoint (/file/bot<token>/<path>) are counted by Calls and matched by
// Fail and FailAlways. It is not a Bot API method.
const DownloadMethod = "downloadFile"

// ConflictPolicy decides what happens when a getUpdates call arrives while
// another one is waiting.
type ConflictPolicy int

const (
	// TerminateOlder answers the waiting call with 409 Conflict and serves
	// the new one. This is what Telegram does, as far as the error text
	// ("terminated by other getUpdates request") and field reports show.
	TerminateOlder ConflictPolicy = iota
	// RejectNewer answers the new call with 409 Conflict and lets the
	// waiting one continue.
	RejectNewer
)

// Option configures a Server.
type Option func(*Server)

// WithToken sets the bot token the server accepts. Its numeric prefix is
// the bot's user id.
func WithToken(token string) Option { return func(s *Server) { s.token = token } }

// WithConflictPolicy sets how concurrent getUpdates calls conflict. The
// default is TerminateOlder.
func WithConflictPolicy(p ConflictPolicy) Option { return func(s *Server) { s.policy = p } }

// WithFirstUpdateID sets the update_id of the first queued update. The
// default is 1001, so that an offset of 0 or 1 is never confused with a
// real update id.
func WithFirstUpdateID(id int64) Option { return func(s *Server) { s.nextUpdateID = id } }

// withOnWait sets Server.onWait; for this package's tests.
func withOnWait(f func(what string)) Option { return func(s *Server) { s.onWait = f } }

// Fault is an injected failure. At most one of Hang, HTML5xx, Malformed
// and an error status applies, in that order of precedence. A faulted
// call has no other effect: nothing is sent, confirmed or created.
type Fault struct {
	// Status is the HTTP status and error_code of an error envelope.
	// If zero: 429 when RetryAfter is set, else 500.
	Status int
	// RetryAfter, in seconds, is sent as parameters.retry_after.
	RetryAfter int
	// Description overrides Telegram's text for Status (e.g. for 409
	// "Conflict: terminated by other getUpdates request; make sure that
	// only one bot instance is running").
	Description string
	// Malformed answers with invalid JSON (a truncated envelope), with
	// Status if set, else 200.
	Malformed bool
	// HTML5xx answers with a proxy's HTML error page: Status if it is
	// 5xx, else 502 Bad Gateway.
	HTML5xx bool
	// Hang holds the request for this long, or until the client gives up
	// or the server closes, and then drops the connection without an
	// answer.
	Hang time.Duration
	// Delay holds the request for this long (a slow platform) and then
	// serves it normally. It is not a failure: the call takes effect.
	Delay time.Duration
}

// Server is a stand-in Bot API server on a 127.0.0.1 port. All methods
// are safe for concurrent use.
type Server struct {
	tb     testing.TB
	token  string
	policy ConflictPolicy
	bot    botapi.User
	hs     *tblog.Server
	gate   *gateListener // lets SetUnreachable refuse connections

	// onWait, if set, is called (without mu held) each time a handler
	// starts waiting: what is "getUpdates" for a long poll, "hang" for a
	// Hang fault. For this package's tests.
	onWait func(what string)

	mu sync.Mutex // guards every field below
	// Update queue: pending holds the unconfirmed updates in id order.
	pending      []queued
	nextUpdateID int64
	confirmed    int64           // highest confirmed update id
	notify       chan struct{}   // closed and replaced when an update is queued
	poll         *pollCall       // the getUpdates call waiting, if any
	allowed      map[string]bool // last allowed_updates; nil: Telegram's default
	// Chats and their contents.
	chats   map[int64]*chat
	files   map[string]*file // by file_id
	paths   map[string]*file // by file_path
	nfiles  int
	queries map[string]bool // callback query ids not yet answered
	// commands is the bot's command menu (setMyCommands, commands.go).
	commands []botapi.BotCommand
	// answered holds the text each answered callback query was answered
	// with; actions the chat actions shown, per chat and thread.
	answered map[string]string
	actions  map[actionKey][]string
	// drafts are the message drafts streamed, per chat and thread
	// (private.go).
	drafts map[actionKey][]draft
	// Accounting and fault injection, keyed by lower-case method name.
	calls  map[string]int
	faults map[string][]Fault
	always map[string]Fault
	holds  map[string][]*hold
	// limits, if set, enforces Telegram's rate limits (limits.go).
	limits *limiter
}

// New starts a Server on 127.0.0.1 and closes it when the test ends.
func New(tb testing.TB, opts ...Option) *Server {
	tb.Helper()
	s := &Server{
		tb:           tb,
		token:        DefaultToken,
		nextUpdateID: 1001,
		notify:       make(chan struct{}),
		chats:        make(map[int64]*chat),
		files:        make(map[string]*file),
		paths:        make(map[string]*file),
		queries:      make(map[string]bool),
		answered:     make(map[string]string),
		calls:        make(map[string]int),
		faults:       make(map[string][]Fault),
		always:       make(map[string]Fault),
		holds:        make(map[string][]*hold),
		drafts:       make(map[actionKey][]draft),
	}
	for _, o := range opts {
		o(s)
	}
	botID, _ := strconv.ParseInt(strings.SplitN(s.token, ":", 2)[0], 10, 64)
	s.bot = botapi.User{ID: botID, IsBot: true, FirstName: "chatbus test bot", Username: "chatbus_test_bot"}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatalf("tgtest: listen: %v", err)
	}
	s.gate = newGateListener(ln)
	s.hs = tblog.Start(tb, "tgtest: ", http.HandlerFunc(s.serveHTTP), s.gate, nil)
	return s
}

// Close stops the server: waiting getUpdates calls and hung requests end,
// connections are closed, and Close returns once every handler has
// returned. It is idempotent and is called automatically when the test
// ends; call it earlier to simulate an outage.
func (s *Server) Close() { s.hs.Close() }

// SetUnreachable makes the server unreachable (true) or reachable again
// (false), as when Telegram's network is down: while unreachable, the
// port is closed, so a connection attempt is refused, and open
// connections are cut. Coming back, it listens on the same port. It
// fails the test if the port cannot be had again.
func (s *Server) SetUnreachable(down bool) {
	if down {
		s.gate.down()
		s.hs.CloseClientConnections()
		return
	}
	if err := s.gate.up(); err != nil {
		s.tb.Errorf("tgtest: listen again: %v", err)
	}
}

// URL returns the base URL to use as botapi.Config.BaseURL.
func (s *Server) URL() string { return s.hs.URL }

// Token returns the bot token the server accepts.
func (s *Server) Token() string { return s.token }

// Bot returns the bot's user, as getMe answers it.
func (s *Server) Bot() botapi.User {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.bot
}

// Config returns a botapi.Config for this server.
func (s *Server) Config() botapi.Config {
	return botapi.Config{BaseURL: s.URL(), Token: s.token}
}

// Client returns a botapi.Client for this server whose idle connections
// are closed when the test ends.
func (s *Server) Client() *botapi.Client {
	c, err := botapi.New(s.Config())
	if err != nil {
		s.tb.Fatalf("tgtest: %v", err)
	}
	s.tb.Cleanup(c.CloseIdleConnections)
	return c
}

// Calls returns how many requests named method (case-insensitive) the
// server received, whatever their outcome (faults and wrong tokens
// included).
func (s *Server) Calls(method string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls[strings.ToLower(method)]
}

// Fail queues a one-shot fault for the next call of method (a Bot API
// method name, case-insensitive, or DownloadMethod). Queued faults apply
// in order, before any FailAlways fault.
func (s *Server) Fail(method string, f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := strings.ToLower(method)
	s.faults[m] = append(s.faults[m], f)
}

// FailAlways makes every call of method fail with f until ClearFaults.
func (s *Server) FailAlways(method string, f Fault) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.always[strings.ToLower(method)] = f
}

// ClearFaults removes every queued and permanent fault.
func (s *Server) ClearFaults() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.faults)
	clear(s.always)
}

// hold is one answer HoldAnswer holds back.
type hold struct {
	took    chan struct{} // closed once the call took effect
	release chan struct{} // closed by the release func
}

// HoldAnswer holds back the answer of the next call of method (a Bot API
// method name, case-insensitive) that takes effect: the call does what it
// does (a topic is created, a message sent), took is closed, and the
// answer waits until release is called (or the client gives up, or the
// server closes). It is the platform's own race: what a call made is there
// for people to see, and to write in, before the bot hears back. A call
// that fails (a fault, an error answer) does not use the hold.
func (s *Server) HoldAnswer(method string) (took <-chan struct{}, release func()) {
	h := &hold{took: make(chan struct{}), release: make(chan struct{})}
	s.mu.Lock()
	m := strings.ToLower(method)
	s.holds[m] = append(s.holds[m], h)
	s.mu.Unlock()
	var once sync.Once
	return h.took, func() { once.Do(func() { close(h.release) }) }
}

// takeHold returns the hold for this call of m, if any.
func (s *Server) takeHold(m string) *hold {
	s.mu.Lock()
	defer s.mu.Unlock()
	q := s.holds[m]
	if len(q) == 0 {
		return nil
	}
	s.holds[m] = q[1:]
	return q[0]
}

// takeFault returns the fault that applies to this call of m, if any.
func (s *Server) takeFault(m string) (Fault, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if q := s.faults[m]; len(q) > 0 {
		f := q[0]
		s.faults[m] = q[1:]
		return f, true
	}
	f, ok := s.always[m]
	return f, ok
}

// apiError is an error envelope to answer with.
type apiError struct {
	code       int
	desc       string
	retryAfter int
}

// errAbort makes the dispatcher drop the connection without an answer.
var errAbort = &apiError{}

func badRequest(desc string) *apiError {
	return &apiError{code: http.StatusBadRequest, desc: "Bad Request: " + desc}
}

// Telegram's descriptions for the statuses it answers with.
const (
	descConflict     = "Conflict: terminated by other getUpdates request; make sure that only one bot instance is running"
	descUnauthorized = "Unauthorized"
	descNotFound     = "Not Found"
)

func defaultDescription(status, retryAfter int) string {
	switch status {
	case http.StatusBadRequest:
		return "Bad Request"
	case http.StatusUnauthorized:
		return descUnauthorized
	case http.StatusForbidden:
		return "Forbidden"
	case http.StatusNotFound:
		return descNotFound
	case http.StatusConflict:
		return descConflict
	case http.StatusTooManyRequests:
		return fmt.Sprintf("Too Many Requests: retry after %d", retryAfter)
	}
	return http.StatusText(status)
}

// handler answers one Bot API method. It returns the result to wrap in an
// ok envelope, or an error envelope.
type handler func(s *Server, r *http.Request, p params) (any, *apiError)

// methods maps lower-case method names (Telegram matches them
// case-insensitively) to handlers. The handlers of methods that act on a
// chat, a message or a topic are built by locked (methods.go) from what
// they act on.
var methods = map[string]handler{
	"getme":               (*Server).getMe,
	"getchat":             (*Server).getChat,
	"getchatmember":       (*Server).getChatMember,
	"getupdates":          (*Server).getUpdates,
	"deletewebhook":       (*Server).deleteWebhook,
	"sendmessage":         locked((*Server).targetLocked, (*Server).sendMessage),
	"editmessagetext":     locked(messageIn(errEditNotFound), (*Server).editMessageText),
	"deletemessage":       locked(messageIn(errDeleteNotFound), (*Server).deleteMessage),
	"sendchataction":      locked((*Server).targetLocked, (*Server).sendChatAction),
	"answercallbackquery": (*Server).answerCallbackQuery,
	"createforumtopic":    locked((*Server).forumLocked, (*Server).createForumTopic),
	"editforumtopic":      locked((*Server).topicLocked, (*Server).editForumTopic),
	"closeforumtopic":     locked((*Server).topicLocked, (*Server).closeForumTopic),
	"reopenforumtopic":    locked((*Server).topicLocked, (*Server).reopenForumTopic),
	"deleteforumtopic":    locked((*Server).topicLocked, (*Server).deleteForumTopic),
	"senddocument":        locked((*Server).targetLocked, (*Server).sendDocument),
	"getfile":             (*Server).getFile,

	// Reactions, keyboards and photos (interactions.go).
	"sendphoto":              locked((*Server).targetLocked, (*Server).sendPhoto),
	"setmessagereaction":     locked(messageIn(errReactNotFound), (*Server).setMessageReaction),
	"editmessagereplymarkup": locked(messageIn(errEditNotFound), (*Server).editMessageReplyMarkup),

	// Private chats with topics (private.go).
	"sendmessagedraft": locked((*Server).targetLocked, (*Server).sendMessageDraft),

	// The bot's command menu (commands.go).
	"setmycommands": (*Server).setMyCommands,
}

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	if rest, ok := strings.CutPrefix(path, "/file/bot"); ok {
		token, filePath, _ := strings.Cut(rest, "/")
		s.serveFile(w, r, token, filePath)
		return
	}
	rest, ok := strings.CutPrefix(path, "/bot")
	if !ok {
		writeError(w, &apiError{code: http.StatusNotFound, desc: descNotFound})
		return
	}
	token, method, _ := strings.Cut(rest, "/")
	m := strings.ToLower(method)
	if !s.admit(w, m, token) {
		return
	}
	h, ok := methods[m]
	if !ok {
		writeError(w, &apiError{code: http.StatusNotFound, desc: descNotFound})
		return
	}
	if f, ok := s.takeFault(m); ok {
		if f.Delay <= 0 {
			s.serveFault(w, r, f)
			return
		}
		t := time.NewTimer(f.Delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		case <-s.hs.Done:
			t.Stop()
			return
		}
	}
	p, perr := parseParams(w, r)
	if perr != nil {
		writeError(w, perr)
		return
	}
	if s.limits != nil {
		if lerr := s.limits.admit(m, p.str("chat_id"), time.Now()); lerr != nil {
			writeError(w, lerr)
			return
		}
	}
	res, aerr := h(s, r, p)
	if aerr == errAbort {
		panic(http.ErrAbortHandler)
	}
	if aerr != nil {
		writeError(w, aerr)
		return
	}
	if h := s.takeHold(m); h != nil {
		close(h.took)
		select {
		case <-h.release:
		case <-r.Context().Done():
		case <-s.hs.Done:
		}
	}
	writeResult(w, res)
}

// admit counts a call of m (a lower-case method name, or DownloadMethod's)
// and checks its token: a wrong one is answered 401 and not admitted.
func (s *Server) admit(w http.ResponseWriter, m, token string) bool {
	s.mu.Lock()
	s.calls[m]++
	s.mu.Unlock()
	if token != s.token {
		writeError(w, &apiError{code: http.StatusUnauthorized, desc: descUnauthorized})
		return false
	}
	return true
}

// serveFault answers with f (see Fault).
func (s *Server) serveFault(w http.ResponseWriter, r *http.Request, f Fault) {
	switch {
	case f.Hang > 0:
		t := time.NewTimer(f.Hang)
		defer t.Stop()
		if s.onWait != nil {
			s.onWait("hang")
		}
		select {
		case <-t.C:
		case <-r.Context().Done():
		case <-s.hs.Done:
		}
		panic(http.ErrAbortHandler)
	case f.HTML5xx:
		status := f.Status
		if status < 500 || status > 599 {
			status = http.StatusBadGateway
		}
		text := fmt.Sprintf("%d %s", status, http.StatusText(status))
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(status)
		fmt.Fprintf(w, "<html>\r\n<head><title>%s</title></head>\r\n<body>\r\n<center><h1>%s</h1></center>\r\n<hr><center>nginx/1.18.0</center>\r\n</body>\r\n</html>\r\n", text, text)
	case f.Malformed:
		status := f.Status
		if status == 0 {
			status = http.StatusOK
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		io.WriteString(w, `{"ok":true,"result":[{"update_id":`)
	default:
		status := f.Status
		if status == 0 {
			status = http.StatusInternalServerError
			if f.RetryAfter > 0 {
				status = http.StatusTooManyRequests
			}
		}
		desc := f.Description
		if desc == "" {
			desc = defaultDescription(status, f.RetryAfter)
		}
		writeError(w, &apiError{code: status, desc: desc, retryAfter: f.RetryAfter})
	}
}

func writeResult(w http.ResponseWriter, result any) {
	writeJSON(w, http.StatusOK, struct {
		OK     bool `json:"ok"`
		Result any  `json:"result"`
	}{true, result})
}

// writeError writes e in Telegram's error envelope.
func writeError(w http.ResponseWriter, e *apiError) {
	type parameters struct {
		RetryAfter int `json:"retry_after,omitempty"`
	}
	env := struct {
		OK          bool        `json:"ok"`
		ErrorCode   int         `json:"error_code"`
		Description string      `json:"description"`
		Parameters  *parameters `json:"parameters,omitempty"`
	}{false, e.code, e.desc, nil}
	if e.retryAfter > 0 {
		env.Parameters = &parameters{RetryAfter: e.retryAfter}
	}
	writeJSON(w, e.code, env)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("tgtest: encoding response: %v", err)) // a bug in this package
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	w.WriteHeader(status)
	w.Write(b)
}
