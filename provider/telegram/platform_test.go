package telegram

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"go.uber.org/goleak"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/provider"
	"github.com/chatbus/chatbus/provider/telegram/botapi"
	"github.com/chatbus/chatbus/provider/telegram/tgtest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const forum = int64(-1001234567890)

// ackSink acknowledges every update at once.
type ackSink struct {
	mu  sync.Mutex
	got []*providerv1.Update
}

func (s *ackSink) Deliver(_ context.Context, ups []*providerv1.Update) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.got = append(s.got, ups...)
	return ups[len(ups)-1].GetUpdateId(), nil
}

// platform is a Platform on tg with its health.
type platform struct {
	*Platform
	health *provider.Health
}

func newPlatform(t *testing.T, tg *tgtest.Server, mod func(*Settings)) platform {
	t.Helper()
	s := Settings{ForumChatID: forum, Token: tg.Token(), BaseURL: tg.URL(), AllowedUserIDs: []int64{42},
		PollTimeout: "1s", PollGrace: "2s", ChatRecheck: "50ms"}
	if mod != nil {
		mod(&s)
	}
	h := provider.NewHealth()
	p, err := New(s, zerolog.New(zerolog.NewTestWriter(t)), h)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.client.CloseIdleConnections)
	return platform{p, h}
}

// run runs the receive loop until the test ends.
func (p platform) run(t *testing.T) *ackSink {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	sink := &ackSink{}
	done := make(chan error, 1)
	go func() { done <- p.Run(ctx, nil, sink) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	return sink
}

// waitHealth waits until the health is serving (or not) with a reason
// containing why.
func (p platform) waitHealth(t *testing.T, serving bool, why string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		ok, got := p.health.Serving()
		if ok == serving && strings.Contains(got, why) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("health serving=%v %q; want serving=%v with %q", ok, got, serving, why)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func ctxT(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestHealthTellsTheTruth: the provider is NOT_SERVING, with the reason,
// while it cannot do its job, and SERVING again by itself once it can.
func TestHealthTellsTheTruth(t *testing.T) {
	for _, tc := range []struct {
		name    string
		setup   func(tg *tgtest.Server) // before the loop starts
		breakIt func(tg *tgtest.Server) // while it runs; nil: broken from the start
		why     string
		fix     func(tg *tgtest.Server)
	}{
		{name: "Bot API unreachable", breakIt: func(tg *tgtest.Server) { tg.SetUnreachable(true) },
			why: "connection refused", fix: func(tg *tgtest.Server) { tg.SetUnreachable(false) }},
		{name: "Bot API answering 502", breakIt: func(tg *tgtest.Server) { tg.FailAlways("getUpdates", tgtest.Fault{HTML5xx: true}) },
			why: "HTTP 502", fix: func(tg *tgtest.Server) { tg.ClearFaults() }},
		{name: "token revoked", breakIt: func(tg *tgtest.Server) {
			tg.FailAlways("getUpdates", tgtest.Fault{Status: 401})
		}, why: "401 Unauthorized: the bot token is wrong or was revoked"},
		{name: "another poller", breakIt: func(tg *tgtest.Server) { tg.FailAlways("getUpdates", tgtest.Fault{Status: 409}) },
			why: "409 Conflict", fix: func(tg *tgtest.Server) { tg.ClearFaults() }},
		{name: "chat is not a forum", setup: func(tg *tgtest.Server) { tg.AddGroup(forum) },
			why: "is not a forum: turn on Topics", fix: func(tg *tgtest.Server) { tg.SetForum(forum, true) }},
		{name: "bot not an administrator", setup: func(tg *tgtest.Server) { tg.SetBotMember(forum, botapi.MemberMember, false) },
			why: "the bot is not an administrator", fix: func(tg *tgtest.Server) { tg.SetBotMember(forum, botapi.MemberAdministrator, true) }},
		{name: "bot may not manage topics", setup: func(tg *tgtest.Server) { tg.SetBotMember(forum, botapi.MemberAdministrator, false) },
			why: `the administrator right "Manage topics"`, fix: func(tg *tgtest.Server) { tg.SetBotMember(forum, botapi.MemberAdministrator, true) }},
		{name: "bot removed from the chat", setup: func(tg *tgtest.Server) { tg.SetBotMember(forum, botapi.MemberKicked, false) },
			why: "bot was kicked", fix: func(tg *tgtest.Server) { tg.SetBotMember(forum, botapi.MemberAdministrator, true) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tg := tgtest.New(t)
			tg.AddForum(forum)
			if tc.setup != nil {
				tc.setup(tg)
			}
			p := newPlatform(t, tg, nil)
			p.run(t)
			if tc.breakIt != nil {
				p.waitHealth(t, true, "")
				tc.breakIt(tg)
			}
			p.waitHealth(t, false, tc.why)
			if tc.fix == nil {
				return
			}
			tc.fix(tg)
			p.waitHealth(t, true, "")
		})
	}
}

// TestHealthRevokedTokenRetriesSlowly: a 401 is not retried fast.
func TestHealthRevokedTokenRetriesSlowly(t *testing.T) {
	tg := tgtest.New(t)
	tg.AddForum(forum)
	p := newPlatform(t, tg, nil)
	tg.FailAlways("getUpdates", tgtest.Fault{Status: 401})
	p.run(t)
	p.waitHealth(t, false, "401")
	// The next try is ~24-30s away; give a busy loop the time to show.
	before := tg.Calls("getUpdates")
	time.Sleep(time.Second)
	if n := tg.Calls("getUpdates") - before; n > 0 {
		t.Errorf("%d getUpdates calls within a second of a 401", n)
	}
}

// TestProvisionReuse: the slot's old topic is reused (renamed, reopened)
// while it exists; a deleted one is replaced by a new topic, Reused=false.
func TestProvisionReuse(t *testing.T) {
	for _, tc := range []struct {
		name       string
		person     func(tg *tgtest.Server, thread int)
		elsewhere  bool // the topic to reuse names another chat (the forum was changed)
		wantReused bool
		wantTopics int
	}{
		{name: "closed when its binding ended", person: func(*tgtest.Server, int) {}, wantReused: true, wantTopics: 1},
		{name: "reopened by a person", person: func(tg *tgtest.Server, th int) { tg.ReopenTopic(forum, th) }, wantReused: true, wantTopics: 1},
		{name: "deleted by a person", person: func(tg *tgtest.Server, th int) { tg.DeleteTopic(forum, th) }, wantReused: false, wantTopics: 1},
		{name: "in another chat", person: func(*tgtest.Server, int) {}, elsewhere: true, wantReused: false, wantTopics: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tg, p, first := withTopic(t)
			ctx := ctxT(t)
			th, _ := strconv.Atoi(first.Thread)
			if err := p.CloseTarget(ctx, first.Target); err != nil { // the binding went offline
				t.Fatal(err)
			}
			tc.person(tg, th)
			creates := tg.Calls("createForumTopic")
			reuse := first.Target
			if tc.elsewhere {
				reuse.Chat = "-1009999"
			}

			got := provision(t, p, provider.ProvisionRequest{Name: "A · beta", Reuse: &reuse})
			if got.Reused != tc.wantReused {
				t.Fatalf("Reused = %v, want %v (%+v)", got.Reused, tc.wantReused, got)
			}
			topics := tg.Topics(forum)
			if len(topics) != tc.wantTopics {
				t.Fatalf("topics %+v", topics)
			}
			last := topics[len(topics)-1]
			if last.Name != "A · beta" || last.Closed || strconv.Itoa(last.MessageThreadID) != got.Thread || got.Name != "A · beta" {
				t.Fatalf("topic %+v, provisioned %+v", last, got)
			}
			wantCreates := 0
			if !tc.wantReused {
				wantCreates = 1
			}
			if n := tg.Calls("createForumTopic") - creates; n != wantCreates {
				t.Errorf("%d topics created, want %d", n, wantCreates)
			}
			if tc.wantReused && got.Thread != first.Thread {
				t.Errorf("reused thread %s, want %s", got.Thread, first.Thread)
			}
		})
	}
}

// TestTopicStateUpdates: the service messages Telegram posts when a person
// closes or reopens a topic reach the supervisor with the thread's state;
// other messages carry none.
func TestTopicStateUpdates(t *testing.T) {
	tg, p, a := withTopic(t)
	th, _ := strconv.Atoi(a.Thread)
	sink := p.run(t)
	tg.CloseTopicBy(forum, th, 42)
	tg.PushMessage(forum, th, 42, "still here")
	tg.ReopenTopicBy(forum, th, 42)
	want := []providerv1.ThreadState{providerv1.ThreadState_THREAD_STATE_CLOSED, providerv1.ThreadState_THREAD_STATE_UNSPECIFIED, providerv1.ThreadState_THREAD_STATE_REOPENED}
	deadline := time.Now().Add(20 * time.Second)
	for {
		sink.mu.Lock()
		got := append([]*providerv1.Update(nil), sink.got...)
		sink.mu.Unlock()
		if len(got) >= len(want) {
			for i, u := range got {
				if u.GetThreadState() != want[i] || u.GetThread() != a.Thread || u.GetKind() != providerv1.UpdateKind_UPDATE_KIND_MESSAGE {
					t.Errorf("update %d: state %v thread %q kind %v, want %v in %s", i, u.GetThreadState(), u.GetThread(), u.GetKind(), want[i], a.Thread)
				}
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("got %d updates, want %d", len(got), len(want))
		}
		time.Sleep(10 * time.Millisecond)
	}
	if topics := tg.Topics(forum); len(topics) != 1 || topics[0].Closed {
		t.Errorf("topics %+v, want the one, open", topics)
	}
}

// withTopic is a stand-in with a forum, a platform on it and one topic
// provisioned.
func withTopic(t *testing.T) (*tgtest.Server, platform, provider.Provisioned) {
	t.Helper()
	tg := tgtest.New(t)
	tg.AddForum(forum)
	p := newPlatform(t, tg, nil)
	return tg, p, provision(t, p, provider.ProvisionRequest{Name: "A · a"})
}

// provision provisions a thread as req asks, failing the test if it
// cannot.
func provision(t *testing.T, p platform, req provider.ProvisionRequest) provider.Provisioned {
	t.Helper()
	got, err := p.Provision(ctxT(t), req)
	if err != nil {
		t.Fatalf("provision %q: %v", req.Name, err)
	}
	return got
}

// TestCallsIntoTopicsPeopleChanged: a deleted topic is ErrTargetGone
// (nothing sent); a closed one is reopened and the call made once.
func TestCallsIntoTopicsPeopleChanged(t *testing.T) {
	tg, p, a := withTopic(t)
	ctx := ctxT(t)
	b, _ := p.Provision(ctx, provider.ProvisionRequest{Name: "B · b"})
	aID, _ := strconv.Atoi(a.Thread)
	bID, _ := strconv.Atoi(b.Thread)
	var err error

	// Deleted: sends, uploads and closes report the thread gone.
	tg.DeleteTopic(forum, aID)
	_, err = p.Call(ctx, a.Target, "sendMessage", json.RawMessage(`{"text":"hi"}`), "")
	if !errors.Is(err, provider.ErrTargetGone) {
		t.Errorf("sendMessage into a deleted topic: %v", err)
	}
	if _, err := p.Upload(ctx, provider.UploadHeader{Target: a.Target, Filename: "x.txt"}, strings.NewReader("x")); !errors.Is(err, provider.ErrTargetGone) {
		t.Errorf("upload into a deleted topic: %v", err)
	}
	if err := p.CloseTarget(ctx, a.Target); !errors.Is(err, provider.ErrTargetGone) {
		t.Errorf("close a deleted topic: %v", err)
	}
	if n := len(tg.Sent(forum, aID)); n != 0 {
		t.Errorf("%d messages in the deleted topic", n)
	}

	// Closed by a person, and Telegram refuses the send as closed (as it
	// does for a bot without the right): reopened, sent once.
	tg.CloseTopic(forum, bID)
	tg.Fail("sendMessage", tgtest.Fault{Status: 400, Description: "Bad Request: TOPIC_CLOSED"})
	reopens := tg.Calls("reopenForumTopic")
	if _, err := p.Call(ctx, b.Target, "sendMessage", json.RawMessage(`{"text":"still here"}`), ""); err != nil {
		t.Fatalf("sendMessage into a closed topic: %v", err)
	}
	if n := tg.Calls("reopenForumTopic") - reopens; n != 1 {
		t.Errorf("%d reopens, want 1", n)
	}
	if sent := tg.Sent(forum, bID); len(sent) != 1 || sent[0].Text != "still here" {
		t.Errorf("sent %+v, want the message once", sent)
	}
	if tp := tg.Topics(forum); tp[0].Closed {
		t.Error("topic still closed")
	}

	// Closed, and the bot may not reopen it: permission denied, nothing sent.
	tg.CloseTopic(forum, bID)
	tg.SetBotMember(forum, botapi.MemberMember, false)
	_, err = p.Call(ctx, b.Target, "sendMessage", json.RawMessage(`{"text":"no"}`), "")
	if !errors.Is(err, provider.ErrPermissionDenied) || !strings.Contains(err.Error(), "may not reopen") {
		t.Errorf("sendMessage into a closed topic without the right: %v", err)
	}
	if n := len(tg.Sent(forum, bID)); n != 1 {
		t.Errorf("%d messages in the topic, want 1", n)
	}
}

// TestCloseTargetTwice: closing a closed topic succeeds.
func TestCloseTargetTwice(t *testing.T) {
	_, p, a := withTopic(t)
	ctx := ctxT(t)
	for i := range 2 {
		if err := p.CloseTarget(ctx, a.Target); err != nil {
			t.Fatalf("close %d: %v", i+1, err)
		}
	}
}

// TestParseSettings: every setting is checked, naming the key.
func TestParseSettings(t *testing.T) {
	const token = "123:ABC-def_1"
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for _, tc := range []struct {
		name     string
		settings string
		env      map[string]string
		want     string // "" valid
	}{
		{name: "valid", settings: `{"forum_chat_id":-100,"token":"` + token + `","allowed_user_ids":[1]}`},
		{name: "token from the environment", settings: `{"forum_chat_id":-100}`, env: map[string]string{TokenEnv: token}},
		{name: "typo", settings: `{"forum_chat_id":-100,"tokn":"x"}`, want: "tokn: unknown setting; did you mean token?"},
		{name: "typo of a list", settings: `{"forum_chat_id":-100,"token":"` + token + `","allowed_users":[1]}`, want: "allowed_users: unknown setting"},
		{name: "wrong type", settings: `{"forum_chat_id":-100,"token":"` + token + `","allowed_user_ids":"me"}`, want: "allowed_user_ids: want a list of integers, got a string"},
		{name: "no chat", settings: `{"token":"` + token + `"}`, want: "private_chat_id: required: your Telegram user id"},
		{name: "a user id as chat", settings: `{"forum_chat_id":5,"token":"` + token + `"}`, want: "forum_chat_id: 5 is a user's id"},
		{name: "private chat", settings: `{"private_chat_id":4242,"token":"` + token + `"}`},
		{name: "private chat and forum", settings: `{"private_chat_id":4242,"forum_chat_id":-100,"token":"` + token + `"}`,
			want: "private_chat_id: set either private_chat_id (your user id: threads in your private chat with the bot) or forum_chat_id (a forum supergroup), not both"},
		{name: "a group as private chat", settings: `{"private_chat_id":-100,"token":"` + token + `"}`, want: "private_chat_id: -100 is a group's id"},
		{name: "private chats have no group limit", settings: `{"private_chat_id":4242,"token":"` + token + `","limits":{"group":"10/1m"}}`,
			want: "limits.group: unknown limit"},
		{name: "private chat limit", settings: `{"private_chat_id":4242,"token":"` + token + `","limits":{"chat":"1/s"}}`},
		{name: "missing token", settings: `{"forum_chat_id":-100}`, want: "token: missing: set token under providers.telegram or export CHATBUS_TELEGRAM_TOKEN"},
		{name: "malformed token", settings: `{"forum_chat_id":-100,"token":"secret-xyz"}`, want: "token: not a bot token"},
		{name: "base_url without a scheme", settings: `{"forum_chat_id":-100,"token":"` + token + `","base_url":"api.telegram.org"}`,
			want: `base_url: "api.telegram.org" is not an absolute http(s) URL`},
		{name: "negative user id", settings: `{"forum_chat_id":-100,"token":"` + token + `","allowed_user_ids":[1,-2]}`, want: "allowed_user_ids: entry 2 (-2)"},
		{name: "bad duration", settings: `{"forum_chat_id":-100,"token":"` + token + `","poll_timeout":"soon"}`, want: `poll_timeout: "soon" is not a duration`},
		{name: "duration out of range", settings: `{"forum_chat_id":-100,"token":"` + token + `","poll_timeout":"0s"}`, want: "poll_timeout: 0s is out of range"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseSettings(json.RawMessage(tc.settings), env(tc.env))
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, provider.ErrSettings) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "secret-xyz") {
				t.Error("the token's value is in the error")
			}
		})
	}
}
