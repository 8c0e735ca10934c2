package main

import (
	"syscall"

	"github.com/chatbus/chatbus/internal/proc"
)

// signalAndWatch sends sig to pid and returns a channel closed when that
// process has exited, by its start time (kern.proc.pid), looked at every
// 50ms: macOS has no pidfd.
func signalAndWatch(pid int, sig syscall.Signal) (<-chan struct{}, error) {
	inc, err := proc.Of(pid)
	if err != nil {
		return nil, err
	}
	return signalAndPoll(inc, sig)
}

// systemdUnit is "" on macOS: there is no systemd.
func systemdUnit(int) string { return "" }
