package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
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

// reloadBus is a supervisord started without --log-level (so that the
// file's log_level counts), with the Telegram provider on a stand-in.
type reloadBus struct {
	*tgBus
	base string // the telegram config the test edits
}

func startReloadBus(t *testing.T, top string) *reloadBus {
	t.Helper()
	tg := tgtest.New(t)
	tg.AddForum(forumChat)
	p := newProfile(t)
	b := &reloadBus{tgBus: &tgBus{profile: p, tg: tg, configPath: filepath.Join(t.TempDir(), "config.yaml")}, base: telegramConfig(tg, "")}
	b.write(t, top+b.base)
	b.d = p.startBinary(filepath.Join(binDir, "supervisord"), nil, "--log-format", "json", "--config", b.configPath)
	p.waitServing(b.d)
	c, err := client.Dial(p.socket, client.WithSecretFile(filepath.Join(p.state, "secret")))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	b.c = c
	b.waitProvider(t, func(pi *chatbusv1.ProviderInfo) bool {
		return pi.GetState() == chatbusv1.ProviderState_PROVIDER_STATE_RUNNING
	}, "RUNNING")
	return b
}

func (b *reloadBus) write(t *testing.T, cfg string) {
	t.Helper()
	if err := os.WriteFile(b.configPath, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
}

// events returns the recent events of kind.
func (b *reloadBus) events(t *testing.T, kind chatbusv1.EventKind) []*chatbusv1.Event {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, err := b.c.Admin.ListEvents(ctx, &chatbusv1.ListEventsRequest{})
	if err != nil {
		t.Fatalf("events: %v\n%s", err, b.d.stderr.String())
	}
	var out []*chatbusv1.Event
	for _, e := range resp.GetEvents() {
		if e.GetKind() == kind {
			out = append(out, e)
		}
	}
	return out
}

// hup sends SIGHUP and waits until one more event of kind is out.
func (b *reloadBus) hup(t *testing.T, kind chatbusv1.EventKind) *chatbusv1.Event {
	t.Helper()
	before := len(b.events(t, kind))
	if err := b.d.cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case <-b.d.exited:
			t.Fatalf("supervisord exited on SIGHUP: %v\n%s", b.d.err, b.d.stderr.String())
		default:
		}
		if evs := b.events(t, kind); len(evs) > before {
			return evs[len(evs)-1]
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s event after SIGHUP\n%s", kind, b.d.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (b *reloadBus) unrouted(t *testing.T) *chatbusv1.JournalStats {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, err := b.c.Admin.ListUpdates(ctx, &chatbusv1.ListUpdatesRequest{Unrouted: true})
	if err != nil {
		t.Fatal(err)
	}
	return resp.GetStats()
}

func (b *reloadBus) providers(t *testing.T) map[string]*chatbusv1.ProviderInfo {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, err := b.c.Admin.ListProviders(ctx, &chatbusv1.ListProvidersRequest{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*chatbusv1.ProviderInfo{}
	for _, p := range resp.GetProviders() {
		out[p.GetName()] = p
	}
	return out
}

// TestReloadSIGHUP: SIGHUP reads the config again instead of killing the
// supervisor (it used to die of it, leaving its socket behind): the log
// level and a journal bound apply at once, a setting that cannot change
// live is reported, a file with a mistake is refused with one log line
// naming file, key and problem while the old config keeps serving.
func TestReloadSIGHUP(t *testing.T) {
	b := startReloadBus(t, "log_level: info\njournal:\n  max_count: 100\n")
	fl := b.follow(t, "manual:1", "/w/alpha")

	// Five updates nobody is bound to: held as unrouted.
	for i := range 5 {
		b.tg.PushMessage(forumChat, 0, allowedUser, fmt.Sprintf("general-%d", i))
	}
	testkit.Eventually(t, "5 unrouted updates", func() bool { return b.unrouted(t).GetUnacked() == 5 })
	if n := strings.Count(b.d.stderr.String(), `"level":"debug"`); n != 0 {
		t.Fatalf("%d debug lines at log_level info", n)
	}

	// The same file: nothing changes, and the supervisor lives on.
	if e := b.hup(t, chatbusv1.EventKind_EVENT_KIND_CONFIG_RELOADED); e.GetAttrs()["changes"] != "0" {
		t.Errorf("reload of the same file: %v", e)
	}

	// Log level, a journal bound and the heartbeat (which needs a restart).
	b.write(t, "log_level: debug\nclose_offline_after: 1h\njournal:\n  max_count: 2\n"+strings.Replace(b.base, "heartbeat_interval: 200ms", "heartbeat_interval: 300ms", 1))
	e := b.hup(t, chatbusv1.EventKind_EVENT_KIND_CONFIG_RELOADED)
	if a := e.GetAttrs(); a["applied"] != "2" || a["needs_restart"] != "2" || a["changes"] != "4" {
		t.Errorf("reload event: %v", e)
	}
	if st := b.unrouted(t); st.GetUnacked() != 2 || st.GetDropped() != 3 {
		t.Errorf("unrouted after max_count 2: pending %d dropped %d, want 2 and 3", st.GetUnacked(), st.GetDropped())
	}
	testkit.Eventually(t, "a debug line", func() bool { return strings.Contains(b.d.stderr.String(), `"level":"debug","changes":4`) })
	logs := b.d.stderr.String()
	contains(t, "log", logs, `"key":"log_level","action":"applied","old":"info","new":"debug"`)
	contains(t, "log", logs, `"key":"heartbeat_interval","action":"needs restart","old":"200ms","new":"300ms"`)
	contains(t, "log", logs, `"key":"close_offline_after","action":"needs restart","old":"(default)","new":"1h0m0s"`)

	// A mistake: refused as a whole, one line naming file, line, key, why.
	b.write(t, "log_level: info\nbogus_key: 1\njournal:\n  max_count: 5\n"+b.base)
	e = b.hup(t, chatbusv1.EventKind_EVENT_KIND_CONFIG_REFUSED)
	want := fmt.Sprintf("config %s: line 2: bogus_key: unknown key", b.configPath)
	if !strings.Contains(e.GetAttrs()["problems"], want) {
		t.Errorf("refusal event %v, want %q", e, want)
	}
	// The event and the log line are written apart: the line may follow.
	testkit.Eventually(t, "the refusal's log line", func() bool {
		return strings.Contains(b.d.stderr.String(), `"message":"reload refused: `+want)
	})
	// The old config keeps serving: still max_count 2, still debug, and
	// updates still flow to the follower.
	b.tg.PushMessage(forumChat, 0, allowedUser, "general-5")
	// The bound makes room before the new update is written: wait for both
	// figures, not the first to move.
	testkit.Eventually(t, "the 6th unrouted update held, the 4th dropped (the running bound of 2)", func() bool {
		st := b.unrouted(t)
		return st.GetDropped() == 4 && st.GetUnacked() == 2
	})
	b.tg.PushMessage(forumChat, int(fl.thread()), allowedUser, "still here")
	fl.waitTexts(t, "still here")
	out, _, code := b.busctl("reload")
	if code != 20 || !strings.Contains(out, "refused") || !strings.Contains(out, "bogus_key: unknown key") {
		t.Errorf("busctl reload of a bad file: exit %d\n%s", code, out)
	}
}

// TestReloadProviders: a changed provider setting (its allow list)
// restarts the provider through the doctor protocol while a person writes
// and the follower sends (0 lost, 0 duplicated at the stand-in), an added
// provider starts, a removed one is drained and stopped (its bindings go
// offline, their journals kept), and busctl reload says so.
func TestReloadProviders(t *testing.T) {
	b := startReloadBus(t, "")
	fl := b.follow(t, "manual:1", "/w/alpha")
	thread := int(fl.thread())

	out, errOut, code := b.busctl("reload")
	if code != 0 || !strings.Contains(out, "nothing changed") {
		t.Fatalf("busctl reload, nothing changed: exit %d\n%s%s", code, out, errOut)
	}

	// A stranger is not on the allow list: dropped.
	id := b.tg.PushMessage(forumChat, thread, strangerID, "stranger-before")
	testkit.Eventually(t, "the stranger's update taken", func() bool { return b.tg.Confirmed() >= id })

	old := b.providers(t)["telegram"]
	var want []string
	for i := range 40 {
		want = append(want, fmt.Sprintf("in-%d", i))
	}
	const calls = 15
	var wg sync.WaitGroup
	wg.Go(func() { // a person writing through the restart
		for _, text := range want {
			b.tg.PushMessage(forumChat, thread, allowedUser, text)
			time.Sleep(15 * time.Millisecond)
		}
	})
	wg.Go(func() { // the follower answering through it, repeating with its key
		for j := range calls {
			text := fmt.Sprintf("out-%d", j)
			deadline := time.Now().Add(60 * time.Second)
			for {
				ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
				_, err := fl.f.Call(ctx, "sendMessage", fmt.Appendf(nil, `{"text":%q}`, text), text)
				cancel()
				if err == nil {
					break
				}
				if time.Now().After(deadline) {
					t.Errorf("call %s: %v", text, err)
					break
				}
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
	time.Sleep(150 * time.Millisecond)
	b.write(t, strings.Replace(b.base, fmt.Sprintf("allowed_user_ids: [%d]", allowedUser), fmt.Sprintf("allowed_user_ids: [%d, %d]", allowedUser, strangerID), 1))
	out, errOut, code = b.busctl("reload")
	if code != 0 || !regexp.MustCompile(`providers\.telegram\s+restarted provider\s+running\s+changed\s+settings allowed_user_ids: .* replaced by`).MatchString(out) {
		t.Fatalf("busctl reload, allow list: exit %d\n%s%s\n%s", code, out, errOut, b.d.stderr.String())
	}
	t.Logf("busctl reload:\n%s", out)
	wg.Wait()
	fl.waitTexts(t, want...) // exactly these, once each, in order: nothing lost, nothing twice
	sent := map[string]int{}
	for _, m := range b.tg.Sent(forumChat, thread) {
		sent[m.Text]++
	}
	for j := range calls {
		if n := sent[fmt.Sprintf("out-%d", j)]; n != 1 {
			t.Errorf("out-%d sent %d times, want once", j, n)
		}
	}
	now := b.providers(t)["telegram"]
	if now.GetPid() == old.GetPid() || now.GetState() != chatbusv1.ProviderState_PROVIDER_STATE_RUNNING {
		t.Errorf("telegram after the reload: %v (was pid %d)", now, old.GetPid())
	}
	// The new allow list holds.
	b.tg.PushMessage(forumChat, thread, strangerID, "stranger-after")
	fl.waitTexts(t, append(want, "stranger-after")...)

	// An added provider starts.
	withAllow := strings.Replace(b.base, fmt.Sprintf("allowed_user_ids: [%d]", allowedUser), fmt.Sprintf("allowed_user_ids: [%d, %d]", allowedUser, strangerID), 1)
	withPlayground := withAllow + "  playground:\n    binary: " + filepath.Join(binDir, "provider-playground") + "\n"
	b.write(t, withPlayground)
	out, errOut, code = b.busctl("reload")
	if code != 0 || !regexp.MustCompile(`providers\.playground\s+started\s+-\s+configured\s+running \(pid \d+\)`).MatchString(out) {
		t.Fatalf("busctl reload, added provider: exit %d\n%s%s", code, out, errOut)
	}
	pg := b.providers(t)["playground"]
	if pg.GetState() != chatbusv1.ProviderState_PROVIDER_STATE_RUNNING {
		t.Fatalf("playground after reload: %v", pg)
	}
	b.followOn(t, "playground", "manual:pg", "/w/pg")

	// Removed: drained and stopped; its binding goes offline, kept.
	b.write(t, withAllow)
	out, errOut, code = b.busctl("reload")
	if code != 0 || !regexp.MustCompile(`providers\.playground\s+stopped\s+configured\s+removed\s+.*exited \(reaped\); no successor; 1 binding\(s\) offline, their journals kept`).MatchString(out) {
		t.Fatalf("busctl reload, removed provider: exit %d\n%s%s", code, out, errOut)
	}
	if _, ok := b.providers(t)["playground"]; ok {
		t.Error("playground still listed after its removal")
	}
	if err := syscall.Kill(int(pg.GetPid()), 0); err == nil {
		t.Errorf("playground child %d still runs", pg.GetPid())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	bs, err := b.c.Admin.ListBindings(ctx, &chatbusv1.ListBindingsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, bi := range bs.GetBindings() {
		if bi.GetBinding().GetTarget().GetProvider() == "playground" {
			found = true
			if bi.GetBinding().GetStatus() != chatbusv1.BindingStatus_BINDING_STATUS_OFFLINE || !strings.Contains(bi.GetLastError(), "removed from the config") {
				t.Errorf("playground binding after removal: %v", bi)
			}
		}
	}
	if !found {
		t.Error("the playground binding is gone; it must be kept")
	}
	// telegram kept serving throughout.
	b.tg.PushMessage(forumChat, thread, allowedUser, "after all")
	fl.waitTexts(t, append(want, "stranger-after", "after all")...)

	// A setting that cannot change live: exit 21.
	b.write(t, "socket: /tmp/elsewhere.sock\n"+withAllow)
	out, _, code = b.busctl("reload")
	if code != 21 || !regexp.MustCompile(`socket\s+needs restart`).MatchString(out) {
		t.Errorf("busctl reload, socket changed: exit %d\n%s", code, out)
	}
}
