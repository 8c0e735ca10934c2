package storetest

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chatbus/chatbus/internal/testkit"
	"github.com/chatbus/chatbus/server/store"
)

// Options are what the suite sets of a store it opens. A zero field is
// the backend's default (store.Options' and etcdstore.Options' fields of
// the same names mean the same).
type Options struct {
	Limits       store.Limits
	SeenMaxCount int
	SeenMaxAge   time.Duration
	MaxSent      int
	MaxSlots     int
	Now          func() time.Time
	OnDrop       func(bindingKey string, n int, reason string)
	// FailWrites, when it holds true, makes the backend's durable writes
	// fail (Bolt: the journal's file writes; etcd: its transactions), as
	// a full disk or a lost cluster would. Nil: never.
	FailWrites *atomic.Bool
}

// Backend is a store.Store implementation under test.
type Backend struct {
	// Open opens a new, empty store with o, closed when the test ends.
	// reopen closes it (a Close error fails the test) and opens its state
	// again with o, as the next process (or the next leader) would.
	Open func(t *testing.T, o Options) (s store.Store, reopen func() store.Store)
}

// Reopens is what a Backend's Open returns for the store that open
// opens (and closes when the test ends): the store, and its reopen.
func Reopens(t *testing.T, open func() store.Store) (store.Store, func() store.Store) {
	s := open()
	return s, func() store.Store {
		if err := s.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		s = open()
		return s
	}
}

// Run runs the store contract against b: every backend passes the same
// tests. A backend's own tests (its files, its transactions, its crash
// handling) stay beside it.
func Run(t *testing.T, b Backend) {
	for _, tc := range []struct {
		name string
		run  func(*testing.T, Backend)
	}{
		{"AppendReadAck", appendReadAck},
		{"AppendRejectsBadInput", appendRejectsBadInput},
		{"AppendCopiesPayload", appendCopiesPayload},
		{"ConcurrentAppends", concurrentAppends},
		{"AckSurvivesClose", ackSurvivesClose},
		{"Changed", changed},
		{"Dedup", dedup},
		{"DedupWindowIsBounded", dedupWindowIsBounded},
		{"CursorCommittedWithJournal", cursorCommittedWithJournal},
		{"Retention", retention},
		{"RetentionOfUnroutedAndQuietBindings", retentionOfUnroutedAndQuietBindings},
		{"RetentionOfAllJournals", retentionOfAllJournals},
		{"Claim", claim},
		{"FailedWritesLoseAndRepeatNothing", failedWritesLoseAndRepeatNothing},
		{"Bindings", bindings},
		{"AllocateSlot", allocateSlot},
		{"Calls", calls},
		{"PruneCalls", pruneCalls},
		{"Handoff", handoff},
		{"Sent", sent},
		{"SentFollowsBinding", sentFollowsBinding},
		{"RememberSentAfterClose", rememberSentAfterClose},
		{"DeadLetters", func(t *testing.T, bk Backend) {
			s, reopen := bk.Open(t, Options{})
			DeadLetters(t, s, reopen)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.run(t, b) })
	}
}

// clock is a settable Options.Now; dropLog records OnDrop calls.
type (
	dropLog  = testkit.DropLog
	dropCall = testkit.Drop
)

func newClock() *testkit.Clock {
	return testkit.NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
}

func putBinding(t testing.TB, s store.Store, key string, target store.Target) {
	t.Helper()
	if err := s.PutBinding(store.Binding{Key: key, Status: store.StatusActive, Target: target, OwnerKind: store.OwnerManualFollower}); err != nil {
		t.Fatalf("PutBinding(%q): %v", key, err)
	}
}

// upd is an update of binding key in thread 7 of chat -100.
func upd(key string, id int64, text string) store.Update {
	return store.Update{BindingKey: key, PlatformUpdateID: id, Kind: 1, Chat: "-100", Thread: "7", FromUserID: 42, Text: text}
}

// in is upd in thread th, routed as the caller saw it: to no binding.
func in(th string, id int64, text string) store.Update {
	u := upd("", id, text)
	u.Thread = th
	return u
}

func mustAppend(t testing.TB, s store.Store, provider string, cursor int64, ups ...store.Update) []store.Update {
	t.Helper()
	out, err := s.Append(context.Background(), provider, ups, cur(cursor))
	if err != nil {
		t.Fatalf("Append: %v", err)
	}
	return out
}

// cur is a numeric platform cursor as the providers store it: decimal.
func cur(n int64) []byte { return strconv.AppendInt(nil, n, 10) }

func seqs(ups []store.Update) []uint64 {
	return each(ups, func(u store.Update) uint64 { return u.Seq })
}

func ids(ups []store.Update) []int64 {
	return each(ups, func(u store.Update) int64 { return u.PlatformUpdateID })
}

func texts(ups []store.Update) []string {
	return each(ups, func(u store.Update) string { return u.Text })
}

func routes(ups []store.Update) []string {
	return each(ups, func(u store.Update) string { return u.BindingKey })
}

// each is f of every update, in order; never nil.
func each[T any](ups []store.Update, f func(store.Update) T) []T {
	out := make([]T, 0, len(ups))
	for _, u := range ups {
		out = append(out, f(u))
	}
	return out
}

func readAll(t testing.TB, s store.Store, key string) []store.Update {
	t.Helper()
	ups, err := s.Read(key, 0, 0)
	if err != nil {
		t.Fatalf("Read(%q): %v", key, err)
	}
	return ups
}

// wantJournal checks key's pending updates: their texts, and seqs from
// first on.
func wantJournal(t *testing.T, s store.Store, key string, first uint64, want ...string) {
	t.Helper()
	got := readAll(t, s, key)
	wantSeqs := []uint64{}
	for i := range want {
		wantSeqs = append(wantSeqs, first+uint64(i))
	}
	if !slices.Equal(texts(got), want) || !slices.Equal(seqs(got), wantSeqs) {
		t.Errorf("%s holds %q seqs %v, want %q seqs %v", journalName(key), texts(got), seqs(got), want, wantSeqs)
	}
}

func journalName(key string) string {
	if key == "" {
		return "the unrouted journal"
	}
	return fmt.Sprintf("the journal of binding %q", key)
}
