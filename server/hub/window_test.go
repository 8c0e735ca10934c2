package hub

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/chatbus/chatbus/server/registry"
	"github.com/chatbus/chatbus/server/store"
)

// A thread exists on the platform (a person sees it and can write in it)
// a moment before the supervisor has stored the binding that owns it:
// while the provider is still answering the provisioning, and between its
// answer and the binding's write. These tests write in that moment.

// putHook is the hub's store with a hook that runs before each binding
// write (what happens between the provider's answer and the write), and
// a hold on the next Append (an update routed, not yet journalled).
type putHook struct {
	store.Store
	mu     sync.Mutex
	before func(b store.Binding) // guarded by mu; nil = none
	hold   *appendHold           // guarded by mu; nil = none
}

// appendHold holds one Append back: entered is closed when it is, and it
// goes on once release is closed.
type appendHold struct {
	entered, release chan struct{}
}

func (s *putHook) PutBinding(b store.Binding) error {
	s.mu.Lock()
	f := s.before
	s.mu.Unlock()
	if f != nil {
		f(b)
	}
	return s.Store.PutBinding(b)
}

func (s *putHook) Append(ctx context.Context, provider string, ups []store.Update, cursor []byte) ([]store.Update, error) {
	s.mu.Lock()
	h := s.hold
	s.hold = nil
	s.mu.Unlock()
	if h != nil {
		close(h.entered)
		<-h.release
	}
	return s.Store.Append(ctx, provider, ups, cursor)
}

func (s *putHook) set(f func(b store.Binding)) {
	s.mu.Lock()
	s.before = f
	s.mu.Unlock()
}

// holdNextAppend holds the next Append back until release is closed.
func (s *putHook) holdNextAppend() *appendHold {
	h := &appendHold{entered: make(chan struct{}), release: make(chan struct{})}
	s.mu.Lock()
	s.hold = h
	s.mu.Unlock()
	return h
}

// newHookedEnv is newEnv with the hub writing bindings through a putHook.
func newHookedEnv(t *testing.T) (*env, *putHook) {
	var hook *putHook
	e := newEnvWith(t, "", store.Options{}, nil, nil, func(s store.Store) store.Store {
		hook = &putHook{Store: s}
		return hook
	})
	return e, hook
}

// upcoming is the thread the fake provider creates next.
func (p *fakeProviders) upcoming() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return fmt.Sprint(100 + p.next + 1)
}

// TestWrittenWhileTheThreadIsMade: a person writes in a thread as soon as
// it appears, before its binding is stored: a fresh thread, a parked
// thread a fresh follower takes over, a follower's own closed thread that
// is found deleted when it comes back (and is made anew), and a thread
// made in place of one a person deleted (found by a call, or by an update
// saying so). What is written then reaches the binding's follower, before
// what is written after and once, with ids it can answer; nothing is held
// as unrouted.
func TestWrittenWhileTheThreadIsMade(t *testing.T) {
	type setup struct {
		f      *registry.Follower // the follower whose thread is made; nil: do returns it
		thread func() string      // the thread being made, once it exists
		do     func() *registry.Follower
		held   []string // what the follower has before
	}
	cases := []struct {
		name string
		// phases the case has: a parked thread being reused is its old
		// binding's until the fresh one is stored, so what is written
		// before the provider answers is the old binding's (see
		// TestFreshReusesParkedThreads).
		notDuring bool
		prepare   func(t *testing.T, e *env) setup
	}{
		{name: "fresh thread", prepare: func(t *testing.T, e *env) setup {
			return setup{thread: e.provs.upcoming, do: func() *registry.Follower { return e.register("a-1", "manual:a", "").Follower }}
		}},
		{name: "parked thread taken over", notDuring: true, prepare: func(t *testing.T, e *env) setup {
			x := e.register("x-1", "manual:x", "")
			e.h.Unregister(x.Follower)
			e.clock.Add(time.Second)
			return setup{thread: func() string { return x.Binding.Target.Thread }, do: func() *registry.Follower { return e.register("a-1", "manual:a", "").Follower }}
		}},
		{name: "own closed thread deleted meanwhile", prepare: func(t *testing.T, e *env) setup {
			a := e.register("a-1", "manual:a", "")
			e.ingest(1, a.Binding.Target.Thread, "before")
			e.h.Unregister(a.Follower)
			e.clock.Add(DefaultCloseOfflineAfter)
			if n, err := e.h.closeOffline(context.Background()); err != nil || n != 1 {
				t.Fatalf("closing the offline thread: %d %v", n, err)
			}
			e.provs.mu.Lock()
			e.provs.gone = map[string]bool{a.Binding.Target.Thread: true}
			e.provs.mu.Unlock()
			return setup{thread: e.provs.upcoming, held: []string{"before"}, do: func() *registry.Follower {
				back := e.register("a-2", "manual:a", "")
				if back.Origin != OriginReuse || back.Binding.Target == a.Binding.Target {
					t.Fatalf("came back with %v %+v, want REUSE in a new thread", back.Origin, back.Binding.Target)
				}
				return back.Follower
			}}
		}},
		{name: "replaced: a call found it deleted", prepare: func(t *testing.T, e *env) setup {
			a := e.register("a-1", "manual:a", "")
			e.ingest(1, a.Binding.Target.Thread, "before")
			e.provs.mu.Lock()
			e.provs.gone = map[string]bool{a.Binding.Target.Thread: true}
			e.provs.mu.Unlock()
			return setup{f: a.Follower, thread: e.provs.upcoming, held: []string{"before"}, do: func() *registry.Follower {
				if _, err := e.h.Call(context.Background(), a.Follower, "sendMessage", []byte(`{"text":"hi"}`), ""); err != nil {
					t.Fatal(err)
				}
				return a.Follower
			}}
		}},
		{name: "replaced: an update said it was deleted", prepare: func(t *testing.T, e *env) setup {
			a := e.register("a-1", "manual:a", "")
			old := a.Binding.Target.Thread
			e.ingest(1, old, "before")
			return setup{f: a.Follower, thread: e.provs.upcoming, held: []string{"before", "deleted"}, do: func() *registry.Follower {
				batch := []Inbound{{Allowed: true, ThreadState: ThreadDeleted, Update: store.Update{PlatformUpdateID: 2, Chat: chat, Thread: old, Sender: "1", Kind: 1, Text: "deleted"}}}
				if _, err := e.h.Intake().Ingest(context.Background(), "telegram", batch, nil); err != nil {
					t.Fatal(err)
				}
				e.applyThreadEvents()
				return a.Follower
			}}
		}},
	}
	phases := []struct {
		name   string
		during bool // before the provider answers, else after it, before the write
		// stale: also written then, but journalled only once the binding
		// is stored (routed by the hub before, to no binding).
		stale bool
	}{
		{name: "before the provider answers", during: true},
		{name: "before the binding is stored"},
		{name: "routed before the binding is stored", during: true, stale: true},
	}
	for _, c := range cases {
		for _, ph := range phases {
			if ph.during && c.notDuring {
				continue
			}
			t.Run(c.name+"/"+ph.name, func(t *testing.T) {
				e, hook := newHookedEnv(t)
				s := c.prepare(t, e)
				held := append([]string(nil), s.held...)
				if s.thread == nil {
					t.Fatal("no thread")
				}
				var thread string
				wrote := false
				write := func(th string) {
					wrote, thread = true, th
					e.ingest(100, th, "in the new thread")
				}
				window := []string{"in the new thread"}
				var late *appendHold
				lateDone := make(chan error, 1)
				if ph.during {
					e.provs.during = func() {
						if wrote {
							return
						}
						write(s.thread())
						if !ph.stale {
							return
						}
						late = hook.holdNextAppend()
						go func() {
							_, err := e.h.Intake().Ingest(context.Background(), "telegram", []Inbound{{Allowed: true, Update: store.Update{
								PlatformUpdateID: 102, Chat: chat, Thread: thread, Sender: "1", Kind: 1, Text: "routed before",
								Refs: []store.Ref{{Kind: store.RefMessage, ID: "102"}}}}}, nil)
							lateDone <- err
						}()
						<-late.entered // routed; its Append waits
					}
				} else {
					hook.set(func(b store.Binding) {
						if wrote || b.Target.IsZero() {
							return
						}
						if stored, err := e.st.GetBinding(b.Key); err == nil && stored.Target == b.Target {
							return // not the write that gives it the thread
						}
						write(b.Target.Thread)
					})
				}
				f := s.do()
				e.provs.during = nil
				hook.set(nil)
				if !wrote {
					t.Fatal("nothing was written in the window: the case never made a thread")
				}
				if ph.stale {
					window = append(window, "routed before")
					close(late.release)
					if err := <-lateDone; err != nil {
						t.Fatal(err)
					}
				}
				nb, err := e.h.BindingOf(f)
				if err != nil || nb.Target.Thread != thread {
					t.Fatalf("binding %+v (%v), want thread %s", nb, err, thread)
				}
				e.ingest(101, thread, "after")
				if st, _ := e.st.UnroutedStats(); st.Pending != 0 {
					un, _ := e.st.ListUnrouted(0)
					t.Fatalf("%d update(s) unrouted: %+v", st.Pending, un)
				}
				want := append(append(held, window...), "after")
				got := collect(t, e.h, f, 0, len(want))
				for i := range want {
					if got[i].Text != want[i] || got[i].Seq != uint64(i+1) {
						t.Fatalf("the follower got %s, want %q in seqs 1…", texts(got), want)
					}
				}
				for i := range window {
					id := 100 + 2*i
					params := fmt.Appendf(nil, `{"text":"re","reply_parameters":{"message_id":%d}}`, id)
					if _, err := e.h.Call(context.Background(), f, "sendMessage", params, ""); err != nil {
						t.Errorf("answering message %d (%q): %v", id, window[i], err)
					}
				}
			})
		}
	}
}

func texts(ups []store.Update) string {
	var out []string
	for _, u := range ups {
		out = append(out, fmt.Sprintf("%d:%q", u.Seq, u.Text))
	}
	return fmt.Sprint(out)
}
