package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/chatbus/chatbus/client"
	"github.com/chatbus/chatbus/internal/proc"
)

// defaultStopTimeout is the systemd unit's TimeoutStopSec: a stop that
// takes longer there is cut short with SIGKILL.
const defaultStopTimeout = 15 * time.Second

func (a *app) stopCmd() *cobra.Command {
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "stop",
		Short: "Stop the profile's supervisord gracefully and wait until it has exited",
		Long: `stop asks the profile's supervisord to stop (SIGTERM, the signal systemd sends)
and waits until the process has exited, so that the socket no longer
answers and a new start finds nothing in its way. A graceful stop loses
nothing: updates not yet acknowledged stay journalled for the followers'
next session, calls not yet sent stay in the outbox.

It signals only the process that serves the socket (as the socket's peer
credentials say) and only when it runs as the same user.

Exit codes: 0 stopped; 3 it was not running; 4 it is another user's;
1 it has not exited within --timeout (it is still stopping: its log says
why), or something else serves the socket now.

A supervisord that systemd started (supervisord@<profile>.service) stays
stopped after a graceful stop (the unit restarts only on failure);
systemctl --user start supervisord@<profile> starts it again.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.stop(cmd, timeout) },
	}
	// --timeout shadows the global one: it bounds the whole wait.
	cmd.Flags().DurationVar(&timeout, "timeout", defaultStopTimeout, "how long to wait for supervisord to exit")
	return cmd
}

func (a *app) stop(cmd *cobra.Command, timeout time.Duration) error {
	p, err := a.paths()
	if err != nil {
		return err
	}
	if !answers(p.Socket) && socketRefusal(p.Socket) == nil {
		return fmt.Errorf("%w (profile %q): nothing to stop", client.ErrNotRunning, p.Profile)
	}
	c, p, err := a.dial()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(cmd.Context(), min(a.timeout, timeout))
	info, err := c.Info(ctx)
	cancel()
	c.Close()
	if err != nil {
		return err
	}
	pid := int(info.GetPid())
	peer, err := peerCred(p.Socket)
	if err != nil {
		return fmt.Errorf("who serves %s: %w", p.Socket, err)
	}
	switch {
	case int(peer.UID) != os.Getuid():
		return fmt.Errorf("%w: supervisord (pid %d) runs as uid %d, you are uid %d: stop it as its user", client.ErrPermissionDenied, peer.PID, peer.UID, os.Getuid())
	case int(peer.PID) != pid:
		return fmt.Errorf("supervisord says it is pid %d but the socket is served by pid %d (another pid namespace?): not signalling either", pid, peer.PID)
	}
	unit := systemdUnit(pid)

	begin := time.Now()
	exited, err := signalAndWatch(pid, syscall.SIGTERM)
	if errors.Is(err, proc.ErrGone) {
		exited, err = closedChan(), nil // it exited between the question and the signal
	}
	if errors.Is(err, syscall.EPERM) {
		return fmt.Errorf("%w: signal supervisord (pid %d): %v", client.ErrPermissionDenied, pid, err)
	}
	if err != nil {
		return fmt.Errorf("stop supervisord (pid %d): %w", pid, err)
	}
	t := time.NewTimer(timeout)
	defer t.Stop()
	select {
	case <-exited:
	case <-t.C:
		log := "its stderr, or " + p.Log + " when busctl start started it"
		if unit != "" {
			log = "journalctl --user -u " + unit
		}
		return fmt.Errorf("supervisord (pid %d) has not exited %s after SIGTERM: it is still stopping (its log says why: %s); busctl stop again waits longer",
			pid, timeout, log)
	case <-cmd.Context().Done():
		return fmt.Errorf("interrupted while supervisord (pid %d) stops: %w", pid, cmd.Context().Err())
	}
	elapsed := time.Since(begin).Round(time.Millisecond)
	if answers(p.Socket) {
		return fmt.Errorf("supervisord (pid %d) exited, but the socket %s answers again: another supervisord serves the profile now (busctl status)", pid, p.Socket)
	}
	head := fmt.Sprintf("supervisord stopped (pid %d, profile %s, in %s)\n", pid, info.GetProfile(), elapsed)
	if unit != "" {
		inst := strings.TrimSuffix(unit, ".service")
		head += fmt.Sprintf("it ran as the systemd unit %s, which stays stopped (it restarts only on failure); start it again with: systemctl --user start %s\n", unit, inst)
	}
	return a.render(&view{head: head, data: jsonData(map[string]any{
		"stopped": true, "pid": pid, "profile": info.GetProfile(), "elapsed_ms": elapsed.Milliseconds(), "systemd_unit": unit,
	})})
}

// peerCred returns the credentials of the process serving socket.
func peerCred(socket string) (*proc.Cred, error) {
	conn, err := net.DialTimeout("unix", socket, time.Second)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	return proc.PeerCred(conn)
}

// signalAndPoll sends sig to pid (the process inc) and returns a channel
// closed when that process has exited, as its start time says, looked at
// every 50ms: where the OS has no handle on a process to wait on.
func signalAndPoll(inc proc.Incarnation, sig syscall.Signal) (<-chan struct{}, error) {
	if err := syscall.Kill(inc.PID, sig); err != nil {
		if errors.Is(err, syscall.ESRCH) {
			return nil, fmt.Errorf("pid %d: %w", inc.PID, proc.ErrGone)
		}
		return nil, err
	}
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		for {
			if alive, err := proc.Alive(inc); err != nil || !alive {
				return
			}
			time.Sleep(50 * time.Millisecond)
		}
	}()
	return exited, nil
}

func closedChan() <-chan struct{} {
	c := make(chan struct{})
	close(c)
	return c
}
