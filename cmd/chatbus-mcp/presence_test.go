package main

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// TestPresence: the indicator is renewed from a delivered message until
// the session replies, and no longer than max; a new message restarts it.
func TestPresence(t *testing.T) {
	var calls atomic.Int32
	called := make(chan struct{}, 100)
	p := newPresence(func(context.Context) { calls.Add(1); called <- struct{}{} })
	p.every, p.max = 5*time.Millisecond, time.Hour

	p.working()
	for range 3 { // renewed while the session works
		<-called
	}
	p.close() // returns once the loop has ended
	n := calls.Load()
	p.replied() // a reply after it is nothing
	if calls.Load() != n {
		t.Fatal("typing went on after the reply")
	}

	p.max = 20 * time.Millisecond // a session that never answers
	p.working()
	<-called
	p.mu.Lock()
	stopped := p.stopped
	p.mu.Unlock()
	<-stopped // the loop ends by itself at max
	p.mu.Lock()
	running := p.stop != nil
	p.mu.Unlock()
	if running {
		t.Fatal("the loop ended but says it runs")
	}
	p.working() // a new message types again
	<-called
	p.replied()
	p.close()
}

func TestValidReaction(t *testing.T) {
	for s, want := range map[string]bool{"👀": true, "👍🏽": true, "ok": true, "": false, "a b": false, "0123456789": false} {
		if got := validReaction(s); got != want {
			t.Errorf("validReaction(%q) = %v, want %v", s, got, want)
		}
	}
}
