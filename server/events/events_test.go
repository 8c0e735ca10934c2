package events

import (
	"testing"

	"github.com/rs/zerolog"
)

func TestHubFanOutAndReplay(t *testing.T) {
	h := NewHub(zerolog.Nop())
	w1 := h.Watch(false)
	defer w1.Close()
	h.Publish(Event{Kind: FollowerRegistered, InstanceID: "a"})
	h.Publish(Event{Kind: FollowerPruned, InstanceID: "a"})
	w2 := h.Watch(true)
	defer w2.Close()

	for _, w := range []*Watcher{w1, w2} {
		for i, want := range []Kind{FollowerRegistered, FollowerPruned} {
			e := <-w.C()
			if e.Kind != want || e.ID != uint64(i+1) {
				t.Errorf("event %d = %+v, want kind %v id %d", i, e, want, i+1)
			}
		}
	}
}

func TestSlowWatcherCountsDrops(t *testing.T) {
	h := NewHub(zerolog.Nop())
	w := h.Watch(false)
	defer w.Close()
	total := cap(w.ch) + 10
	for range total {
		h.Publish(Event{Kind: FollowerRegistered})
	}
	got := 0
	for range cap(w.ch) {
		<-w.C()
		got++
	}
	h.Publish(Event{Kind: FollowerUnregistered})
	e := <-w.C()
	if e.Kind != Dropped || e.Attrs["count"] != "10" {
		t.Fatalf("after draining: %+v, want a drop notice counting 10", e)
	}
	if e := <-w.C(); e.Kind != FollowerUnregistered {
		t.Fatalf("after the notice: %+v", e)
	}
}
