package metrics

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/chatbus/chatbus/server/metrics/metricstest"
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
		{Name: "telegram", State: "RUNNING", Serving: true, Restarts: 2, HealthFlips: 4, CallsHeld: 5, CallsOpen: 6, DeadLetters: 7},
		{Name: "slack", State: "FATAL"},
		{Name: "discord", State: "RUNNING", DeadLetters: -1},
	}})
	s := gather(t, m)
	s.Check(t, []metricstest.Want{
		metricstest.W("chatbus_followers_connected", 3),
		metricstest.W("chatbus_provider_state", 1, "provider", "telegram", "state", "RUNNING"),
		metricstest.W("chatbus_provider_state", 0, "provider", "telegram", "state", "BACKOFF"),
		metricstest.W("chatbus_provider_state", 1, "provider", "telegram"), // one-hot: the sum is 1
		metricstest.W("chatbus_provider_state", 1, "provider", "slack", "state", "FATAL"),
		metricstest.W("chatbus_provider_serving", 1, "provider", "telegram"),
		metricstest.W("chatbus_provider_serving", 0, "provider", "slack"),
		metricstest.W("chatbus_provider_restarts_total", 2, "provider", "telegram"),
		metricstest.W("chatbus_provider_health_flips_total", 4, "provider", "telegram"),
		metricstest.W("chatbus_outbox_held_calls", 5, "provider", "telegram"),
		metricstest.W("chatbus_call_records_open", 6, "provider", "telegram"),
		metricstest.W("chatbus_dead_letters", 7, "provider", "telegram"),
		metricstest.W("chatbus_dead_letters", 0, "provider", "slack"),
	})
	if _, ok := s.Value("chatbus_dead_letters", "provider", "discord"); ok {
		t.Error("chatbus_dead_letters of a provider whose dead letters could not be read")
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
	s.Check(t, []metricstest.Want{
		metricstest.W("chatbus_journal_pending_updates", 14, "provider", "telegram"),
		metricstest.W("chatbus_journal_pending_updates", 5, "provider", "slack"),
		metricstest.W("chatbus_journal_pending_updates", 0, "provider", "none"),
		metricstest.W("chatbus_journal_pending_bytes", 1400, "provider", "telegram"),
		metricstest.W("chatbus_journal_oldest_unacked_age_seconds", 3600, "provider", "telegram"),
		metricstest.W("chatbus_journal_oldest_unacked_age_seconds", 0, "provider", "none"),
		metricstest.W("chatbus_ack_lag_updates", 2, "provider", "telegram"),
		metricstest.W("chatbus_bindings", 2, "provider", "telegram", "status", "active"),
		metricstest.W("chatbus_bindings", 1, "provider", "telegram", "status", "offline"),
		metricstest.W("chatbus_bindings", 1, "provider", "none", "status", "failed"),
		metricstest.W("chatbus_journal_unrouted_pending_updates", 7),
		metricstest.W("chatbus_journal_unrouted_pending_bytes", 70),
		metricstest.W("chatbus_journal_unrouted_oldest_age_seconds", 10),
		// The top two by updates held: manual:2 (9), then manual:4 before
		// manual:1 (both 5: the older first).
		metricstest.W("chatbus_binding_pending_updates", 9, "binding", "manual:2", "provider", "telegram"),
		metricstest.W("chatbus_binding_pending_updates", 5, "binding", "manual:4", "provider", "slack"),
		metricstest.W("chatbus_binding_oldest_unacked_age_seconds", 120, "binding", "manual:4"),
		metricstest.W("chatbus_binding_ack_lag_updates", 1, "binding", "manual:4"),
	})
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
