package proc

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// xucredVersion is XUCRED_VERSION of <sys/ucred.h>.
const xucredVersion = 0

// peerCred asks macOS: LOCAL_PEERCRED gives the peer's effective uid (an
// xucred, what getpeereid(3) reads), LOCAL_PEERPID its pid; both are
// recorded at connect(2), as Linux's SO_PEERCRED is.
func peerCred(fd int) (Cred, error) {
	xu, err := unix.GetsockoptXucred(fd, unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	if err != nil {
		return Cred{}, fmt.Errorf("LOCAL_PEERCRED: %w", err)
	}
	if xu.Version != xucredVersion {
		return Cred{}, fmt.Errorf("LOCAL_PEERCRED: xucred version %d, want %d", xu.Version, xucredVersion)
	}
	pid, err := unix.GetsockoptInt(fd, unix.SOL_LOCAL, unix.LOCAL_PEERPID)
	if err != nil {
		return Cred{}, fmt.Errorf("LOCAL_PEERPID: %w", err)
	}
	return Cred{PID: int32(pid), UID: xu.Uid}, nil
}
