// Package faultfs wraps a vfs.FS so that a test decides the outcome of
// each file operation: every operation is handed to a Hook, which may run
// it and pass its result on, fail it without running it, change its
// error, or block it (to hold the journal's writer at that point). The
// files are real: wrap vfs.Default over a t.TempDir() (or a small tmpfs,
// for a disk that really fills up).
//
// It is the journal's one fault seam: the journal's own tests use it, and
// so does supervisord built with -tags chatbus_testhooks, whose end-to-end
// test makes the journal's fdatasyncs fail under a running supervisor.
package faultfs

import (
	"context"
	"io"
	"os"
	"sync"

	"github.com/chatbus/chatbus/server/journal/vfs"
)

// Kind names an operation.
type Kind uint8

// Operations of vfs.FS and vfs.File.
const (
	MkdirAll Kind = iota + 1
	List
	Create
	OpenReadWrite
	Remove
	SyncDir
	Lock
	ReadAt
	WriteAt
	WritevAt
	Size
	Truncate
	Allocate
	Sync
	SyncData
	DropCache
	Close
)

var kindNames = [...]string{MkdirAll: "MkdirAll", List: "List", Create: "Create", OpenReadWrite: "OpenReadWrite",
	Remove: "Remove", SyncDir: "SyncDir", Lock: "Lock", ReadAt: "ReadAt", WriteAt: "WriteAt", WritevAt: "WritevAt",
	Size: "Size", Truncate: "Truncate", Allocate: "Allocate", Sync: "Sync", SyncData: "SyncData",
	DropCache: "DropCache", Close: "Close"}

func (k Kind) String() string {
	if int(k) < len(kindNames) && kindNames[k] != "" {
		return kindNames[k]
	}
	return "Kind(?)"
}

// Kinds is a set of operation kinds.
type Kinds uint32

// Has reports whether k is in the set.
func (s Kinds) Has(k Kind) bool { return s&(1<<k) != 0 }

func (s *Kinds) add(k Kind) { *s |= 1 << k }

// Op is one operation.
type Op struct {
	Kind Kind
	// Path is the file's, or the directory's.
	Path string
	// Off and Len are the range of ReadAt, WriteAt, WritevAt (Len: all
	// its buffers) and Allocate; Off is the new size of Truncate.
	Off, Len int64
	// Unsynced, for an operation on an open file, is the kinds of change
	// (WriteAt, WritevAt, Truncate, Allocate) made through this File since
	// its last Sync or SyncData. The journal writes each group commit
	// with one WritevAt and then syncs it with SyncData: a SyncData whose
	// Unsynced has WritevAt is a batch's fdatasync (the zeros of a segment
	// prepared ahead are written with WriteAt).
	Unsynced Kinds
}

// Hook decides the outcome of op: run performs it and returns its error.
// A Hook returns the operation's error, usually run's; it may return
// another without calling run (the operation is then not made), or block
// before or after run. It is called from the journal's goroutines,
// concurrently: it must be safe for that.
type Hook func(op Op, run func() error) error

// New returns fs with every operation handed to hook.
func New(fs vfs.FS, hook Hook) vfs.FS { return &faultFS{fs: fs, hook: hook} }

type faultFS struct {
	fs   vfs.FS
	hook Hook
}

func (f *faultFS) do(op Op, run func() error) error { return f.hook(op, run) }

func (f *faultFS) MkdirAll(dir string, perm os.FileMode) error {
	return f.do(Op{Kind: MkdirAll, Path: dir}, func() error { return f.fs.MkdirAll(dir, perm) })
}

func (f *faultFS) List(dir string) (names []string, err error) {
	err = f.do(Op{Kind: List, Path: dir}, func() error { names, err = f.fs.List(dir); return err })
	if err != nil {
		return nil, err
	}
	return names, nil
}

func (f *faultFS) Create(name string) (vfs.File, error) {
	var file vfs.File
	err := f.do(Op{Kind: Create, Path: name}, func() (err error) { file, err = f.fs.Create(name); return err })
	return f.wrap(name, file, err)
}

func (f *faultFS) OpenReadWrite(name string) (vfs.File, error) {
	var file vfs.File
	err := f.do(Op{Kind: OpenReadWrite, Path: name}, func() (err error) { file, err = f.fs.OpenReadWrite(name); return err })
	return f.wrap(name, file, err)
}

// wrap returns file wrapped, or err; a file opened by run but failed by
// the hook is closed.
func (f *faultFS) wrap(name string, file vfs.File, err error) (vfs.File, error) {
	if err != nil {
		if file != nil {
			_ = file.Close()
		}
		return nil, err
	}
	return &faultFile{fs: f, path: name, f: file}, nil
}

func (f *faultFS) Remove(name string) error {
	return f.do(Op{Kind: Remove, Path: name}, func() error { return f.fs.Remove(name) })
}

func (f *faultFS) SyncDir(dir string) error {
	return f.do(Op{Kind: SyncDir, Path: dir}, func() error { return f.fs.SyncDir(dir) })
}

func (f *faultFS) Lock(ctx context.Context, name string) (io.Closer, error) {
	var c io.Closer
	err := f.do(Op{Kind: Lock, Path: name}, func() (err error) { c, err = f.fs.Lock(ctx, name); return err })
	if err != nil {
		if c != nil {
			_ = c.Close()
		}
		return nil, err
	}
	return c, nil
}

type faultFile struct {
	fs   *faultFS
	path string
	f    vfs.File

	mu       sync.Mutex // guards unsynced
	unsynced Kinds
}

// do runs op through the hook, recording the changes it makes since the
// last sync (those the hook let through or not: an attempted change
// counts).
func (f *faultFile) do(op Op, run func() error) error {
	f.mu.Lock()
	op.Path, op.Unsynced = f.path, f.unsynced
	switch op.Kind {
	case WriteAt, WritevAt, Truncate, Allocate:
		f.unsynced.add(op.Kind)
	case Sync, SyncData:
		f.unsynced = 0
	}
	f.mu.Unlock()
	return f.fs.do(op, run)
}

func (f *faultFile) ReadAt(p []byte, off int64) (n int, err error) {
	err = f.do(Op{Kind: ReadAt, Off: off, Len: int64(len(p))}, func() error { n, err = f.f.ReadAt(p, off); return err })
	return n, err
}

func (f *faultFile) WriteAt(p []byte, off int64) (n int, err error) {
	err = f.do(Op{Kind: WriteAt, Off: off, Len: int64(len(p))}, func() error { n, err = f.f.WriteAt(p, off); return err })
	return n, err
}

func (f *faultFile) WritevAt(bufs [][]byte, off int64) error {
	var n int64
	for _, b := range bufs {
		n += int64(len(b))
	}
	return f.do(Op{Kind: WritevAt, Off: off, Len: n}, func() error { return f.f.WritevAt(bufs, off) })
}

func (f *faultFile) Size() (size int64, err error) {
	err = f.do(Op{Kind: Size}, func() error { size, err = f.f.Size(); return err })
	return size, err
}

func (f *faultFile) Truncate(size int64) error {
	return f.do(Op{Kind: Truncate, Off: size}, func() error { return f.f.Truncate(size) })
}

func (f *faultFile) Allocate(off, n int64) error {
	return f.do(Op{Kind: Allocate, Off: off, Len: n}, func() error { return f.f.Allocate(off, n) })
}

func (f *faultFile) Sync() error     { return f.do(Op{Kind: Sync}, f.f.Sync) }
func (f *faultFile) SyncData() error { return f.do(Op{Kind: SyncData}, f.f.SyncData) }
func (f *faultFile) DropCache() error {
	return f.do(Op{Kind: DropCache}, f.f.DropCache)
}
func (f *faultFile) Close() error { return f.do(Op{Kind: Close}, f.f.Close) }
