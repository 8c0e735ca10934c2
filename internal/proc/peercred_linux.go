package proc

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// peerCred asks Linux: SO_PEERCRED gives the peer's pid, uid and gid as
// they were at connect(2).
func peerCred(fd int) (Cred, error) {
	uc, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil {
		return Cred{}, fmt.Errorf("SO_PEERCRED: %w", err)
	}
	return Cred{PID: uc.Pid, UID: uc.Uid}, nil
}
