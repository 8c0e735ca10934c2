// Package liveness owns the supervisor's answer to "are my own loops
// alive?", which its systemd watchdog ping depends on. Each loop that must
// never stall registers a probe; Check asks every probe at once, and each
// must answer within a bound. A loop answers in one of two ways:
//
//   - Loop: a goroutine that waits in a select (the hub's timer loop)
//     receives from Loop.C there; the probe succeeds when the loop takes
//     it, i.e. when it is back at its select.
//   - Step: a goroutine that waits for work it does not control (a
//     provider's update stream) marks the steps that must finish in
//     bounded time (a journal write); waiting between them is idle and
//     alive, and the probe succeeds when no step is under way or the one
//     under way ends.
//
// A third kind is any func(ctx) error, e.g. a round trip through the store's
// committer goroutine.
package liveness

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"
)

// ErrStalled: a probe did not answer within its bound.
var ErrStalled = errors.New("did not answer")

// Probe answers nil when its loop is alive, before ctx ends; otherwise
// an error saying what it is stuck in.
type Probe func(ctx context.Context) error

// Registry holds the probes. The zero value is not usable; call New.
// Safe for concurrent use.
type Registry struct {
	mu     sync.Mutex // guards probes and seq
	probes map[string]entry
	seq    uint64
}

type entry struct {
	id    uint64
	probe Probe
}

// New returns an empty Registry.
func New() *Registry { return &Registry{probes: map[string]entry{}} }

// Register adds p under name and returns the function that removes it
// (call it when the loop ends on purpose). A later Register of the same
// name replaces it; the earlier unregister then does nothing.
func (r *Registry) Register(name string, p Probe) (unregister func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seq++
	id := r.seq
	r.probes[name] = entry{id: id, probe: p}
	return func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		if e, ok := r.probes[name]; ok && e.id == id {
			delete(r.probes, name)
		}
	}
}

// Names returns the registered probes, sorted.
func (r *Registry) Names() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make([]string, 0, len(r.probes))
	for n := range r.probes {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// Failure is one probe that did not answer.
type Failure struct {
	Name string
	Err  error
}

func (f Failure) String() string { return f.Name + ": " + f.Err.Error() }

// Check runs every probe at once, each bounded by bound, and returns the
// ones that failed, by name; nil when all answered. It returns within
// bound (plus scheduling) whatever the probes do: a probe that ignores its
// context is counted as stalled and left to finish by itself.
func (r *Registry) Check(ctx context.Context, bound time.Duration) []Failure {
	r.mu.Lock()
	probes := make(map[string]Probe, len(r.probes))
	for n, e := range r.probes {
		probes[n] = e.probe
	}
	r.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	type result struct {
		name string
		err  error
	}
	results := make(chan result, len(probes)) // buffered: a late probe never blocks
	for n, p := range probes {
		go func() { results <- result{n, p(ctx)} }()
	}
	pending := make(map[string]bool, len(probes))
	for n := range probes {
		pending[n] = true
	}
	var out []Failure
	for len(pending) > 0 {
		select {
		case res := <-results:
			delete(pending, res.name)
			if res.err != nil {
				out = append(out, Failure{res.name, res.err})
			}
		case <-ctx.Done():
			for n := range pending {
				out = append(out, Failure{n, fmt.Errorf("%w within %s", ErrStalled, bound)})
			}
			pending = nil
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Loop is the probe of a goroutine that waits in a select: it adds
//
//	case <-loop.C():
//
// to that select (nothing to do in it). A nil *Loop is valid: its C is
// nil (never ready) and it is never registered.
type Loop struct{ c chan struct{} }

// NewLoop returns a Loop.
func NewLoop() *Loop { return &Loop{c: make(chan struct{})} }

// C is the channel the loop receives probes from.
func (l *Loop) C() <-chan struct{} {
	if l == nil {
		return nil
	}
	return l.c
}

// Probe succeeds once the loop takes it.
func (l *Loop) Probe(ctx context.Context) error {
	select {
	case l.c <- struct{}{}:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("loop not back at its select: %w", ErrStalled)
	}
}

// Step is the probe of a goroutine that marks its bounded steps with
// Begin and End. The zero Step is idle and ready to use; a nil *Step is
// valid and does nothing. One goroutine calls Begin and End.
type Step struct {
	mu    sync.Mutex    // guards what, since and ended
	what  string        // the step under way; "" when idle
	since time.Time     // when it began
	ended chan struct{} // closed by End
}

// Begin marks the start of a step that must end in bounded time.
func (s *Step) Begin(what string) {
	if s == nil {
		return
	}
	s.mu.Lock()
	s.what, s.since, s.ended = what, time.Now(), make(chan struct{})
	s.mu.Unlock()
}

// End marks the end of the step begun last.
func (s *Step) End() {
	if s == nil {
		return
	}
	s.mu.Lock()
	if s.ended != nil {
		close(s.ended)
	}
	s.what, s.ended = "", nil
	s.mu.Unlock()
}

// Probe succeeds when no step is under way, or once the one under way
// ends.
func (s *Step) Probe(ctx context.Context) error {
	s.mu.Lock()
	what, since, ended := s.what, s.since, s.ended
	s.mu.Unlock()
	if ended == nil {
		return nil
	}
	select {
	case <-ended:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("in %s for %s: %w", what, time.Since(since).Round(time.Millisecond), ErrStalled)
	}
}
