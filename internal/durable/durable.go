// Package durable makes a file written in a temporary name and renamed
// into place survive a crash: the rename is a change of the directory,
// and it is on disk only once the directory is synced. (A crash after an
// unsynced rename may leave the old name, or neither name, however well
// the file's own bytes were synced.)
package durable

import (
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
)

// Rename renames from to to (from's bytes synced by the caller) and
// syncs to's directory, so that the new name survives a crash.
func Rename(from, to string) error {
	if err := os.Rename(from, to); err != nil {
		return err
	}
	return SyncDir(filepath.Dir(to))
}

// SyncDir syncs dir: the entries created, renamed or removed in it are on
// disk when it returns.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync directory: %w", err)
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("sync directory %s: %w", dir, err)
	}
	if h := synced.Load(); h != nil {
		(*h)(dir)
	}
	return nil
}

// synced, if set (by tests, OnSyncDir), is told each directory synced.
var synced atomic.Pointer[func(dir string)]

// OnSyncDir has f told each directory SyncDir synced, until restore: a
// test checks that a writer made its rename durable.
func OnSyncDir(f func(dir string)) (restore func()) {
	synced.Store(&f)
	return func() { synced.Store(nil) }
}
