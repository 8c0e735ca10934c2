package discord

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/disgoorg/disgo/rest"

	"github.com/chatbus/chatbus/provider"
)

// Pacing. Discord limits REST requests per route and per top-level
// resource (a bucket: route and channel; a thread is a channel), and a
// bot to 50 requests a second in all (the global limit, which the
// interaction endpoints are exempt from). It announces each bucket in
// every answer (X-RateLimit-Limit, -Remaining, -Reset-After, -Bucket)
// and asks apps not to hard-code the limits. The provider declares the
// limits Discord is known to use for what it calls (DefaultLimits), so
// that the supervisor paces a burst before the first answer is in, and
// then learns the real buckets as they come: an answer saying the
// thread's bucket has no request left pauses that method in the thread
// until the bucket resets (Result.Pause, see bucket.pause). A 429 names
// its scope (X-RateLimit-Scope): global pauses the bot, a per-route or
// shared limit the thread (mapErr).

// DefaultLimits are the limits Discord is known to announce for the
// routes chatbus calls, each named for the operator's "limits" setting:
// global, 50 requests a second for the bot (every call but the answers
// to button presses, which go to the interaction endpoints); message, 5
// messages in 5 s per channel (POST /channels/{thread}/messages: every
// part of a long text and every file counts); edit, 5 in 5 s (PATCH a
// message); delete, 5 a second; reaction, one every 250 ms (PUT a
// reaction); typing, 5 in 5 s. All but global count per thread: each
// thread is a channel of its own, with buckets of its own.
var DefaultLimits = []provider.RateLimit{
	{Name: "global", Scope: provider.ScopeBot, Count: 50, Per: time.Second, Methods: []string{
		provider.VerbSend, provider.VerbEdit, provider.VerbReact, provider.VerbTyping, "upload",
		MethodCreateMessage, MethodEditMessage, MethodDeleteMessage, MethodAddReaction, MethodTriggerTyping}},
	{Name: "message", Scope: provider.ScopeThread, Count: 5, Per: 5 * time.Second,
		Methods: []string{provider.VerbSend, MethodCreateMessage, "upload"}},
	{Name: "edit", Scope: provider.ScopeThread, Count: 5, Per: 5 * time.Second,
		Methods: []string{provider.VerbEdit, MethodEditMessage}},
	{Name: "delete", Scope: provider.ScopeThread, Count: 5, Per: time.Second,
		Methods: []string{MethodDeleteMessage}},
	{Name: "reaction", Scope: provider.ScopeThread, Count: 1, Per: 250 * time.Millisecond,
		Methods: []string{provider.VerbReact, MethodAddReaction}},
	{Name: "typing", Scope: provider.ScopeThread, Count: 5, Per: 5 * time.Second,
		Methods: []string{provider.VerbTyping, MethodTriggerTyping}},
}

// bucket is what one answer said of its rate-limit bucket.
type bucket struct {
	known      bool // the answer carried the bucket's headers
	remaining  int
	resetAfter time.Duration
}

// readBucket reads an answer's X-RateLimit-Remaining and -Reset-After
// (seconds, with a fraction).
func readBucket(h http.Header) bucket {
	rem, err := strconv.Atoi(h.Get("X-RateLimit-Remaining"))
	if err != nil {
		return bucket{}
	}
	after, err := strconv.ParseFloat(h.Get("X-RateLimit-Reset-After"), 64)
	if err != nil || after < 0 {
		return bucket{}
	}
	return bucket{known: true, remaining: rem, resetAfter: time.Duration(after * float64(time.Second))}
}

// empty reports whether the bucket has no request left until it resets.
func (b bucket) empty() bool { return b.known && b.remaining == 0 && b.resetAfter > 0 }

// pause is what the answer of a request to a thread's route tells the
// supervisor: none while the bucket has room; once it is empty, no call
// of the same method in the thread until it resets (a bucket is one
// route in one channel: the thread).
func (b bucket) pause() *provider.Pause {
	if !b.empty() {
		return nil
	}
	return &provider.Pause{Scope: provider.ScopeThread, After: b.resetAfter, MethodOnly: true}
}

// bucketReader is the disgo RateLimiter of the calls the supervisor
// paces (see newREST): it waits for nothing, and hands the rate-limit
// headers of each answer to the request that got it. Requests are told
// apart by their compiled endpoint: every request compiles its own.
type bucketReader struct {
	mu      sync.Mutex // guards waiting
	waiting map[*rest.CompiledEndpoint]*bucket
}

func newBucketReader() *bucketReader {
	return &bucketReader{waiting: map[*rest.CompiledEndpoint]*bucket{}}
}

// watch makes the answer to the request of ep fill in b; the returned
// func stops it.
func (r *bucketReader) watch(ep *rest.CompiledEndpoint, b *bucket) (stop func()) {
	r.mu.Lock()
	r.waiting[ep] = b
	r.mu.Unlock()
	return func() {
		r.mu.Lock()
		delete(r.waiting, ep)
		r.mu.Unlock()
	}
}

// MaxRetries is 0: a 429 is returned at once (disgo retries while its
// count of tries, from 1, is below it), for the supervisor to pace.
func (r *bucketReader) MaxRetries() int { return 0 }

func (r *bucketReader) Close(context.Context) {}

func (r *bucketReader) Reset() {}

// WaitBucket waits for nothing: the supervisor waited already.
func (r *bucketReader) WaitBucket(context.Context, *rest.CompiledEndpoint) error { return nil }

// UnlockBucket reads the answer's headers for the request of ep.
func (r *bucketReader) UnlockBucket(ep *rest.CompiledEndpoint, rs *http.Response) error {
	if rs == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if b := r.waiting[ep]; b != nil {
		*b = readBucket(rs.Header)
	}
	return nil
}

var _ rest.RateLimiter = (*bucketReader)(nil)
