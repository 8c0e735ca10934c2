package journal

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/chatbus/chatbus/internal/testkit"
	"github.com/chatbus/chatbus/server/journal/vfs"
	"github.com/chatbus/chatbus/server/journal/vfs/faultfs"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// smallSegments keeps test directories small and makes rolls frequent.
const smallSegments = 64 << 10

// clock is a settable Options.Now; dropLog records OnDrop calls.
type (
	clock    = testkit.Clock
	dropLog  = testkit.DropLog
	dropCall = testkit.Drop
)

func newClock() *clock { return testkit.NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)) }

// faultFS is the operating system's file system with every operation
// handed to hook (faultfs).
func faultFS(hook faultfs.Hook) vfs.FS { return faultfs.New(vfs.Default, hook) }

// growingFS is the operating system's file system on which files grow as
// they are written (nothing is preallocated: Allocate is unsupported), so
// that a full disk fails a batch's write rather than the preallocation of
// a segment; hook, if not nil, decides the other operations.
func growingFS(hook faultfs.Hook) vfs.FS {
	return faultFS(func(op faultfs.Op, run func() error) error {
		switch {
		case op.Kind == faultfs.Allocate:
			return errors.ErrUnsupported
		case hook != nil:
			return hook(op, run)
		}
		return run()
	})
}

// beforeWrite is the operating system's file system on which hook runs
// before each batch is written (the writer's one WritevAt per batch).
func beforeWrite(hook func()) vfs.FS {
	return faultFS(func(op faultfs.Op, run func() error) error {
		if op.Kind == faultfs.WritevAt {
			hook()
		}
		return run()
	})
}

// openAt opens the journal in dir and closes it when the test ends.
func openAt(t testing.TB, dir string, opts Options) *Journal {
	t.Helper()
	if opts.SegmentSize == 0 {
		opts.SegmentSize = smallSegments
	}
	j, err := Open(dir, opts)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = j.Close() })
	return j
}

// newJournal opens a fresh journal in a temporary directory.
func newJournal(t testing.TB, opts Options) (*Journal, string) {
	t.Helper()
	dir := t.TempDir()
	return openAt(t, dir, opts), dir
}

// reopen closes j and opens its directory again with opts.
func reopen(t testing.TB, j *Journal, opts Options) *Journal {
	t.Helper()
	if err := j.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	return openAt(t, j.Dir(), opts)
}

func mustAppend(t testing.TB, j *Journal, provider string, cursor []byte, entries ...Entry) []Appended {
	t.Helper()
	out, err := j.Append(context.Background(), provider, entries, cursor)
	if err != nil {
		t.Fatalf("Append: %v", err)
	}
	if len(out) != len(entries) {
		t.Fatalf("Append returned %d results for %d entries", len(out), len(entries))
	}
	return out
}

func ent(key, dedupID, data string) Entry {
	return Entry{Key: key, DedupID: dedupID, Data: []byte(data)}
}

func readRecs(t testing.TB, j *Journal, key string) []Record {
	t.Helper()
	recs, err := j.Read(key, 0, 0)
	if err != nil {
		t.Fatalf("Read(%q): %v", key, err)
	}
	return recs
}

func seqsOf(recs []Record) []uint64 {
	out := make([]uint64, len(recs))
	for i, r := range recs {
		out[i] = r.Seq
	}
	return out
}

func dataOf(recs []Record) []string {
	out := make([]string, len(recs))
	for i, r := range recs {
		out[i] = string(r.Data)
	}
	return out
}

func seqRange(from, to uint64) []uint64 {
	var s []uint64
	for v := from; v <= to; v++ {
		s = append(s, v)
	}
	return s
}

func mustStats(t testing.TB, j *Journal, key string) Stats {
	t.Helper()
	st, err := j.Stats(key)
	if err != nil {
		t.Fatalf("Stats(%q): %v", key, err)
	}
	return st
}

func checkSeqs(t testing.TB, what string, got, want []uint64) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s: seqs %v, want %v", what, got, want)
	}
}

func mustFlush(t testing.TB, j *Journal) {
	t.Helper()
	if err := j.Flush(context.Background()); err != nil {
		t.Fatalf("Flush: %v", err)
	}
}

func payload(i, n int) []byte {
	b := []byte(fmt.Sprintf("%08d|", i))
	for len(b) < n {
		b = append(b, byte('a'+i%26))
	}
	return b[:max(n, 9)]
}

// snapshotDir copies the segment files of dir (as the page cache has them:
// what a SIGKILL would leave) to a new temporary directory.
func snapshotDir(t testing.TB, dir string) string {
	t.Helper()
	to := t.TempDir()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, de := range des {
		if _, ok := parseSegmentName(de.Name()); !ok {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, de.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, de.Name()), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return to
}
