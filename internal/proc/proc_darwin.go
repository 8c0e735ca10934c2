package proc

import (
	"errors"
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// sZomb is SZOMB of <sys/proc.h>: the process has exited and waits to be
// reaped.
const sZomb = 5

// startTime asks the kern.proc.pid sysctl (what ps(1) reads; no privilege
// needed for another process of any user) for the process's kinfo_proc:
// its p_starttime, in microseconds since the epoch. The kernel answers a
// pid no process has with nothing.
func startTime(pid int) (uint64, error) {
	b, err := unix.SysctlRaw("kern.proc.pid", pid)
	if errors.Is(err, unix.ESRCH) || (err == nil && len(b) == 0) {
		return 0, fmt.Errorf("pid %d: %w", pid, ErrGone)
	}
	if err != nil {
		return 0, fmt.Errorf("pid %d: sysctl kern.proc.pid: %w", pid, err)
	}
	if len(b) < unix.SizeofKinfoProc {
		return 0, fmt.Errorf("pid %d: sysctl kern.proc.pid: %d bytes, want %d", pid, len(b), unix.SizeofKinfoProc)
	}
	var kp unix.KinfoProc
	copy(unsafe.Slice((*byte)(unsafe.Pointer(&kp)), unix.SizeofKinfoProc), b)
	if kp.Proc.P_stat == sZomb {
		return 0, fmt.Errorf("pid %d is a zombie: %w", pid, ErrGone)
	}
	st := kp.Proc.P_starttime
	return uint64(st.Sec)*1_000_000 + uint64(st.Usec), nil
}
