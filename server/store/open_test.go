package store

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	bbolt "go.etcd.io/bbolt"
)

// makeStore writes a closed store with some content at path and returns
// its size.
func makeStore(t *testing.T, path string) int64 {
	t.Helper()
	s, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	putBinding(t, s, "b", Target{"telegram", "-100", "7"})
	for i := range 40 {
		c := call("b", fmt.Sprint(i))
		c.Params = bytes.Repeat([]byte{'x'}, 1500)
		if _, _, err := s.BeginCall(c); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() < 8*4096 {
		t.Fatalf("test store is only %d bytes", fi.Size())
	}
	return fi.Size()
}

func writeRandom(t *testing.T, path string, n int) {
	t.Helper()
	b := make([]byte, n)
	_, _ = rand.Read(b)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

func truncateTo(t *testing.T, path string, size func(full int64) int64) {
	t.Helper()
	full := makeStore(t, path)
	if err := os.Truncate(path, size(full)); err != nil {
		t.Fatal(err)
	}
}

// patch overwrites the file at off with b.
func patch(t *testing.T, path string, off int64, b []byte) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt(b, off); err != nil {
		t.Fatal(err)
	}
}

// snapshot captures what Open must not change at path.
type snapshot struct {
	mode  fs.FileMode
	bytes []byte // regular files
}

func snap(t *testing.T, path string) snapshot {
	t.Helper()
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return snapshot{}
	}
	if err != nil {
		t.Fatal(err)
	}
	s := snapshot{mode: fi.Mode()}
	if fi.Mode().IsRegular() {
		if err := os.Chmod(path, 0o600); err != nil { // read even a 0000 file
			t.Fatal(err)
		}
		if s.bytes, err = os.ReadFile(path); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, fi.Mode().Perm()); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func TestOpenRefuses(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(t *testing.T, path string)
		opts    Options
		wantErr error
		wantMsg string
	}{
		{
			name:    "random bytes",
			setup:   func(t *testing.T, path string) { writeRandom(t, path, 64<<10) },
			wantErr: ErrCorrupt,
			wantMsg: "no valid bbolt meta page",
		},
		{
			name:    "a few random bytes",
			setup:   func(t *testing.T, path string) { writeRandom(t, path, 100) },
			wantErr: ErrCorrupt,
		},
		{
			name: "a text file",
			setup: func(t *testing.T, path string) {
				if err := os.WriteFile(path, []byte("telegram_token=...\n"), 0o600); err != nil {
					t.Fatal(err)
				}
			},
			wantErr: ErrCorrupt,
		},
		{
			name:    "truncated to 100 bytes",
			setup:   func(t *testing.T, path string) { truncateTo(t, path, func(int64) int64 { return 100 }) },
			wantErr: ErrCorrupt,
		},
		{
			name:    "truncated to one page",
			setup:   func(t *testing.T, path string) { truncateTo(t, path, func(int64) int64 { return 4096 }) },
			wantErr: ErrCorrupt,
			wantMsg: "truncated",
		},
		{
			name:    "truncated after the two meta pages",
			setup:   func(t *testing.T, path string) { truncateTo(t, path, func(int64) int64 { return 2 * 4096 }) },
			wantErr: ErrCorrupt,
			wantMsg: "truncated",
		},
		{
			name:    "truncated to half",
			setup:   func(t *testing.T, path string) { truncateTo(t, path, func(full int64) int64 { return full / 2 }) },
			wantErr: ErrCorrupt,
			wantMsg: "truncated",
		},
		{
			name: "truncated by one page of the last transaction",
			setup: func(t *testing.T, path string) {
				makeStore(t, path)
				if err := os.Truncate(path, highWater(t, path)-4096); err != nil {
					t.Fatal(err)
				}
			},
			wantErr: ErrCorrupt,
			wantMsg: "truncated",
		},
		{
			name: "both meta pages damaged",
			setup: func(t *testing.T, path string) {
				makeStore(t, path)
				patch(t, path, 16, []byte{0xFF})
				patch(t, path, 4096+16, []byte{0xFF})
			},
			wantErr: ErrCorrupt,
		},
		{
			name: "every data page overwritten",
			setup: func(t *testing.T, path string) {
				full := makeStore(t, path)
				junk := make([]byte, full-2*4096)
				_, _ = rand.Read(junk)
				patch(t, path, 2*4096, junk)
			},
			wantErr: ErrCorrupt,
		},
		{
			name: "freelist page damaged",
			setup: func(t *testing.T, path string) {
				makeStore(t, path)
				m := newestMeta(t, path)
				patch(t, path, int64(m.freelist)*4096+16, bytes.Repeat([]byte{0xEE}, 64)) // ids far past the end
			},
			wantErr: ErrCorrupt,
			wantMsg: "freelist",
		},
		{
			name: "journal page zeroed, found by Verify",
			setup: func(t *testing.T, path string) {
				makeStore(t, path)
				patch(t, path, int64(journalRoot(t, path))*4096, make([]byte, 4096))
			},
			opts:    Options{Verify: true},
			wantErr: ErrCorrupt,
			wantMsg: "consistency check",
		},
		{
			name: "another program's bbolt file",
			setup: func(t *testing.T, path string) {
				db, err := bbolt.Open(path, 0o600, nil)
				if err != nil {
					t.Fatal(err)
				}
				if err := db.Update(func(tx *bbolt.Tx) error { _, err := tx.CreateBucket([]byte("widgets")); return err }); err != nil {
					t.Fatal(err)
				}
				if err := db.Close(); err != nil {
					t.Fatal(err)
				}
			},
			wantErr: ErrCorrupt,
			wantMsg: "without a chatbus schema",
		},
		{
			name: "newer schema",
			setup: func(t *testing.T, path string) {
				makeStore(t, path)
				db, err := bbolt.Open(path, 0o600, nil)
				if err != nil {
					t.Fatal(err)
				}
				if err := db.Update(func(tx *bbolt.Tx) error { return tx.Bucket(bMeta).Put(kSchema, putU64(nil, schemaVersion+1)) }); err != nil {
					t.Fatal(err)
				}
				if err := db.Close(); err != nil {
					t.Fatal(err)
				}
			},
			wantErr: ErrSchemaTooNew,
		},
		{
			name: "a directory",
			setup: func(t *testing.T, path string) {
				if err := os.Mkdir(path, 0o700); err != nil {
					t.Fatal(err)
				}
			},
			wantErr: ErrUnusable,
			wantMsg: "is a directory",
		},
		{
			name: "a named pipe",
			setup: func(t *testing.T, path string) {
				if err := syscall.Mkfifo(path, 0o600); err != nil {
					t.Fatal(err)
				}
			},
			wantErr: ErrUnusable,
			wantMsg: "named pipe",
		},
		{
			// Refused by a mode check, so also when the tests run as root
			// (which could open the file regardless).
			name: "mode 0000",
			setup: func(t *testing.T, path string) {
				makeStore(t, path)
				if err := os.Chmod(path, 0); err != nil {
					t.Fatal(err)
				}
			},
			wantErr: fs.ErrPermission,
			wantMsg: "mode 0000",
		},
		{
			name: "read-only mode 0400",
			setup: func(t *testing.T, path string) {
				makeStore(t, path)
				if err := os.Chmod(path, 0o400); err != nil {
					t.Fatal(err)
				}
			},
			wantErr: fs.ErrPermission,
		},
		{
			name: "locked by another open store",
			setup: func(t *testing.T, path string) {
				makeStore(t, path)
				openAt(t, path, Options{}) // holds the lock until the test ends
			},
			wantErr: ErrLocked,
			wantMsg: "is locked by another process",
		},
		{
			name: "directory missing",
			setup: func(t *testing.T, path string) {
				if err := os.Remove(filepath.Dir(path)); err != nil {
					t.Fatal(err)
				}
			},
			wantErr: fs.ErrNotExist,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "state.db")
			tc.setup(t, path)
			before := snap(t, path)
			s, err := Open(path, tc.opts)
			if err == nil {
				_ = s.Close()
				t.Fatalf("Open succeeded, want %v", tc.wantErr)
			}
			t.Logf("error: %v", err)
			if !errors.Is(err, tc.wantErr) {
				t.Errorf("Open error = %v, want %v", err, tc.wantErr)
			}
			if !strings.Contains(err.Error(), path) {
				t.Errorf("Open error %q does not name the file", err)
			}
			if !strings.Contains(err.Error(), tc.wantMsg) {
				t.Errorf("Open error %q does not say %q", err, tc.wantMsg)
			}
			after := snap(t, path)
			if after.mode != before.mode || !bytes.Equal(after.bytes, before.bytes) {
				t.Errorf("Open changed the file: mode %v → %v, %d → %d bytes, equal %v",
					before.mode, after.mode, len(before.bytes), len(after.bytes), bytes.Equal(after.bytes, before.bytes))
			}
		})
	}
}

func TestOpenAccepts(t *testing.T) {
	tests := []struct {
		name      string
		setup     func(t *testing.T, path string) string // returns the path to open
		wantCalls int                                    // call records of "b" after opening
		unchanged bool                                   // opening and closing must not write
	}{
		{
			name:      "missing file is created",
			setup:     func(t *testing.T, path string) string { return path },
			wantCalls: 0,
		},
		{
			name: "empty file is a new store",
			setup: func(t *testing.T, path string) string {
				if err := os.WriteFile(path, nil, 0o600); err != nil {
					t.Fatal(err)
				}
				return path
			},
			wantCalls: 0,
		},
		{
			name:      "existing store is only read",
			setup:     func(t *testing.T, path string) string { makeStore(t, path); return path },
			wantCalls: 40,
			unchanged: true,
		},
		{
			name: "through a symlink",
			setup: func(t *testing.T, path string) string {
				makeStore(t, path)
				link := path + ".link"
				if err := os.Symlink(path, link); err != nil {
					t.Fatal(err)
				}
				return link
			},
			wantCalls: 40,
			unchanged: true,
		},
		{
			name: "unused tail cut off",
			setup: func(t *testing.T, path string) string {
				makeStore(t, path)
				if err := os.Truncate(path, highWater(t, path)); err != nil {
					t.Fatal(err)
				}
				return path
			},
			wantCalls: 40,
		},
		{
			// bbolt writes the two meta pages alternately; a torn write of
			// one leaves the other, one transaction older.
			name: "one meta page damaged",
			setup: func(t *testing.T, path string) string {
				makeStore(t, path)
				db, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true})
				if err != nil {
					t.Fatal(err)
				}
				var txid int
				_ = db.View(func(tx *bbolt.Tx) error { txid = tx.ID(); return nil })
				_ = db.Close()
				patch(t, path, int64(txid%2)*4096+16, []byte{0xFF}) // the newest meta page
				return path
			},
			wantCalls: 39, // the last BeginCall was the newest transaction
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := tc.setup(t, filepath.Join(t.TempDir(), "state.db"))
			before := snap(t, path)
			s := openAt(t, path, Options{Verify: true})
			got := 0
			for i := range 40 {
				if _, err := s.GetCall("b", fmt.Sprint(i)); err == nil {
					got++
				}
			}
			if err := s.Close(); err != nil {
				t.Fatal(err)
			}
			if got != tc.wantCalls {
				t.Errorf("%d call records, want %d", got, tc.wantCalls)
			}
			fi, err := os.Stat(path)
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != 0o600 {
				t.Errorf("mode %v, want 0600", fi.Mode().Perm())
			}
			if tc.unchanged && !bytes.Equal(snap(t, path).bytes, before.bytes) {
				t.Errorf("opening and closing an existing store changed its bytes")
			}
			// It opens again and takes writes.
			s = openAt(t, path, Options{})
			mustAppend(t, s, "telegram", 0, upd("", 1000, "x"))
		})
	}
}

// newestMeta is the meta page bbolt would use.
func newestMeta(t *testing.T, path string) boltMeta {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m0, ok0 := parseMeta(b)
	m1, ok1 := parseMeta(b[4096:])
	switch {
	case ok0 && (!ok1 || m0.txid > m1.txid):
		return m0
	case ok1:
		return m1
	}
	t.Fatal("no valid meta page")
	return boltMeta{}
}

// highWater is the size the newest transaction needs.
func highWater(t *testing.T, path string) int64 {
	return int64(newestMeta(t, path).pgid) * 4096
}

// journalRoot is the root page of the call records' bucket (the biggest
// bucket makeStore fills; the name is from when it was the journal's).
func journalRoot(t *testing.T, path string) uint64 {
	t.Helper()
	db, err := bbolt.Open(path, 0o600, &bbolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var root uint64
	_ = db.View(func(tx *bbolt.Tx) error {
		root = uint64(tx.Bucket(bCalls).Bucket(bEntries).Root())
		return nil
	})
	if root == 0 {
		t.Fatal("queue bucket is inline")
	}
	return root
}

// TestDamagedPageAfterOpen: damage that Open (without Verify) does not look
// at surfaces as ErrCorrupt from the calls that reach it, not as a crash,
// and the store still closes.
func TestDamagedPageAfterOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	makeStore(t, path)
	patch(t, path, int64(journalRoot(t, path))*4096, make([]byte, 4096))
	s := openAt(t, path, Options{})
	if _, err := s.GetCall("b", "1"); !errors.Is(err, ErrCorrupt) {
		t.Errorf("GetCall = %v, want ErrCorrupt", err)
	}
	if _, _, err := s.BeginCall(call("b", "new")); err == nil {
		t.Errorf("BeginCall into the damaged bucket succeeded")
	}
	if _, err := s.GetBinding("b"); err != nil {
		t.Errorf("GetBinding (undamaged) = %v", err)
	}
	if err := s.Close(); err != nil {
		t.Errorf("Close = %v", err)
	}
}

// TestOpenAfterLockReleased: the lock is the other holder's only while it
// has the store open.
func TestOpenAfterLockReleased(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	first := openAt(t, path, Options{})
	if _, err := Open(path, Options{LockTimeout: 100e6}); !errors.Is(err, ErrLocked) {
		t.Fatalf("second Open = %v, want ErrLocked", err)
	}
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	s := openAt(t, path, Options{})
	if _, err := s.Append(context.Background(), "telegram", nil, cur(1)); err != nil {
		t.Fatal(err)
	}
}
