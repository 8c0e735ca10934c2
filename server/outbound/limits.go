package outbound

import (
	"fmt"
	"slices"
	"time"
)

// Scope says what a limit counts calls per.
type Scope int

const (
	// ScopeBot counts every call of the provider connection (one bot).
	ScopeBot Scope = iota + 1
	// ScopeChat counts the calls into one chat, whatever their thread.
	ScopeChat
	// ScopeThread counts the calls into one thread (where the platform
	// limits each thread on its own).
	ScopeThread
)

func (s Scope) String() string {
	switch s {
	case ScopeBot:
		return "bot"
	case ScopeChat:
		return "chat"
	case ScopeThread:
		return "thread"
	}
	return fmt.Sprintf("scope(%d)", int(s))
}

// Limit is one rate limit a platform puts on calls: at most Count calls
// in any window of Per, counted per Scope, of the methods in Methods (all
// methods if empty). A call that would exceed it waits.
type Limit struct {
	// Name says which limit it is ("bot", "chat", "group", …): the key of
	// the provider's setting that changes it, and what logs say.
	Name    string
	Scope   Scope
	Count   int
	Per     time.Duration
	Methods []string
}

func (l Limit) String() string {
	return fmt.Sprintf("%s: %d per %s per %s", l.Name, l.Count, l.Per, l.Scope)
}

// counts reports whether l counts calls of method.
func (l Limit) counts(method string) bool {
	return len(l.Methods) == 0 || slices.Contains(l.Methods, method)
}

// check refuses a limit the scheduler cannot keep.
func (l Limit) check() error {
	switch {
	case l.Scope < ScopeBot || l.Scope > ScopeThread:
		return fmt.Errorf("limit %q: unknown scope %d", l.Name, l.Scope)
	case l.Count < 1 || l.Per <= 0:
		return fmt.Errorf("limit %q: %d per %s: both must be positive", l.Name, l.Count, l.Per)
	case l.Count > maxWindow:
		return fmt.Errorf("limit %q: %d per %s: at most %d per window", l.Name, l.Count, l.Per, maxWindow)
	}
	return nil
}

// maxWindow bounds a limit's count: a window remembers that many times.
const maxWindow = 10000

// window is one limit in one scope (one chat, say): the times of the last
// Count calls it counted, oldest first, and how many of its calls are
// under way. A call is counted from when it was done, not when it
// started: it reached the platform somewhere in between, so a call
// started Per after the one Count places before it was done cannot make
// Count+1 in any window of Per on the platform's clock, however long calls
// take on the way. A call under way holds its place (as if done at any
// moment); a call that was not made (refused, not admitted) gives it back.
type window struct {
	count   int
	per     time.Duration
	times   []time.Time // done calls, oldest first
	running int         // calls under way
}

// freeAt is when the window takes one more call (at or after now); ok is
// false when only a call under way finishing can make room.
func (w *window) freeAt(now time.Time) (t time.Time, ok bool) {
	n := len(w.times) + w.running
	if n < w.count {
		return now, true
	}
	i := n - w.count // the call count places back
	if i >= len(w.times) {
		return time.Time{}, false
	}
	if t := w.times[i].Add(w.per); t.After(now) {
		return t, true
	}
	return now, true
}

// start counts a call under way.
func (w *window) start() { w.running++ }

// finish ends a call under way: done at at (made, n calls on the
// platform: a long text in parts) or given back (n == 0).
func (w *window) finish(at time.Time, n int) {
	if w.running > 0 {
		w.running--
	}
	for range n {
		w.times = append(w.times, at)
	}
	if len(w.times) > w.count {
		w.times = append(w.times[:0], w.times[len(w.times)-w.count:]...)
	}
}

// freeAfter is when the k-th of k more calls could start at the earliest,
// each done as soon as it starts: the estimate of a call with k-1 calls
// ahead of it (the calls under way taken as done now).
func (w *window) freeAfter(now time.Time, k int) time.Time {
	all := slices.Clone(w.times)
	for range w.running {
		all = append(all, now)
	}
	t := now
	for range k {
		t = now
		if len(all) >= w.count {
			if f := all[len(all)-w.count].Add(w.per); f.After(t) {
				t = f
			}
		}
		all = append(all, t)
	}
	return t
}

// idle reports whether the window no longer holds anything that matters:
// nothing under way and its newest time a whole Per old.
func (w *window) idle(now time.Time) bool {
	return w.running == 0 && (len(w.times) == 0 || !w.times[len(w.times)-1].Add(w.per).After(now))
}
