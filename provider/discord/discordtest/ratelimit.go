package discordtest

import (
	"crypto/sha1"
	"encoding/hex"
	"math"
	"net/http"
	"strconv"
	"time"
)

// bucket is one REST rate-limit bucket: a route and its major parameter
// (the channel, webhook or interaction), like Discord's. The bucket hash
// sent in X-RateLimit-Bucket is per route, shared across major parameters.
type bucket struct {
	remaining int
	reset     time.Time
}

// globalLimit is the state of an injected global rate limit.
type globalLimit struct {
	until      time.Time
	violations int // requests that arrived while it was in force
}

// rateLimitLocked applies the bucket of (route, major) to one request: it
// writes Discord's rate-limit headers and reports whether the request is
// over the limit (then a 429 has been written). Server.mu is held.
func (s *Server) rateLimitLocked(w http.ResponseWriter, route, major string) bool {
	now := time.Now()
	h := w.Header()
	h.Set("Via", "1.1 google")
	if now.Before(s.global.until) {
		s.global.violations++
		s.write429Locked(w, s.global.until.Sub(now), true, "global")
		return true
	}
	key := route + "|" + major
	b := s.buckets[key]
	if b == nil || !now.Before(b.reset) {
		b = &bucket{remaining: s.bucketLimit, reset: now.Add(s.bucketWindow)}
		s.buckets[key] = b
	}
	sum := sha1.Sum([]byte(route))
	h.Set("X-RateLimit-Bucket", hex.EncodeToString(sum[:8]))
	h.Set("X-RateLimit-Limit", strconv.Itoa(s.bucketLimit))
	resetAfter := b.reset.Sub(now).Seconds()
	h.Set("X-RateLimit-Reset", strconv.FormatFloat(float64(b.reset.UnixMilli())/1000, 'f', 3, 64))
	h.Set("X-RateLimit-Reset-After", strconv.FormatFloat(resetAfter, 'f', 3, 64))
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
		h.Set("X-RateLimit-Limit", strconv.Itoa(s.bucketLimit))
		h.Set("X-RateLimit-Remaining", "0")
		h.Set("X-RateLimit-Reset-After", strconv.FormatFloat(after.Seconds(), 'f', 3, 64))
	}
	writeJSON(w, http.StatusTooManyRequests, map[string]any{
		"message":     "You are being rate limited.",
		"retry_after": math.Round(after.Seconds()*1000) / 1000,
		"global":      global,
	})
}

// GlobalViolations is how many requests arrived while an injected global
// rate limit was in force: a client that honours X-RateLimit-Global sends
// none.
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
