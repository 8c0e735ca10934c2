package events

import (
	"bytes"
	"encoding/json"
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

// TestLogLevels: each event is logged at the level an operator expects;
// a provider's health is info when it serves again, warn otherwise.
func TestLogLevels(t *testing.T) {
	for _, tc := range []struct {
		name string
		e    Event
		want string
	}{
		{name: "health serving", e: Event{Kind: ProviderHealth, Message: "provider telegram health: SERVING"}, want: "info"},
		{name: "health not serving", e: Event{Kind: ProviderHealth, Message: "provider telegram health: NOT_SERVING: 409 Conflict: another process"}, want: "warn"},
		{name: "health unknown", e: Event{Kind: ProviderHealth, Message: "provider telegram health: UNKNOWN"}, want: "warn"},
		{name: "health status attribute", e: Event{Kind: ProviderHealth, Message: "telegram is back", Attrs: map[string]string{HealthAttr: "SERVING"}}, want: "info"},
		{name: "provider died", e: Event{Kind: ProviderExited, Message: "exited after 2s: exit status 1"}, want: "warn"},
		{name: "provider stopped as asked", e: Event{Kind: ProviderExited, Message: "stopped", Attrs: map[string]string{PlannedAttr: "true"}}, want: "info"},
		{name: "provider fatal", e: Event{Kind: ProviderFatal, Message: "gave up"}, want: "error"},
		{name: "refusal", e: Event{Kind: AuthRefused, Message: "call refused"}, want: "warn"},
		{name: "registered", e: Event{Kind: FollowerRegistered}, want: "info"},
		{name: "elected", e: Event{Kind: ClusterLeaderElected}, want: "info"},
		{name: "fenced", e: Event{Kind: ClusterFenced}, want: "warn"},
		{name: "lease lost", e: Event{Kind: ClusterLeadershipLost, Attrs: map[string]string{ReasonAttr: "lease_lost"}}, want: "warn"},
		{name: "leadership given up as the node stops", e: Event{Kind: ClusterLeadershipLost, Attrs: map[string]string{ReasonAttr: "stopped"}}, want: "info"},
		{name: "member left", e: Event{Kind: ClusterMemberLeft}, want: "warn"},
		{name: "relay followed", e: Event{Kind: ClusterRelayFollowed}, want: "info"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			NewHub(zerolog.New(&buf)).Publish(tc.e)
			var rec map[string]any
			if err := json.Unmarshal(buf.Bytes(), &rec); err != nil {
				t.Fatalf("%q: %v", buf.String(), err)
			}
			if rec["level"] != tc.want {
				t.Errorf("level %v, want %s", rec["level"], tc.want)
			}
		})
	}
}
