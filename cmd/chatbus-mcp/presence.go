package main

import (
	"context"
	"sync"
	"time"
	"unicode/utf8"
)

// Presence: what the person sees of a session between their message and
// its answer. The typing indicator shows from the moment a message is
// delivered to Claude Code until the session replies (or typingFor has
// passed: a session that never answers does not type forever). It is
// renewed every typingEvery: the supervisor answers renewals while the
// indicator still shows without a platform call, so the platform sees one
// call per indicator lifetime. With --ack-reaction, a message delivered is
// also marked with that reaction (e.g. 👀): the person knows it arrived.

const (
	typingEvery = 1500 * time.Millisecond
	typingFor   = 5 * time.Minute
)

// presence runs the typing loop of one session. Its methods are safe for
// concurrent use.
type presence struct {
	typing func(ctx context.Context) // one typing call
	every  time.Duration
	max    time.Duration

	mu      sync.Mutex
	until   time.Time     // renew until then
	stop    chan struct{} // closed to end the loop; nil while none runs
	stopped chan struct{} // closed when the loop has ended
}

func newPresence(typing func(ctx context.Context)) *presence {
	return &presence{typing: typing, every: typingEvery, max: typingFor}
}

// working says a message was delivered: type now and until replied (or
// max from now).
func (p *presence) working() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.until = time.Now().Add(p.max)
	if p.stop != nil {
		return // the loop runs; it goes on to the new until
	}
	p.stop, p.stopped = make(chan struct{}), make(chan struct{})
	go p.loop(p.stop, p.stopped)
}

// replied says the session answered: the indicator is not renewed. It
// does not wait for a typing call under way (the reply is not held up).
func (p *presence) replied() { p.end() }

// close ends the loop and waits until it has ended (a shutdown).
func (p *presence) close() {
	if stopped := p.end(); stopped != nil {
		<-stopped
	}
}

// end stops the loop, if one runs, and returns what is closed once it
// has ended.
func (p *presence) end() (stopped <-chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stop == nil {
		return nil
	}
	close(p.stop)
	p.stop = nil
	return p.stopped
}

func (p *presence) loop(stop <-chan struct{}, stopped chan<- struct{}) {
	defer close(stopped)
	t := time.NewTicker(p.every)
	defer t.Stop()
	for {
		ctx, cancel := context.WithTimeout(context.Background(), p.every)
		p.typing(ctx)
		cancel()
		select {
		case <-stop:
			return
		case <-t.C:
		}
		p.mu.Lock()
		over := time.Now().After(p.until)
		if over && p.stop == stop {
			p.stop = nil
		}
		p.mu.Unlock()
		if over {
			return
		}
	}
}

// validReaction reports whether s is one emoji-sized reaction (a few
// runes, no spaces); the platform decides whether it takes it.
func validReaction(s string) bool {
	n := utf8.RuneCountInString(s)
	for _, r := range s {
		if r == ' ' || r < 0x20 {
			return false
		}
	}
	return n >= 1 && n <= 8
}
