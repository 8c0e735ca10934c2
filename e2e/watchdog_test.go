package e2e

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chatbus/chatbus/client"
	"github.com/chatbus/chatbus/internal/testkit"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
	"github.com/chatbus/chatbus/provider/telegram/tgtest"
)

// notifySocket is a stand-in for systemd's notification socket: a unixgram
// socket recording every state line supervisord sends, in order.
type notifySocket struct {
	path string
	conn *net.UnixConn
	mu   sync.Mutex
	msgs []notifyMsg
}

type notifyMsg struct {
	at    time.Time
	state string
}

func newNotifySocket(t *testing.T) *notifySocket {
	t.Helper()
	dir, err := os.MkdirTemp("", "cbn")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	n := &notifySocket{path: filepath.Join(dir, "notify.sock")}
	n.conn, err = net.ListenUnixgram("unixgram", &net.UnixAddr{Name: n.path, Net: "unixgram"})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 4096)
		for {
			k, err := n.conn.Read(buf)
			if err != nil {
				return
			}
			n.mu.Lock()
			for _, line := range strings.Split(string(buf[:k]), "\n") {
				n.msgs = append(n.msgs, notifyMsg{time.Now(), line})
			}
			n.mu.Unlock()
		}
	}()
	t.Cleanup(func() { n.conn.Close(); <-done })
	return n
}

// states returns the lines received at or after since.
func (n *notifySocket) states(since time.Time) []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []string
	for _, m := range n.msgs {
		if !m.at.Before(since) {
			out = append(out, m.state)
		}
	}
	return out
}

func count(states []string, s string) int {
	n := 0
	for _, x := range states {
		if x == s {
			n++
		}
	}
	return n
}

// hookedSupervisord builds supervisord with its test hooks (SIGUSR1 stalls
// the store's committer goroutine, SIGUSR2 releases it;
// --test-journal-sync-fault fails the journal's fdatasyncs).
func hookedSupervisord(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	build := goBuild("-race", "-tags", "chatbus_testhooks", "-o", dir+"/", "github.com/chatbus/chatbus/cmd/supervisord")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building supervisord with its test hooks: %v\n%s", err, out)
	}
	return filepath.Join(dir, "supervisord")
}

// startHookedTelegram starts supervisord built with its test hooks, with
// env added to its environment, serving a Telegram provider pointed at a
// fresh stand-in; args come after --log-format json and --config.
func startHookedTelegram(t *testing.T, env []string, args ...string) (*profile, *tgtest.Server, *daemon, string) {
	t.Helper()
	bin := hookedSupervisord(t)
	tg := tgtest.New(t)
	tg.AddForum(forumChat)
	p := newProfile(t)
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfg, []byte(telegramConfig(tg, "")), 0o600); err != nil {
		t.Fatal(err)
	}
	d := p.startBinary(bin, env, append([]string{"--log-format", "json", "--config", cfg}, args...)...)
	return p, tg, d, cfg
}

// TestWatchdog runs the real supervisord under a NOTIFY_SOCKET with
// WATCHDOG_USEC set: READY=1, then WATCHDOG=1 pings while its loops
// answer. A stopped provider child (SIGSTOP) is the provider's problem,
// not the supervisor's: the pings go on. A stalled store committer — the
// goroutine every journal write waits for, blocked inside a write
// transaction by the test hook as a disk that stopped answering would —
// stops them; released, they resume. SIGHUP is RELOADING=1 then READY=1,
// SIGTERM STOPPING=1.
func TestWatchdog(t *testing.T) {
	ns := newNotifySocket(t)
	const usec = 2000000 // WatchdogSec=2s: a ping every 1s, each loop answering within 500ms
	p, _, d, _ := startHookedTelegram(t, []string{"NOTIFY_SOCKET=" + ns.path, fmt.Sprintf("WATCHDOG_USEC=%d", usec)},
		"--log-level", "debug")
	p.waitServing(d)
	c, err := client.Dial(p.socket, client.WithSecretFile(filepath.Join(p.state, "secret")))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	pi := waitProvider(t, c, d, func(pi *chatbusv1.ProviderInfo) bool {
		return pi.GetState() == chatbusv1.ProviderState_PROVIDER_STATE_RUNNING
	}, "RUNNING")

	start := time.Time{}
	testkit.Eventually(t, "READY=1 then 2 pings", func() bool { return count(ns.states(start), "WATCHDOG=1") >= 2 })
	if st := ns.states(start); st[0] != "READY=1" {
		t.Fatalf("first notification %q, want READY=1 (all: %q)", st[0], st)
	}
	testkit.Eventually(t, "the watchdog watching the hub, the pump and the store", func() bool {
		return strings.Contains(d.stderr.String(), `"loops":["hub","pump/telegram","store"]`)
	})

	// The provider child stopped: the supervisor's loops still answer.
	if err := syscall.Kill(int(pi.GetPid()), syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	stopped := time.Now()
	testkit.Eventually(t, "pings while the provider is stopped", func() bool { return count(ns.states(stopped), "WATCHDOG=1") >= 3 })
	syscall.Kill(int(pi.GetPid()), syscall.SIGCONT)

	// The store committer stalled: pings stop.
	if err := d.cmd.Process.Signal(syscall.SIGUSR1); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, "pings withheld", func() bool { return strings.Contains(d.stderr.String(), "watchdog pings withheld") })
	contains(t, "log", d.stderr.String(), `store: did not answer within 500ms`)
	withheld := time.Now()
	time.Sleep(3 * time.Second) // three ping intervals: watching for pings that must not come
	if n := count(ns.states(withheld), "WATCHDOG=1"); n != 0 {
		t.Errorf("%d pings while the store committer was stalled", n)
	}

	// Released: pings resume.
	if err := d.cmd.Process.Signal(syscall.SIGUSR2); err != nil {
		t.Fatal(err)
	}
	released := time.Now()
	testkit.Eventually(t, "pings again", func() bool { return count(ns.states(released), "WATCHDOG=1") >= 2 })
	contains(t, "log", d.stderr.String(), "pings resume")

	// A reload is RELOADING=1 (with MONOTONIC_USEC), then READY=1.
	hup := time.Now()
	if err := d.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, "READY=1 after RELOADING=1", func() bool {
		st := strings.Join(ns.states(hup), "|")
		return strings.Contains(st, "RELOADING=1|MONOTONIC_USEC=") && strings.Contains(st, "|READY=1")
	})

	stop := time.Now()
	d.cmd.Process.Signal(syscall.SIGTERM)
	if err := d.wait(t, 20*time.Second); err != nil {
		t.Fatalf("supervisord: %v", err)
	}
	if st := ns.states(stop); count(st, "STOPPING=1") != 1 {
		t.Errorf("after SIGTERM: %q, want one STOPPING=1", st)
	}
}
