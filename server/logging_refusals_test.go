package server

import (
	"testing"
	"time"
)

// TestRefusalLimiter: per peer, refusalBurst reports a window; the rest
// are counted and the next report carries the count.
func TestRefusalLimiter(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	l := newRefusalLimiter(func() time.Time { return now })
	type want struct {
		ok         bool
		suppressed int
	}
	step := func(pid int32, w want) {
		t.Helper()
		ok, n := l.allow(pid)
		if ok != w.ok || n != w.suppressed {
			t.Fatalf("pid %d: allow = %v, %d; want %v, %d", pid, ok, n, w.ok, w.suppressed)
		}
	}
	for range refusalBurst {
		step(7, want{ok: true})
	}
	for range 10 {
		step(7, want{ok: false})
	}
	step(8, want{ok: true}) // another peer has its own allowance
	now = now.Add(refusalWindow)
	step(7, want{ok: true, suppressed: 10})
	step(7, want{ok: true})
	step(7, want{ok: true})
	step(7, want{ok: false})
	now = now.Add(refusalWindow / 2)
	step(7, want{ok: false})
	now = now.Add(refusalWindow / 2)
	step(7, want{ok: true, suppressed: 2})
}

// TestRefusalLimiterBoundsPeers: past refusalPeers live peers, the rest
// share one allowance instead of growing the map.
func TestRefusalLimiterBoundsPeers(t *testing.T) {
	now := time.Unix(1_700_000_000, 0)
	l := newRefusalLimiter(func() time.Time { return now })
	for pid := range int32(refusalPeers) {
		l.allow(pid + 1)
	}
	reported := 0
	for pid := range int32(100) {
		if ok, _ := l.allow(refusalPeers + 1 + pid); ok {
			reported++
		}
	}
	if reported != refusalBurst || len(l.peers) != refusalPeers+1 {
		t.Fatalf("%d of 100 extra peers reported, %d peers held; want %d and %d", reported, len(l.peers), refusalBurst, refusalPeers+1)
	}
	now = now.Add(refusalWindow)
	l.allow(999999)
	if len(l.peers) != 1 {
		t.Fatalf("%d peers held after a window of silence, want 1", len(l.peers))
	}
}
