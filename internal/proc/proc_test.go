package proc

import (
	"os"
	"os/exec"
	"runtime"
	"slices"
	"testing"
)

func TestSelfAndChild(t *testing.T) {
	// Under qemu-user (make test-arm64) a process's /proc stat is made up
	// per emulated thread, each with its own start time: Self and Alive
	// read it from one thread, as a real kernel would answer any.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	self, err := Self()
	if err != nil || self.PID != os.Getpid() || self.StartTime == 0 {
		t.Fatalf("Self = %v, %v", self, err)
	}
	if alive, err := Alive(self); !alive || err != nil {
		t.Errorf("self not alive: %v", err)
	}
	if alive, _ := Alive(Incarnation{PID: self.PID, StartTime: self.StartTime + 1}); alive {
		t.Error("another start time counted as alive")
	}

	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	child, err := Of(cmd.Process.Pid)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Process.Kill()
	// Before wait(2) the child is a zombie: gone, not alive.
	for {
		alive, err := Alive(child)
		if err != nil {
			t.Fatal(err)
		}
		if !alive {
			break
		}
	}
	cmd.Wait()
	if alive, err := Alive(child); alive || err != nil {
		t.Errorf("reaped child: alive %v err %v", alive, err)
	}
}

// TestArgs: the command line of a process (this one) as it was started.
func TestArgs(t *testing.T) {
	args, err := Args(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(args, os.Args) {
		t.Errorf("Args = %q, want %q", args, os.Args)
	}
	if _, err := Args(1 << 30); err == nil {
		t.Error("Args of no process: no error")
	}
}
