//go:build soak && linux

package e2e

import "golang.org/x/sys/unix"

// limitFileSize sets the soft file size limit (RLIMIT_FSIZE) of process
// pid to n bytes (unix.RLIM_INFINITY: none), its hard limit kept: its
// writes to a regular file past n bytes fail with EFBIG (a Go program
// ignores the SIGXFSZ that comes with them). No privilege is needed for a
// process of one's own.
func limitFileSize(pid int, n uint64) error {
	var cur unix.Rlimit
	if err := unix.Prlimit(pid, unix.RLIMIT_FSIZE, nil, &cur); err != nil {
		return err
	}
	return unix.Prlimit(pid, unix.RLIMIT_FSIZE, &unix.Rlimit{Cur: min(n, cur.Max), Max: cur.Max}, nil)
}

// noFileSizeLimit is limitFileSize's "no limit".
const noFileSizeLimit = unix.RLIM_INFINITY
