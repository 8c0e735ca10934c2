// Package webauth guards the pages chatbus serves to people on loopback
// (the playground's chat, the supervisor's console). It owns the listener
// (127.0.0.1 only), the access token of one start, the session cookies it
// is exchanged for, and the checks every request passes:
//
//   - Host must name the listener (127.0.0.1:<port> or localhost:<port>):
//     a page on another name that resolves to 127.0.0.1 (DNS rebinding)
//     is refused.
//   - Nothing is served without a session. Opening the URL with
//     ?token=<token> (the one printed to the owner) mints a session: an
//     HttpOnly, SameSite=Strict cookie, and a redirect that drops the token
//     from the address bar. A wrong token, or none, is 401.
//   - A state-changing request (POST) must come from the page itself: its
//     Origin must be exactly this listener's origin.
//   - A stream (Server-Sent Events) must be same-origin too: its Origin, if
//     the browser sends one, must match, and Sec-Fetch-Site must not say
//     it was asked for by another site.
//   - Responses forbid framing, sniffing and referrers (the token must not
//     leak into another site's logs).
//
// Sessions are kept by a [Sessions] store: in memory for a page that lives
// as long as its process, durable for one that must outlive restarts.
package webauth

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DefaultSessionTTL is how long a session cookie is good for.
const DefaultSessionTTL = 7 * 24 * time.Hour

// NewToken returns 32 random bytes in base64url: an access token or a
// session id.
func NewToken() string {
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		panic(fmt.Sprintf("webauth: no randomness: %v", err)) // crypto/rand never fails on Linux
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

// DerivedPort maps seed (a profile name, a state directory) to a port in
// [base, base+span): the same seed always gets the same port, two seeds
// rarely the same one.
func DerivedPort(seed string, base, span int) int {
	h := fnv.New32a()
	h.Write([]byte(seed))
	return base + int(h.Sum32()%uint32(span))
}

// Listen binds a TCP listener on 127.0.0.1: the first of ports that is
// free (0 entries are skipped), else any free port. A port that is taken
// is not an error; only failing to bind at all is.
func Listen(ports ...int) (net.Listener, error) {
	for _, p := range ports {
		if p <= 0 || p > 65535 {
			continue
		}
		if ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p))); err == nil {
			return ln, nil
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("webauth: listen on 127.0.0.1: %w", err)
	}
	return ln, nil
}

// Sessions stores sessions by the SHA-256 of their id (the id itself, the
// cookie's value, is never stored).
type Sessions interface {
	// Add records a session valid until expires.
	Add(hash [32]byte, expires time.Time) error
	// Valid reports whether the session exists and has not expired.
	Valid(hash [32]byte, now time.Time) bool
}

// MemorySessions keeps sessions in memory: they end with the process.
type MemorySessions struct {
	mu sync.Mutex // guards m
	m  map[[32]byte]time.Time
}

// Add implements Sessions.
func (s *MemorySessions) Add(hash [32]byte, expires time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = map[[32]byte]time.Time{}
	}
	for h, exp := range s.m { // keep it bounded by dropping the expired
		if !exp.After(time.Now()) {
			delete(s.m, h)
		}
	}
	s.m[hash] = expires
	return nil
}

// Valid implements Sessions.
func (s *MemorySessions) Valid(hash [32]byte, now time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	exp, ok := s.m[hash]
	return ok && exp.After(now)
}

// Config configures a Guard.
type Config struct {
	// Addr is the listener's address (127.0.0.1:<port>). Required.
	Addr net.Addr
	// Token is this start's access token. If empty, a random one.
	Token string
	// Cookie names the session cookie. Cookies on 127.0.0.1 are shared by
	// every port, so each page needs its own name. Required.
	Cookie string
	// Sessions stores the sessions. If nil, in memory.
	Sessions Sessions
	// SessionTTL bounds a session. If zero, DefaultSessionTTL.
	SessionTTL time.Duration
	// Now is the clock. If nil, time.Now.
	Now func() time.Time
}

// Guard checks requests to one loopback page; see the package doc.
type Guard struct {
	cfg    Config
	port   string
	origin string
}

// ErrConfig: the Config cannot guard anything.
var ErrConfig = errors.New("webauth: bad config")

// New returns a Guard for cfg.
func New(cfg Config) (*Guard, error) {
	tcp, ok := cfg.Addr.(*net.TCPAddr)
	if !ok || !tcp.IP.IsLoopback() {
		return nil, fmt.Errorf("%w: %v is not a loopback TCP address", ErrConfig, cfg.Addr)
	}
	if cfg.Cookie == "" || strings.ContainsAny(cfg.Cookie, " =;,") {
		return nil, fmt.Errorf("%w: cookie name %q", ErrConfig, cfg.Cookie)
	}
	if cfg.Token == "" {
		cfg.Token = NewToken()
	}
	if cfg.Sessions == nil {
		cfg.Sessions = &MemorySessions{}
	}
	if cfg.SessionTTL <= 0 {
		cfg.SessionTTL = DefaultSessionTTL
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	port := strconv.Itoa(tcp.Port)
	return &Guard{cfg: cfg, port: port, origin: "http://127.0.0.1:" + port}, nil
}

// Origin is the page's origin, http://127.0.0.1:<port>.
func (g *Guard) Origin() string { return g.origin }

// URL is the address to give the owner: path on this listener, with the
// access token.
func (g *Guard) URL(path string) string {
	return g.origin + path + "?token=" + url.QueryEscape(g.cfg.Token)
}

// Page guards a page or a read: a session is required; a token in the URL
// is exchanged for one first.
func (g *Guard) Page(h http.Handler) http.Handler { return g.wrap(h, policyPage) }

// Stream guards a Server-Sent Events stream: a session and a same-origin
// request.
func (g *Guard) Stream(h http.Handler) http.Handler { return g.wrap(h, policyStream) }

// Action guards a state-changing request: POST, a session, and the page's
// own Origin.
func (g *Guard) Action(h http.Handler) http.Handler { return g.wrap(h, policyAction) }

type policy int

const (
	policyPage policy = iota
	policyStream
	policyAction
)

func (g *Guard) wrap(h http.Handler, pol policy) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("X-Frame-Options", "DENY")
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("Referrer-Policy", "no-referrer")
		hd.Set("Cache-Control", "no-store")
		if !g.hostOK(r.Host) {
			refuse(w, r, http.StatusMisdirectedRequest, "this page is served on 127.0.0.1:"+g.port+" only")
			return
		}
		if site := r.Header.Get("Sec-Fetch-Site"); site == "cross-site" || site == "same-site" {
			refuse(w, r, http.StatusForbidden, "requests from other sites are refused")
			return
		}
		if pol == policyPage && r.URL.Query().Has("token") {
			g.exchange(w, r)
			return
		}
		if !g.sessionOK(r) {
			refuse(w, r, http.StatusUnauthorized, "no session: open the URL with the access token that supervisord logs (busctl console prints it)")
			return
		}
		switch pol {
		case policyAction:
			if r.Method != http.MethodPost {
				hd.Set("Allow", http.MethodPost)
				refuse(w, r, http.StatusMethodNotAllowed, "POST only")
				return
			}
			if r.Header.Get("Origin") != g.origin {
				refuse(w, r, http.StatusForbidden, "the request's Origin is not this page's")
				return
			}
		case policyStream:
			o := r.Header.Get("Origin")
			if (o != "" && o != g.origin) || (o == "" && r.Header.Get("Sec-Fetch-Site") != "same-origin") {
				refuse(w, r, http.StatusForbidden, "streams are served to this page's own origin only")
				return
			}
		case policyPage:
			if r.Method != http.MethodGet && r.Method != http.MethodHead {
				refuse(w, r, http.StatusMethodNotAllowed, "GET only")
				return
			}
			if o := r.Header.Get("Origin"); o != "" && o != g.origin {
				refuse(w, r, http.StatusForbidden, "the request's Origin is not this page's")
				return
			}
		}
		h.ServeHTTP(w, r)
	})
}

// exchange checks the token in the URL and, if it is this start's, sets a
// session cookie and redirects to the same path without it.
func (g *Guard) exchange(w http.ResponseWriter, r *http.Request) {
	if subtle.ConstantTimeCompare([]byte(r.URL.Query().Get("token")), []byte(g.cfg.Token)) != 1 {
		refuse(w, r, http.StatusUnauthorized, "wrong or outdated access token: open the URL that supervisord logged last (busctl console prints it)")
		return
	}
	id := NewToken()
	exp := g.cfg.Now().Add(g.cfg.SessionTTL)
	if err := g.cfg.Sessions.Add(sha256.Sum256([]byte(id)), exp); err != nil {
		refuse(w, r, http.StatusInternalServerError, "could not store the session: "+err.Error())
		return
	}
	http.SetCookie(w, &http.Cookie{
		Name: g.cfg.Cookie, Value: id, Path: "/", Expires: exp, MaxAge: int(g.cfg.SessionTTL / time.Second),
		HttpOnly: true, SameSite: http.SameSiteStrictMode,
	})
	q := r.URL.Query()
	q.Del("token")
	// A path of this page: "//host" or "/\host" would send the browser,
	// session in hand, to another site.
	target := "/" + strings.TrimLeft(r.URL.Path, "/\\")
	if enc := q.Encode(); enc != "" {
		target += "?" + enc
	}
	http.Redirect(w, r, target, http.StatusSeeOther)
}

func (g *Guard) sessionOK(r *http.Request) bool {
	c, err := r.Cookie(g.cfg.Cookie)
	if err != nil || c.Value == "" {
		return false
	}
	return g.cfg.Sessions.Valid(sha256.Sum256([]byte(c.Value)), g.cfg.Now())
}

func (g *Guard) hostOK(host string) bool {
	return host == "127.0.0.1:"+g.port || host == "localhost:"+g.port
}

// refuse answers an error: JSON for the pages' API calls, text otherwise.
func refuse(w http.ResponseWriter, r *http.Request, code int, msg string) {
	if strings.Contains(r.Header.Get("Accept"), "application/json") || strings.HasPrefix(r.URL.Path, "/api/") {
		WriteJSON(w, code, map[string]string{"error": msg})
		return
	}
	http.Error(w, msg, code)
}

// WriteJSON answers v as JSON with status code: how the pages' API
// answers (errors as {"error": "why"}).
func WriteJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}
