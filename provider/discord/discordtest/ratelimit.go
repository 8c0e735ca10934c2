package discordtest

import (
	"crypto/sha1"
	"encoding/hex"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Rate limits. Discord limits REST requests per bucket (a route and its
// major parameter: the channel, or the webhook or interaction and its
// token) and, for a bot, to 50 requests a second in all (the global
// limit, which the interaction endpoints are exempt from). Every answer
// of a route carries the bucket's X-RateLimit-Limit, -Remaining, -Reset
// (epoch seconds), -Reset-After (seconds, with milliseconds) and -Bucket
// (a hash per route, shared by its major parameters); a request beyond a
// limit is answered 429 with retry_after (seconds, with milliseconds) and
// global in the body and Retry-After (whole seconds) and X-RateLimit-Scope
// (user for a bucket, global for the global limit, with
// X-RateLimit-Global) in the headers, and has no other effect.
//
// The stand-in's choices where Discord publishes nothing: a bucket is a
// fixed window that opens with its first request and refills whole when
// it ends; the global limit counts every request that reaches it (refused
// by its bucket or not) in any second (a sliding window); once the global limit is hit, every
// request until it ends is refused as well, and counted as a violation (a
// client that honours retry_after sends none). Discord's "shared" limits
// (a resource's, for everyone), its invalid-request limit (10,000 401,
// 403 and 429 answers in 10 minutes) and Cloudflare's are not modelled.

// Bucket is one route's limit: Limit requests per Window, per major
// parameter.
type Bucket struct {
	Limit  int
	Window time.Duration
}

// RateLimits are the limits a stand-in enforces.
type RateLimits struct {
	// Global is the bot's requests in all, the interaction endpoints'
	// aside, in any Window (Discord: 50 a second); a zero Limit: no global
	// limit.
	Global Bucket
	// Routes are the buckets of routes ("POST /channels/{id}/messages");
	// others have Default.
	Routes  map[string]Bucket
	Default Bucket
}

// DiscordLimits are the limits Discord is known to announce for the
// routes chatbus uses: 5 messages in 5 s per channel, edits 5 in 5 s,
// deletions 5 a second, one reaction every 250 ms, typing 5 in 5 s, 5
// follow-ups in 5 s per interaction; 50 a second for everything else;
// and the global limit of 50 a second.
var DiscordLimits = RateLimits{
	Global: Bucket{50, time.Second},
	Routes: map[string]Bucket{
		"POST /channels/{id}/messages":                            {5, 5 * time.Second},
		"PATCH /channels/{id}/messages/{mid}":                     {5, 5 * time.Second},
		"DELETE /channels/{id}/messages/{mid}":                    {5, time.Second},
		"PUT /channels/{id}/messages/{mid}/reactions/{emoji}/@me": {1, 250 * time.Millisecond},
		"POST /channels/{id}/typing":                              {5, 5 * time.Second},
		"POST /webhooks/{app}/{token}":                            {5, 5 * time.Second},
	},
	Default: Bucket{50, time.Second},
}

// WithRateLimits makes the server enforce l.
func WithRateLimits(l RateLimits) Option { return func(s *Server) { s.limits = l } }

// bucket is one bucket's window: the requests left, and when it refills.
type bucket struct {
	remaining int
	reset     time.Time
}

// globalLimit is the state of the global rate limit.
type globalLimit struct {
	recent     []time.Time // requests of the last Global.Window, oldest first
	until      time.Time   // hit (or injected): every request is refused until then
	violations int         // requests that arrived while it was in force
}

// exemptFromGlobal reports whether route is an interaction endpoint.
func exemptFromGlobal(route string) bool {
	return strings.Contains(route, "/interactions/") || strings.Contains(route, "/webhooks/")
}

// rateLimitLocked applies the global limit and the bucket of (route,
// major) to one request: it writes Discord's rate-limit headers and
// reports whether the request is over a limit (then a 429 has been
// written). Server.mu is held.
func (s *Server) rateLimitLocked(w http.ResponseWriter, route, major string) bool {
	now := time.Now()
	h := w.Header()
	h.Set("Via", "1.1 google")
	if !exemptFromGlobal(route) {
		if now.Before(s.global.until) {
			s.global.violations++
			s.write429Locked(w, s.global.until.Sub(now), true, "global")
			return true
		}
		if lim := s.limits.Global; lim.Limit > 0 {
			g := &s.global
			for len(g.recent) > 0 && !g.recent[0].Add(lim.Window).After(now) {
				g.recent = g.recent[1:]
			}
			if len(g.recent) >= lim.Limit {
				g.until = g.recent[len(g.recent)-lim.Limit].Add(lim.Window)
				s.write429Locked(w, g.until.Sub(now), true, "global")
				return true
			}
			g.recent = append(g.recent, now)
		}
	}
	lim, ok := s.limits.Routes[route]
	if !ok {
		lim = s.limits.Default
	}
	key := route + "|" + major
	b := s.buckets[key]
	if b == nil || !now.Before(b.reset) {
		b = &bucket{remaining: lim.Limit, reset: now.Add(lim.Window)}
		s.buckets[key] = b
	}
	sum := sha1.Sum([]byte(route))
	h.Set("X-RateLimit-Bucket", hex.EncodeToString(sum[:8]))
	h.Set("X-RateLimit-Limit", strconv.Itoa(lim.Limit))
	h.Set("X-RateLimit-Reset", strconv.FormatFloat(float64(b.reset.UnixMilli())/1000, 'f', 3, 64))
	h.Set("X-RateLimit-Reset-After", strconv.FormatFloat(b.reset.Sub(now).Seconds(), 'f', 3, 64))
	if b.remaining == 0 {
		h.Set("X-RateLimit-Remaining", "0")
		s.write429Locked(w, b.reset.Sub(now), false, "user")
		return true
	}
	b.remaining--
	h.Set("X-RateLimit-Remaining", strconv.Itoa(b.remaining))
	return false
}

// write429Locked answers 429 the way Discord does: Retry-After in whole
// seconds (rounded up), retry_after in the body with millisecond
// precision, X-RateLimit-Global and -Scope.
func (s *Server) write429Locked(w http.ResponseWriter, after time.Duration, global bool, scope string) {
	s.limited++
	h := w.Header()
	h.Set("Via", "1.1 google")
	h.Set("Retry-After", strconv.Itoa(int(math.Ceil(after.Seconds()))))
	h.Set("X-RateLimit-Scope", scope)
	if global {
		h.Set("X-RateLimit-Global", "true")
	}
	if h.Get("X-RateLimit-Bucket") == "" {
		// disgo's limiter reads nothing from a response without a bucket;
		// Discord sends one with route 429s.
		h.Set("X-RateLimit-Bucket", "global")
		h.Set("X-RateLimit-Limit", strconv.Itoa(s.limits.Default.Limit))
		h.Set("X-RateLimit-Remaining", "0")
		h.Set("X-RateLimit-Reset-After", strconv.FormatFloat(after.Seconds(), 'f', 3, 64))
	}
	writeJSON(w, http.StatusTooManyRequests, map[string]any{
		"message":     "You are being rate limited.",
		"retry_after": math.Round(after.Seconds()*1000) / 1000,
		"global":      global,
	})
}

// GlobalViolations is how many requests arrived while the global rate
// limit was in force (hit, or injected): a client that honours
// X-RateLimit-Global sends none.
func (s *Server) GlobalViolations() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.global.violations
}

// RateLimitGlobally starts a global rate limit for d: every request gets
// 429 with global true until it ends (the request counts as a violation).
func (s *Server) RateLimitGlobally(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.global.until = time.Now().Add(d)
}

func apiError(w http.ResponseWriter, status, code int, msg string) {
	writeJSON(w, status, map[string]any{"message": msg, "code": code})
}
