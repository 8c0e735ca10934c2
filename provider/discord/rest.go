package discord

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/disgoorg/disgo/rest"
	"github.com/rs/zerolog"

	"github.com/chatbus/chatbus/provider"
)

// userAgent is what Discord asks bots to send: "DiscordBot ($url,
// $version)".
const userAgent = "DiscordBot (https://github.com/chatbus/chatbus, 1) chatbus-provider-discord"

// The provider has two REST clients, both disgo's, that differ in their
// rate limiter.
//
// The calls the supervisor paces (the message verbs, the raw calls) go
// through a client whose limiter waits for nothing and reads each
// answer's bucket (bucketReader): the supervisor is the one place that
// paces them, from the limits declared and the buckets learned
// (Result.Pause), and a 429 comes back at once, for the supervisor to
// requeue. disgo's own limiter, which waits inside the call, is not used
// for them: a call it held would hold its thread's one slot in the
// supervisor's queue while showing as under way, so the queue's depth,
// its oldest wait, the wait histogram and the turns between threads would
// all be wrong about it; and it waits longer than the bucket (it reads
// X-RateLimit-Reset-After in whole seconds, see roundedLimiter, where the
// supervisor takes the fraction), so each burst of a thread's messages
// waited up to a second more than Discord asked. Measured with the e2e
// test TestDiscordPacing/fair_and_paced (40 messages from four sessions,
// three runs each): 5.3–5.8 s with the supervisor pacing alone, 6.0–6.4 s
// with disgo's limiter waiting in the calls as well, both with no 429.
//
// The provider's own requests (the gateway's URL, catching up on a
// thread's messages, creating and renaming threads, acknowledging a
// button press, uploads, which the supervisor does not pace yet) are
// paced by nobody else, so they keep disgo's limiter: per-route buckets
// from the X-RateLimit-* headers, the global limit after a global 429,
// and the 429's Retry-After.

// newREST builds a disgo REST client at base (the API root without the
// version) with limiter. A 429 is not retried inside: it is returned at
// once (the caller gets provider.RateLimitedIn with Discord's
// retry_after).
func newREST(base, token string, hc *http.Client, log zerolog.Logger, limiter rest.RateLimiter) rest.Client {
	slogger := slog.New(zerolog.NewSlogHandler(log.Level(zerolog.WarnLevel)))
	return rest.NewClient(token,
		rest.WithURL(fmt.Sprintf("%s/v%d", base, rest.Version)),
		rest.WithHTTPClient(hc),
		rest.WithLogger(slogger),
		rest.WithUserAgent(userAgent),
		rest.WithRateLimiter(limiter),
	)
}

// ownLimiter is disgo's rate limiter for the provider's own requests,
// logging to log.
func ownLimiter(log zerolog.Logger) rest.RateLimiter {
	slogger := slog.New(zerolog.NewSlogHandler(log.Level(zerolog.WarnLevel)))
	return roundedLimiter{rest.NewRateLimiter(rest.WithMaxRetries(1), rest.WithRateLimiterLogger(slogger))}
}

// roundedLimiter is disgo's limiter with one correction: disgo converts
// X-RateLimit-Reset-After to a duration by truncating it to whole seconds
// (time.Duration(1.734) * time.Second is 1s), so it would send again
// before the bucket really resets and be answered 429. Rounding the
// header up to the next second before disgo reads it keeps the limiter
// early by nothing (and late by under a second).
type roundedLimiter struct{ rest.RateLimiter }

func (l roundedLimiter) UnlockBucket(e *rest.CompiledEndpoint, rs *http.Response) error {
	if rs != nil && rs.Header != nil {
		if v := rs.Header.Get("X-RateLimit-Reset-After"); v != "" {
			if f, err := strconv.ParseFloat(v, 64); err == nil {
				rs.Header.Set("X-RateLimit-Reset-After", strconv.FormatFloat(math.Ceil(f), 'f', 0, 64))
			}
		}
	}
	return l.RateLimiter.UnlockBucket(e, rs)
}

// do makes one of the provider's own REST requests (see newREST): body
// is sent as JSON (or as given, for a discord.MultipartBuffer), the
// answer decoded into out unless out is nil (204 answers). ctx bounds
// the wait for the rate limit and the request itself.
func (p *Platform) do(ctx context.Context, ep *rest.CompiledEndpoint, body, out any) error {
	var rs any
	if out != nil {
		rs = out
	}
	return p.rest.Do(ep, body, rs, rest.WithCtx(ctx), requestCtx(ctx))
}

// paced makes a REST request of a call the supervisor paced, as do does
// but without waiting for a rate limit (see newREST), and returns what
// the answer said of the request's bucket. ep must be compiled for this
// request alone.
func (p *Platform) paced(ctx context.Context, ep *rest.CompiledEndpoint, body, out any) (bucket, error) {
	var rs any
	if out != nil {
		rs = out
	}
	var b bucket
	stop := p.buckets.watch(ep, &b)
	defer stop()
	err := p.pacedREST.Do(ep, body, rs, rest.WithCtx(ctx), requestCtx(ctx))
	return b, err
}

// requestCtx puts ctx on the HTTP request itself: disgo v0.18.15's
// rest.WithCtx bounds only the wait for the rate limit, and sends the
// request without it (fixed upstream by disgoorg/disgo#445), so a request
// Discord never answered would hold its caller for the HTTP client's
// whole timeout, past an interaction's 3s or a call's deadline.
func requestCtx(ctx context.Context) rest.RequestOpt {
	return func(c *rest.RequestConfig) { c.Request = c.Request.WithContext(ctx) }
}

func (p *Platform) get(ctx context.Context, ep *rest.CompiledEndpoint, out any) error {
	return p.do(ctx, ep, nil, out)
}

func gatewayBot() *rest.CompiledEndpoint { return rest.GetGatewayBot.Compile(nil) }

// apiError is Discord's answer to a failed request.
type apiError struct {
	Status     int
	Code       int
	Message    string
	Errors     json.RawMessage
	RetryAfter time.Duration
	Global     bool
	// Scope is a 429's X-RateLimit-Scope: user (a per-route bucket),
	// global, or shared (a limit of the resource, e.g. the channel, for
	// everyone).
	Scope string
}

func (e *apiError) Error() string {
	msg := fmt.Sprintf("discord: %d", e.Status)
	if e.Code != 0 {
		msg += fmt.Sprintf(" code %d", e.Code)
	}
	if e.Message != "" {
		msg += ": " + e.Message
	}
	if len(e.Errors) > 0 && string(e.Errors) != "null" {
		msg += " " + string(e.Errors)
	}
	return msg
}

// asAPIError returns Discord's answer if err carries one.
func asAPIError(err error) (*apiError, bool) {
	var re rest.Error
	if !errors.As(err, &re) || re.Response == nil {
		return nil, false
	}
	e := &apiError{Status: re.Response.StatusCode, Code: int(re.Code), Message: re.Message, Errors: json.RawMessage(re.Errors)}
	if e.Status == http.StatusTooManyRequests {
		var body struct {
			RetryAfter float64 `json:"retry_after"`
			Global     bool    `json:"global"`
		}
		if json.Unmarshal(re.RsBody, &body) == nil && body.RetryAfter > 0 {
			e.RetryAfter = time.Duration(body.RetryAfter * float64(time.Second))
		} else if s, err := strconv.Atoi(re.Response.Header.Get("Retry-After")); err == nil {
			e.RetryAfter = time.Duration(s) * time.Second
		}
		e.Global = body.Global || re.Response.Header.Get("X-RateLimit-Global") != ""
		e.Scope = re.Response.Header.Get("X-RateLimit-Scope")
	}
	return e, true
}

// Discord's JSON error codes the provider tells apart.
const (
	codeUnknownChannel     = 10003
	codeUnknownMessage     = 10008
	codeUnknownEmoji       = 10014
	codeUnknownWebhook     = 10015
	codeUnknownInteraction = 10062
	codeMissingAccess      = 50001
	codeAlreadyAcked       = 40060
	codeThreadArchived     = 50083
)

// mapErr turns a REST failure into the SDK's classes. mutating says the
// request changes something on Discord: a failure once it may have
// reached Discord (a 5xx, a connection cut mid-request, an unreadable
// answer) is then ambiguous. inThread says the request's channel is the
// call's own thread, so Unknown Channel means the thread was deleted.
func (p *Platform) mapErr(err error, mutating, inThread bool) error {
	if err == nil {
		return nil
	}
	if e, ok := asAPIError(err); ok {
		switch {
		case e.Status == http.StatusTooManyRequests:
			// The global limit holds every call of the bot back; a
			// route's bucket or a shared limit names a channel: the
			// thread (a call of the interaction endpoints names none of
			// the provider's, and is paced with its thread too).
			scope := provider.ScopeThread
			if e.Global || e.Scope == "global" {
				scope = provider.ScopeBot
			}
			return provider.RateLimitedIn(scope, e.RetryAfter, e)
		case e.Code == codeUnknownChannel && inThread:
			return fmt.Errorf("%w: %v", provider.ErrTargetGone, e)
		case e.Status == http.StatusUnauthorized:
			p.health(false, "401 Unauthorized: the bot token is wrong or was reset")
			return fmt.Errorf("%w: %v (the bot token is wrong or was reset)", provider.ErrPermissionDenied, e)
		case e.Status == http.StatusForbidden:
			return fmt.Errorf("%w: %v", provider.ErrPermissionDenied, e)
		case e.Status == http.StatusNotFound:
			return fmt.Errorf("%w: %v", provider.ErrNotFound, e)
		case e.Status >= 500 && mutating:
			return fmt.Errorf("%w: %v", provider.ErrAmbiguous, e)
		case e.Status >= 500:
			return fmt.Errorf("%w: %v", provider.ErrUnavailable, e)
		case e.Status >= 400:
			return fmt.Errorf("%w: %v", provider.ErrInvalid, e)
		}
		return fmt.Errorf("%w: %v", provider.ErrAmbiguous, e)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		var op *net.OpError
		if (errors.As(err, &op) && op.Op == "dial") || !mutating {
			return fmt.Errorf("%w: %v", provider.ErrUnavailable, err)
		}
		return fmt.Errorf("%w: %v", provider.ErrAmbiguous, err)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		// disgo was still waiting for the rate limit: nothing was sent.
		return fmt.Errorf("%w: not sent: %v", provider.ErrUnavailable, err)
	}
	if mutating {
		return fmt.Errorf("%w: %v", provider.ErrAmbiguous, err)
	}
	return fmt.Errorf("%w: %v", provider.ErrUnavailable, err)
}

// isCode reports whether err is Discord's answer with the JSON code.
func isCode(err error, code int) bool {
	e, ok := asAPIError(err)
	return ok && e.Code == code
}

// snowflakeParam checks that v names a Discord id, so that it can go into
// a request path.
func snowflakeParam(name string, v json.RawMessage) (string, error) {
	s := provider.IDText(v)
	if s == "" {
		return "", fmt.Errorf("%w: %s must be a Discord id", provider.ErrInvalid, name)
	}
	if !isSnowflake(s) {
		return "", fmt.Errorf("%w: %s %q is not a Discord id", provider.ErrInvalid, name, s)
	}
	return s, nil
}

// tokenParam checks an interaction token for a request path.
func tokenParam(s string) bool {
	if s == "" || len(s) > 1024 {
		return false
	}
	return strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.')
	}) < 0
}
