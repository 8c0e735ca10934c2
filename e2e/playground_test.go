package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
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
)

// pgBus is a supervisord with no provider configured: it runs the
// playground, the real provider-playground binary.
type pgBus struct {
	*profile
	d          *daemon
	c          *client.Client
	configPath string
}

// startPlaygroundBus starts supervisord with the default playground and
// waits until the child runs and has declared its page.
func startPlaygroundBus(t *testing.T, extra string) *pgBus {
	t.Helper()
	p := newProfile(t)
	cfg := "heartbeat_interval: 200ms\nstale_after: 3s\nreconcile_grace: 1s\n" + extra
	path := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	d := p.start("--config", path)
	p.waitServing(d)
	c, err := client.Dial(p.socket, client.WithSecretFile(filepath.Join(p.state, "secret")))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	b := &pgBus{profile: p, d: d, c: c, configPath: path}
	b.waitProvider(t, func(pi *chatbusv1.ProviderInfo) bool {
		return pi.GetState() == chatbusv1.ProviderState_PROVIDER_STATE_RUNNING && pi.GetWebUrl() != ""
	}, "RUNNING with its page")
	return b
}

func (b *pgBus) provider(t *testing.T) *chatbusv1.ProviderInfo {
	t.Helper()
	return onlyProvider(t, b.c, "playground")
}

func (b *pgBus) waitProvider(t *testing.T, ok func(*chatbusv1.ProviderInfo) bool, what string) *chatbusv1.ProviderInfo {
	t.Helper()
	return waitOnlyProvider(t, b.c, b.d, "playground", ok, what)
}

// loggedURL is the URL of the last log line that says to open one.
func (b *pgBus) loggedURL(t *testing.T, prefix string) string {
	t.Helper()
	re := regexp.MustCompile(regexp.QuoteMeta(prefix) + `(http://127\.0\.0\.1:\d+/\?token=[A-Za-z0-9_-]+)`)
	deadline := time.Now().Add(15 * time.Second)
	for {
		if m := re.FindAllStringSubmatch(b.d.stderr.String(), -1); m != nil {
			return m[len(m)-1][1]
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %q line in the log:\n%s", prefix, b.d.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// person is someone at the playground's page, speaking its HTTP API the
// way the page's script does: every action carries a client id and is
// retried until the playground answers (it may be restarting).
type person struct {
	t      *testing.T
	c      *http.Client
	origin string
}

func openPage(t *testing.T, pageURL string) *person {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 10 * time.Second}
	t.Cleanup(c.CloseIdleConnections)
	resp, err := c.Get(pageURL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("opening %s: %d", pageURL, resp.StatusCode)
	}
	u, _ := url.Parse(pageURL)
	return &person{t: t, c: c, origin: u.Scheme + "://" + u.Host}
}

// post retries until a 2xx or 4xx answer, within 60s; it returns the body
// of a 2xx and fails on a 4xx.
func (p *person) post(path string, v any) []byte {
	body, _ := json.Marshal(v)
	deadline := time.Now().Add(60 * time.Second)
	for {
		req, _ := http.NewRequest("POST", p.origin+path, bytes.NewReader(body))
		req.Header.Set("Origin", p.origin)
		req.Header.Set("Content-Type", "application/json")
		resp, err := p.c.Do(req)
		if err == nil {
			out, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			switch {
			case resp.StatusCode < 300:
				return out
			case resp.StatusCode < 500:
				p.t.Errorf("POST %s: %d %s", path, resp.StatusCode, out)
				return nil
			}
		}
		if time.Now().After(deadline) {
			p.t.Errorf("POST %s: no answer within 60s (last: %v)", path, err)
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (p *person) say(room int64, clientID, text string) {
	p.post(fmt.Sprintf("/api/rooms/%d/messages", room), map[string]string{"client_id": clientID, "text": text})
}

type pageRoom struct {
	ID      int64  `json:"id"`
	Name    string `json:"name"`
	Control bool   `json:"control"`
}

// rooms are the page's rooms of sessions (the control room left out).
func (p *person) rooms() []pageRoom {
	p.t.Helper()
	var st struct{ Rooms []pageRoom }
	p.get("/api/state", &st)
	out := st.Rooms[:0]
	for _, r := range st.Rooms {
		if !r.Control {
			out = append(out, r)
		}
	}
	return out
}

type pageMessage struct {
	ID      int64  `json:"id"`
	From    string `json:"from"`
	Text    string `json:"text"`
	Deleted bool   `json:"deleted"`
}

func (p *person) history(room int64) []pageMessage {
	p.t.Helper()
	var h struct{ Messages []pageMessage }
	p.get(fmt.Sprintf("/api/rooms/%d/messages", room), &h)
	return h.Messages
}

// get reads path's JSON into v, retrying for 30s (the playground may be
// restarting).
func (p *person) get(path string, v any) {
	p.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := p.c.Get(p.origin + path)
		if err == nil {
			err = json.NewDecoder(resp.Body).Decode(v)
			resp.Body.Close()
			if err == nil && resp.StatusCode != 200 {
				err = fmt.Errorf("status %d", resp.StatusCode)
			}
			if err == nil {
				return
			}
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("GET %s: %v", path, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// echoer is a follower that echoes each message of its thread, with an
// idempotency key per update, retrying a failed call with the same key (a
// provider killed mid-call leaves its outcome unknown; the playground
// de-duplicates by key).
type echoer struct {
	f    *client.Follower
	room int64
	mu   sync.Mutex
	seen map[string]int
	got  []string
	n    chan struct{}
	done chan error
}

func (b *pgBus) echo(t *testing.T, key, cwd string) *echoer {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	f, err := b.c.Register(ctx, client.Registration{ProfileKey: key, Cwd: cwd, InstanceID: key + "-1"})
	if err != nil {
		t.Fatalf("register %s: %v", key, err)
	}
	var room int64
	fmt.Sscan(f.Registered().GetBinding().GetTarget().GetThread(), &room)
	if room == 0 {
		room = f.Registered().GetBinding().GetTarget().GetThreadId()
	}
	e := &echoer{f: f, room: room, seen: map[string]int{}, n: make(chan struct{}, 4096), done: make(chan error, 1)}
	sctx, scancel := context.WithCancel(context.Background())
	go func() {
		e.done <- f.Updates(sctx, 0, func(u *chatbusv1.Update) error {
			e.mu.Lock()
			e.seen[u.GetText()]++
			e.got = append(e.got, u.GetText())
			e.mu.Unlock()
			// Seqs are per binding: two followers use the same keys, which
			// must not mix (idempotency is per thread).
			k := fmt.Sprintf("echo:%d", u.GetSeq())
			for attempt := 0; ; attempt++ {
				cctx, ccancel := context.WithTimeout(sctx, 30*time.Second)
				_, err := f.Send(cctx, client.Message{Text: "echo: " + u.GetText()}, k)
				ccancel()
				if err == nil || sctx.Err() != nil {
					break
				}
				if attempt == 100 {
					t.Errorf("echo of %q: %v", u.GetText(), err)
					break
				}
				time.Sleep(100 * time.Millisecond)
			}
			e.n <- struct{}{}
			return f.Ack(sctx, u.GetSeq())
		})
	}()
	t.Cleanup(func() {
		scancel()
		<-e.done
		f.Close(context.Background())
	})
	return e
}

func (e *echoer) waitCount(t *testing.T, n int) {
	t.Helper()
	deadline := time.After(90 * time.Second)
	for {
		e.mu.Lock()
		got := len(e.got)
		e.mu.Unlock()
		if got >= n {
			return
		}
		select {
		case <-e.n:
		case <-deadline:
			t.Fatalf("thread %d: %d of %d updates", e.room, got, n)
		}
	}
}

// check: the follower got exactly want, in order, once each; the room
// holds each person's message once and each echo once.
func (e *echoer) check(t *testing.T, p *person, want []string) {
	t.Helper()
	e.waitCount(t, len(want))
	e.mu.Lock()
	got := append([]string(nil), e.got...)
	e.mu.Unlock()
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("thread %d: follower got %d updates %q, want %d %q", e.room, len(got), got, len(want), want)
	}
	var counts map[string]int
	deadline := time.Now().Add(30 * time.Second)
	for {
		counts = map[string]int{}
		for _, m := range p.history(e.room) {
			counts[m.From+":"+m.Text]++
		}
		if len(counts) >= 2*len(want) || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, w := range want {
		if counts["you:"+w] != 1 || counts["bot:echo: "+w] != 1 {
			t.Errorf("thread %d: %q %d times, its echo %d times; want once each", e.room, w, counts["you:"+w], counts["bot:echo: "+w])
		}
	}
	if len(counts) != 2*len(want) {
		t.Errorf("thread %d holds %d distinct messages, want %d", e.room, len(counts), 2*len(want))
	}
}

// pgLoad is n echo followers, and a person writing per messages into each
// room, one every gap, each message with its own client id.
type pgLoad struct {
	es   []*echoer
	want [][]string
	wg   sync.WaitGroup
}

func (b *pgBus) load(t *testing.T, p *person, n, per int, gap time.Duration) *pgLoad {
	t.Helper()
	l := &pgLoad{es: make([]*echoer, n), want: make([][]string, n)}
	for i := range l.es {
		l.es[i] = b.echo(t, fmt.Sprintf("manual:%d", i), fmt.Sprintf("/w/p%d", i))
	}
	for i, e := range l.es {
		for j := range per {
			l.want[i] = append(l.want[i], fmt.Sprintf("in-%d-%d", i, j))
		}
		l.wg.Go(func() {
			for j, text := range l.want[i] {
				p.say(e.room, fmt.Sprintf("c-%d-%d", i, j), text)
				time.Sleep(gap)
			}
		})
	}
	return l
}

// check waits for the writers, then checks every room (echoer.check).
func (l *pgLoad) check(t *testing.T, p *person) {
	t.Helper()
	l.wg.Wait()
	for i, e := range l.es {
		e.check(t, p, l.want[i])
	}
}

// TestPlaygroundDefault: with no provider configured the playground runs;
// the log and busctl console give its URL and the console's; a follower's
// thread is a room named like a forum topic; busctl shows the playground.
func TestPlaygroundDefault(t *testing.T) {
	b := startPlaygroundBus(t, "")
	chat := b.loggedURL(t, "playground chat page: open ")
	con := b.loggedURL(t, "operator console: open ")
	out, errOut, code := b.busctl("console")
	if code != 0 || !strings.Contains(out, chat) || !strings.Contains(out, con) {
		t.Fatalf("busctl console (exit %d) does not print %s and %s:\n%s%s", code, chat, con, out, errOut)
	}
	alpha := b.echo(t, "manual:1", "/w/alpha")
	p := openPage(t, chat)
	if rs := p.rooms(); len(rs) != 1 || rs[0].ID != alpha.room || rs[0].Name != "A · alpha" {
		t.Fatalf("rooms %+v (follower's thread %d)", rs, alpha.room)
	}
	p.say(alpha.room, "c1", "hi")
	alpha.check(t, p, []string{"hi"})
	out, _, _ = b.busctl("providers")
	for _, want := range []string{"playground", "RUNNING"} {
		contains(t, "busctl providers", out, want)
	}
	// Each child has its own private state dir, kept across restarts.
	if _, err := os.Stat(filepath.Join(b.state, "providers", "playground", "playground.db")); err != nil {
		t.Fatal(err)
	}
	if d, err := os.Stat(filepath.Join(b.state, "providers", "playground")); err != nil || d.Mode().Perm() != 0o700 {
		t.Errorf("state dir: %v %v", d, err)
	}
}

// TestPlaygroundDoctorRestartUnderLoad: people keep writing and followers
// keep answering while the playground is restarted by the doctor: every
// message reaches its follower once, every answer lands once, the outcome
// is restarted.
func TestPlaygroundDoctorRestartUnderLoad(t *testing.T) {
	b := startPlaygroundBus(t, "")
	p := openPage(t, b.provider(t).GetWebUrl())
	old := b.provider(t)
	l := b.load(t, p, 3, 40, 10*time.Millisecond)
	l.es[0].waitCount(t, 5)
	out, errOut, code := b.busctl("doctor", "restart", "playground", "--drain", "10s", "--deadline", "40s")
	if code != 0 || !strings.Contains(out, "outcome: restarted") {
		t.Fatalf("doctor restart: exit %d\n%s\n%s", code, out, errOut)
	}
	t.Logf("doctor restart under load:\n%s", out)
	l.check(t, p)
	now := b.provider(t)
	if now.GetPid() == old.GetPid() || now.GetState() != chatbusv1.ProviderState_PROVIDER_STATE_RUNNING {
		t.Errorf("provider after restart: %v (was pid %d)", now, old.GetPid())
	}
}

// TestPlaygroundKill9LosesNothing: the playground child is SIGKILLed while
// people write and followers answer; supervision restarts it: nothing is
// lost, nothing is delivered or sent twice.
func TestPlaygroundKill9LosesNothing(t *testing.T) {
	b := startPlaygroundBus(t, "")
	p := openPage(t, b.provider(t).GetWebUrl())
	first := b.provider(t)
	l := b.load(t, p, 2, 60, 5*time.Millisecond)
	l.es[0].waitCount(t, 10)
	if err := syscall.Kill(int(first.GetPid()), syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	second := b.waitProvider(t, func(pi *chatbusv1.ProviderInfo) bool {
		return pi.GetState() == chatbusv1.ProviderState_PROVIDER_STATE_RUNNING && pi.GetPid() != first.GetPid()
	}, "restarted after SIGKILL")
	if second.GetRestarts() != 1 || !strings.Contains(second.GetLastExit(), "killed") {
		t.Errorf("after SIGKILL: restarts %d, last exit %q", second.GetRestarts(), second.GetLastExit())
	}
	l.check(t, p)
	if _, _, code := b.busctl("status"); code != 0 {
		t.Error("the bus went down with its provider")
	}
}

// TestPlaygroundOff: the default can be turned off; a configured provider
// replaces it.
func TestPlaygroundOff(t *testing.T) {
	p := newProfile(t)
	d := p.start("--default-playground=false", "--console=false")
	p.waitServing(d)
	out, _, _ := p.busctl("providers")
	if strings.Contains(out, "playground") {
		t.Errorf("busctl providers with the default off:\n%s", out)
	}
	out, _, code := p.busctl("console")
	if code != 0 || !regexp.MustCompile(`console\s+off`).MatchString(out) {
		t.Errorf("busctl console with the console off (exit %d):\n%s", code, out)
	}
	if strings.Contains(d.stderr.String(), "playground chat page") {
		t.Error("the playground started")
	}
}

// TestPlaygroundPythonEcho is the README's "Try it": supervisord with
// no config, the Python echo example in another process, a person writing
// on the page; the echo comes back into the room once.
func TestPlaygroundPythonEcho(t *testing.T) {
	python := "/usr/bin/python3"
	if out, err := exec.Command(python, "-c", "import grpc, google.protobuf").CombinedOutput(); err != nil {
		unavailable(t, "CHATBUS_REQUIRE_CLIENT_TESTS", fmt.Sprintf("the Python echo example cannot run: %s cannot import grpc and google.protobuf: %s", python, out))
	}
	b := startPlaygroundBus(t, "")
	var logs testkit.SyncBuffer
	cmd := exec.Command(python, "../clients/python/examples/echo_follower.py", "--profile-key", "manual:py", "--thread-name", "pyecho")
	cmd.Env = append(b.env(), "CHATBUS_SOCKET="+b.socket, "CHATBUS_SECRET_FILE="+filepath.Join(b.state, "secret"))
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
		if t.Failed() {
			t.Logf("echo_follower.py:\n%s", logs.String())
		}
	})
	p := openPage(t, b.loggedURL(t, "playground chat page: open "))
	var room int64
	deadline := time.Now().Add(30 * time.Second)
	for room == 0 {
		for _, r := range p.rooms() {
			if r.Name == "A · pyecho" {
				room = r.ID
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the echo example's room never appeared:\n%s", logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	p.say(room, "py-1", "hello python")
	for {
		counts := map[string]int{}
		for _, m := range p.history(room) {
			counts[m.From+":"+m.Text]++
		}
		if counts["bot:hello python"] == 1 && counts["you:hello python"] == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no echo: %v\n%s", counts, logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// pageView is a message as the page's history shows it.
type pageView struct {
	ID        int64               `json:"id"`
	From      string              `json:"from"`
	Text      string              `json:"text"`
	HTML      string              `json:"html"`
	Buttons   []pageButton        `json:"buttons"`
	Answer    string              `json:"answer"`
	Reactions map[string][]string `json:"reactions"`
	Edited    bool                `json:"edited"`
}

type pageButton struct {
	Label string `json:"label"`
	Data  string `json:"data"`
}

// viewOf waits until room's history holds message id and ok(it) holds.
func (p *person) viewOf(room int64, id string, what string, ok func(pageView) bool) pageView {
	p.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		var h struct{ Messages []pageView }
		p.get(fmt.Sprintf("/api/rooms/%d/messages", room), &h)
		for _, m := range h.Messages {
			if fmt.Sprint(m.ID) == id && ok(m) {
				return m
			}
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("message %s of room %d: never %s; history %+v", id, room, what, h.Messages)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestPlaygroundFollow: busctl follow on the default playground speaks the
// message verbs: a plain line is a message the page shows rendered from
// Markdown, a send with buttons shows them, a press on the page comes out
// of follow as a callback update, and answer, typing, react and edit reach
// the page.
func TestPlaygroundFollow(t *testing.T) {
	b := startPlaygroundBus(t, "")
	p := openPage(t, b.loggedURL(t, "playground chat page: open "))
	fl := b.startFollow(t, sessionDir(t, "shelly"), "--profile-key", "shell:pg")
	reg := fl.next("registered")
	if reg["platform"] != "playground" || fmt.Sprint(reg["verbs"]) != "[send edit react typing answer]" {
		t.Fatalf("registered %v", reg)
	}
	var room int64
	fmt.Sscan(reg["binding"].(map[string]any)["target"].(map[string]any)["thread"].(string), &room)

	// A plain line: Markdown, shown rendered.
	fl.send("**bold** and `code`")
	res := fl.next("result")
	ids := messageIDs(res["message_ids"])
	if res["line"] != float64(1) || len(ids) != 1 {
		t.Fatalf("result of a plain line: %v", res)
	}
	p.viewOf(room, ids[0], "rendered", func(m pageView) bool {
		return m.From == "bot" && strings.Contains(m.HTML, "<strong>bold</strong>") && strings.Contains(m.HTML, "<code>code</code>")
	})

	// A person writes: an update line.
	p.say(room, "c1", "hello follow")
	u := fl.next("update")
	if u["kind"] != "message" || u["text"] != "hello follow" || u["platform"] != "playground" {
		t.Fatalf("update %v", u)
	}
	mine := refOf(u, "message")

	// Buttons; a press on the page is a callback update; answer it.
	fl.send(`{"verb":"send","text":"Which colour?","reply_to":"` + mine + `","buttons":[{"label":"Red","data":"red"},{"label":"Blue","data":"blue"}]}`)
	res = fl.next("result")
	ids = messageIDs(res["message_ids"])
	if len(ids) != 1 {
		t.Fatalf("result of a send with buttons: %v", res)
	}
	q := p.viewOf(room, ids[0], "with its buttons", func(m pageView) bool { return len(m.Buttons) == 2 })
	if q.Buttons[0] != (pageButton{"Red", "red"}) || q.Buttons[1] != (pageButton{"Blue", "blue"}) {
		t.Fatalf("buttons %+v", q.Buttons)
	}
	p.post(fmt.Sprintf("/api/rooms/%d/press", room), map[string]any{"client_id": "press-1", "message_id": q.ID, "data": "blue"})
	u = fl.next("update")
	interaction, pressed := refOf(u, "interaction"), refOf(u, "message")
	if u["kind"] != "callback_query" || u["text"] != "blue" || interaction == "" || pressed != ids[0] {
		t.Fatalf("callback update %v", u)
	}
	fl.send(`{"verb":"answer","interaction_id":"` + interaction + `","text":"you chose blue"}`)
	if res := fl.next("result"); res["line"] != float64(3) {
		t.Fatalf("answer: %v", res)
	}
	p.viewOf(room, ids[0], "answered", func(m pageView) bool { return m.Answer == "you chose blue" })

	// Typing, a reaction and an edit.
	fl.send(`{"verb":"typing"}`)
	if res := fl.next("result"); res["line"] != float64(4) {
		t.Fatalf("typing: %v", res)
	}
	fl.send(`{"verb":"react","message_id":"` + mine + `","emoji":"👀"}`)
	if res := fl.next("result"); res["line"] != float64(5) {
		t.Fatalf("react: %v", res)
	}
	p.viewOf(room, mine, "reacted to", func(m pageView) bool { return len(m.Reactions["bot"]) == 1 && m.Reactions["bot"][0] == "👀" })
	fl.send(`{"verb":"edit","message_id":"` + ids[0] + `","text":"picked _blue_"}`)
	if res := fl.next("result"); res["line"] != float64(6) {
		t.Fatalf("edit: %v", res)
	}
	p.viewOf(room, ids[0], "edited", func(m pageView) bool {
		return m.Edited && strings.Contains(m.HTML, "<em>blue</em>") && len(m.Buttons) == 0
	})
}

// TestPlaygroundMCP: chatbus-mcp on the playground (the default provider),
// driven by the MCP TypeScript SDK client: a person's message reaches the
// session, reply shows rendered, edit_message and react reach the page, and
// a permission prompt's buttons answer it. Before the message verbs the
// tools failed here: the playground was no platform they knew.
func TestPlaygroundMCP(t *testing.T) {
	b := startPlaygroundBus(t, "")
	p := openPage(t, b.loggedURL(t, "playground chat page: open "))
	s := b.startMCP(t, "alpha", sessionDir(t, "alpha"), "test:pg-alpha")
	var room int64
	testkit.Eventually(t, "the session's room", func() bool {
		for _, r := range p.rooms() {
			if strings.HasSuffix(r.Name, " · alpha") {
				room = r.ID
				return true
			}
		}
		return false
	})

	p.say(room, "c1", "hello alpha")
	in := s.waitNote(0, "hello alpha", func(n mcpNote) bool { return n.content() == "hello alpha" })
	if in.meta("platform") != "playground" {
		t.Errorf("note %+v", in.Params)
	}
	inboundID := in.meta("message_id")

	res := s.callTool("reply", map[string]any{"text": "**Done**: see `main.go`.", "reply_to": inboundID})
	if res.IsError {
		t.Fatalf("reply: %s", res.text())
	}
	replyID := messageIDs(res.StructuredContent["message_ids"])[0]
	p.viewOf(room, replyID, "the reply rendered", func(m pageView) bool {
		return m.From == "bot" && strings.Contains(m.HTML, "<strong>Done</strong>") && strings.Contains(m.HTML, "<code>main.go</code>")
	})
	if res := s.callTool("edit_message", map[string]any{"message_id": replyID, "text": "_Done_, edited"}); res.IsError {
		t.Errorf("edit_message: %s", res.text())
	}
	p.viewOf(room, replyID, "edited", func(m pageView) bool { return m.Edited && strings.Contains(m.HTML, "<em>Done</em>") })
	if res := s.callTool("react", map[string]any{"message_id": inboundID, "emoji": "👍"}); res.IsError {
		t.Errorf("react: %s", res.text())
	}
	p.viewOf(room, inboundID, "reacted to", func(m pageView) bool { return len(m.Reactions["bot"]) == 1 && m.Reactions["bot"][0] == "👍" })

	// The permission prompt: buttons; a press answers it.
	before := len(s.notifications())
	s.notify("notifications/claude/channel/permission_request", map[string]any{
		"request_id": "abcde", "tool_name": "Bash", "description": "Run the tests", "input_preview": `{"command":"go test ./..."}`,
	})
	var prompt pageView
	testkit.Eventually(t, "the permission prompt", func() bool {
		for _, m := range p.history(room) {
			if m.From == "bot" && strings.Contains(m.Text, "abcde") {
				prompt = p.viewOf(room, fmt.Sprint(m.ID), "the prompt's buttons", func(v pageView) bool { return len(v.Buttons) == 2 })
				return true
			}
		}
		return false
	})
	if prompt.Buttons[0].Data != "perm:allow:abcde" || prompt.Buttons[1].Data != "perm:deny:abcde" {
		t.Errorf("buttons %+v", prompt.Buttons)
	}
	contains(t, "prompt", prompt.HTML, "<strong>Permission request</strong>")
	p.post(fmt.Sprintf("/api/rooms/%d/press", room), map[string]any{"client_id": "press-1", "message_id": prompt.ID, "data": "perm:allow:abcde"})
	v := s.waitNote(before, "the verdict", func(n mcpNote) bool { return n.Method == "notifications/claude/channel/permission" })
	if v.Params["request_id"] != "abcde" || v.Params["behavior"] != "allow" {
		t.Errorf("verdict %+v", v.Params)
	}
	p.viewOf(room, fmt.Sprint(prompt.ID), "the prompt shows the verdict, its buttons gone", func(m pageView) bool {
		return len(m.Buttons) == 0 && strings.Contains(m.Text, "Allowed")
	})
}
