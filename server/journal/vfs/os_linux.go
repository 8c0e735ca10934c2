package vfs

import (
	"errors"
	"os"

	"golang.org/x/sys/unix"
)

// syncData is fdatasync(2).
func syncData(f *os.File) error { return unix.Fdatasync(int(f.Fd())) }

func (o osFile) Allocate(off, n int64) error {
	if n <= 0 {
		return nil
	}
	err := unix.Fallocate(int(o.f.Fd()), 0, off, n)
	if errors.Is(err, unix.EOPNOTSUPP) || errors.Is(err, unix.ENOSYS) {
		return writeZeros(o.f, off, off+n)
	}
	return err
}

// writeZeros writes zeros over [from, to) of f, 1 MiB at a time (Allocate
// where fallocate(2) is not supported; the caller syncs).
func writeZeros(f *os.File, from, to int64) error {
	const chunk = 1 << 20
	zeros := make([]byte, min(chunk, to-from))
	for off := from; off < to; {
		n := min(int64(len(zeros)), to-off)
		if _, err := f.WriteAt(zeros[:n], off); err != nil {
			return err
		}
		off += n
	}
	return nil
}

func (o osFile) DropCache() error {
	return unix.Fadvise(int(o.f.Fd()), 0, 0, unix.FADV_DONTNEED)
}
