package store

import (
	"context"
	"github.com/chatbus/chatbus/internal/testkit"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// clock is a settable Options.Now; dropLog records OnDrop calls.
type (
	clock    = testkit.Clock
	dropLog  = testkit.DropLog
	dropCall = testkit.Drop
)

func newClock() *clock { return testkit.NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)) }

// openAt opens the store at path and closes it when the test ends.
func openAt(t testing.TB, path string, opts Options) *Bolt {
	t.Helper()
	s, err := Open(path, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// newStore opens a fresh store in a temporary directory.
func newStore(t testing.TB, opts Options) (*Bolt, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "state.db")
	return openAt(t, path, opts), path
}

func putBinding(t testing.TB, s Store, key string, target Target) {
	t.Helper()
	if err := s.PutBinding(Binding{Key: key, Status: StatusActive, Target: target, OwnerKind: OwnerManualFollower}); err != nil {
		t.Fatalf("PutBinding(%q): %v", key, err)
	}
}

func upd(key string, id int64, text string) Update {
	return Update{BindingKey: key, PlatformUpdateID: id, Kind: 1, Chat: "-100", Thread: "7", FromUserID: 42, Text: text}
}

func mustAppend(t testing.TB, s Store, provider string, cursor int64, ups ...Update) []Update {
	t.Helper()
	out, err := s.Append(context.Background(), provider, ups, cur(cursor))
	if err != nil {
		t.Fatalf("Append: %v", err)
	}
	return out
}

// cur is a numeric platform cursor as the providers store it: decimal.
func cur(n int64) []byte { return strconv.AppendInt(nil, n, 10) }

func seqs(ups []Update) []uint64 {
	out := []uint64{}
	for _, u := range ups {
		out = append(out, u.Seq)
	}
	return out
}

func readAll(t testing.TB, s Store, key string) []Update {
	t.Helper()
	ups, err := s.Read(key, 0, 0)
	if err != nil {
		t.Fatalf("Read(%q): %v", key, err)
	}
	return ups
}
