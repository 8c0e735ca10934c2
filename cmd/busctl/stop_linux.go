package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/chatbus/chatbus/internal/proc"
)

// signalAndWatch sends sig to pid and returns a channel closed when that
// process has exited. Through a pidfd where the kernel has them (the
// signal cannot reach a process that took over a recycled pid, and the
// exit is the kernel's word, zombie or not); else by its start time in
// /proc, looked at every 50ms.
func signalAndWatch(pid int, sig syscall.Signal) (<-chan struct{}, error) {
	inc, err := proc.Of(pid)
	if err != nil {
		return nil, err
	}
	exited := make(chan struct{})
	fd, err := unix.PidfdOpen(pid, 0)
	if err == nil {
		if alive, _ := proc.Alive(inc); !alive { // the pidfd may name a successor
			unix.Close(fd)
			return nil, fmt.Errorf("pid %d: %w", pid, proc.ErrGone)
		}
		if err := unix.PidfdSendSignal(fd, sig, nil, 0); err != nil {
			unix.Close(fd)
			if errors.Is(err, unix.ESRCH) {
				return nil, fmt.Errorf("pid %d: %w", pid, proc.ErrGone)
			}
			return nil, err
		}
		// The goroutine owns fd; it ends when the process does (an abandoned
		// wait ends with busctl).
		go func() {
			defer unix.Close(fd)
			defer close(exited)
			for {
				_, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, -1)
				if !errors.Is(err, unix.EINTR) {
					return
				}
			}
		}()
		return exited, nil
	}
	if !errors.Is(err, unix.ENOSYS) && !errors.Is(err, unix.EPERM) {
		return nil, fmt.Errorf("pidfd_open %d: %w", pid, err)
	}
	return signalAndPoll(inc, sig)
}

// systemdUnit names the systemd service pid runs in ("supervisord@default.service"),
// "" if it is not one (a terminal's scope, no systemd).
func systemdUnit(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", pid))
	if err != nil {
		return ""
	}
	return unitOfCgroup(string(b))
}

// unitOfCgroup is the service a /proc/<pid>/cgroup names: the last element
// of the unified hierarchy's path ("0::/user.slice/…/app.slice/x.service"),
// when it is a service other than the user manager itself.
func unitOfCgroup(cgroup string) string {
	for _, line := range strings.Split(cgroup, "\n") {
		path, ok := strings.CutPrefix(line, "0::")
		if !ok {
			continue
		}
		last := filepath.Base(path)
		if strings.HasSuffix(last, ".service") && !strings.HasPrefix(last, "user@") {
			return last
		}
	}
	return ""
}
