// Package install tests `make install` and `make uninstall`: they run the
// real Makefile into a temporary PREFIX and then run what was installed.
package install

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chatbus/chatbus/provider/telegram/tgtest"
)

const forumChat = int64(-1001234567890)

// benchOnly are the ./cmd tools make install leaves out (the benchmark
// tools and the release builder).(the benchmark
// tools and the release builder).
var benchOnly = []string{"busbench", "provider-bench", "mkdist"}

func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "Makefile")); err != nil {
		t.Fatalf("no Makefile at the repository root: %v", err)
	}
	return root
}

// commands lists ./cmd/<name> with a main.go: what make install must install
// (less benchOnly).
func commands(t *testing.T, root string) []string {
	t.Helper()
	mains, err := filepath.Glob(filepath.Join(root, "cmd", "*", "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range mains {
		if name := filepath.Base(filepath.Dir(m)); !slices.Contains(benchOnly, name) {
			names = append(names, name)
		}
	}
	return names
}

func runMake(t *testing.T, root string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "make", append([]string{"--no-print-directory", "-C", root}, args...)...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("make %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// files lists every regular file under dir, relative to it.
func files(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

func TestMakeInstall(t *testing.T) {
	root := repoRoot(t)
	prefix := t.TempDir()
	// SERVICE=systemd on any OS: on macOS the default would load a launchd
	// agent (TestMakeInstallLaunchd checks that path with a fake launchctl).
	runMake(t, root, "install", "SERVICE=systemd", "PREFIX="+prefix)

	bin := filepath.Join(prefix, "bin")
	var want []string
	for _, c := range commands(t, root) {
		want = append(want, filepath.Join("bin", c))
	}
	want = append(want, filepath.Join("share", "systemd", "user", "supervisord@.service"))
	slices.Sort(want)
	if got := files(t, prefix); !slices.Equal(got, want) {
		t.Fatalf("installed files:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
	for _, name := range []string{"supervisord", "busctl", "provider-telegram"} {
		if !slices.Contains(want, filepath.Join("bin", name)) {
			t.Errorf("%s is not among the installed binaries", name)
		}
		fi, err := os.Stat(filepath.Join(bin, name))
		if err != nil || fi.Mode().Perm() != 0o755 {
			t.Errorf("%s: %v, mode %v", name, err, fi.Mode())
		}
	}

	unit, err := os.ReadFile(filepath.Join(prefix, "share", "systemd", "user", "supervisord@.service"))
	if err != nil {
		t.Fatal(err)
	}
	wantExec := "ExecStart=" + filepath.Join(bin, "supervisord") + " --profile %i "
	if !strings.Contains(string(unit), "\n"+wantExec) {
		t.Errorf("installed unit has no line starting %q:\n%s", wantExec, unit)
	}

	t.Run("supervisord runs the provider child beside it", func(t *testing.T) {
		runInstalled(t, bin)
	})

	runMake(t, root, "uninstall", "SERVICE=systemd", "PREFIX="+prefix)
	if got := files(t, prefix); len(got) != 0 {
		t.Errorf("left after make uninstall: %v", got)
	}
}

// runInstalled starts the installed supervisord with a Telegram provider
// configured without a binary: path, so the child must be the
// provider-telegram installed beside it; the stand-in Bot API proves the
// child polls, and the installed busctl reports it.
func runInstalled(t *testing.T, bin string) {
	tg := tgtest.New(t)
	tg.AddForum(forumChat)
	home := t.TempDir()
	run, err := os.MkdirTemp("", "cb")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(run) })
	cfg := filepath.Join(home, "config.yaml")
	err = os.WriteFile(cfg, telegramConfig(tg), 0o600)
	if err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "HOME="+home, "XDG_RUNTIME_DIR="+run, "XDG_STATE_HOME=", "XDG_CONFIG_HOME=")

	var logs bytes.Buffer
	d := exec.Command(filepath.Join(bin, "supervisord"), "--config", cfg, "--log-format", "json")
	d.Env, d.Stderr = env, &logs
	if err := d.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- d.Wait() }()
	t.Cleanup(func() {
		d.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			d.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("supervisord log:\n%s", logs.String())
		}
	})

	row := waitRunning(t, func() *exec.Cmd {
		busctl := exec.Command(filepath.Join(bin, "busctl"), "providers", "--json")
		busctl.Env = env
		return busctl
	}, exited)
	if row.Name != "telegram" || row.PID <= 0 {
		t.Fatalf("provider row %+v", row)
	}
	exe, err := executable(row.PID)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join(bin, "provider-telegram"); exe != want {
		t.Errorf("the provider child runs %s, want %s", exe, want)
	}
	// The child reached the platform: it polls the stand-in.
	deadline := time.Now().Add(10 * time.Second)
	for tg.Calls("getUpdates") == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the provider child never called getUpdates")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// telegramConfig is a config file with the Telegram provider pointed at the
// stand-in; no binary: the child must be the provider-telegram beside
// supervisord.
func telegramConfig(tg *tgtest.Server) []byte {
	return fmt.Appendf(nil, `providers:
  telegram:
    forum_chat_id: %d
    base_url: %s
    token: %q
    allowed_user_ids: [4242]
    poll_timeout: 1s
`, forumChat, tg.URL(), tg.Token())
}

type providerRow struct {
	Name, State string
	PID         int
}

// waitRunning runs busctl (providers --json) until it lists one provider,
// RUNNING, and returns it; it fails when supervisord exits first.
func waitRunning(t *testing.T, busctl func() *exec.Cmd, exited <-chan error) providerRow {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		out, err := busctl().Output()
		var resp struct{ Providers []providerRow }
		if err == nil && json.Unmarshal(out, &resp) == nil && len(resp.Providers) == 1 && resp.Providers[0].State == "PROVIDER_STATE_RUNNING" {
			return resp.Providers[0]
		}
		if time.Now().After(deadline) {
			t.Fatalf("provider not RUNNING after 30s: busctl providers --json: %v\n%s", err, out)
		}
		select {
		case err := <-exited:
			t.Fatalf("supervisord exited: %v", err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}
