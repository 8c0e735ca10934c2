package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chatbus/chatbus/client"
	"github.com/chatbus/chatbus/internal/testkit"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
	"github.com/chatbus/chatbus/provider/slack/slacktest"
	"github.com/chatbus/chatbus/provider/telegram/tgtest"
)

const (
	slackChannel  = "C0CHATBUS"
	slackPerson   = "U0PERSON"
	slackStranger = "U0STRANGER"
)

// slackBus is a supervisord with the real provider-slack binary against a
// Slack stand-in (and, with telegram, provider-telegram against tgtest).
type slackBus struct {
	*tgBus
	st *slacktest.Server
}

type slackBusConfig struct {
	telegram bool // configure provider-telegram too
	opts     []slacktest.Option
	outside  bool // the bot is not in its channel: the provider runs, not serving
	// parallel: the test runs in parallel, where t.Setenv is refused: the
	// tokens go in the config.
	parallel bool
	top      string // top-level config keys (a transcriber)
}

// startSlackBus starts the stand-in and a supervisord configured with
// provider-slack pointed at it. The tokens reach the child through
// CHATBUS_SLACK_APP_TOKEN and CHATBUS_SLACK_BOT_TOKEN (the supervisor's
// environment is the child's), unless telegram or parallel is set: then
// they are in the config.
func startSlackBus(t *testing.T, cfg slackBusConfig) *slackBus {
	// A stand-in that pings often and redelivers what was not
	// acknowledged within 2s, many times (Slack: 1 min and 5 min, twice).
	opts := append([]slacktest.Option{slacktest.WithPingInterval(500 * time.Millisecond),
		slacktest.WithRetrySchedule(2*time.Second, 2*time.Second, 2*time.Second, 2*time.Second, 2*time.Second, 2*time.Second)}, cfg.opts...)
	st := slacktest.New(t, opts...)
	st.AddChannel(slackChannel, "chatbus", !cfg.outside)
	st.AddChannel("C0OTHER", "other", true)
	tokens := ""
	if cfg.telegram || cfg.parallel {
		tokens = fmt.Sprintf("    app_token: %q\n    bot_token: %q\n", slacktest.AppToken, slacktest.BotToken)
	} else {
		t.Setenv("CHATBUS_SLACK_APP_TOKEN", slacktest.AppToken)
		t.Setenv("CHATBUS_SLACK_BOT_TOKEN", slacktest.BotToken)
	}
	conf := cfg.top + fmt.Sprintf(`heartbeat_interval: 200ms
stale_after: 3s
reconcile_grace: 1s
providers:
  slack:
    binary: %s
    channel_id: %s
    base_url: %s
    allowed_user_ids: [%s]
    dead_after: 2s
    auth_retry: 300ms
    backoff_max: 1s
%s`, filepath.Join(binDir, "provider-slack"), slackChannel, st.URL(), slackPerson, tokens)
	var tg *tgtest.Server
	if cfg.telegram {
		tg = tgtest.New(t)
		tg.AddForum(forumChat)
		conf += fmt.Sprintf(`  telegram:
    binary: %s
    forum_chat_id: %d
    base_url: %s
    token: %q
    allowed_user_ids: [%d]
    poll_timeout: 1s
    poll_grace: 2s
    backoff_max: 1s
`, filepath.Join(binDir, "provider-telegram"), forumChat, tg.URL(), tg.Token(), allowedUser)
	}
	b := &slackBus{tgBus: startBus(t, newProfile(t), conf), st: st}
	b.tg = tg
	b.waitNamed(t, "slack", func(pi *chatbusv1.ProviderInfo) bool {
		return pi.GetState() == chatbusv1.ProviderState_PROVIDER_STATE_RUNNING && (pi.GetServing() || cfg.outside)
	}, "RUNNING and serving")
	testkit.Eventually(t, "a Socket Mode connection", func() bool { return st.Stats().Live > 0 })
	return b
}

// named returns the provider called name.
func (b *slackBus) named(t *testing.T, name string) *chatbusv1.ProviderInfo {
	t.Helper()
	return namedProvider(t, b.c, name)
}

func (b *slackBus) waitNamed(t *testing.T, name string, ok func(*chatbusv1.ProviderInfo) bool, what string) *chatbusv1.ProviderInfo {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		pi := b.named(t, name)
		if ok(pi) {
			return pi
		}
		if time.Now().After(deadline) {
			t.Fatalf("provider %s never %s: %v\n%s", name, what, pi, b.d.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// slackThread is the follower's thread: the root message's ts.
func slackThread(fl *follower) string { return fl.f.Registered().GetBinding().GetTarget().GetThread() }

// waitSet waits until fl got exactly want (in any order), each once.
func (fl *follower) waitSet(t *testing.T, want []string) {
	t.Helper()
	deadline := time.After(40 * time.Second)
	sorted := slices.Clone(want)
	slices.Sort(sorted)
	for {
		got := fl.texts()
		if len(got) >= len(want) {
			slices.Sort(got)
			if !slices.Equal(got, sorted) {
				t.Fatalf("got %d updates %q, want %d %q", len(got), got, len(want), sorted)
			}
			return
		}
		select {
		case <-fl.arrived:
		case <-deadline:
			t.Fatalf("got %d of %d: %q", len(got), len(want), got)
		}
	}
}

// TestSlackRoutingAndCalls: each follower gets its own Slack thread (a
// root message "<slot> · <name>"), receives exactly its thread's
// messages, presses and reactions, and its calls stay in its thread.
func TestSlackRoutingAndCalls(t *testing.T) {
	b := startSlackBus(t, slackBusConfig{})
	alpha := b.follow(t, "manual:1", "/home/u/alpha")
	beta := b.follow(t, "manual:2", "/home/u/beta")
	for _, fl := range []*follower{alpha, beta} {
		r := fl.f.Registered()
		if r.GetOrigin() != chatbusv1.Origin_ORIGIN_FRESH || r.GetBinding().GetTarget().GetChat() != slackChannel || slackThread(fl) == "" {
			t.Fatalf("registration %v", r)
		}
	}
	roots := b.st.Sent(slackChannel, "")
	if len(roots) != 2 || roots[0].Text != "A · alpha" || roots[1].Text != "B · beta" || roots[0].TS != slackThread(alpha) {
		t.Fatalf("roots %+v", roots)
	}

	b.st.PostMessage(slackChannel, slackPerson, "to alpha", slackThread(alpha))
	b.st.PostMessage(slackChannel, slackPerson, "to beta", slackThread(beta))
	b.st.PostMessage(slackChannel, slackStranger, "from a stranger", slackThread(alpha))
	b.st.PostMessage(slackChannel, slackPerson, "in the channel", "")
	b.st.PostMessage(slackChannel, slackPerson, "again alpha", slackThread(alpha))
	alpha.waitTexts(t, "to alpha", "again alpha")
	beta.waitTexts(t, "to beta")

	pi := b.waitNamed(t, "slack", func(pi *chatbusv1.ProviderInfo) bool { return pi.GetIngested() == 5 }, "ingested 5")
	if pi.GetDroppedNotAllowed() != 1 || pi.GetPlatform() != "slack" {
		t.Errorf("provider %v", pi)
	}
	out, _, code := b.busctl("updates", "--unrouted")
	if code != 0 || !strings.Contains(out, "in the channel") {
		t.Errorf("updates --unrouted (exit %d):\n%s", code, out)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := alpha.f.Call(ctx, "chat.postMessage", []byte(`{"text":"hello from alpha","blocks":[{"type":"actions","elements":[{"type":"button","action_id":"go","value":"go on","text":{"type":"plain_text","text":"Go on"}}]}]}`), "k1")
	if err != nil {
		t.Fatal(err)
	}
	var sent struct {
		TS string `json:"ts"`
	}
	json.Unmarshal(res, &sent)
	msgs := b.st.Sent(slackChannel, slackThread(alpha))
	if len(msgs) != 1 || msgs[0].Text != "hello from alpha" || msgs[0].TS != sent.TS {
		t.Fatalf("alpha's thread: %+v", msgs)
	}
	if _, err := alpha.f.Call(ctx, "chat.update", fmt.Appendf(nil, `{"ts":%q,"text":"edited"}`, sent.TS), ""); err != nil {
		t.Errorf("editing its own message: %v", err)
	}
	// A press of its button and a reaction to its message reach alpha.
	b.st.PressButton(slackChannel, sent.TS, slackPerson, "go", "go on")
	b.st.React(slackChannel, sent.TS, slackPerson, "tada")
	alpha.waitTexts(t, "to alpha", "again alpha", "go on", "tada")

	// Files: a person's file downloads through the bus; an upload lands in
	// alpha's thread.
	_, fileID := b.st.PostFile(slackChannel, slackPerson, slackThread(alpha), "notes.txt", "notes", []byte("the notes\n"))
	alpha.waitTexts(t, "to alpha", "again alpha", "go on", "tada", "notes")
	dl, err := b.c.Bus.DownloadFile(ctx, &chatbusv1.DownloadFileRequest{Session: alpha.f.Session(), FileId: fileID})
	if err != nil {
		t.Fatal(err)
	}
	var got []byte
	for {
		m, err := dl.Recv()
		if err != nil {
			if !errors.Is(err, io.EOF) {
				t.Fatalf("download: %v", err)
			}
			break
		}
		got = append(got, m.GetChunk()...)
	}
	if string(got) != "the notes\n" {
		t.Errorf("downloaded %q", got)
	}
	up, err := b.c.Bus.UploadFile(ctx)
	if err != nil {
		t.Fatal(err)
	}
	up.Send(&chatbusv1.UploadFileRequest{Msg: &chatbusv1.UploadFileRequest_Header{Header: &chatbusv1.UploadHeader{
		Session: alpha.f.Session(), Filename: "answer.txt", Caption: "my answer"}}})
	up.Send(&chatbusv1.UploadFileRequest{Msg: &chatbusv1.UploadFileRequest_Chunk{Chunk: []byte("answer\n")}})
	if _, err := up.CloseAndRecv(); err != nil {
		t.Fatalf("upload: %v", err)
	}
	if m := b.st.Sent(slackChannel, slackThread(alpha)); len(m) != 2 || m[1].Text != "my answer" || len(m[1].Files) != 1 {
		t.Errorf("alpha's thread after the upload: %+v", m)
	}

	refused := []struct{ name, method, params string }{
		{"another thread", "chat.postMessage", fmt.Sprintf(`{"text":"x","thread_ts":%q}`, slackThread(beta))},
		{"another channel", "chat.postMessage", `{"text":"x","channel":"C0OTHER"}`},
		{"method not declared", "conversations.history", `{}`},
		{"another thread's message", "chat.delete", `{"ts":"1700000000.000001"}`},
	}
	for _, r := range refused {
		t.Run(r.name, func(t *testing.T) {
			if _, err := alpha.f.Call(ctx, r.method, []byte(r.params), ""); !errors.Is(err, client.ErrPermissionDenied) {
				t.Errorf("%s: %v, want PermissionDenied", r.method, err)
			}
		})
	}
	if n := len(b.st.Sent(slackChannel, slackThread(beta))); n != 0 {
		t.Errorf("%d messages reached beta's thread", n)
	}
	out, _, _ = b.busctl("providers")
	contains(t, "busctl providers", out, "RUNNING")
	if st := b.st.Stats(); st.BadAcks != 0 {
		t.Errorf("stand-in stats %+v", st)
	}
}

// TestSlackRateLimitAndRevokedToken: a 429 is waited out by the
// supervisor (the call made once, after Slack's Retry-After) and counted;
// a revoked token makes the provider NOT_SERVING with the reason in busctl
// providers until it works again.
func TestSlackRateLimitAndRevokedToken(t *testing.T) {
	b := startSlackBus(t, slackBusConfig{})
	fl := b.follow(t, "manual:1", "/w/one")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	b.st.Fail("chat.postMessage", slacktest.Fault{Status: 429, RetryAfter: 1})
	if _, err := fl.f.Call(ctx, "chat.postMessage", []byte(`{"text":"too fast"}`), ""); err != nil {
		t.Fatalf("a call under a 429: %v", err)
	}
	if sent := b.st.Sent(slackChannel, slackThread(fl)); len(sent) != 1 {
		t.Errorf("%d messages sent after the 429, want 1", len(sent))
	}
	if q := b.named(t, "slack").GetOutbound(); q.GetRateLimited() != 1 {
		t.Errorf("the queue counted %d rate-limited calls, want 1", q.GetRateLimited())
	}

	b.st.Revoke()
	b.waitNamed(t, "slack", func(pi *chatbusv1.ProviderInfo) bool { return !pi.GetServing() }, "NOT_SERVING")
	testkit.Eventually(t, "the reason in busctl providers", func() bool {
		out, _, _ := b.busctl("providers")
		return strings.Contains(out, "not-serving") && strings.Contains(out, "token_revoked")
	})
	b.st.Restore()
	b.waitNamed(t, "slack", func(pi *chatbusv1.ProviderInfo) bool { return pi.GetServing() }, "SERVING again")
	b.st.PostMessage(slackChannel, slackPerson, "after the fix", slackThread(fl))
	fl.waitTexts(t, "after the fix")
}

// TestSlackDroppedConnectionAndDuplicates: the WebSocket is cut mid
// stream with envelopes unacknowledged, which Slack redelivers on the
// next connection; and an event whose acknowledgement was lost is
// redelivered to a new provider child: every message reaches the
// follower once.
func TestSlackDroppedConnectionAndDuplicates(t *testing.T) {
	b := startSlackBus(t, slackBusConfig{})
	fl := b.follow(t, "manual:1", "/w/one")
	var want []string
	post := func(n int) {
		for range n {
			text := fmt.Sprintf("m%02d", len(want))
			want = append(want, text)
			b.st.PostMessage(slackChannel, slackPerson, text, slackThread(fl))
		}
	}
	for range 3 {
		// Five whose acknowledgements are lost on the way, five more, and
		// the connection is cut: Slack redelivers the first five on the
		// next connection.
		st := b.st.Stats()
		b.st.LoseAcks(true)
		post(5)
		testkit.Eventually(t, "the lost acknowledgements", func() bool { return b.st.Stats().LostAcks >= st.LostAcks+5 })
		b.st.LoseAcks(false)
		post(5)
		b.st.DropLinks()
		testkit.Eventually(t, "a new connection", func() bool { return b.st.Stats().Connections > st.Connections })
	}
	fl.waitSet(t, want)
	testkit.Eventually(t, "every envelope acknowledged", func() bool { return b.st.Stats().Pending == 0 })
	if st := b.st.Stats(); st.Connections != 4 || st.Redeliveries < 15 || st.BadAcks != 0 {
		t.Errorf("stand-in stats %+v", st)
	}

	// The acknowledgement of "lost ack" is lost; the child is killed
	// before Slack redelivers; its successor delivers it again, and the
	// supervisor journals it once.
	b.st.LoseAcks(true)
	p := b.st.PostMessage(slackChannel, slackPerson, "lost ack", slackThread(fl))
	want = append(want, "lost ack")
	fl.waitSet(t, want)
	testkit.Eventually(t, "the lost acknowledgement", func() bool { return b.st.Stats().LostAcks > 0 })
	old := b.named(t, "slack")
	if err := syscall.Kill(int(old.GetPid()), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	b.waitNamed(t, "slack", func(pi *chatbusv1.ProviderInfo) bool {
		return pi.GetState() == chatbusv1.ProviderState_PROVIDER_STATE_RUNNING && pi.GetPid() != old.GetPid()
	}, "restarted")
	testkit.Eventually(t, "a redelivery to the successor", func() bool { return b.st.Event(p.EventID).Deliveries >= 2 })
	b.st.LoseAcks(false)
	testkit.Eventually(t, "acknowledged", func() bool { return b.st.Event(p.EventID).Acked })
	b.st.PostMessage(slackChannel, slackPerson, "after", slackThread(fl))
	want = append(want, "after")
	fl.waitSet(t, want) // "lost ack" once, though Slack sent it twice
}

// slackLoad is people writing into each follower's thread and followers
// answering, while something happens to the provider.
type slackLoad struct {
	b        *slackBus
	fls      []*follower
	want     [][]string
	callsPer int
	mu       sync.Mutex
	ok       map[string]bool  // calls that returned success
	failed   map[string]error // calls that failed
	wg       sync.WaitGroup
}

func startSlackLoad(t *testing.T, b *slackBus, nFollowers, perFollower, callsPer int) *slackLoad {
	l := &slackLoad{b: b, want: make([][]string, nFollowers), callsPer: callsPer, ok: map[string]bool{}, failed: map[string]error{}}
	for i := range nFollowers {
		l.fls = append(l.fls, b.follow(t, fmt.Sprintf("manual:%d", i), fmt.Sprintf("/w/p%d", i)))
	}
	for i, fl := range l.fls {
		for j := range perFollower {
			l.want[i] = append(l.want[i], fmt.Sprintf("in-%d-%d", i, j))
		}
		l.wg.Go(func() {
			for _, text := range l.want[i] {
				b.st.PostMessage(slackChannel, slackPerson, text, slackThread(fl))
				time.Sleep(15 * time.Millisecond)
			}
		})
		l.wg.Go(func() {
			for j := range callsPer {
				ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
				text := fmt.Sprintf("out-%d-%d", i, j)
				_, err := fl.f.Call(ctx, "chat.postMessage", fmt.Appendf(nil, `{"text":%q}`, text), text)
				cancel()
				l.mu.Lock()
				if err != nil {
					l.failed[text] = err
				} else {
					l.ok[text] = true
				}
				l.mu.Unlock()
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
	return l
}

// check waits for the load to end and counts at the stand-in: every
// message a person wrote reached its follower once; every call that
// succeeded is in its thread exactly once; a call that failed (cut off by
// a crash: the outcome is unknown) is there at most once.
func (l *slackLoad) check(t *testing.T, mayFail bool) {
	l.wg.Wait()
	for i, fl := range l.fls {
		fl.waitSet(t, l.want[i])
		sent := map[string]int{}
		for _, m := range l.b.st.Sent(slackChannel, slackThread(fl)) {
			sent[m.Text]++
		}
		for j := range l.callsPer {
			text := fmt.Sprintf("out-%d-%d", i, j)
			l.mu.Lock()
			ok, err := l.ok[text], l.failed[text]
			l.mu.Unlock()
			switch {
			case ok && sent[text] != 1:
				t.Errorf("%s succeeded and was sent %d times", text, sent[text])
			case err != nil && !mayFail:
				t.Errorf("%s: %v", text, err)
			case err != nil && sent[text] > 1:
				t.Errorf("%s failed (%v) and was sent %d times", text, err, sent[text])
			case err != nil && !errors.Is(err, client.ErrOutcomeUnknown) && !errors.Is(err, client.ErrUnavailable):
				t.Errorf("%s failed with %v, want outcome unknown or unavailable", text, err)
			}
		}
		for text, n := range sent {
			if n > 1 {
				t.Errorf("%q sent %d times", text, n)
			}
		}
	}
	testkit.Eventually(t, "every envelope acknowledged", func() bool { return l.b.st.Stats().Pending == 0 })
	st := l.b.st.Stats()
	if st.BadAcks != 0 || st.Expired != 0 {
		t.Errorf("stand-in stats %+v", st)
	}
	l.mu.Lock()
	t.Logf("stand-in: %+v; calls ok %d, failed %d", st, len(l.ok), len(l.failed))
	l.mu.Unlock()
}

// TestSlackKillUnderLoad: kill -9 of provider-slack while people write
// and followers answer: nothing a person wrote is lost or duplicated, no
// message is sent twice.
func TestSlackKillUnderLoad(t *testing.T) {
	b := startSlackBus(t, slackBusConfig{})
	l := startSlackLoad(t, b, 3, 50, 15)
	time.Sleep(300 * time.Millisecond) // the load is under way
	old := b.named(t, "slack")
	if err := syscall.Kill(int(old.GetPid()), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	b.waitNamed(t, "slack", func(pi *chatbusv1.ProviderInfo) bool {
		return pi.GetState() == chatbusv1.ProviderState_PROVIDER_STATE_RUNNING && pi.GetPid() != old.GetPid()
	}, "restarted")
	l.check(t, true)
}

// TestSlackDoctorRestartUnderLoad: busctl doctor restart slack while
// people write and followers answer: outcome restarted, 0 lost, 0
// duplicated, every call sent once.
func TestSlackDoctorRestartUnderLoad(t *testing.T) {
	b := startSlackBus(t, slackBusConfig{})
	l := startSlackLoad(t, b, 3, 50, 15)
	old := b.named(t, "slack")
	time.Sleep(300 * time.Millisecond) // the load is under way
	out, errOut, code := b.busctl("doctor", "restart", "slack", "--drain", "10s", "--deadline", "40s")
	if code != 0 || !strings.Contains(out, "outcome: restarted") {
		t.Fatalf("doctor restart: exit %d\n%s\n%s", code, out, errOut)
	}
	t.Logf("doctor restart under load:\n%s", out)
	l.check(t, false)
	if now := b.named(t, "slack"); now.GetPid() == old.GetPid() || now.GetState() != chatbusv1.ProviderState_PROVIDER_STATE_RUNNING {
		t.Errorf("provider after restart: %v (was pid %d)", now, old.GetPid())
	}
}

// TestSlackAndTelegram: one supervisor with both providers: both RUNNING,
// and a follower of each platform receives its own thread's messages.
func TestSlackAndTelegram(t *testing.T) {
	b := startSlackBus(t, slackBusConfig{telegram: true})
	b.waitNamed(t, "telegram", func(pi *chatbusv1.ProviderInfo) bool {
		return pi.GetState() == chatbusv1.ProviderState_PROVIDER_STATE_RUNNING
	}, "RUNNING")
	out, _, code := b.busctl("providers")
	if code != 0 || strings.Count(out, "RUNNING") != 2 || !strings.Contains(out, "slack") || !strings.Contains(out, "telegram") {
		t.Fatalf("busctl providers (exit %d):\n%s", code, out)
	}
	sf := b.followOn(t, "slack", "manual:s", "/w/on-slack")
	tf := b.followOn(t, "telegram", "manual:t", "/w/on-telegram")
	if p := sf.f.Registered().GetBinding().GetTarget().GetProvider(); p != "slack" {
		t.Fatalf("slack follower bound on %q", p)
	}
	if p := tf.f.Registered().GetBinding().GetTarget().GetProvider(); p != "telegram" {
		t.Fatalf("telegram follower bound on %q", p)
	}
	b.st.PostMessage(slackChannel, slackPerson, "via slack", slackThread(sf))
	b.tg.PushMessage(forumChat, int(tf.thread()), allowedUser, "via telegram")
	sf.waitTexts(t, "via slack")
	tf.waitTexts(t, "via telegram")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := sf.f.Call(ctx, "chat.postMessage", []byte(`{"text":"slack answer"}`), ""); err != nil {
		t.Fatal(err)
	}
	if _, err := tf.f.Call(ctx, "sendMessage", []byte(`{"text":"telegram answer"}`), ""); err != nil {
		t.Fatal(err)
	}
	if m := b.st.Sent(slackChannel, slackThread(sf)); len(m) != 1 || m[0].Text != "slack answer" {
		t.Errorf("slack thread %+v", m)
	}
	if m := b.tg.Sent(forumChat, int(tf.thread())); len(m) != 1 || m[0].Text != "telegram answer" {
		t.Errorf("telegram topic %+v", m)
	}
	// Each platform's methods stay its own.
	if _, err := sf.f.Call(ctx, "sendMessage", []byte(`{"text":"x"}`), ""); !errors.Is(err, client.ErrPermissionDenied) {
		t.Errorf("a Telegram method on Slack: %v", err)
	}
}
