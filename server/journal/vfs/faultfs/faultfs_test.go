package faultfs_test

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"syscall"
	"testing"

	"github.com/chatbus/chatbus/server/journal/vfs"
	"github.com/chatbus/chatbus/server/journal/vfs/faultfs"
)

// recorder is a Hook that runs every operation, records it, and fails
// the kinds in fail without running them.
type recorder struct {
	mu   sync.Mutex
	ops  []faultfs.Op
	fail map[faultfs.Kind]error
}

func (r *recorder) hook(op faultfs.Op, run func() error) error {
	r.mu.Lock()
	r.ops = append(r.ops, op)
	err, failed := r.fail[op.Kind]
	r.mu.Unlock()
	if failed {
		return err
	}
	return run()
}

func (r *recorder) last() faultfs.Op {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ops[len(r.ops)-1]
}

// TestUnsynced: a sync is told which kinds of change it makes durable,
// so that a hook can tell a batch's fdatasync (after a WritevAt) from the
// sync of zeros written ahead (WriteAt) or of a cut (Truncate).
func TestUnsynced(t *testing.T) {
	tests := []struct {
		name    string
		changes func(f vfs.File) error
		sync    func(f vfs.File) error
		want    []faultfs.Kind
		wantNot []faultfs.Kind
	}{
		{name: "a batch: writev, then fdatasync",
			changes: func(f vfs.File) error { return f.WritevAt([][]byte{[]byte("ab"), []byte("cd")}, 0) },
			sync:    vfs.File.SyncData, want: []faultfs.Kind{faultfs.WritevAt}, wantNot: []faultfs.Kind{faultfs.WriteAt}},
		{name: "zeros written ahead",
			changes: func(f vfs.File) error { _, err := f.WriteAt(make([]byte, 8), 0); return err },
			sync:    vfs.File.SyncData, want: []faultfs.Kind{faultfs.WriteAt}, wantNot: []faultfs.Kind{faultfs.WritevAt}},
		{name: "a cut, then fsync",
			changes: func(f vfs.File) error { return f.Truncate(0) },
			sync:    vfs.File.Sync, want: []faultfs.Kind{faultfs.Truncate}, wantNot: []faultfs.Kind{faultfs.WritevAt}},
		{name: "a sync right after a sync makes nothing new durable",
			changes: func(f vfs.File) error { return f.SyncData() },
			sync:    vfs.File.SyncData, wantNot: []faultfs.Kind{faultfs.WriteAt, faultfs.WritevAt, faultfs.Truncate}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := &recorder{}
			fs := faultfs.New(vfs.Default, r.hook)
			f, err := fs.Create(filepath.Join(t.TempDir(), "seg"))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if err := tc.changes(f); err != nil {
				t.Fatal(err)
			}
			if err := tc.sync(f); err != nil {
				t.Fatal(err)
			}
			op := r.last()
			for _, k := range tc.want {
				if !op.Unsynced.Has(k) {
					t.Errorf("%s: Unsynced lacks %s", op.Kind, k)
				}
			}
			for _, k := range tc.wantNot {
				if op.Unsynced.Has(k) {
					t.Errorf("%s: Unsynced has %s", op.Kind, k)
				}
			}
		})
	}
}

// TestFailWithoutRunning: an operation the hook fails without running is
// not made, and its error is the hook's; a file whose open the hook
// failed is not handed out; Allocate can say the file system reserves
// nothing.
func TestFailWithoutRunning(t *testing.T) {
	dir := t.TempDir()
	r := &recorder{fail: map[faultfs.Kind]error{
		faultfs.WritevAt: syscall.ENOSPC,
		faultfs.Allocate: errors.ErrUnsupported,
	}}
	fs := faultfs.New(vfs.Default, r.hook)
	path := filepath.Join(dir, "seg")
	f, err := fs.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.WritevAt([][]byte{[]byte("data")}, 0); !errors.Is(err, syscall.ENOSPC) {
		t.Errorf("WritevAt = %v, want the hook's ENOSPC", err)
	}
	if err := f.Allocate(0, 1<<20); !errors.Is(err, errors.ErrUnsupported) {
		t.Errorf("Allocate = %v, want ErrUnsupported", err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Size() != 0 {
		t.Errorf("the file after failed operations: %v, %v; want it empty", fi, err)
	}
	if op := r.last(); op.Kind != faultfs.Allocate || op.Off != 0 || op.Len != 1<<20 || op.Path != path {
		t.Errorf("last op %+v", op)
	}

	r.mu.Lock()
	r.fail[faultfs.OpenReadWrite] = syscall.EIO
	r.mu.Unlock()
	if g, err := fs.OpenReadWrite(path); !errors.Is(err, syscall.EIO) || g != nil {
		t.Errorf("OpenReadWrite = %v, %v; want no file and EIO", g, err)
	}
}
