package discord_test

import (
	"slices"
	"strings"
	"testing"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
)

// threadTexts are the journalled texts of one thread, in order.
func threadTexts(j []*providerv1.Update, thread string) []string {
	var out []string
	for _, u := range j {
		if u.GetThread() == thread {
			out = append(out, u.GetText())
		}
	}
	return out
}

// waitThread waits until thread's journalled texts are exactly want.
func (s *sink) waitThread(t *testing.T, thread string, want ...string) {
	t.Helper()
	j := s.waitFor(t, "thread "+thread+" has "+strings.Join(want, ","), func(j []*providerv1.Update) bool {
		return len(threadTexts(j, thread)) >= len(want)
	})
	if got := threadTexts(j, thread); !slices.Equal(got, want) {
		t.Fatalf("thread %s: journal %q, want %q", thread, got, want)
	}
}

// TestCatchUpWithoutMark: a thread in which nothing was journalled yet
// has no mark in the cursor; what is written in it while no provider runs
// and the session cannot be resumed (none was stored, or it expired) is
// caught up by REST all the same, from the thread's start (its id), each
// message once and in order: when the thread is still active at the new
// session (Discord lists it in GUILD_CREATE), when its follower attaches
// only after READY, when a person writes again before that, and when a
// moderator archived it meanwhile (only the attachment tells then).
func TestCatchUpWithoutMark(t *testing.T) {
	tests := []struct {
		name string
		// journalled: another thread had a message journalled, so the
		// cursor holds a session (expired before the successor runs).
		journalled bool
		// archive: the thread is archived after the outage's messages.
		archive bool
		// live: a person writes again before the follower attaches.
		live bool
		// attach: the follower attaches after READY; else never.
		attach bool
	}{
		{name: "empty cursor, attached after READY", attach: true},
		{name: "empty cursor, follower not back"},
		{name: "empty cursor, a person writes before the follower is back", live: true, attach: true},
		{name: "empty cursor, archived meanwhile, attached after READY", archive: true, attach: true},
		{name: "empty cursor, archived meanwhile, follower not back", archive: true},
		{name: "expired session, attached after READY", journalled: true, attach: true},
		{name: "expired session, archived meanwhile, attached after READY", journalled: true, archive: true, attach: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			sk, stop, beta := f.start()
			alpha := f.thread(f.p, "A · alpha")
			if tt.journalled {
				f.post(beta.Thread, "b0")
				sk.waitTexts(t, "b0")
			}
			stop()
			f.waitUntil("the provider left the gateway", func() bool { return f.dc.Connected() == 0 })
			if tt.journalled {
				f.dc.ExpireSessions()
			}
			outage := numbered("while down ", 0, 3)
			f.post(alpha.Thread, outage...)
			if tt.archive {
				f.dc.ArchiveThread(alpha.Thread)
			}

			p2 := f.platform(nil)
			sk2 := sk.newStream()
			f.run(p2, sk.state(), sk2)
			f.waitConnected(1)
			// A message in the channel itself, once journalled, says the
			// successor's READY (queued before it) was processed.
			f.dc.PostMessage(f.dc.Channel(), f.alice, "beacon")
			sk.waitFor(t, "the beacon", func(j []*providerv1.Update) bool {
				return slices.Contains(textsOf(j), "beacon")
			})
			want := outage
			if tt.live {
				f.post(alpha.Thread, "live")
				want = append(append([]string(nil), outage...), "live")
			}
			if tt.attach {
				p2.Attached("follower-A", alpha)
			}
			if !tt.archive || tt.attach {
				// Archived and nobody attaching, nothing tells: the next
				// message into it does (below).
				sk.waitThread(t, alpha.Thread, want...)
			}
			f.post(alpha.Thread, "after")
			sk.waitThread(t, alpha.Thread, append(want, "after")...)
			if n := sk.delivered(); n != len(sk.texts()) {
				t.Errorf("%d updates delivered, %d distinct", n, len(sk.texts()))
			}
			if c := f.dc.Counts(); c["identify"] != 2 {
				t.Errorf("gateway counts %v: want a fresh IDENTIFY", c)
			}
		})
	}
}

// TestCatchUpLeavesPeoplesThreads: after an unresumable restart the
// catch-up reads the bot's threads, not every thread of the channel: a
// thread a person made, with nothing of it in the cursor, is not read
// from its start (its history is nobody's to deliver); what is written in
// it once the session is up arrives as usual.
func TestCatchUpLeavesPeoplesThreads(t *testing.T) {
	f := newFixture(t)
	theirs := f.dc.CreateThread(f.dc.Channel(), f.alice, "alice's own thread")
	f.post(theirs, "old 1", "old 2")
	sk, stop, alpha := f.start()
	stop()
	f.waitUntil("the provider left the gateway", func() bool { return f.dc.Connected() == 0 })
	f.post(alpha.Thread, "while down")

	p2 := f.platform(nil)
	f.run(p2, sk.state(), sk.newStream())
	f.waitConnected(1)
	sk.waitThread(t, alpha.Thread, "while down")
	f.post(theirs, "new")
	sk.waitThread(t, theirs, "new")
	f.post(alpha.Thread, "after")
	sk.waitThread(t, alpha.Thread, "while down", "after")
	if got := threadTexts(sk.waitFor(t, "all", func([]*providerv1.Update) bool { return true }), theirs); !slices.Equal(got, []string{"new"}) {
		t.Errorf("alice's thread: %q", got)
	}
}
