package vfs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"

	"github.com/gofrs/flock"
	"golang.org/x/sys/unix"
)

// Default is the operating system's file system. What differs between
// operating systems (the durability call, preallocation, cache advice) is
// in os_<os>.go.
var Default FS = osFS{}

type osFS struct{}

func (osFS) MkdirAll(dir string, perm os.FileMode) error { return os.MkdirAll(dir, perm) }

func (osFS) List(dir string) ([]string, error) {
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(des))
	for i, de := range des {
		names[i] = de.Name()
	}
	return names, nil
}

func (osFS) Create(name string) (File, error) {
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	return osFile{f}, nil
}

func (osFS) OpenReadWrite(name string) (File, error) {
	f, err := os.OpenFile(name, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	return osFile{f}, nil
}

func (osFS) Remove(name string) error { return os.Remove(name) }

func (osFS) SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("sync directory %s: %w", dir, err)
	}
	return nil
}

// lockRetry is how often Lock tries again while another holder has it.
const lockRetry = 10 * time.Millisecond

func (osFS) Lock(ctx context.Context, name string) (io.Closer, error) {
	l := flock.New(name, flock.SetPermissions(0o600))
	retry := lockRetry
	if d, ok := ctx.Deadline(); ok {
		retry = max(min(retry, time.Until(d)), time.Millisecond)
	}
	locked, err := l.TryLockContext(ctx, retry)
	switch {
	case err != nil:
		return nil, err
	case !locked:
		return nil, context.DeadlineExceeded
	}
	return flockCloser{l}, nil
}

type flockCloser struct{ l *flock.Flock }

func (c flockCloser) Close() error { return c.l.Unlock() }

type osFile struct{ f *os.File }

func (o osFile) ReadAt(p []byte, off int64) (int, error)  { return o.f.ReadAt(p, off) }
func (o osFile) WriteAt(p []byte, off int64) (int, error) { return o.f.WriteAt(p, off) }
func (o osFile) Truncate(size int64) error                { return o.f.Truncate(size) }
func (o osFile) Sync() error                              { return o.f.Sync() }
func (o osFile) Close() error                             { return o.f.Close() }

func (o osFile) Size() (int64, error) {
	fi, err := o.f.Stat()
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

// errShortWrite: the kernel took part of a write without an error.
var errShortWrite = errors.New("short write")

func (o osFile) WritevAt(iov [][]byte, off int64) error {
	const iovMax = 1024
	fd := int(o.f.Fd())
	for len(iov) > 0 {
		n, err := unix.Pwritev(fd, iov[:min(len(iov), iovMax)], off)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return err
		}
		if n == 0 {
			return errShortWrite
		}
		off += int64(n)
		for n > 0 {
			if n >= len(iov[0]) {
				n -= len(iov[0])
				iov = iov[1:]
				continue
			}
			iov[0] = iov[0][n:]
			n = 0
		}
	}
	return nil
}

func (o osFile) SyncData() error {
	for {
		err := dataSync(o.f)
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}

// dataSync is the system call of File.SyncData (os_<os>.go), a variable
// so that a test can count where the journal reaches it.
var dataSync = syncData
