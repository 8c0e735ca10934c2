//go:build linux

package install

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chatbus/chatbus/client"
	"github.com/chatbus/chatbus/internal/testkit"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
	"github.com/chatbus/chatbus/provider/telegram/tgtest"
)

// sandboxUID is the unprivileged user the sandboxed supervisord runs as.
const sandboxUID = 62581

const envHelper = "CHATBUS_SANDBOX_HELPER"

// sandboxReady reports why the sandbox test cannot run here: it plays the
// user manager (root), and deploy/systemd/emulate-sandbox needs
// util-linux, python3-seccomp and systemd-analyze. Missing pieces skip
// loudly, or fail with CHATBUS_REQUIRE_SANDBOX_TEST=1 (.ci/run sets it).
func sandboxReady(t *testing.T) {
	t.Helper()
	var missing []string
	if os.Getuid() != 0 {
		missing = append(missing, "root")
	}
	for _, tool := range []string{"unshare", "setpriv", "systemd-analyze"} {
		if _, err := exec.LookPath(tool); err != nil {
			missing = append(missing, tool)
		}
	}
	if exec.Command("/usr/bin/python3", "-c", "import seccomp").Run() != nil {
		missing = append(missing, "python3-seccomp")
	}
	if len(missing) == 0 {
		return
	}
	msg := "the unit's sandbox cannot be emulated here: missing " + strings.Join(missing, ", ")
	if os.Getenv("CHATBUS_REQUIRE_SANDBOX_TEST") == "1" {
		t.Fatal(msg + " (CHATBUS_REQUIRE_SANDBOX_TEST=1)")
	}
	bar := strings.Repeat("!", 72)
	t.Skipf("\n%s\nSKIPPED: %s\n%s", bar, msg, bar)
}

// sandbox is one emulated user session: a HOME under /home (so that
// ProtectHome= applies to it), a runtime dir, and the installed tree.
type sandbox struct {
	root, home, run, bin, unit string
	helper                     string // this test binary, runnable by the user
	env                        []string
}

func newSandbox(t *testing.T) *sandbox {
	t.Helper()
	sandboxReady(t)
	root := repoRoot(t)
	home, err := os.MkdirTemp("/home", "cb-sbx.")
	if err != nil {
		t.Fatal(err)
	}
	run, err := os.MkdirTemp("/run", "cb-sbx.")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home); os.RemoveAll(run) })
	for _, d := range []string{home, run} {
		if err := os.Chown(d, sandboxUID, sandboxUID); err != nil {
			t.Fatal(err)
		}
		os.Chmod(d, 0o700)
	}
	// As the user would install it; the files are then the user's own, and
	// only the sandbox keeps supervisord from writing them.
	runMake(t, root, "install", "PREFIX="+filepath.Join(home, ".local"))
	err = filepath.Walk(filepath.Join(home, ".local"), func(p string, _ os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, sandboxUID, sandboxUID)
	})
	if err != nil {
		t.Fatal(err)
	}

	// Not under /tmp: the sandbox has a /tmp of its own.
	helper := filepath.Join(run, "helper")
	if err := copyFile(os.Args[0], helper, 0o755); err != nil {
		t.Fatal(err)
	}
	return &sandbox{
		root: root, home: home, run: run, helper: helper,
		bin:  filepath.Join(home, ".local", "bin"),
		unit: filepath.Join(home, ".local", "share", "systemd", "user", "supervisord@.service"),
		env: []string{"PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" + home, "XDG_RUNTIME_DIR=" + run,
			"LANG=C.UTF-8"},
	}
}

func copyFile(src, dst string, mode os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// emulate runs the installed unit's ExecStart (or argv) under
// emulate-sandbox.
func (s *sandbox) emulate(ctx context.Context, extraEnv []string, argv ...string) *exec.Cmd {
	args := []string{"--unit", s.unit, "--uid", strconv.Itoa(sandboxUID), "--gid", strconv.Itoa(sandboxUID), "--instance", "default"}
	if len(argv) > 0 {
		args = append(append(args, "--"), argv...)
	}
	cmd := exec.CommandContext(ctx, filepath.Join(s.root, "deploy", "systemd", "emulate-sandbox"), args...)
	cmd.Env = append(append([]string{}, s.env...), extraEnv...)
	cmd.Dir = "/"
	return cmd
}

// asUser runs argv as the sandbox's user, outside the sandbox (a follower,
// busctl).
func (s *sandbox) asUser(ctx context.Context, extraEnv []string, argv ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "setpriv", append([]string{"--reuid=" + strconv.Itoa(sandboxUID),
		"--regid=" + strconv.Itoa(sandboxUID), "--clear-groups", "--"}, argv...)...)
	cmd.Env = append(append([]string{}, s.env...), extraEnv...)
	cmd.Dir = "/"
	return cmd
}

// probeResult is what TestSandboxHelper reports from inside the sandbox.
type probeResult map[string]string

// TestUnitSandboxIsEnforced runs a probe under the emulated sandbox: what
// the unit forbids fails, what supervisord needs works. It proves the
// emulation is in force, so that TestUnitSandboxRunsSupervisord means
// something.
func TestUnitSandboxIsEnforced(t *testing.T) {
	s := newSandbox(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := s.emulate(ctx, []string{envHelper + "=probe"}, s.helper, "-test.run=^TestSandboxHelper$")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("probe: %v\n%s", err, errOutput(err))
	}
	var got probeResult
	if err := json.Unmarshal(lastLine(out), &got); err != nil {
		t.Fatalf("probe output: %v\n%s", err, out)
	}
	want := probeResult{
		"write home":                "read-only file system",
		"write /usr":                "read-only file system",
		"write runtime root":        "read-only file system",
		"write state dir":           "ok",
		"write runtime dir":         "ok",
		"write /tmp":                "ok",
		"write /proc/sys":           "read-only file system",
		"open /dev/vda":             "no such file or directory",
		"socket AF_UNIX":            "ok",
		"socket AF_INET":            "ok",
		"socket AF_INET6":           "ok",
		"socket AF_NETLINK":         "address family not supported by protocol",
		"socket AF_PACKET":          "address family not supported by protocol",
		"mmap W+X":                  "operation not permitted",
		"mprotect +X":               "operation not permitted",
		"unshare CLONE_NEWUSER":     "operation not permitted",
		"setuid 0":                  "operation not permitted",
		"chown":                     "operation not permitted",
		"sethostname":               "operation not permitted",
		"personality":               "operation not permitted",
		"chmod setuid bit":          "operation not permitted",
		"capabilities (bounding)":   "0000000000000000",
		"no_new_privs":              "1",
		"uid":                       strconv.Itoa(sandboxUID),
		"setrlimit NOFILE (raised)": "ok",
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: %q, want %q", k, got[k], w)
		}
	}
}

// TestUnitSandboxRunsSupervisord runs the installed unit's own ExecStartPre
// and ExecStart under the emulated sandbox with a Telegram provider against
// a stand-in Bot API, and a follower (the same user, outside the sandbox)
// through the whole loop: READY=1 on the notify socket, the child started
// from beside supervisord, a fresh forum topic, an inbound message written
// to the state file and delivered, and a reply sent.
func TestUnitSandboxRunsSupervisord(t *testing.T) {
	s := newSandbox(t)
	tg := tgtest.New(t)
	tg.AddForum(forumChat)

	cfgDir := filepath.Join(s.home, ".config", "chatbus")
	if err := os.MkdirAll(cfgDir, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(cfgDir, "default.yaml")
	err := os.WriteFile(cfg, telegramConfig(tg), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{filepath.Join(s.home, ".config"), cfgDir, cfg} {
		os.Chown(p, sandboxUID, sandboxUID)
	}

	// The user manager's notify socket, in the (read-only) runtime root.
	notifyDir := filepath.Join(s.run, "systemd")
	os.Mkdir(notifyDir, 0o755)
	notifyPath := filepath.Join(notifyDir, "notify")
	notify, err := net.ListenUnixgram("unixgram", &net.UnixAddr{Name: notifyPath, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	defer notify.Close()
	os.Chown(notifyPath, sandboxUID, sandboxUID)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var logs testkit.SyncBuffer
	d := s.emulate(ctx, []string{"NOTIFY_SOCKET=" + notifyPath})
	d.Stdout, d.Stderr = &logs, &logs
	if err := d.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- d.Wait() }()
	defer func() {
		d.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-exited:
			if err != nil {
				t.Errorf("supervisord under the sandbox exited: %v", err)
			}
		case <-time.After(15 * time.Second):
			d.Process.Kill()
			t.Error("supervisord did not stop on SIGTERM")
		}
		if t.Failed() {
			t.Logf("supervisord log:\n%s", logs.String())
		}
	}()

	notify.SetReadDeadline(time.Now().Add(30 * time.Second))
	buf := make([]byte, 4096)
	for {
		n, err := notify.Read(buf)
		if err != nil {
			t.Fatalf("no READY=1 on the notify socket: %v\n%s", err, logs.String())
		}
		if bytes.Contains(buf[:n], []byte("READY=1")) {
			break
		}
	}

	row := waitRunning(t, func() *exec.Cmd {
		return s.asUser(ctx, nil, filepath.Join(s.bin, "busctl"), "providers", "--json")
	}, exited)
	if exe, _ := os.Readlink(fmt.Sprintf("/proc/%d/exe", row.PID)); exe != filepath.Join(s.bin, "provider-telegram") {
		t.Errorf("the provider child runs %q", exe)
	}

	// A follower: this test binary as the user, outside the sandbox.
	state := filepath.Join(s.home, ".local", "state", "chatbus", "default")
	fl := s.asUser(ctx, []string{envHelper + "=follow",
		"CHATBUS_SOCKET=" + filepath.Join(s.run, "chatbus", "default", "supervisor.sock"),
		"CHATBUS_SECRET_FILE=" + filepath.Join(state, "secret")},
		s.helper, "-test.run=^TestSandboxHelper$")
	var flErr testkit.SyncBuffer
	fl.Stderr = &flErr
	stdout, err := fl.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := fl.Start(); err != nil {
		t.Fatal(err)
	}
	lines := bufio.NewScanner(stdout)
	var thread int
	for lines.Scan() {
		if v, ok := strings.CutPrefix(lines.Text(), "thread "); ok {
			thread, _ = strconv.Atoi(v)
			break
		}
	}
	if thread == 0 {
		fl.Wait()
		t.Fatalf("the follower got no thread:\n%s", flErr.String())
	}
	tg.PushMessage(forumChat, thread, 4242, "ping through the sandbox")
	if err := fl.Wait(); err != nil {
		t.Fatalf("follower: %v\n%s", err, flErr.String())
	}
	var echoed bool
	for _, m := range tg.Sent(forumChat, thread) {
		echoed = echoed || m.Text == "echo: ping through the sandbox"
	}
	if !echoed {
		t.Errorf("no echo in thread %d: %+v", thread, tg.Sent(forumChat, thread))
	}
	for _, f := range []string{"secret", "state.db"} {
		if fi, err := os.Stat(filepath.Join(state, f)); err != nil || fi.Sys().(*syscall.Stat_t).Uid != sandboxUID {
			t.Errorf("state file %s: %v", f, err)
		}
	}
}

// TestSandboxHelper is the helper process of the tests above: a probe run
// inside the sandbox, or a follower run beside it.
func TestSandboxHelper(t *testing.T) {
	switch os.Getenv(envHelper) {
	case "probe":
		out, _ := json.Marshal(probe())
		fmt.Printf("\n%s\n", out)
	case "follow":
		if err := follow(); err != nil {
			fmt.Fprintln(os.Stderr, "follower:", err)
			os.Exit(1)
		}
	default:
		t.Skip("helper process for the sandbox tests")
	}
}

func follow() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := client.Dial(os.Getenv("CHATBUS_SOCKET"), client.WithSecretFile(os.Getenv("CHATBUS_SECRET_FILE")))
	if err != nil {
		return err
	}
	defer c.Close()
	f, err := c.Register(ctx, client.Registration{ProfileKey: "manual:sandbox", Cwd: "/tmp/sandboxed"})
	if err != nil {
		return err
	}
	defer f.Close(context.Background())
	fmt.Printf("thread %d\n", f.Registered().GetBinding().GetTarget().GetThreadId())
	done := errors.New("echoed")
	err = f.Updates(ctx, 0, func(u *chatbusv1.Update) error {
		params, _ := json.Marshal(map[string]string{"text": "echo: " + u.GetText()})
		if _, err := f.Call(ctx, "sendMessage", params, "sandbox-echo"); err != nil {
			return err
		}
		if err := f.Ack(ctx, u.GetSeq()); err != nil {
			return err
		}
		return done
	})
	if errors.Is(err, done) {
		return nil
	}
	return err
}

func errOutput(err error) string {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return string(ee.Stderr)
	}
	return ""
}

func lastLine(b []byte) []byte {
	lines := bytes.Split(bytes.TrimSpace(b), []byte("\n"))
	for i := len(lines) - 1; i >= 0; i-- {
		if bytes.HasPrefix(lines[i], []byte("{")) {
			return lines[i]
		}
	}
	return nil
}
