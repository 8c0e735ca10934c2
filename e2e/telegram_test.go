package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/chatbus/chatbus/client"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
	"github.com/chatbus/chatbus/provider/telegram/tgtest"
)

const (
	forumChat   = int64(-1001234567890)
	allowedUser = int64(4242)
	strangerID  = int64(666)
)

// tgBus is a supervisord with the Telegram provider against a stand-in.
type tgBus struct {
	*profile
	tg         *tgtest.Server
	d          *daemon
	c          *client.Client
	configPath string
}

// startTelegramBus starts the stand-in and a supervisord configured with
// the real provider-telegram binary pointed at it.
func startTelegramBus(t *testing.T, extra string) *tgBus {
	return startTelegramBusWith(t, extra, nil)
}

// startTelegramBusWith is startTelegramBus with setup applied to the
// stand-in (after the forum is added) before anything starts.
func startTelegramBusWith(t *testing.T, extra string, setup func(*tgtest.Server)) *tgBus {
	return startTelegramBusOn(t, filepath.Join(binDir, "supervisord"), extra, setup)
}

// startTelegramBusOn is startTelegramBusWith with the supervisord binary bin.
func startTelegramBusOn(t *testing.T, bin, extra string, setup func(*tgtest.Server)) *tgBus {
	return startTelegramBusConfig(t, bin, setup, func(tg *tgtest.Server) string { return telegramConfig(tg, extra) })
}

// startTelegramBusConfig is startTelegramBusOn with the whole config made
// by config from the stand-in.
func startTelegramBusConfig(t *testing.T, bin string, setup func(*tgtest.Server), config func(*tgtest.Server) string) *tgBus {
	tg := tgtest.New(t)
	tg.AddForum(forumChat)
	if setup != nil {
		setup(tg)
	}
	p := newProfile(t)
	d, c, path := p.serveConfigWith(bin, config(tg))
	b := &tgBus{profile: p, d: d, c: c, configPath: path, tg: tg}
	b.waitProvider(t, func(pi *chatbusv1.ProviderInfo) bool {
		return pi.GetState() == chatbusv1.ProviderState_PROVIDER_STATE_RUNNING
	}, "RUNNING")
	return b
}

// telegramConfig is a supervisor config with the real provider-telegram
// pointed at the stand-in tg; extra is appended to its telegram section.
func telegramConfig(tg *tgtest.Server, extra string) string {
	return telegramConfigIn(tg, fmt.Sprintf("forum_chat_id: %d", forumChat), extra)
}

// telegramConfigIn is telegramConfig with the setting that names the chat
// (forum_chat_id or private_chat_id).
func telegramConfigIn(tg *tgtest.Server, chat, extra string) string {
	binLine := "    binary: " + filepath.Join(binDir, "provider-telegram") + "\n"
	if strings.Contains(extra, "binary:") {
		binLine = ""
	}
	return fmt.Sprintf(`heartbeat_interval: 200ms
stale_after: 3s
reconcile_grace: 1s
providers:
  telegram:
%s    %s
    base_url: %s
    token: %q
    allowed_user_ids: [%d]
    poll_timeout: 1s
    poll_grace: 2s
    backoff_max: 1s
%s`, binLine, chat, tg.URL(), tg.Token(), allowedUser, extra)
}

func startBus(t *testing.T, p *profile, cfg string) *tgBus {
	t.Helper()
	d, c, path := p.serveConfig(cfg)
	return &tgBus{profile: p, d: d, c: c, configPath: path}
}

func (b *tgBus) provider(t *testing.T) *chatbusv1.ProviderInfo { return onlyProvider(t, b.c, "") }

func (b *tgBus) waitProvider(t *testing.T, ok func(*chatbusv1.ProviderInfo) bool, what string) *chatbusv1.ProviderInfo {
	return waitProvider(t, b.c, b.d, ok, what)
}

// waitProvider waits until the one provider satisfies ok.
func waitProvider(t *testing.T, c *client.Client, d *daemon, ok func(*chatbusv1.ProviderInfo) bool, what string) *chatbusv1.ProviderInfo {
	t.Helper()
	return waitOnlyProvider(t, c, d, "", ok, what)
}

// follower is a registered session collecting its updates.
type follower struct {
	f       *client.Follower
	mu      sync.Mutex
	got     []*chatbusv1.Update
	arrived chan struct{}
	cancel  context.CancelFunc
	done    chan error
}

func (b *tgBus) follow(t *testing.T, profileKey, cwd string) *follower {
	t.Helper()
	return b.followOn(t, "", profileKey, cwd)
}

// followOn registers a follower bound on provider ("": the default).
func (b *tgBus) followOn(t *testing.T, provider, profileKey, cwd string) *follower {
	t.Helper()
	return followProvider(t, b.c, provider, profileKey, cwd)
}

// follow registers a follower that collects and acks its updates.
func follow(t *testing.T, c *client.Client, profileKey, cwd string) *follower {
	t.Helper()
	return followProvider(t, c, "", profileKey, cwd)
}

// followProvider registers a follower on provider ("": the default) that
// collects and acks its updates.
func followProvider(t *testing.T, c *client.Client, provider, profileKey, cwd string) *follower {
	t.Helper()
	f, err := registerOn(c, provider, profileKey, cwd)
	if err != nil {
		t.Fatalf("register %s: %v", profileKey, err)
	}
	return attach(t, f)
}

// registerOn registers a follower on provider ("": the default), instance
// profileKey-1; any goroutine may call it.
func registerOn(c *client.Client, provider, profileKey, cwd string) (*client.Follower, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return c.Register(ctx, client.Registration{ProfileKey: profileKey, Cwd: cwd, InstanceID: profileKey + "-1", Provider: provider})
}

// attach collects and acks registered follower f's updates until the
// test ends.
func attach(t *testing.T, f *client.Follower) *follower {
	t.Helper()
	fl := &follower{f: f, arrived: make(chan struct{}, 1024), done: make(chan error, 1)}
	sctx, scancel := context.WithCancel(context.Background())
	fl.cancel = scancel
	go func() {
		fl.done <- f.Updates(sctx, 0, func(u *chatbusv1.Update) error {
			fl.mu.Lock()
			fl.got = append(fl.got, u)
			fl.mu.Unlock()
			fl.arrived <- struct{}{}
			// Acks are cumulative: one that fails (the supervisor's disk
			// full) is made good by the next, so it does not end the stream.
			if err := f.Ack(sctx, u.GetSeq()); err != nil && sctx.Err() == nil {
				t.Logf("ack %d: %v", u.GetSeq(), err)
			}
			return nil
		})
	}()
	t.Cleanup(func() {
		scancel()
		<-fl.done
		f.Close(context.Background())
	})
	return fl
}

func (fl *follower) texts() []string {
	fl.mu.Lock()
	defer fl.mu.Unlock()
	var out []string
	for _, u := range fl.got {
		out = append(out, u.GetText())
	}
	return out
}

func (fl *follower) waitTexts(t *testing.T, want ...string) {
	t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		got := fl.texts()
		if len(got) >= len(want) {
			if strings.Join(got, "|") != strings.Join(want, "|") {
				t.Fatalf("got %q, want %q", got, want)
			}
			return
		}
		select {
		case <-fl.arrived:
		case <-deadline:
			t.Fatalf("got %q, want %q", got, want)
		}
	}
}

func (fl *follower) thread() int64 { return fl.f.Registered().GetBinding().GetTarget().GetThreadId() }

func TestTelegramRoutingAndCalls(t *testing.T) {
	b := startTelegramBus(t, "")
	alpha := b.follow(t, "manual:1", "/home/u/alpha")
	beta := b.follow(t, "manual:2", "/home/u/beta")

	// Fresh threads: one forum topic each, named by slot and directory.
	for _, fl := range []*follower{alpha, beta} {
		r := fl.f.Registered()
		if r.GetOrigin() != chatbusv1.Origin_ORIGIN_FRESH || r.GetBinding().GetTarget().GetChatId() != forumChat {
			t.Fatalf("registration %v", r)
		}
	}
	topics := b.tg.Topics(forumChat)
	if len(topics) != 2 || topics[0].Name != "A · alpha" || topics[1].Name != "B · beta" {
		t.Fatalf("topics %+v", topics)
	}

	// Inbound: each thread's messages reach exactly its follower.
	b.tg.PushMessage(forumChat, int(alpha.thread()), allowedUser, "to alpha")
	b.tg.PushMessage(forumChat, int(beta.thread()), allowedUser, "to beta")
	b.tg.PushMessage(forumChat, int(alpha.thread()), strangerID, "from a stranger")
	b.tg.PushMessage(forumChat, 0, allowedUser, "in the General topic")
	b.tg.PushMessage(forumChat, int(alpha.thread()), allowedUser, "again alpha")
	alpha.waitTexts(t, "to alpha", "again alpha")
	beta.waitTexts(t, "to beta")

	// The stranger was dropped and counted; the General topic is unrouted.
	pi := b.waitProvider(t, func(pi *chatbusv1.ProviderInfo) bool { return pi.GetIngested() == 5 }, "ingested 5")
	if pi.GetDroppedNotAllowed() != 1 {
		t.Errorf("dropped %d, want 1", pi.GetDroppedNotAllowed())
	}
	out, _, code := b.busctl("updates", "--unrouted")
	if code != 0 || !strings.Contains(out, "in the General topic") {
		t.Errorf("updates --unrouted (exit %d):\n%s", code, out)
	}

	// Outbound: sendMessage lands in the caller's own thread.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := alpha.f.Call(ctx, "sendMessage", []byte(`{"text":"hello from alpha"}`), "k1")
	if err != nil {
		t.Fatal(err)
	}
	var sent struct {
		MessageID int64 `json:"message_id"`
	}
	json.Unmarshal(res, &sent)
	msgs := b.tg.Sent(forumChat, int(alpha.thread()))
	if len(msgs) != 1 || msgs[0].Text != "hello from alpha" {
		t.Fatalf("sent into alpha's topic: %+v", msgs)
	}
	if _, err := alpha.f.Call(ctx, "editMessageText", []byte(fmt.Sprintf(`{"message_id":%d,"text":"edited"}`, sent.MessageID)), ""); err != nil {
		t.Errorf("editing its own message: %v", err)
	}

	// Calls outside the caller's thread are refused.
	refused := []struct {
		name, method, params string
	}{
		{"another thread", "sendMessage", fmt.Sprintf(`{"text":"x","message_thread_id":%d}`, beta.thread())},
		{"another chat", "sendMessage", `{"text":"x","chat_id":-100999}`},
		{"method not on the allow-list", "getUpdates", `{}`},
		{"another thread's message", "deleteMessage", `{"message_id":999999}`},
	}
	for _, r := range refused {
		t.Run(r.name, func(t *testing.T) {
			_, err := alpha.f.Call(ctx, r.method, []byte(r.params), "")
			if status.Code(errors.Unwrap(err)) != codes.PermissionDenied && !errors.Is(err, client.ErrPermissionDenied) {
				t.Errorf("%s: %v, want PermissionDenied", r.method, err)
			}
		})
	}
	if n := len(b.tg.Sent(forumChat, int(beta.thread()))); n != 0 {
		t.Errorf("%d messages reached beta's topic", n)
	}

	out, _, _ = b.busctl("bindings")
	for _, want := range []string{"manual:1", "manual:2", "active", "fresh"} {
		contains(t, "busctl bindings", out, want)
	}
	out, _, _ = b.busctl("providers")
	contains(t, "busctl providers", out, "RUNNING")
}

func TestTelegramProviderRestartLosesNothing(t *testing.T) {
	b := startTelegramBus(t, "")
	alpha := b.follow(t, "manual:1", "/home/u/alpha")
	b.tg.PushMessage(forumChat, int(alpha.thread()), allowedUser, "one")
	alpha.waitTexts(t, "one")

	first := b.provider(t)
	if err := syscall.Kill(int(first.GetPid()), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	// While it is down, a person keeps writing: the platform holds it.
	b.tg.PushMessage(forumChat, int(alpha.thread()), allowedUser, "two")
	b.tg.PushMessage(forumChat, int(alpha.thread()), allowedUser, "three")
	second := b.waitProvider(t, func(pi *chatbusv1.ProviderInfo) bool {
		return pi.GetState() == chatbusv1.ProviderState_PROVIDER_STATE_RUNNING && pi.GetPid() != first.GetPid()
	}, "restarted")
	if second.GetRestarts() != 1 || !strings.Contains(second.GetLastExit(), "killed") {
		t.Errorf("after SIGKILL: restarts %d, last exit %q", second.GetRestarts(), second.GetLastExit())
	}
	alpha.waitTexts(t, "one", "two", "three")
	// The bus kept serving throughout.
	if _, _, code := b.busctl("status"); code != 0 {
		t.Error("bus not serving")
	}
	// A call after the restart goes through the new child.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := alpha.f.Call(ctx, "sendMessage", []byte(`{"text":"after restart"}`), ""); err != nil {
		t.Fatal(err)
	}
}

func TestTelegramConflictBacksOff(t *testing.T) {
	b := startTelegramBus(t, "")
	before := b.tg.Calls("getUpdates")
	b.tg.FailAlways("getUpdates", tgtest.Fault{Status: 409})
	b.waitProvider(t, func(pi *chatbusv1.ProviderInfo) bool { return !pi.GetServing() }, "NOT_SERVING on 409")
	time.Sleep(3 * time.Second) // a busy loop would make hundreds of calls here
	during := b.tg.Calls("getUpdates") - before
	if during > 12 {
		t.Errorf("%d getUpdates calls in ~3s of 409: not backing off", during)
	}
	out, _, _ := b.busctl("events")
	contains(t, "events", out, "409")
	b.tg.ClearFaults()
	b.waitProvider(t, func(pi *chatbusv1.ProviderInfo) bool { return pi.GetServing() }, "SERVING again")
}

func TestProviderStartLimitFatal(t *testing.T) {
	tg := tgtest.New(t)
	p := newProfile(t)
	// A provider that accepts its settings (--check) and dies at start.
	dies := filepath.Join(t.TempDir(), "provider-dies")
	os.WriteFile(dies, []byte("#!/bin/sh\n[ \"$1\" = --check ] && exit 0\n"+
		"echo '{\"level\":\"error\",\"error\":\"boom\",\"message\":\"provider cannot run\"}' >&2\nexit 1\n"), 0o700)
	cfg := fmt.Sprintf(`providers:
  telegram:
    binary: %s
    forum_chat_id: %d
    start_limit: 3
    backoff_max: 100ms
`, dies, forumChat)
	_ = tg
	d, c, _ := p.serveConfig(cfg)
	deadline := time.Now().Add(30 * time.Second)
	for {
		out, _, _ := p.busctl("providers")
		if strings.Contains(out, "FATAL") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("never FATAL:\n%s\n%s", out, d.stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	out, _, _ := p.busctl("events")
	contains(t, "events", out, "provider_fatal")
	time.Sleep(500 * time.Millisecond)
	// No further starts after FATAL: the count of exits stays put.
	n1 := strings.Count(d.stderr.String(), `"event":"provider_exited"`)
	time.Sleep(time.Second)
	if n2 := strings.Count(d.stderr.String(), `"event":"provider_exited"`); n2 != n1 || n1 != 3 {
		t.Errorf("provider exits: %d then %d, want 3 and no more", n1, n2)
	}
	if _, _, code := p.busctl("status"); code != 0 {
		t.Error("the bus went down with its provider")
	}

	// What the child said on its way out is shown, and its structured
	// line was merged into the supervisor's log at its own level (not a
	// string inside an info record).
	info := onlyProvider(t, c, "telegram")
	if want := []string{"error: provider cannot run: boom"}; !slices.Equal(info.GetStderrTail(), want) {
		t.Errorf("stderr_tail %q, want %q", info.GetStderrTail(), want)
	}
	merged := false
	for line := range strings.Lines(d.stderr.String()) {
		var e map[string]any
		if json.Unmarshal([]byte(line), &e) == nil && e["message"] == "provider cannot run" {
			merged = e["level"] == "error" && e["error"] == "boom" && e["provider"] == "telegram" && e["stream"] == "stderr"
		}
	}
	if !merged {
		t.Errorf("the child's structured line was not merged into the log:\n%s", d.stderr.String())
	}

	// The doctor names a provider that does not exist NOT_FOUND.
	_, err := chatbusv1.NewDoctorServiceClient(c.Conn()).Status(context.Background(), &chatbusv1.StatusRequest{Provider: "nope"})
	if status.Code(err) != codes.NotFound {
		t.Errorf("doctor status of an unknown provider: %v, want NotFound", err)
	}
}
