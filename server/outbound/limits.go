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
// Count calls it counted, oldest first. A call may go at now when fewer
// than Count calls went in the last Per: when the window is not full, or
// its oldest time is Per or more before now. Times are appended in the
// order the scheduler's clock gives them, which never goes back.
type window struct {
	count int
	per   time.Duration
	times []time.Time
}

// freeAt is when the window takes one more call (at or after now).
func (w *window) freeAt(now time.Time) time.Time {
	if len(w.times) < w.count {
		return now
	}
	if t := w.times[len(w.times)-w.count].Add(w.per); t.After(now) {
		return t
	}
	return now
}

// take counts a call at now.
func (w *window) take(now time.Time) {
	w.times = append(w.times, now)
	if len(w.times) > w.count {
		w.times = append(w.times[:0], w.times[len(w.times)-w.count:]...)
	}
}

// freeAfter is when the k-th of k more calls could go at the earliest,
// each as soon as the window takes it: the estimate of a call with k-1
// calls ahead of it.
func (w *window) freeAfter(now time.Time, k int) time.Time {
	all := slices.Clone(w.times)
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
// its newest time is a whole Per old.
func (w *window) idle(now time.Time) bool {
	return len(w.times) == 0 || !w.times[len(w.times)-1].Add(w.per).After(now)
}
