package main

import (
	"os/exec"
	"syscall"
	"testing"

	"github.com/chatbus/chatbus/internal/proc"
)

// TestSignalAndPoll: the way busctl stop waits where the OS has no pidfd
// (macOS) closes its channel once the signalled process has exited, and a
// process that is gone is reported as gone.
func TestSignalAndPoll(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	inc, err := proc.Of(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	exited, err := signalAndPoll(inc, syscall.SIGTERM)
	if err != nil {
		t.Fatal(err)
	}
	<-exited // sleep dies of SIGTERM; unreaped, it is a zombie: exited
	if alive, err := proc.Alive(inc); alive || err != nil {
		t.Fatalf("after the channel closed: alive %v, err %v", alive, err)
	}
	cmd.Wait()
	if _, err := signalAndPoll(inc, syscall.SIGTERM); err == nil {
		t.Fatal("signalling a reaped process: no error")
	}
}
