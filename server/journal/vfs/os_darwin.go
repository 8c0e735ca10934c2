package vfs

import (
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// syncData is what fdatasync(2) promises on Linux, on macOS: fsync(2)
// there only hands the data to the drive, whose cache may still lose it
// on power loss; fcntl F_FULLFSYNC also makes the drive flush its cache
// to stable storage (Apple's fsync(2) man page), and takes the metadata
// with it (as fdatasync does where reading the data back needs it).
//
// F_BARRIERFSYNC is not enough here: a barrier only orders the writes
// before it ahead of those after it, it does not wait for them to be
// stable. The journal's sync ends a group commit: once it returns, the
// records are acknowledged as durable, the provider advances the
// platform's cursor (the platform then forgets them) and followers may be
// told; a record still in the drive's cache at that moment is lost for
// good at a power loss, whatever was ordered after it. So each of those
// syncs must wait for stable storage, which only F_FULLFSYNC does. (The
// one order the journal needs beyond that, a segment's name before its
// records, is kept by syncing the directory, File.Sync and SyncDir, with
// F_FULLFSYNC too: Go's os.File.Sync on macOS is F_FULLFSYNC.)
//
// A file system that does not support F_FULLFSYNC (SMB answers ENOTSUP,
// as os.File.Sync knows; macFUSE answers EINVAL) gets fsync(2): what that
// file system offers. Any other error is the sync's.
func syncData(f *os.File) error {
	_, err := unix.FcntlInt(f.Fd(), unix.F_FULLFSYNC, 0)
	if errors.Is(err, unix.ENOTSUP) || errors.Is(err, unix.EINVAL) {
		err = unix.Fsync(int(f.Fd()))
	}
	return err
}

// errNoPreallocation is Allocate's answer on macOS.
var errNoPreallocation = fmt.Errorf("segments grow as they are written on macOS: %w", errors.ErrUnsupported)

// Allocate reserves nothing on macOS: the journal's segments grow as they
// are written (its errors.ErrUnsupported path). On Linux preallocation
// keeps fdatasync from persisting a size change with every batch, and the
// zeros written over the reserved space keep ext4 from converting
// unwritten extents at each write (server/journal's segment.go). Neither
// pays on macOS: F_FULLFSYNC writes the file's metadata and flushes the
// drive's whole cache at every sync whatever changed, so a size change
// costs nothing more, while the zeros, synced every 2 MiB as the next
// segment is prepared, would each cost a full cache flush of their own in
// front of the writer's. What preallocation also gave, a full disk
// failing the preparation of a segment rather than a batch's write, the
// journal handles either way: a batch whose write fails is cut off and
// the journal reopened (server/journal's reopen.go).
func (o osFile) Allocate(off, n int64) error {
	if n <= 0 {
		return nil
	}
	return errNoPreallocation
}

// DropCache does nothing on macOS, which has no posix_fadvise(2) (advice:
// the contract allows it).
func (o osFile) DropCache() error { return nil }
