package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chatbus/chatbus/client"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
	"github.com/chatbus/chatbus/provider/discord/discordtest"
)

// dcBus is a supervisord with the real provider-discord child against
// the Discord stand-in.
type dcBus struct {
	*profile
	dc         *discordtest.Server
	alice      discordtest.User // on allowed_user_ids
	stranger   discordtest.User
	d          *daemon
	c          *client.Client
	configPath string
}

func startDiscordBus(t *testing.T, opts ...discordtest.Option) *dcBus {
	return startDiscordBusTop(t, "", opts...)
}

// startDiscordBusTop is startDiscordBus with top-level config keys (a
// transcriber).
func startDiscordBusTop(t *testing.T, top string, opts ...discordtest.Option) *dcBus {
	dc := discordtest.New(t, opts...)
	alice, stranger := dc.AddUser("alice"), dc.AddUser("stranger")
	p := newProfile(t)
	// Ids as a YAML config writes them: the channel and user as numbers.
	cfg := top + fmt.Sprintf(`heartbeat_interval: 200ms
stale_after: 3s
reconcile_grace: 1s
providers:
  discord:
    binary: %s
    token: %q
    guild_id: %q
    channel_id: %s
    allowed_user_ids: [%s]
    base_url: %s
    backoff_max: 1s
`, filepath.Join(binDir, "provider-discord"), dc.Token(), dc.GuildID(), dc.Channel(), alice.ID, dc.URL())
	d, c, path := p.serveConfig(cfg)
	b := &dcBus{profile: p, dc: dc, alice: alice, stranger: stranger, d: d, c: c, configPath: path}
	b.waitProvider(t, func(pi *chatbusv1.ProviderInfo) bool {
		return pi.GetState() == chatbusv1.ProviderState_PROVIDER_STATE_RUNNING && pi.GetServing()
	}, "RUNNING and serving")
	return b
}

func (b *dcBus) waitProvider(t *testing.T, ok func(*chatbusv1.ProviderInfo) bool, what string) *chatbusv1.ProviderInfo {
	return waitProvider(t, b.c, b.d, ok, what)
}

// followers registers n followers, manual:0 … manual:n-1.
func (b *dcBus) followers(t *testing.T, n int) []*follower {
	fls := make([]*follower, n)
	for i := range fls {
		fls[i] = follow(t, b.c, fmt.Sprintf("manual:%d", i), fmt.Sprintf("/w/p%d", i))
	}
	return fls
}

func threadOf(fl *follower) string { return fl.f.Registered().GetBinding().GetTarget().GetThread() }

// sentTexts counts the bot's messages in thread by content.
func (b *dcBus) sentTexts(thread string) map[string]int {
	out := map[string]int{}
	for _, m := range b.dc.BotMessages(thread) {
		out[m.Content]++
	}
	return out
}

func callOK(t *testing.T, fl *follower, method, params string) json.RawMessage {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := fl.f.Call(ctx, method, []byte(params), "")
	if err != nil {
		t.Fatalf("%s %s: %v", method, params, err)
	}
	return res
}

func TestDiscordRoutingAndCalls(t *testing.T) {
	b := startDiscordBus(t)
	alpha := follow(t, b.c, "manual:1", "/home/u/alpha")
	beta := follow(t, b.c, "manual:2", "/home/u/beta")

	threads := b.dc.Threads(b.dc.Channel())
	if len(threads) != 2 || threads[0].Name != "A · alpha" || threads[1].Name != "B · beta" {
		t.Fatalf("threads %+v", threads)
	}
	for _, fl := range []*follower{alpha, beta} {
		tg := fl.f.Registered().GetBinding().GetTarget()
		if fl.f.Registered().GetOrigin() != chatbusv1.Origin_ORIGIN_FRESH || tg.GetChat() != b.dc.Channel() || tg.GetThread() == "" {
			t.Fatalf("registration %v", fl.f.Registered())
		}
	}
	b.dc.PostMessage(threadOf(alpha), b.alice, "to alpha")
	inBeta := b.dc.PostMessage(threadOf(beta), b.alice, "to beta")
	b.dc.PostMessage(threadOf(alpha), b.stranger, "from a stranger")
	b.dc.PostMessage(b.dc.Channel(), b.alice, "in the channel itself")
	b.dc.PostMessage(threadOf(alpha), b.alice, "again alpha")
	alpha.waitTexts(t, "to alpha", "again alpha")
	beta.waitTexts(t, "to beta")
	pi := b.waitProvider(t, func(pi *chatbusv1.ProviderInfo) bool { return pi.GetIngested() == 5 }, "ingested 5")
	if pi.GetDroppedNotAllowed() != 1 {
		t.Errorf("dropped %d, want 1", pi.GetDroppedNotAllowed())
	}
	out, _, code := b.busctl("updates", "--unrouted")
	if code != 0 || !strings.Contains(out, "in the channel itself") {
		t.Errorf("updates --unrouted (exit %d):\n%s", code, out)
	}

	// A message with a button; the person presses it; the follower gets
	// the press and answers it with a follow-up.
	res := callOK(t, alpha, "createMessage", `{"content":"proceed?","components":[{"type":1,"components":[{"type":2,"style":1,"label":"Yes","custom_id":"yes"}]}]}`)
	var sent struct{ ID string }
	json.Unmarshal(res, &sent)
	iid, token := b.dc.Press(threadOf(alpha), sent.ID, b.alice, "yes")
	alpha.waitTexts(t, "to alpha", "again alpha", "yes")
	alpha.mu.Lock()
	press := alpha.got[2]
	alpha.mu.Unlock()
	if press.GetKind() != chatbusv1.UpdateKind_UPDATE_KIND_CALLBACK_QUERY || press.GetPlatform() != "discord" {
		t.Errorf("press %v", press)
	}
	deadline := time.Now().Add(10 * time.Second)
	for typ, _ := b.dc.Interaction(iid); typ != 6; typ, _ = b.dc.Interaction(iid) {
		if time.Now().After(deadline) {
			t.Fatal("the press was not acknowledged to Discord")
		}
		time.Sleep(10 * time.Millisecond)
	}
	callOK(t, alpha, "interactionFollowup", `{"interaction_token":"`+token+`","content":"going ahead"}`)
	callOK(t, alpha, "editMessage", `{"message_id":"`+sent.ID+`","content":"proceed? (answered)","components":[]}`)
	if got := b.sentTexts(threadOf(alpha)); got["going ahead"] != 1 || got["proceed? (answered)"] != 1 {
		t.Errorf("alpha's thread holds %v", got)
	}

	// Calls outside the caller's thread are refused.
	refused := []struct{ name, method, params string }{
		{"another thread", "createMessage", `{"content":"x","channel_id":"` + threadOf(beta) + `"}`},
		{"another thread's message", "deleteMessage", `{"message_id":"` + inBeta.ID + `"}`},
		{"a token never seen", "interactionFollowup", `{"interaction_token":"made-up","content":"x"}`},
		{"not a Discord method", "sendMessage", `{"text":"x"}`},
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, r := range refused {
		t.Run(r.name, func(t *testing.T) {
			if _, err := alpha.f.Call(ctx, r.method, []byte(r.params), ""); !errors.Is(err, client.ErrPermissionDenied) {
				t.Errorf("%s: %v, want PermissionDenied", r.method, err)
			}
		})
	}
	_, err := alpha.f.Call(ctx, "createMessage", []byte(`{"content":"`+strings.Repeat("x", 2001)+`"}`), "")
	if err == nil || !strings.Contains(err.Error(), "2000") {
		t.Errorf("content over the limit: %v", err)
	}
	if n := len(b.dc.BotMessages(threadOf(beta))); n != 0 {
		t.Errorf("%d messages reached beta's thread", n)
	}
	out, _, _ = b.busctl("providers")
	contains(t, "busctl providers", out, "RUNNING")
}

// load is people writing into each follower's thread while each follower
// sends, and records what to expect.
type load struct {
	b        *dcBus
	fls      []*follower
	in       [][]string
	callsPer int
	wg       sync.WaitGroup
	mu       sync.Mutex
	unknown  map[string]bool // calls whose outcome stayed unknown
}

func startLoad(t *testing.T, b *dcBus, fls []*follower, perFollower, callsPer int) *load {
	l := &load{b: b, fls: fls, in: make([][]string, len(fls)), callsPer: callsPer, unknown: map[string]bool{}}
	for i, fl := range fls {
		for j := range perFollower {
			l.in[i] = append(l.in[i], fmt.Sprintf("in-%d-%d", i, j))
		}
		l.wg.Go(func() {
			for _, text := range l.in[i] {
				b.dc.PostMessage(threadOf(fl), b.alice, text)
				time.Sleep(15 * time.Millisecond)
			}
		})
		l.wg.Go(func() {
			for j := range callsPer {
				l.send(t, fl, fmt.Sprintf("out-%d-%d", i, j))
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
	return l
}

// send makes one createMessage, repeating it with the same idempotency
// key when it failed, as a careful follower does: the provider turns the
// key into Discord's nonce, so a repeat of one that was sent makes no
// second message. A call the supervisor keeps answering "outcome
// unknown" (it was cut off by the crash and the supervisor will not risk
// it again) is noted: its message may be there once, or not at all.
func (l *load) send(t *testing.T, fl *follower, text string) {
	for attempt := 0; ; attempt++ {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		_, err := fl.f.Call(ctx, "createMessage", fmt.Appendf(nil, `{"content":%q}`, text), text)
		cancel()
		switch {
		case err == nil:
			return
		case errors.Is(err, client.ErrOutcomeUnknown) && attempt >= 3:
			l.mu.Lock()
			l.unknown[text] = true
			l.mu.Unlock()
			return
		case attempt == 20:
			t.Errorf("call %s: %v", text, err)
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// check waits for every message, exactly once and in order, at each
// follower, and every call's message exactly once at Discord (at most
// once for a call whose outcome stayed unknown).
func (l *load) check(t *testing.T) {
	l.wg.Wait()
	for i, fl := range l.fls {
		fl.waitTexts(t, l.in[i]...)
		sent := l.b.sentTexts(threadOf(fl))
		for j := range l.callsPer {
			text := fmt.Sprintf("out-%d-%d", i, j)
			if n := sent[text]; n != 1 && !(l.unknown[text] && n == 0) {
				t.Errorf("%s sent %d times", text, n)
			}
		}
		if len(sent) > l.callsPer {
			t.Errorf("thread %d holds %d distinct messages, want %d", i, len(sent), l.callsPer)
		}
	}
	if len(l.unknown) > 0 {
		t.Logf("calls whose outcome stayed unknown: %v", l.unknown)
	}
}

// TestDiscordDoctorRestartUnderLoad: the provider is restarted by the
// doctor while people write and followers send: the successor RESUMEs
// the session (Discord replays what was not durable), nothing is lost,
// nothing is doubled, nothing is sent twice.
func TestDiscordDoctorRestartUnderLoad(t *testing.T) {
	b := startDiscordBus(t)
	fls := b.followers(t, 3)
	old := onlyProvider(t, b.c, "")
	l := startLoad(t, b, fls, 60, 20)
	time.Sleep(300 * time.Millisecond) // let the load get going
	out, errOut, code := b.busctl("doctor", "restart", "discord", "--drain", "10s", "--deadline", "40s")
	if code != 0 || !strings.Contains(out, "outcome: restarted") {
		t.Fatalf("doctor restart: exit %d\n%s\n%s", code, out, errOut)
	}
	t.Logf("doctor restart under load:\n%s", out)
	l.check(t)
	if now := onlyProvider(t, b.c, ""); now.GetPid() == old.GetPid() {
		t.Errorf("provider not replaced: pid %d", now.GetPid())
	}
	if c := b.dc.Counts(); c["identify"] != 1 || c["resume"] < 1 || c["client_close_1012"] < 1 {
		t.Errorf("gateway counts %v: the successor should have resumed the session", c)
	}
}

// TestDiscordProviderKill9UnderLoad: the provider child is SIGKILLed
// while people write and followers send; supervision starts a successor
// that resumes the session from the durable cursor.
func TestDiscordProviderKill9UnderLoad(t *testing.T) {
	b := startDiscordBus(t)
	fls := b.followers(t, 3)
	first := onlyProvider(t, b.c, "")
	l := startLoad(t, b, fls, 60, 20)
	deadline := time.Now().Add(20 * time.Second)
	for len(fls[0].texts()) < 10 {
		if time.Now().After(deadline) {
			t.Fatal("the load never got going")
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := syscall.Kill(int(first.GetPid()), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	second := b.waitProvider(t, func(pi *chatbusv1.ProviderInfo) bool {
		return pi.GetState() == chatbusv1.ProviderState_PROVIDER_STATE_RUNNING && pi.GetPid() != first.GetPid()
	}, "restarted")
	if !strings.Contains(second.GetLastExit(), "killed") {
		t.Errorf("last exit %q", second.GetLastExit())
	}
	l.check(t)
	if c := b.dc.Counts(); c["identify"] != 1 || c["resume"] < 1 {
		t.Errorf("gateway counts %v: the successor should have resumed the session", c)
	}
}

// TestDiscordCatchUpAfterExpiredSession: the child is SIGKILLed and its
// session expires before a successor runs (a long outage): the
// successor's RESUME is refused, it identifies afresh and fetches by REST
// what was written meanwhile, from the per-thread marks of the cursor
// the supervisor stored.
func TestDiscordCatchUpAfterExpiredSession(t *testing.T) {
	b := startDiscordBus(t)
	alpha := follow(t, b.c, "manual:1", "/w/alpha")
	beta := follow(t, b.c, "manual:2", "/w/beta")
	b.dc.PostMessage(threadOf(alpha), b.alice, "a0")
	alpha.waitTexts(t, "a0")
	first := onlyProvider(t, b.c, "")
	b.dc.SetGatewayDown(true) // the successor cannot connect until we say
	if err := syscall.Kill(int(first.GetPid()), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	b.waitProvider(t, func(pi *chatbusv1.ProviderInfo) bool { return pi.GetPid() != first.GetPid() && pi.GetPid() != 0 }, "restarted")
	b.dc.ExpireSessions()
	var wantA []string
	for i := 1; i <= 120; i++ {
		wantA = append(wantA, "a"+strconv.Itoa(i))
		b.dc.PostMessage(threadOf(alpha), b.alice, wantA[len(wantA)-1])
	}
	b.dc.PostMessage(threadOf(beta), b.alice, "b1")
	b.dc.SetGatewayDown(false)
	alpha.waitTexts(t, append([]string{"a0"}, wantA...)...)
	beta.waitTexts(t, "b1")
	if c := b.dc.Counts(); c["identify"] != 2 || c["invalid_session"] < 1 {
		t.Errorf("gateway counts %v: want a refused RESUME and a fresh IDENTIFY", c)
	}
}

// TestDiscordSupervisorSIGKILL: supervisord is SIGKILLed while messages
// arrive (its provider child is told to stop by the kernel and leaves the
// session resumable); a new supervisord's child resumes it, and the
// followers get every message once, in order.
func TestDiscordSupervisorSIGKILL(t *testing.T) {
	const threads, total = 4, 2000
	b := startDiscordBus(t)
	sigkillSupervisor(t, b.profile, b.d, b.configPath, threads, total, func(thread int64, n int, text string) {
		b.dc.PostMessage(strconv.FormatInt(thread, 10), b.alice, text)
		if n%20 == 0 {
			time.Sleep(5 * time.Millisecond) // people write; they do not flood
		}
	})
	if c := b.dc.Counts(); c["identify"] != 1 || c["resume"] < 1 {
		t.Errorf("gateway counts %v: the new supervisor's child should have resumed the session", c)
	}
}
