// Package vfs is the file system under the journal: the operations the
// journal makes on its directory and its segment files, behind a small
// interface (as pebble's vfs), so that a test can put faults under a real
// journal (package faultfs wraps an FS) while the product runs on the
// operating system's (Default). The journal makes every file operation
// through it: nothing of the journal touches os or unix directly.
//
// The interface is no wider than what the journal needs; its contracts
// are the system calls' it names, because the journal's durability
// argument rests on them (server/journal's package doc).
package vfs

import (
	"context"
	"io"
	"os"
)

// FS is a file system. Implementations are safe for concurrent use.
type FS interface {
	// MkdirAll creates dir and any missing parents with perm, as
	// os.MkdirAll.
	MkdirAll(dir string, perm os.FileMode) error
	// List returns the names of the entries of dir, in no particular order.
	List(dir string) ([]string, error)
	// Create creates the file name, read-write, mode 0600; it fails if name
	// exists (O_EXCL).
	Create(name string) (File, error)
	// OpenReadWrite opens the existing file name read-write.
	OpenReadWrite(name string) (File, error)
	// Remove removes the file name.
	Remove(name string) error
	// SyncDir makes the entries of dir durable: the names created in or
	// removed from it before the call survive a crash (fsync(2) of the
	// directory; on macOS F_FULLFSYNC, as os.File.Sync does there).
	SyncDir(dir string) error
	// Lock takes an exclusive advisory lock on the file name (created 0600
	// if missing), retrying until ctx ends; then it fails with ctx's error.
	// Closing the result releases the lock. The lock is held by the
	// process, not by the goroutine.
	Lock(ctx context.Context, name string) (io.Closer, error)
}

// File is an open file. Its methods may be called concurrently; reads and
// writes at offsets do not move a file position (there is none).
type File interface {
	io.ReaderAt
	io.WriterAt
	// WritevAt writes every byte of bufs, in order, at off: one pwritev(2)
	// per at most 1024 buffers, more only after a short write. It may
	// modify bufs (not the bytes they hold).
	WritevAt(bufs [][]byte, off int64) error
	// Size returns the file's size.
	Size() (int64, error)
	// Truncate sets the file's size, as ftruncate(2).
	Truncate(size int64) error
	// Allocate reserves the space of [off, off+n), so that writes there do
	// not need new space, and makes the file at least off+n bytes long
	// (fallocate(2), mode 0; where the file system cannot, zeros are
	// written over the range). An error matching errors.ErrUnsupported
	// means this file system reserves nothing ahead of writes: its files
	// grow as they are written, and nothing was changed (the operating
	// system's on macOS).
	Allocate(off, n int64) error
	// Sync makes the file's data and metadata durable (fsync(2); on macOS
	// F_FULLFSYNC, as os.File.Sync does there).
	Sync() error
	// SyncData makes the file's data durable, and its metadata only as far
	// as reading the data back needs it (fdatasync(2); on macOS
	// fcntl F_FULLFSYNC, which also flushes the drive's cache: os_<os>.go):
	// the journal's one sync per group commit.
	SyncData() error
	// DropCache tells the system that the file's cached pages will not be
	// needed, so that the next reads come from the disk (posix_fadvise(2)
	// POSIX_FADV_DONTNEED: clean pages only). Advice: it may do nothing
	// (on macOS it does nothing).
	DropCache() error
	// Close closes the file.
	Close() error
}
