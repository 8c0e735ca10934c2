package server

import (
	"sync"
	"time"
)

// refusalLimiter bounds how often refused calls are logged (and published
// as auth_refused events, which the event hub logs): a client hammering
// the socket with a wrong secret must not fill the disk. Each peer (by pid,
// from its peer credentials) may have refusalBurst refusals reported per
// refusalWindow; the rest are counted, and the next one reported carries
// that count ("suppressed"). Refusals of peers without credentials share
// pid 0.
type refusalLimiter struct {
	now func() time.Time

	mu    sync.Mutex // guards peers
	peers map[int32]*refusalPeer
}

type refusalPeer struct {
	windowStart time.Time
	reported    int // in the current window
	suppressed  int // since the last report
}

const (
	refusalBurst  = 3
	refusalWindow = time.Second
	// refusalPeers bounds the peers remembered; past it, peers idle for a
	// window are forgotten (their suppressed count is lost with them, as
	// nobody is refused any more to report it).
	refusalPeers = 1024
	// manyPeers is the pid under which peers beyond refusalPeers count.
	manyPeers = -1
)

func newRefusalLimiter(now func() time.Time) *refusalLimiter {
	if now == nil {
		now = time.Now
	}
	return &refusalLimiter{now: now, peers: map[int32]*refusalPeer{}}
}

// allow reports whether a refusal of pid is to be reported, and if so how
// many of its refusals were not reported before it.
func (l *refusalLimiter) allow(pid int32) (ok bool, suppressed int) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	p := l.peers[pid]
	if p == nil {
		if len(l.peers) >= refusalPeers {
			l.forgetIdle(now)
		}
		if len(l.peers) >= refusalPeers {
			pid = manyPeers // that many at once share one allowance
			p = l.peers[pid]
		}
	}
	if p == nil {
		p = &refusalPeer{windowStart: now}
		l.peers[pid] = p
	}
	if now.Sub(p.windowStart) >= refusalWindow {
		p.windowStart, p.reported = now, 0
	}
	if p.reported >= refusalBurst {
		p.suppressed++
		return false, 0
	}
	p.reported++
	suppressed, p.suppressed = p.suppressed, 0
	return true, suppressed
}

// forgetIdle drops peers whose window ended; l.mu is held.
func (l *refusalLimiter) forgetIdle(now time.Time) {
	for pid, p := range l.peers {
		if now.Sub(p.windowStart) >= refusalWindow {
			delete(l.peers, pid)
		}
	}
}
