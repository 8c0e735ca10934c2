package metrics

import (
	"errors"
	"fmt"
	"testing"
	"time"
)

type fakeState struct {
	followers int
	provs     []ProviderState
}

func (f fakeState) FollowersConnected() int    { return f.followers }
func (f fakeState) Providers() []ProviderState { return f.provs }

type fakeJournals struct {
	bindings []BindingJournal
	unrouted JournalDepth
	err      error
}

func (f fakeJournals) Journals() ([]BindingJournal, JournalDepth, error) {
	return f.bindings, f.unrouted, f.err
}

func TestStateCollector(t *testing.T) {
	m := New(Config{})
	m.Watch(fakeState{followers: 3, provs: []ProviderState{
		{Name: "telegram", State: "RUNNING", Serving: true, Restarts: 2, HealthFlips: 4, CallsHeld: 5, CallsOpen: 6},
		{Name: "slack", State: "FATAL"},
	}})
	s := gather(t, m)
	tests := []struct {
		name   string
		labels []string
		want   float64
	}{
		{"chatbus_followers_connected", nil, 3},
		{"chatbus_provider_state", []string{"provider", "telegram", "state", "RUNNING"}, 1},
		{"chatbus_provider_state", []string{"provider", "telegram", "state", "BACKOFF"}, 0},
		{"chatbus_provider_state", []string{"provider", "telegram"}, 1}, // one-hot: the sum is 1
		{"chatbus_provider_state", []string{"provider", "slack", "state", "FATAL"}, 1},
		{"chatbus_provider_serving", []string{"provider", "telegram"}, 1},
		{"chatbus_provider_serving", []string{"provider", "slack"}, 0},
		{"chatbus_provider_restarts_total", []string{"provider", "telegram"}, 2},
		{"chatbus_provider_health_flips_total", []string{"provider", "telegram"}, 4},
		{"chatbus_outbox_held_calls", []string{"provider", "telegram"}, 5},
		{"chatbus_call_records_open", []string{"provider", "telegram"}, 6},
	}
	for _, tt := range tests {
		if got, ok := s.Value(tt.name, tt.labels...); !ok || got != tt.want {
			t.Errorf("%s%v = %v (present %v), want %v", tt.name, tt.labels, got, ok, tt.want)
		}
	}
}

func TestJournalCollector(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	ago := func(d time.Duration) time.Time { return now.Add(-d) }
	bindings := []BindingJournal{
		{Key: "manual:1", Provider: "telegram", Status: "active", JournalDepth: JournalDepth{Pending: 5, Bytes: 500, OldestAt: ago(time.Minute)}, AckLag: 2},
		{Key: "manual:2", Provider: "telegram", Status: "offline", JournalDepth: JournalDepth{Pending: 9, Bytes: 900, OldestAt: ago(time.Hour)}},
		{Key: "manual:3", Provider: "telegram", Status: "active"},
		{Key: "manual:4", Provider: "slack", Status: "active", JournalDepth: JournalDepth{Pending: 5, Bytes: 50, OldestAt: ago(2 * time.Minute)}, AckLag: 1},
		{Key: "manual:5", Status: "failed"},
	}
	m := New(Config{Now: fixedClock(now), TopBindings: 2})
	m.WatchJournals(fakeJournals{bindings: bindings, unrouted: JournalDepth{Pending: 7, Bytes: 70, OldestAt: ago(10 * time.Second)}})
	s := gather(t, m)
	tests := []struct {
		name   string
		labels []string
		want   float64
	}{
		{"chatbus_journal_pending_updates", []string{"provider", "telegram"}, 14},
		{"chatbus_journal_pending_updates", []string{"provider", "slack"}, 5},
		{"chatbus_journal_pending_updates", []string{"provider", "none"}, 0},
		{"chatbus_journal_pending_bytes", []string{"provider", "telegram"}, 1400},
		{"chatbus_journal_oldest_unacked_age_seconds", []string{"provider", "telegram"}, 3600},
		{"chatbus_journal_oldest_unacked_age_seconds", []string{"provider", "none"}, 0},
		{"chatbus_ack_lag_updates", []string{"provider", "telegram"}, 2},
		{"chatbus_bindings", []string{"provider", "telegram", "status", "active"}, 2},
		{"chatbus_bindings", []string{"provider", "telegram", "status", "offline"}, 1},
		{"chatbus_bindings", []string{"provider", "none", "status", "failed"}, 1},
		{"chatbus_journal_unrouted_pending_updates", nil, 7},
		{"chatbus_journal_unrouted_pending_bytes", nil, 70},
		{"chatbus_journal_unrouted_oldest_age_seconds", nil, 10},
		// The top two by updates held: manual:2 (9), then manual:4 before
		// manual:1 (both 5: the older first).
		{"chatbus_binding_pending_updates", []string{"binding", "manual:2", "provider", "telegram"}, 9},
		{"chatbus_binding_pending_updates", []string{"binding", "manual:4", "provider", "slack"}, 5},
		{"chatbus_binding_oldest_unacked_age_seconds", []string{"binding", "manual:4"}, 120},
		{"chatbus_binding_ack_lag_updates", []string{"binding", "manual:4"}, 1},
	}
	for _, tt := range tests {
		if got, ok := s.Value(tt.name, tt.labels...); !ok || got != tt.want {
			t.Errorf("%s%v = %v (present %v), want %v", tt.name, tt.labels, got, ok, tt.want)
		}
	}
	if n := len(s["chatbus_binding_pending_updates"].GetMetric()); n != 2 {
		t.Errorf("%d per-binding series, want the top 2", n)
	}
	if _, ok := s.Value("chatbus_binding_pending_updates", "binding", "manual:1"); ok {
		t.Error("manual:1 is not in the top 2 but has a series")
	}
}

// TestJournalCollectorBounded: thousands of bindings export the top N
// series and the per-provider totals, nothing per binding beyond.
func TestJournalCollectorBounded(t *testing.T) {
	var bs []BindingJournal
	for i := range 5000 {
		bs = append(bs, BindingJournal{Key: fmt.Sprint("manual:", i), Provider: "telegram", Status: "active", JournalDepth: JournalDepth{Pending: i % 17}})
	}
	m := New(Config{})
	m.WatchJournals(fakeJournals{bindings: bs})
	s := gather(t, m)
	if n := len(s["chatbus_binding_pending_updates"].GetMetric()); n != DefaultTopBindings {
		t.Errorf("%d per-binding series, want %d", n, DefaultTopBindings)
	}
	want := 0
	for i := range 5000 {
		want += i % 17
	}
	if got := s.Get("chatbus_journal_pending_updates", "provider", "telegram"); got != float64(want) {
		t.Errorf("total %v, want %d", got, want)
	}
}

// TestJournalCollectorError: a failing source fails the scrape of its
// metrics (the handler serves the rest and says so), never a silent zero.
func TestJournalCollectorError(t *testing.T) {
	m := New(Config{})
	m.WatchJournals(fakeJournals{err: errors.New("store closed")})
	_, err := m.Gather()
	if err == nil {
		t.Fatal("gather succeeded with a failing journal source")
	}
}

func TestTopBindingsNone(t *testing.T) {
	if got := topBindings([]BindingJournal{{Key: "a", JournalDepth: JournalDepth{Pending: 1}}}, -1); len(got) != 0 {
		t.Errorf("top -1: %v", got)
	}
}
