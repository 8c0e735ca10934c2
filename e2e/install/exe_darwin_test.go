package install

import (
	"bytes"
	"fmt"

	"golang.org/x/sys/unix"
)

// executable is the file pid runs: the path it was started from (the
// kern.procargs2 sysctl: argc, then that path).
func executable(pid int) (string, error) {
	b, err := unix.SysctlRaw("kern.procargs2", pid)
	if err != nil {
		return "", err
	}
	if len(b) < 4 {
		return "", fmt.Errorf("pid %d: kern.procargs2: %d bytes", pid, len(b))
	}
	path, _, _ := bytes.Cut(b[4:], []byte{0})
	return string(path), nil
}
