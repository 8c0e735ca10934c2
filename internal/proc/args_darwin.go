package proc

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// Args returns the command line of pid: its program and arguments, from
// sysctl kern.procargs2 (argc, the executable's path, padding, then argv).
func Args(pid int) ([]string, error) {
	b, err := unix.SysctlRaw("kern.procargs2", pid)
	if errors.Is(err, unix.ESRCH) {
		return nil, ErrGone
	}
	if err != nil {
		return nil, fmt.Errorf("kern.procargs2 of %d: %w", pid, err)
	}
	if len(b) < 4 {
		return nil, fmt.Errorf("kern.procargs2 of %d: %d bytes", pid, len(b))
	}
	argc := int(binary.LittleEndian.Uint32(b))
	b = b[4:]
	i := bytes.IndexByte(b, 0) // the executable's path
	if i < 0 {
		return nil, nil
	}
	b = bytes.TrimLeft(b[i:], "\x00")
	out := make([]string, 0, argc)
	for len(out) < argc && len(b) > 0 {
		j := bytes.IndexByte(b, 0)
		if j < 0 {
			j = len(b)
		}
		out = append(out, string(b[:j]))
		b = b[min(j+1, len(b)):]
	}
	return out, nil
}
