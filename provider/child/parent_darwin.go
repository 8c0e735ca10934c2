package child

import (
	"context"
	"errors"
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// errParentExited is the cause of Exec's context when the supervisor that
// started the child has exited.
var errParentExited = errors.New("the supervisor that started this provider has exited")

// untilParentExits returns ctx, cancelled once the process that started
// this one exits: macOS has no Pdeathsig (server/supervise's
// child_linux.go), so the child watches its parent itself, so that an
// orphan never keeps polling the bot token against the successor's child.
// The kernel reports the exit (kqueue EVFILT_PROC NOTE_EXIT on the
// parent's pid); a parent already gone (the child was reparented to
// launchd, pid 1) cancels at once. Where the watch cannot be set up, ctx
// is returned as it is and the reason is written to stderr.
func untilParentExits(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancelCause(ctx)
	stop := func() { cancel(nil) }
	ppid := os.Getppid()
	if ppid == 1 {
		cancel(errParentExited)
		return ctx, stop
	}
	kq, err := unix.Kqueue()
	if err != nil {
		fmt.Fprintf(os.Stderr, "provider: cannot watch the supervisor (pid %d) for its exit: kqueue: %v\n", ppid, err)
		return ctx, stop
	}
	watch := unix.Kevent_t{Ident: uint64(ppid), Filter: unix.EVFILT_PROC, Flags: unix.EV_ADD | unix.EV_ONESHOT, Fflags: unix.NOTE_EXIT}
	_, err = unix.Kevent(kq, []unix.Kevent_t{watch}, nil, nil)
	if err == nil && os.Getppid() != ppid { // it exited before the watch was set
		err = unix.ESRCH
	}
	switch {
	case errors.Is(err, unix.ESRCH):
		unix.Close(kq)
		cancel(errParentExited)
		return ctx, stop
	case err != nil:
		unix.Close(kq)
		fmt.Fprintf(os.Stderr, "provider: cannot watch the supervisor (pid %d) for its exit: kevent: %v\n", ppid, err)
		return ctx, stop
	}
	// The goroutine owns kq; it waits as long as the process lives (Exec
	// ends it with os.Exit).
	go func() {
		defer unix.Close(kq)
		ev := make([]unix.Kevent_t, 1)
		for {
			n, err := unix.Kevent(kq, nil, ev, nil)
			if errors.Is(err, unix.EINTR) {
				continue
			}
			if err == nil && n == 1 && ev[0].Fflags&unix.NOTE_EXIT != 0 {
				cancel(errParentExited)
			}
			return
		}
	}()
	return ctx, stop
}
