//go:build linux

package install

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"unsafe"
)

// probe tries, from inside the sandbox, what the unit forbids and what
// supervisord and its children need; each answer is "ok" or the error.
func probe() map[string]string {
	home, run := os.Getenv("HOME"), os.Getenv("XDG_RUNTIME_DIR")
	res := map[string]string{}
	say := func(name string, err error) {
		if err == nil {
			res[name] = "ok"
		} else {
			var errno syscall.Errno
			if errors.As(err, &errno) {
				res[name] = errno.Error()
			} else {
				res[name] = err.Error()
			}
		}
	}
	write := func(dir string) error {
		f, err := os.CreateTemp(dir, "probe")
		if err == nil {
			f.Close()
			os.Remove(f.Name())
		}
		return unwrap(err)
	}
	say("write home", write(home))
	say("write /usr", write("/usr"))
	say("write runtime root", write(run))
	say("write state dir", write(filepath.Join(home, ".local", "state", "chatbus", "default")))
	say("write runtime dir", write(filepath.Join(run, "chatbus", "default")))
	say("write /tmp", write("/tmp"))
	say("write /proc/sys", unwrap(os.WriteFile("/proc/sys/kernel/ns_last_pid", []byte("1"), 0)))
	_, err := os.Stat("/dev/vda")
	say("open /dev/vda", unwrap(err))

	for _, fam := range []struct {
		name string
		af   int
	}{{"AF_UNIX", syscall.AF_UNIX}, {"AF_INET", syscall.AF_INET}, {"AF_INET6", syscall.AF_INET6},
		{"AF_NETLINK", syscall.AF_NETLINK}, {"AF_PACKET", syscall.AF_PACKET}} {
		typ := syscall.SOCK_DGRAM
		fd, err := syscall.Socket(fam.af, typ, 0)
		if err == nil {
			syscall.Close(fd)
		}
		say("socket "+fam.name, err)
	}
	mem, err := syscall.Mmap(-1, 0, 4096, syscall.PROT_READ|syscall.PROT_WRITE|syscall.PROT_EXEC, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err == nil {
		syscall.Munmap(mem)
	}
	say("mmap W+X", err)
	mem, err = syscall.Mmap(-1, 0, 4096, syscall.PROT_READ, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err == nil {
		say("mprotect +X", syscall.Mprotect(mem, syscall.PROT_READ|syscall.PROT_EXEC))
		syscall.Munmap(mem)
	}
	// In a goroutine locked to a thread it then abandons: unshare and
	// setuid change only the calling thread if they succeed.
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		lockThread()
		say("unshare CLONE_NEWUSER", syscall.Unshare(syscall.CLONE_NEWUSER))
		_, _, e := syscall.RawSyscall(syscall.SYS_SETUID, 0, 0, 0)
		say("setuid 0", errnoOrNil(e))
		_, _, e = syscall.RawSyscall(syscall.SYS_SETHOSTNAME, uintptr(unsafe.Pointer(&[]byte("x")[0])), 1, 0)
		say("sethostname", errnoOrNil(e))
		_, _, e = syscall.RawSyscall(syscall.SYS_PERSONALITY, 0x0040000, 0, 0) // ADDR_NO_RANDOMIZE
		say("personality", errnoOrNil(e))
	}()
	wg.Wait()
	tmp, err := os.CreateTemp("/tmp", "probe")
	if err == nil {
		say("chown", unwrap(os.Chown(tmp.Name(), os.Getuid(), os.Getgid())))
		say("chmod setuid bit", syscall.Chmod(tmp.Name(), 0o4755))
		tmp.Close()
		os.Remove(tmp.Name())
	}
	var lim syscall.Rlimit
	syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim)
	if lim.Cur == lim.Max {
		res["setrlimit NOFILE (raised)"] = "ok" // the Go runtime raised it at start
	} else {
		res["setrlimit NOFILE (raised)"] = fmt.Sprintf("soft %d, hard %d", lim.Cur, lim.Max)
	}
	status, _ := os.ReadFile("/proc/self/status")
	for _, line := range strings.Split(string(status), "\n") {
		if v, ok := strings.CutPrefix(line, "CapBnd:"); ok {
			res["capabilities (bounding)"] = strings.TrimSpace(v)
		}
		if v, ok := strings.CutPrefix(line, "NoNewPrivs:"); ok {
			res["no_new_privs"] = strings.TrimSpace(v)
		}
	}
	res["uid"] = fmt.Sprint(os.Getuid())
	return res
}

func unwrap(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

func errnoOrNil(e syscall.Errno) error {
	if e == 0 {
		return nil
	}
	return e
}

// lockThread pins the goroutine to its thread and never unlocks it, so the
// runtime discards the thread (and whatever a probe changed in it).
func lockThread() { runtime.LockOSThread() }
