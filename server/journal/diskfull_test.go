package journal

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/chatbus/chatbus/server/journal/vfs/faultfs"
)

// fillAppends appends 4 KiB entries from goroutines until every one of them
// got an error, and returns the DedupIDs whose Append returned success and
// the first error.
func fillAppends(t *testing.T, j *Journal, goroutines int) (ok []string, firstErr error) {
	t.Helper()
	var mu sync.Mutex
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := 0; i < 10000; i++ {
				id := fmt.Sprintf("g%d-%d", g, i)
				_, err := j.Append(context.Background(), "telegram", []Entry{{Key: "a", DedupID: id, Data: payload(i, 4096)}}, []byte(id))
				mu.Lock()
				if err != nil {
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					return
				}
				ok = append(ok, id)
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if firstErr == nil {
		t.Fatal("10000 appends per goroutine and the disk is not full")
	}
	return ok, firstErr
}

func storedIDs(t *testing.T, j *Journal) []string {
	t.Helper()
	var ids []string
	for _, r := range readRecs(t, j, "a") {
		ids = append(ids, r.DedupID)
	}
	slices.Sort(ids)
	return ids
}

// TestDiskFullPreallocation: on a full disk a new segment cannot be
// preallocated, so the batch that needs it fails before a byte is written
// (ENOSPC, not ErrFailed): the journal stays usable, nothing is reported
// durable that is not, and once acks free segments, appends succeed again.
func TestDiskFullPreallocation(t *testing.T) {
	dir := smallDisk(t, 2<<20)
	opts := Options{SegmentSize: 256 << 10, Limits: Limits{MaxCount: -1, MaxBytes: -1}}
	j := openAt(t, dir, opts)
	ok, err := fillAppends(t, j, 1)
	if !errors.Is(err, syscall.ENOSPC) || errors.Is(err, ErrFailed) {
		t.Fatalf("append on a full disk = %v, want ENOSPC (and not ErrFailed)", err)
	}
	t.Logf("%d appends succeeded before: %v", len(ok), err)
	slices.Sort(ok)
	if got := storedIDs(t, j); !slices.Equal(got, ok) {
		t.Fatalf("journal holds %d records, %d appends succeeded", len(got), len(ok))
	}

	j = reopen(t, j, opts)
	if got := storedIDs(t, j); !slices.Equal(got, ok) {
		t.Fatalf("after reopen: %d records, %d appends succeeded", len(got), len(ok))
	}
	st := mustStats(t, j, "a")
	if _, err := j.Ack("a", st.LastSeq); err != nil {
		t.Fatal(err)
	}
	mustFlush(t, j)
	out := mustAppend(t, j, "telegram", nil, Entry{Key: "a", DedupID: "after", Data: payload(0, 4096)})
	if out[0].Seq != st.LastSeq+1 {
		t.Errorf("append after acks freed space: %+v", out[0])
	}
}

// TestDiskFullWrite: with segments that grow as they are written, a full
// disk fails the write itself. The journal then fails (ErrFailed, wrapping
// ENOSPC) and, until it has reopened itself (held off here; see
// TestReopenAfterFailedWrite), refuses writes and serves reads; every
// Append that returned success is there after a Close and Open, and
// nothing else.
func TestDiskFullWrite(t *testing.T) {
	dir := smallDisk(t, 2<<20)
	// The journal's reopens fail (cutting the failed batch away, their
	// first step, fails) once a write met the full disk: it stays failed.
	var full atomic.Bool
	opts := Options{SegmentSize: 256 << 10, Limits: Limits{MaxCount: -1, MaxBytes: -1},
		FS: growingFS(func(op faultfs.Op, run func() error) error {
			switch {
			case op.Kind == faultfs.WritevAt:
				err := run()
				if errors.Is(err, syscall.ENOSPC) {
					full.Store(true)
				}
				return err
			case op.Kind == faultfs.Truncate && full.Load():
				return fmt.Errorf("the test holds the reopen off: %w", syscall.EIO)
			}
			return run()
		})}
	j := openAt(t, dir, opts)
	ok, err := fillAppends(t, j, 4)
	if !errors.Is(err, ErrFailed) || !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("append on a full disk = %v, want ErrFailed and ENOSPC", err)
	}
	t.Logf("%d appends succeeded before: %v", len(ok), err)
	if _, err := j.Append(context.Background(), "telegram", []Entry{{Key: "a"}}, nil); !errors.Is(err, ErrFailed) {
		t.Errorf("append after the failure = %v, want ErrFailed", err)
	}
	slices.Sort(ok)
	if got := storedIDs(t, j); !slices.Equal(got, ok) {
		t.Errorf("reads after the failure: %d records, %d appends succeeded", len(got), len(ok))
	}
	if err := j.Close(); !errors.Is(err, ErrFailed) {
		t.Errorf("Close of a failed journal = %v, want ErrFailed", err)
	}

	opts.FS = growingFS(nil)
	j = openAt(t, dir, opts) // truncates what the failed batch left
	if got := storedIDs(t, j); !slices.Equal(got, ok) {
		t.Fatalf("after reopen: %d records, %d appends succeeded", len(got), len(ok))
	}
	c, _ := j.Cursor("telegram")
	if !slices.Contains(ok, string(c)) {
		t.Errorf("cursor %q is not one of a successful append", c)
	}
}
