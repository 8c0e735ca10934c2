package e2e

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/chatbus/chatbus/client"
	"github.com/chatbus/chatbus/internal/testkit"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
	"github.com/chatbus/chatbus/provider/telegram/tgtest"
)

// TestNotServingFailsFast: while a provider cannot do its job, the
// supervisor says so (with the reason and since when), its followers'
// heartbeats carry a notice, and a Register that needs a new thread fails
// at once with UNAVAILABLE naming the provider's reason; it recovers by
// itself.
func TestNotServingFailsFast(t *testing.T) {
	b := startTelegramBus(t, "")
	fl := b.follow(t, "manual:1", "/w/one")
	b.tg.FailAlways("getUpdates", tgtest.Fault{Status: 409})
	pi := b.waitProvider(t, func(pi *chatbusv1.ProviderInfo) bool { return !pi.GetServing() }, "NOT_SERVING on 409")
	if !strings.Contains(pi.GetHealthDetail(), "409") || pi.GetHealthSince() == nil {
		t.Errorf("provider info: health detail %q, since %v", pi.GetHealthDetail(), pi.GetHealthSince())
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	start := time.Now()
	_, err := b.c.Register(ctx, client.Registration{ProfileKey: "manual:new", Cwd: "/w/new", InstanceID: "new-1"})
	if status.Code(errors.Unwrap(err)) != codes.Unavailable || !strings.Contains(err.Error(), "409") || strings.Count(err.Error(), "outcome unknown") > 0 {
		t.Errorf("register while NOT_SERVING: %v, want UNAVAILABLE naming the reason", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("register took %s: not failing fast", d)
	}
	hb, err := b.c.Bus.Heartbeat(ctx, &chatbusv1.HeartbeatRequest{Session: fl.f.Session()})
	if err != nil || len(hb.GetNotices()) == 0 || hb.GetNotices()[0] != chatbusv1.Notice_NOTICE_PROVIDER_NOT_SERVING || !strings.Contains(hb.GetProviderDetail(), "409") {
		t.Errorf("heartbeat while NOT_SERVING: %v, %v", hb, err)
	}
	out, _, _ := b.busctl("events")
	contains(t, "events", out, "NOT_SERVING")

	b.tg.ClearFaults()
	b.waitProvider(t, func(pi *chatbusv1.ProviderInfo) bool { return pi.GetServing() && pi.GetHealthDetail() == "" }, "SERVING again")
	f, err := b.c.Register(ctx, client.Registration{ProfileKey: "manual:new", Cwd: "/w/new", InstanceID: "new-2"})
	if err != nil {
		t.Fatalf("register after recovery: %v", err)
	}
	f.Close(context.Background())
}

// TestDiskFull: when the state store's disk fills while updates flow,
// nothing is acknowledged that is not durable, the provider is reported
// NOT_SERVING with the store's reason and backs off, and once space is
// free again everything arrives, once. The state dir is a small tmpfs.
func TestDiskFull(t *testing.T) {
	tg := tgtest.New(t)
	tg.AddForum(forumChat)
	p := newProfile(t)
	// The profile's own state dir is the tmpfs: busctl finds it there.
	if err := os.MkdirAll(p.state, 0o700); err != nil {
		t.Fatal(err)
	}
	dir := mountTmpfs(t, p.state, "4m")
	cfg := fmt.Sprintf(`heartbeat_interval: 200ms
stale_after: 3s
providers:
  telegram:
    binary: %s
    forum_chat_id: %d
    base_url: %s
    token: %q
    allowed_user_ids: [%d]
    poll_timeout: 1s
    poll_grace: 2s
    backoff_max: 1s
`, filepath.Join(binDir, "provider-telegram"), forumChat, tg.URL(), tg.Token(), allowedUser)
	path := filepath.Join(t.TempDir(), "config.yaml")
	os.WriteFile(path, []byte(cfg), 0o600)
	d := p.start("--config", path)
	p.waitServing(d)
	c, err := client.Dial(p.socket, client.WithSecretFile(filepath.Join(p.state, "secret")))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	b := &tgBus{profile: p, tg: tg, d: d, c: c, configPath: path}
	fl := b.follow(t, "manual:1", "/w/one")

	// Fill the disk but a little.
	filler := filepath.Join(dir, "filler")
	defer os.Remove(filler)
	fillUp(t, dir, filler, 64<<10)
	text := strings.Repeat("x", 3000)
	var want []string
	for i := range 200 {
		s := fmt.Sprintf("%03d %s", i, text)
		want = append(want, s)
		tg.PushMessage(forumChat, int(fl.thread()), allowedUser, s)
	}
	pi := b.waitProvider(t, func(pi *chatbusv1.ProviderInfo) bool {
		return !pi.GetServing() && strings.Contains(pi.GetHealthDetail(), "state store")
	}, "NOT_SERVING with the state store's reason")
	if !strings.Contains(pi.GetHealthDetail(), "no space left") {
		t.Errorf("health detail %q, want it to say the disk is full", pi.GetHealthDetail())
	}
	// Backing off: the platform is polled rarely.
	before := tg.Calls("getUpdates")
	time.Sleep(3 * time.Second)
	if n := tg.Calls("getUpdates") - before; n > 8 {
		t.Errorf("%d getUpdates in 3s while the disk is full: not backing off", n)
	}
	got := len(fl.texts())
	if got >= len(want) {
		t.Fatalf("all %d arrived with the disk full", got)
	}
	// Space again: everything arrives, once, in order; health recovers.
	os.Remove(filler)
	fl.waitTextsWithin(t, 90*time.Second, want...)
	b.waitProvider(t, func(pi *chatbusv1.ProviderInfo) bool { return pi.GetServing() }, "SERVING after space was freed")
	out, _, _ := b.busctl("events")
	contains(t, "events", out, "state store")
}

// mountTmpfs mounts a tmpfs of size on dir. Where mounting is not
// permitted it fails when CHATBUS_REQUIRE_TMPFS_TEST=1 (CI) and is
// skipped, loudly, elsewhere.
func mountTmpfs(t *testing.T, dir, size string) string {
	out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size="+size+",mode=0700", "tmpfs", dir).CombinedOutput()
	if err != nil {
		unavailable(t, "CHATBUS_REQUIRE_TMPFS_TEST", fmt.Sprintf("cannot mount a tmpfs (needs root): %v: %s", err, out))
	}
	t.Cleanup(func() {
		if out, err := exec.Command("umount", "-l", dir).CombinedOutput(); err != nil {
			t.Errorf("umount %s: %v: %s", dir, err, out)
		}
	})
	return dir
}

// fillUp writes file until the file system under dir has at most leave
// bytes free.
func fillUp(t *testing.T, dir, file string, leave int64) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	free := int64(st.Bavail) * int64(st.Bsize)
	if free <= leave {
		return
	}
	if err := os.WriteFile(file, make([]byte, free-leave), 0o600); err != nil {
		t.Fatalf("filling the disk: %v", err)
	}
}

// waitTextsWithin is waitTexts with a bound of its own.
func (fl *follower) waitTextsWithin(t *testing.T, within time.Duration, want ...string) {
	t.Helper()
	deadline := time.After(within)
	for {
		got := fl.texts()
		if len(got) >= len(want) {
			if strings.Join(got, "|") != strings.Join(want, "|") {
				t.Fatalf("got %d texts, want %d, in order, once each", len(got), len(want))
			}
			return
		}
		select {
		case <-fl.arrived:
		case <-deadline:
			t.Fatalf("got %d of %d texts", len(got), len(want))
		}
	}
}

// TestJournalReopensAfterFailedSync: the journal's fdatasync fails (the
// test build's --test-journal-sync-fault puts a file system under the
// journal that fails every batch's with EIO while a file exists) while
// 200 updates flow to a follower. The supervisor does not trust what it
// wrote: the provider goes NOT_SERVING with the store's reason, the
// journal reopens itself from disk, and once syncs succeed again every
// update arrives exactly once, in order, the provider is SERVING again, the
// events say what happened, and it is the same supervisord process.
func TestJournalReopensAfterFailedSync(t *testing.T) {
	fault := filepath.Join(t.TempDir(), "fail-syncs")
	p, tg, d, cfg := startHookedTelegram(t, nil, "--test-journal-sync-fault", fault)
	p.waitServing(d)
	c, err := client.Dial(p.socket, client.WithSecretFile(filepath.Join(p.state, "secret")))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	b := &tgBus{profile: p, tg: tg, d: d, c: c, configPath: cfg}
	fl := b.follow(t, "manual:1", "/w/one")

	var want []string
	push := func(from, to int) {
		for i := from; i < to; i++ {
			s := fmt.Sprintf("update %03d", i)
			want = append(want, s)
			tg.PushMessage(forumChat, int(fl.thread()), allowedUser, s)
		}
	}
	push(0, 50)
	fl.waitTexts(t, want...)

	// Syncs fail: what the provider sends meanwhile is not acknowledged to
	// it, so it stays at the stand-in.
	if err := os.WriteFile(fault, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	push(50, 150)
	pi := b.waitProvider(t, func(pi *chatbusv1.ProviderInfo) bool {
		return !pi.GetServing() && strings.Contains(pi.GetHealthDetail(), "state store")
	}, "NOT_SERVING with the state store's reason")
	if !strings.Contains(pi.GetHealthDetail(), "input/output error") {
		t.Errorf("health detail %q, want the system's reason", pi.GetHealthDetail())
	}
	testkit.Eventually(t, "the journal reopened from disk at least once", func() bool {
		return strings.Contains(d.stderr.String(), "journal reopened from disk after a failed write")
	})
	if got := len(fl.texts()); got >= len(want) {
		t.Fatalf("all %d arrived while every fdatasync failed", got)
	}

	// Syncs succeed again: everything arrives once, in order, health
	// recovers by itself, and more flows as before.
	if err := os.Remove(fault); err != nil {
		t.Fatal(err)
	}
	push(150, 200)
	fl.waitTextsWithin(t, 60*time.Second, want...)
	b.waitProvider(t, func(pi *chatbusv1.ProviderInfo) bool { return pi.GetServing() }, "SERVING once syncs succeed")
	select {
	case <-d.exited:
		t.Fatalf("supervisord exited: %v", d.err)
	default:
	}
	if st := onlyProvider(t, c, "").GetState(); st != chatbusv1.ProviderState_PROVIDER_STATE_RUNNING {
		t.Errorf("provider %s", st)
	}
	out, _, _ := b.busctl("events")
	contains(t, "events", out, "input/output error")
	contains(t, "log", d.stderr.String(), "journal writes succeed again")
}
