package slacktest

import (
	"math"
	"net/http"
	"strconv"
	"time"
)

// Rate limits, as Slack documents them (docs.slack.dev/apis/web-api/
// rate-limits): per method, per app, per workspace, by the method's tier
// (Tier 2: 20+ calls a minute, Tier 3: 50+, Tier 4: 100+), and for
// chat.postMessage about one message a second per channel, short bursts
// allowed. The stand-in enforces them only when asked (WithRateLimits): a
// call beyond one is answered HTTP 429 with Retry-After (whole seconds,
// rounded up, until the limit has room) and {"ok":false,"error":
// "ratelimited"}, as Slack answers, and has no other effect. Slack does
// not publish how it counts; the stand-in's choices: a tier allows its
// calls a minute in any 60 s (bursts of all of them); chat.postMessage
// is a bucket per channel of PostBurst calls that refills at one per
// PostEvery; every call of a limited method counts, refused or not, from
// when it arrives; auth.test (Slack: hundreds a minute) and
// apps.connections.open (Tier 1, but the provider opens a connection
// whenever Slack asks it to refresh one) are not limited, nor is the
// workspace-wide chat.postMessage limit Slack mentions without a figure.

// RateLimits are the limits a stand-in enforces.
type RateLimits struct {
	// PostEvery and PostBurst: chat.postMessage into one channel, on
	// average one per PostEvery, at most PostBurst at once.
	PostEvery time.Duration
	PostBurst int
	// Tier2, Tier3 and Tier4 are the calls a minute of each method of
	// that tier, per workspace.
	Tier2, Tier3, Tier4 int
}

// SlackLimits are Slack's documented limits, with a burst of three
// messages into a channel (Slack: "short bursts >1 allowed").
var SlackLimits = RateLimits{PostEvery: time.Second, PostBurst: 3, Tier2: 20, Tier3: 50, Tier4: 100}

// WithRateLimits makes the server answer 429 to calls beyond l.
func WithRateLimits(l RateLimits) Option {
	return func(s *Server) {
		s.limits = &limiter{l: l, posts: map[string]*postBucket{}, tiers: map[string][]time.Time{}}
	}
}

// tiers are the tier of each method the stand-in limits by its tier.
var tiers = map[string]int{
	"reactions.remove":             2,
	"chat.update":                  3,
	"chat.delete":                  3,
	"reactions.add":                3,
	"reactions.get":                3,
	"conversations.info":           3,
	"chat.postEphemeral":           4,
	"files.getUploadURLExternal":   4,
	"files.completeUploadExternal": 4,
	"files.info":                   4,
}

// limiter is the state of the limits; Server.mu guards it.
type limiter struct {
	l       RateLimits
	posts   map[string]*postBucket // by channel
	tiers   map[string][]time.Time // by method: the calls of the last minute, oldest first
	refused int
}

// postBucket is chat.postMessage's bucket in one channel: tokens as of at.
type postBucket struct {
	tokens float64
	at     time.Time
}

// admitLocked counts a call of method (into channel, for
// chat.postMessage) at now, or says how long until it would be taken.
func (lm *limiter) admitLocked(method, channel string, now time.Time) (wait time.Duration) {
	if method == "chat.postMessage" {
		b := lm.posts[channel]
		if b == nil {
			b = &postBucket{tokens: float64(lm.l.PostBurst), at: now}
			lm.posts[channel] = b
		}
		b.tokens = min(float64(lm.l.PostBurst), b.tokens+float64(now.Sub(b.at))/float64(lm.l.PostEvery))
		b.at = now
		if b.tokens < 1 {
			lm.refused++
			return time.Duration((1 - b.tokens) * float64(lm.l.PostEvery))
		}
		b.tokens--
		return 0
	}
	perMinute := lm.l.perMinute(tiers[method])
	if perMinute <= 0 {
		return 0
	}
	log := lm.tiers[method]
	for len(log) > 0 && !log[0].Add(time.Minute).After(now) {
		log = log[1:]
	}
	if len(log) >= perMinute {
		lm.tiers[method] = log
		lm.refused++
		return log[len(log)-perMinute].Add(time.Minute).Sub(now)
	}
	lm.tiers[method] = append(log, now)
	return 0
}

// perMinute is the calls a minute of a method of tier; 0 for none.
func (l RateLimits) perMinute(tier int) int {
	switch tier {
	case 2:
		return l.Tier2
	case 3:
		return l.Tier3
	case 4:
		return l.Tier4
	}
	return 0
}

// writeRateLimited answers 429 as Slack does: Retry-After in whole
// seconds and the ratelimited error.
func writeRateLimited(w http.ResponseWriter, after time.Duration) {
	secs := max(int(math.Ceil(after.Seconds())), 1)
	w.Header().Set("Retry-After", strconv.Itoa(secs))
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusTooManyRequests)
	w.Write([]byte(`{"ok":false,"error":"ratelimited"}`))
}

// RateLimited returns how many calls the server answered 429 for its rate
// limits (WithRateLimits); injected faults are not counted.
func (s *Server) RateLimited() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.limits == nil {
		return 0
	}
	return s.limits.refused
}
