package supervise

import "syscall"

// childAttr: its own process group, and Pdeathsig: a supervisor that dies
// without stopping its children (SIGKILL, crash) takes them along, so an
// orphan never keeps polling the bot token against the successor's child
// (a platform allowing one poller per token would refuse one of them).
// The kernel ties it to the thread that forks; the Go runtime does not
// retire threads that are not locked, so that thread lives as long as we
// do.
func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
}
