package vfs_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/chatbus/chatbus/server/journal"
	"github.com/chatbus/chatbus/server/journal/vfs"
	"github.com/chatbus/chatbus/server/journal/vfs/faultfs"
)

// TestJournalReachesDurabilityCall: the journal's sync of each group
// commit, File.SyncData of the operating system's file system, reaches this
// OS's durability system call (os_<os>.go: fdatasync on Linux,
// F_FULLFSYNC on macOS) exactly once, on the segment just written, before
// the Append returns; and nothing else of the journal reaches it. Run on
// Linux it covers macOS's shape too: segments that grow as they are
// written (Allocate unsupported) as well as preallocated ones.
func TestJournalReachesDurabilityCall(t *testing.T) {
	for _, tc := range []struct {
		name    string
		growing bool
	}{
		{name: "preallocated segments (Linux)"},
		{name: "growing segments (macOS)", growing: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var (
				mu       sync.Mutex
				osCalls  []string           // the files the durability call was made on
				syncOps  int                // File.SyncData calls
				unsynced = map[string]int{} // batches written and not yet synced, by file
				batches  int                // SyncData calls that synced a batch
				wrong    []string
			)
			restore := vfs.SetDataSync(func(f *os.File, real func(*os.File) error) error {
				mu.Lock()
				osCalls = append(osCalls, f.Name())
				mu.Unlock()
				return real(f)
			})
			defer restore()
			// SyncData operations are serialized, so that the durability
			// calls made during one are its own.
			var syncMu sync.Mutex
			fs := faultfs.New(vfs.Default, func(op faultfs.Op, run func() error) error {
				switch op.Kind {
				case faultfs.Allocate:
					if tc.growing {
						return fmt.Errorf("test: %w", errors.ErrUnsupported)
					}
				case faultfs.WritevAt:
					err := run()
					mu.Lock()
					unsynced[op.Path]++
					mu.Unlock()
					return err
				case faultfs.SyncData:
					syncMu.Lock()
					defer syncMu.Unlock()
					mu.Lock()
					before := len(osCalls)
					mu.Unlock()
					err := run()
					mu.Lock()
					defer mu.Unlock()
					syncOps++
					made := osCalls[before:]
					if len(made) != 1 || made[0] != op.Path {
						wrong = append(wrong, fmt.Sprintf("SyncData of %s made the durability call on %q", filepath.Base(op.Path), made))
					}
					if op.Unsynced.Has(faultfs.WritevAt) {
						batches++
						unsynced[op.Path] = 0
					}
					return err
				}
				return run()
			})
			j, err := journal.Open(t.TempDir(), journal.Options{
				SegmentSize: 256 << 10, FS: fs,
				Limits: journal.Limits{MaxCount: -1, MaxBytes: -1},
			})
			if err != nil {
				t.Fatal(err)
			}
			defer j.Close()
			data := []byte(strings.Repeat("x", 8<<10))
			const appends = 100 // about three segments
			for i := range appends {
				mu.Lock()
				batches0 := batches
				mu.Unlock()
				e := journal.Entry{Key: "manual:1", DedupID: fmt.Sprint(i), Data: data}
				if _, err := j.Append(context.Background(), "telegram", []journal.Entry{e}, fmt.Append(nil, i)); err != nil {
					t.Fatal(err)
				}
				mu.Lock()
				for path, n := range unsynced {
					if n > 0 {
						t.Errorf("append %d returned with %d batch(es) of %s written and not synced", i, n, filepath.Base(path))
					}
				}
				if batches == batches0 {
					t.Errorf("append %d returned without a batch's sync", i)
				}
				mu.Unlock()
			}
			if err := j.Close(); err != nil {
				t.Fatal(err)
			}
			mu.Lock()
			defer mu.Unlock()
			for _, w := range wrong {
				t.Error(w)
			}
			if len(osCalls) != syncOps {
				t.Errorf("%d durability calls for %d File.SyncData calls: something else of the journal reaches it", len(osCalls), syncOps)
			}
			segs := map[string]bool{}
			for _, p := range osCalls {
				segs[filepath.Base(p)] = true
			}
			if len(segs) < 3 {
				t.Errorf("durability calls on %d segment(s), want at least 3: %v", len(segs), segs)
			}
			t.Logf("%d appends: %d batch syncs, %d durability calls in all, on %d segments", appends, batches, len(osCalls), len(segs))
		})
	}
}
