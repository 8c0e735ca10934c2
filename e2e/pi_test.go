package e2e

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chatbus/chatbus/client"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
	"github.com/chatbus/chatbus/provider/telegram/botapi"
)

// The real pi (npm @earendil-works/pi-coding-agent, pinned in
// pi/package.json with the Node 22 it needs; `make pi-deps` installs both)
// runs interactively in tmux with the chatbus pi package (clients/pi)
// against a scripted Anthropic Messages API on loopback (a models.json
// provider with a loopback baseUrl), offline. Interactive, not pi's RPC
// mode: the package's events, sendUserMessage and dialogs are the same in
// both, but /reload, /quit and the terminal's side of a dialog are the
// interactive mode's, and that is what people run. Without pi, its Node or
// tmux the tests skip loudly, unless CHATBUS_REQUIRE_PI_TESTS=1 (set by
// .ci/run) makes that a failure.

// piVersion is the pinned version the tests are written against.
const piVersion = "1.6.0"

// piModel is the scripted model's id in models.json.
const piModel = "scripted-1"

// piTools is pi and what runs it.
type piTools struct {
	pi   string // the pi CLI
	path string // PATH with the pinned Node 22 first
	tmux string
	pkg  string // clients/pi
}

// findPi finds pi, its Node and tmux, or skips (fails when required).
func findPi(t *testing.T) *piTools {
	t.Helper()
	bin, _ := filepath.Abs(filepath.Join("pi", "node_modules", ".bin"))
	pkg, _ := filepath.Abs(filepath.Join("..", "clients", "pi"))
	p := &piTools{pi: filepath.Join(bin, "pi"), path: bin + ":" + os.Getenv("PATH"), pkg: pkg}
	var why string
	cmd := exec.Command(p.pi, "--version")
	cmd.Env = append(os.Environ(), "PATH="+p.path, "PI_OFFLINE=1", "PI_SKIP_VERSION_CHECK=1", "PI_TELEMETRY=0", "HOME="+t.TempDir())
	out, err := cmd.CombinedOutput()
	switch {
	case err != nil:
		why = fmt.Sprintf("no pi at %s (%v: %s): make pi-deps", p.pi, err, strings.TrimSpace(string(out)))
	case !strings.Contains(string(out), piVersion):
		why = fmt.Sprintf("%s is %q, not the pinned %s: make pi-deps", p.pi, strings.TrimSpace(string(out)), piVersion)
	}
	if why == "" {
		if p.tmux, err = exec.LookPath("tmux"); err != nil {
			why = "no tmux on PATH (apt-get install -y tmux)"
		}
	}
	if why == "" {
		if _, err := os.Stat(filepath.Join(pkg, "dist", "chatbus.js")); err != nil {
			why = fmt.Sprintf("no package bundle: %v", err)
		}
	}
	if why != "" {
		unavailable(t, "CHATBUS_REQUIRE_PI_TESTS", "pi tests cannot run: "+why)
	}
	return p
}

// piSetup is one HOME with pi configured (the scripted model, offline) and
// the package installed, and the environment pi runs in there.
type piSetup struct {
	tools *piTools
	home  string
	env   []string
}

// piHome makes a fresh HOME: the scripted model as pi's default, and the
// package installed by `pi install` from source (a path, or a packed
// tarball as npm:@chatbus/pi@file:…). p names the supervisor's paths.
func (pt *piTools) piHome(t *testing.T, apiURL string, p *profile, source string) *piSetup {
	t.Helper()
	home := t.TempDir()
	agent := filepath.Join(home, ".pi", "agent")
	if err := os.MkdirAll(agent, 0o700); err != nil {
		t.Fatal(err)
	}
	zero := map[string]any{"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0}
	writeJSON(t, filepath.Join(agent, "models.json"), map[string]any{"providers": map[string]any{
		"scripted": map[string]any{
			"baseUrl": apiURL, "api": "anthropic-messages", "apiKey": "sk-ant-pi-e2e-not-a-real-key",
			"models": []any{map[string]any{"id": piModel, "name": "Scripted", "input": []string{"text", "image"},
				"contextWindow": 200000, "maxTokens": 8192, "cost": zero}},
		},
	}})
	writeJSON(t, filepath.Join(agent, "settings.json"), map[string]any{
		"defaultProvider": "scripted", "defaultModel": piModel, "collapseChangelog": true,
	})
	s := &piSetup{tools: pt, home: home, env: []string{
		"PATH=" + pt.path, "HOME=" + home, "TERM=xterm-256color", "LANG=C.UTF-8", "TMPDIR=" + os.TempDir(),
		"PI_OFFLINE=1", "PI_SKIP_VERSION_CHECK=1", "PI_TELEMETRY=0",
		// The supervisor's paths, as chatbus-mcp and busctl read them; the
		// busctl that starts it when none runs (supervisord is beside it).
		"CHATBUS_SOCKET=" + p.socket, "CHATBUS_STATE_DIR=" + p.state, "CHATBUS_BUSCTL=" + filepath.Join(binDir, "busctl"),
		"XDG_RUNTIME_DIR=" + filepath.Dir(filepath.Dir(filepath.Dir(p.socket))),
		"GORACE=atexit_sleep_ms=0",
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, pt.pi, "install", source)
	cmd.Env = s.env
	cmd.Dir = home
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pi install %s: %v\n%s", source, err, out)
	}
	return s
}

// piPack packs the package (scripts/pack.mjs, with the pinned Node) into
// a temp dir and returns the tarball.
func (pt *piTools) piPack(t *testing.T) string {
	t.Helper()
	cmd := exec.Command("node", filepath.Join(pt.pkg, "scripts", "pack.mjs"), t.TempDir())
	cmd.Env = append(os.Environ(), "PATH="+pt.path)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("packing clients/pi: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// piScript is the scripted model of the pi tests. It answers the last
// thing the person said (the last user text of the request):
//
//   - "run <path>": a bash tool call `touch <path>`, then "ran <path>";
//   - "slow <word>": "working on <word>" held after its first piece until
//     the test releases it (pi is busy meanwhile), then the rest;
//   - "long <n> <ms>": a text of n characters streamed in 100 pieces, ms
//     apart;
//   - "endless <word>": "thinking hard about <word>" and then nothing
//     until pi aborts;
//   - anything else: "re: <text>".
//
// Every answer is one message; requests without tools (pi's side
// queries, titles) get "ok".
type piScript struct {
	mu       sync.Mutex
	releases map[string]chan struct{}
	gone     map[string]chan struct{}
}

func newPiScript() *piScript {
	return &piScript{releases: map[string]chan struct{}{}, gone: map[string]chan struct{}{}}
}

// hold is the channel that releases the "slow <word>" answer.
func (s *piScript) hold(word string) chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.releases[word] == nil {
		s.releases[word] = make(chan struct{})
	}
	return s.releases[word]
}

// aborted is closed when pi went away from the "endless" answer of word.
func (s *piScript) aborted(word string) chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.gone[word] == nil {
		s.gone[word] = make(chan struct{})
	}
	return s.gone[word]
}

func (s *piScript) answer(r apiRequest) []apiBlock {
	if len(r.Tools) == 0 {
		return []apiBlock{{Text: "ok"}}
	}
	text, afterTool := r.lastUserText()
	if path, ok := strings.CutPrefix(text, "run "); ok {
		if afterTool {
			return []apiBlock{{Text: "ran " + path}}
		}
		return []apiBlock{{Tool: "bash", Input: map[string]any{"command": "touch " + path}}}
	}
	if word, ok := strings.CutPrefix(text, "slow "); ok {
		return []apiBlock{{Text: "working on " + word + " … done", Pieces: 2, Hold: s.hold(word)}}
	}
	if n, ok := strings.CutPrefix(text, "long "); ok {
		var size, gapMs int
		fmt.Sscan(n, &size, &gapMs)
		return []apiBlock{{Text: longText(size), Pieces: 100, Gap: time.Duration(gapMs) * time.Millisecond}}
	}
	if word, ok := strings.CutPrefix(text, "endless "); ok {
		return []apiBlock{{Text: "thinking hard about " + word + " " + strings.Repeat(".", 40), Pieces: 2, Hold: make(chan struct{}), Gone: s.aborted(word)}}
	}
	return []apiBlock{{Text: "re: " + text}}
}

// longText is n characters of Markdown paragraphs, numbered so that a
// lost or repeated piece shows.
func longText(n int) string {
	var sb strings.Builder
	for i := 1; sb.Len() < n; i++ {
		if i > 1 && i%8 == 1 {
			sb.WriteString("\n\n")
		} else if i > 1 {
			sb.WriteString(" ")
		}
		fmt.Fprintf(&sb, "word%04d", i)
	}
	return sb.String()[:n]
}

// lastUserText is the text of the request's last user message with text,
// and whether a tool result came after it.
func (r apiRequest) lastUserText() (string, bool) {
	afterTool := false
	for i := len(r.Messages) - 1; i >= 0; i-- {
		m := r.Messages[i]
		if m.Role != "user" {
			continue
		}
		var texts []string
		for _, b := range apiBlocksOf(m.Content) {
			switch b.Type {
			case "tool_result":
				afterTool = true
			case "text":
				texts = append(texts, b.Text)
			}
		}
		if len(texts) > 0 {
			return strings.TrimSpace(strings.Join(texts, "\n")), afterTool
		}
	}
	return "", afterTool
}

// userTexts are the texts of every user message of the request.
func (r apiRequest) userTexts() []string {
	var out []string
	for _, m := range r.Messages {
		if m.Role != "user" {
			continue
		}
		for _, b := range apiBlocksOf(m.Content) {
			if b.Type == "text" {
				out = append(out, strings.TrimSpace(b.Text))
			}
		}
	}
	return out
}

// hasImage says whether a user message of the request carries an image.
func (r apiRequest) hasImage() bool {
	for _, m := range r.Messages {
		for _, b := range apiBlocksOf(m.Content) {
			if b.Type == "image" {
				return true
			}
		}
	}
	return false
}

// requestWith waits for a request whose last user text is text.
func (a *anthropicAPI) requestWith(t *testing.T, text string) apiRequest {
	t.Helper()
	var got apiRequest
	waitLong(t, fmt.Sprintf("a model request for %q", text), func() bool {
		for _, r := range a.requests() {
			if last, _ := r.lastUserText(); last == text {
				got = r
				return true
			}
		}
		return false
	}, func() string { return fmt.Sprintf("%d requests", len(a.requests())) })
	return got
}

// noCrossing fails if one conversation carried two sessions' words.
func noCrossing(t *testing.T, a *anthropicAPI, words ...string) {
	t.Helper()
	for _, r := range a.requests() {
		all := strings.Join(r.userTexts(), "\n")
		var in []string
		for _, w := range words {
			if strings.Contains(all, w) {
				in = append(in, w)
			}
		}
		if len(in) > 1 {
			t.Errorf("one conversation carried %q", in)
		}
	}
}

// piTerm runs pi sessions in tmux.
type piTerm struct {
	*terminals
	s *piSetup
}

func (s *piSetup) terminals(t *testing.T) *piTerm {
	return &piTerm{terminals: newTerminals(t, s.tools.tmux, s.env), s: s}
}

// start runs pi in a new tmux session in dir, with args, and waits for
// its editor.
func (pt *piTerm) start(name, dir string, args ...string) {
	pt.t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		pt.t.Fatal(err)
	}
	pt.terminals.start(name, dir, append([]string{pt.s.tools.pi}, args...)...)
}

// command types a line into pi's editor and sends it.
func (pt *piTerm) command(name, line string) {
	pt.t.Helper()
	pt.keys(name, "-l", line)
	pt.keys(name, "Enter")
}

// piLog is the package's log of the supervisor's state dir, for failures.
func piLog(state string) string {
	b, _ := os.ReadFile(filepath.Join(state, "pi", "pi.log"))
	return string(b)
}

// exactly fails unless got equals want.
func exactly(t *testing.T, what string, got, want []string) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s:\n got  %q\n want %q", what, got, want)
	}
}

// piSupervisor waits until the supervisor pi started (through busctl start)
// serves p's socket, dials it, and stops it when the test ends.
func piSupervisor(t *testing.T, p *profile) *client.Client {
	t.Helper()
	waitLong(t, "the supervisor pi started", func() bool {
		_, _, code := p.busctl("status")
		return code == 0
	}, func() string { b, _ := os.ReadFile(filepath.Join(p.state, "supervisord.log")); return string(b) })
	c, err := client.Dial(p.socket, client.WithSecretFile(filepath.Join(p.state, "secret")))
	if err != nil {
		t.Fatal(err)
	}
	info, err := c.Admin.GetInfo(context.Background(), &chatbusv1.GetInfoRequest{})
	if err != nil {
		t.Fatal(err)
	}
	pid := int(info.GetPid())
	t.Cleanup(func() {
		c.Close()
		syscall.Kill(pid, syscall.SIGTERM)
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
			if syscall.Kill(pid, 0) != nil {
				return
			}
		}
		syscall.Kill(pid, syscall.SIGKILL)
	})
	return c
}

// playgroundPage opens the chat page of the supervisor whose log is in state.
func playgroundPage(t *testing.T, state string) *person {
	t.Helper()
	re := regexp.MustCompile(`playground chat page: open (http://127\.0\.0\.1:\d+/\?token=[A-Za-z0-9_-]+)`)
	var url string
	waitLong(t, "the playground's page in the log", func() bool {
		b, _ := os.ReadFile(filepath.Join(state, "supervisord.log"))
		m := re.FindAllStringSubmatch(string(b), -1)
		if m != nil {
			url = m[len(m)-1][1]
		}
		return m != nil
	}, func() string { return "" })
	return openPage(t, url)
}

// room waits for the page's room whose name ends in name.
func (p *person) room(t *testing.T, name string) int64 {
	t.Helper()
	var id int64
	waitLong(t, "the room of "+name, func() bool {
		for _, r := range p.rooms() {
			if strings.HasSuffix(r.Name, " "+name) {
				id = r.ID
				return true
			}
		}
		return false
	}, func() string { return fmt.Sprintf("%+v", p.rooms()) })
	return id
}

// botViews are the room's messages from the session, in order.
func (p *person) botViews(room int64) []pageView {
	var h struct{ Messages []pageView }
	p.get(fmt.Sprintf("/api/rooms/%d/messages", room), &h)
	var out []pageView
	for _, m := range h.Messages {
		if m.From == "bot" && m.Text != "" {
			out = append(out, m)
		}
	}
	return out
}

// waitBot waits for a message from the session in room that ok accepts.
func (p *person) waitBot(t *testing.T, room int64, what string, ok func(pageView) bool) pageView {
	t.Helper()
	var got pageView
	waitLong(t, what, func() bool {
		for _, m := range p.botViews(room) {
			if ok(m) {
				got = m
				return true
			}
		}
		return false
	}, func() string { return fmt.Sprintf("the room's messages: %+v", p.botViews(room)) })
	return got
}

func textIs(s string) func(pageView) bool { return func(m pageView) bool { return m.Text == s } }

// done says the streamed message is final: no buttons left under it.
func settledWith(sub string) func(pageView) bool {
	return func(m pageView) bool { return strings.Contains(m.Text, sub) && len(m.Buttons) == 0 }
}

func buttonData(m pageView, label string) string {
	for _, b := range m.Buttons {
		if strings.Contains(b.Label, label) {
			return b.Data
		}
	}
	return ""
}

// TestPiPlayground runs two real pi sessions with the package installed by
// `pi install <path>` into a fresh HOME, on the playground of a supervisor
// the first of them starts: each gets its own room and answers there (the
// answer streamed into one message); a message while pi works is steered
// into the run; /stop and the ⏹ button abort it; a gate's confirmation is
// answered from the room and at the terminal; /reload, /new from the room,
// and /quit then `pi --continue` keep the room and lose nothing written
// meanwhile; nothing crosses between the two sessions.
func TestPiPlayground(t *testing.T) {
	t.Parallel()
	pt := findPi(t)
	p := newProfile(t)
	script := newPiScript()
	api := startAnthropicAPI(t, script.answer)
	s := pt.piHome(t, api.url, p, pt.pkg)
	term := s.terminals(t)
	root := t.TempDir()
	alpha, beta := filepath.Join(root, "alpha"), filepath.Join(root, "beta")
	gate, _ := filepath.Abs(filepath.Join("pi", "gate.ts"))
	t.Cleanup(func() {
		if t.Failed() {
			for _, n := range []string{"alpha", "beta", "alpha-2"} {
				t.Logf("screen of %s:\n%s", n, term.screen(n))
			}
			t.Logf("the package's log:\n%s", piLog(p.state))
			reqs := api.requests()
			for _, r := range reqs[max(0, len(reqs)-3):] {
				t.Logf("a request to the model (%d in all):\n%s", len(reqs), r.summary())
			}
		}
	})
	term.start("alpha", alpha, "-e", gate)
	term.start("beta", beta)
	piSupervisor(t, p)
	page := playgroundPage(t, p.state)
	roomA, roomB := page.room(t, "alpha"), page.room(t, "beta")

	// A message starts a turn; the answer lands in the session's own room.
	page.say(roomA, "a1", "hello alpha")
	page.say(roomB, "b1", "hello beta")
	page.waitBot(t, roomA, "alpha's answer", textIs("re: hello alpha"))
	page.waitBot(t, roomB, "beta's answer", textIs("re: hello beta"))

	// A message while pi works is steered into the run: the next model
	// request carries it, in the same conversation.
	page.say(roomA, "a2", "slow one")
	api.requestWith(t, "slow one")
	page.waitBot(t, roomA, "the slow answer streaming", func(m pageView) bool { return strings.HasPrefix(m.Text, "working on") })
	page.say(roomA, "a3", "steer me")
	waitLong(t, "the steer given to pi", func() bool { return strings.Contains(piLog(p.state), "given to pi (steer)") }, func() string { return piLog(p.state) })
	close(script.hold("one"))
	page.waitBot(t, roomA, "the slow answer", settledWith("working on one … done"))
	page.waitBot(t, roomA, "the steer's answer", textIs("re: steer me"))
	if r := api.requestWith(t, "steer me"); !slices.Contains(r.userTexts(), "slow one") {
		t.Errorf("the steer went into another conversation: %q", r.userTexts())
	}

	// /stop in the room, then the ⏹ button under the streaming answer, abort the run.
	for _, how := range []string{"x", "y"} {
		page.say(roomA, "a-endless-"+how, "endless "+how)
		m := page.waitBot(t, roomA, "the endless answer "+how, func(m pageView) bool {
			return strings.HasPrefix(m.Text, "thinking hard about "+how) && buttonData(m, "Stop") != ""
		})
		if how == "x" {
			page.say(roomA, "a-stop", "/stop")
		} else {
			page.post(fmt.Sprintf("/api/rooms/%d/press", roomA), map[string]any{"client_id": "press-stop", "message_id": m.ID, "data": buttonData(m, "Stop")})
		}
		waitLong(t, "pi aborting the run "+how, func() bool {
			select {
			case <-script.aborted(how):
				return true
			default:
				return false
			}
		}, func() string { return "" })
		page.waitBot(t, roomA, "the stopped answer "+how, func(v pageView) bool { return v.ID == m.ID && settledWith("stopped")(v) })
	}

	// A gate's confirmation, answered in the room, then at the terminal.
	for _, where := range []string{"room", "terminal"} {
		marker := filepath.Join(alpha, "by-"+where)
		page.say(roomA, "a-run-"+where, "run "+marker)
		prompt := page.waitBot(t, roomA, "the confirmation for "+where, func(m pageView) bool {
			return strings.Contains(m.HTML, "Run this command?") && strings.Contains(m.HTML, marker) && buttonData(m, "Yes") != ""
		})
		if where == "room" {
			page.post(fmt.Sprintf("/api/rooms/%d/press", roomA), map[string]any{"client_id": "press-yes", "message_id": prompt.ID, "data": buttonData(prompt, "Yes")})
		} else {
			term.waitScreen("alpha", "Run this command?")
			term.keys("alpha", "Enter")
		}
		page.waitBot(t, roomA, "the command's answer for "+where, textIs("ran "+marker))
		if _, err := os.Stat(marker); err != nil {
			t.Errorf("the command allowed at the %s did not run: %v", where, err)
		}
		verdict := map[string]string{"room": "answered here", "terminal": "answered at the terminal"}[where]
		page.waitBot(t, roomA, "the verdict for "+where, func(v pageView) bool {
			return v.ID == prompt.ID && strings.Contains(v.HTML, verdict) && len(v.Buttons) == 0
		})
	}

	// /reload at the terminal, a message meanwhile: the same room, nothing lost.
	term.command("alpha", "/reload")
	page.say(roomA, "a-reload", "during reload")
	page.waitBot(t, roomA, "the answer after /reload", textIs("re: during reload"))
	waitLong(t, "the reloaded session's handoff", func() bool { return strings.Contains(piLog(p.state), "registered (reload): HANDOFF") }, func() string { return piLog(p.state) })

	// /new from the room: a new conversation in the same room.
	page.say(roomA, "a-new", "/new")
	waitLong(t, "the new session's handoff", func() bool { return strings.Contains(piLog(p.state), "registered (new): HANDOFF") }, func() string { return piLog(p.state) })
	page.say(roomA, "a-after-new", "after new")
	page.waitBot(t, roomA, "the answer in the new session", textIs("re: after new"))
	if r := api.requestWith(t, "after new"); slices.Contains(r.userTexts(), "hello alpha") {
		t.Errorf("/new kept the old conversation: %q", r.userTexts())
	}

	// /quit, a message while no pi runs, then pi --continue.
	term.command("alpha", "/quit")
	waitLong(t, "pi in alpha exited", func() bool { return !term.alive("alpha") }, func() string { return "" })
	page.say(roomA, "a-away", "while away")
	term.start("alpha-2", alpha, "--continue", "-e", gate)
	page.waitBot(t, roomA, "the answer after --continue", textIs("re: while away"))
	if r := api.requestWith(t, "while away"); !slices.Contains(r.userTexts(), "after new") {
		t.Errorf("pi --continue lost the conversation: %q", r.userTexts())
	}
	if n := strings.Count(piLog(p.state), "registered (startup): HANDOFF"); n != 1 {
		t.Errorf("pi --continue registered by handoff %d times, want 1:\n%s", n, piLog(p.state))
	}

	// Two rooms; each answer once, in its own room, in order.
	if rooms := page.rooms(); len(rooms) != 2 {
		t.Errorf("rooms: %+v, want alpha's and beta's", rooms)
	}
	var gotA []string
	for _, m := range page.botViews(roomA) {
		switch {
		case strings.HasPrefix(m.Text, "🔧"), strings.Contains(m.HTML, "Run this command?"):
			continue // the run's trace and the confirmations, checked above
		case strings.HasPrefix(m.Text, "thinking hard about"):
			gotA = append(gotA, m.Text[:len("thinking hard about x")]+" (stopped)")
		default:
			gotA = append(gotA, m.Text)
		}
	}
	exactly(t, "alpha's room", gotA, []string{
		"re: hello alpha", "working on one … done", "re: steer me",
		"thinking hard about x (stopped)", "thinking hard about y (stopped)",
		"ran " + filepath.Join(alpha, "by-room"), "ran " + filepath.Join(alpha, "by-terminal"),
		"re: during reload", "re: after new", "re: while away",
	})
	var gotB []string
	for _, m := range page.botViews(roomB) {
		gotB = append(gotB, m.Text)
	}
	exactly(t, "beta's room", gotB, []string{"re: hello beta"})
	noCrossing(t, api, "hello alpha", "hello beta")
}

// TestPiTelegram runs a real pi with the package packed by npm pack and
// installed from the tarball (pi install npm:…) into a fresh HOME, against
// the real provider-telegram and the Bot API stand-in: a message starts a
// turn and its answer lands once in the session's topic; a photo reaches
// the model as an image; a 3,000-character answer streamed over 10 s
// (StreamMessage) is one message in a forum topic, edited at most 10 times
// (about seven: the supervisor starts a stream's calls 1.5 s apart),
// ending on the final text; a longer one is split into valid messages; the ⏹ button under a streaming answer
// aborts the run. Counted at the stand-in: every message once.
func TestPiTelegram(t *testing.T) {
	t.Parallel()
	pt := findPi(t)
	b := startTelegramBus(t, "")
	script := newPiScript()
	api := startAnthropicAPI(t, script.answer)
	s := pt.piHome(t, api.url, b.profile, "npm:@chatbus/pi@file:"+pt.piPack(t))
	term := s.terminals(t)
	dir := filepath.Join(t.TempDir(), "gamma")
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("screen:\n%s", term.screen("gamma"))
			t.Logf("the package's log:\n%s", piLog(b.state))
		}
	})
	term.start("gamma", dir)
	// pi takes its time to start on a loaded machine: wait as long as for a turn.
	waitLong(t, "pi registered", func() bool { return strings.Contains(piLog(b.state), "registered (startup)") }, func() string { return piLog(b.state) })
	thread := b.topicOf(t, "gamma")

	b.tg.PushMessage(forumChat, thread, allowedUser, "hello gamma")
	b.waitText(t, thread, "re: hello gamma")
	if len(b.tg.ChatActions(forumChat, thread)) == 0 {
		t.Errorf("no typing shown while pi worked")
	}

	// A photo: an image for the model, its path in the text.
	img := image.NewRGBA(image.Rect(0, 0, 8, 8))
	for i := range img.Pix {
		img.Pix[i] = byte(i * 7)
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	dot := buf.Bytes()
	b.tg.PushPhoto(forumChat, thread, allowedUser, "dot.png", dot, "what is this")
	var photoReq apiRequest
	waitLong(t, "the photo's request", func() bool {
		for _, r := range api.requests() {
			if last, _ := r.lastUserText(); strings.HasPrefix(last, "what is this") {
				photoReq = r
				return true
			}
		}
		return false
	}, func() string { return "" })
	if !photoReq.hasImage() {
		t.Errorf("the photo did not reach the model as an image: %s", photoReq.summary())
	}
	photoText, _ := photoReq.lastUserText()
	b.waitText(t, thread, "re: "+photoText)

	// 3,000 characters over 10 s: one message, at most 10 edits, the final text last.
	editsBefore := b.tg.Calls("editMessageText")
	long := longText(3000)
	b.tg.PushMessage(forumChat, thread, allowedUser, "long 3000 100")
	b.waitText(t, thread, long)
	// The edit that removes the stop button may come with the final text or
	// after it: wait until the message has no keyboard.
	waitLong(t, "the long answer settled", func() bool {
		for _, m := range b.tg.Sent(forumChat, thread) {
			if m.Text == long {
				return len(m.ReplyMarkup) == 0
			}
		}
		return false
	}, func() string { return "" })
	edits := b.tg.Calls("editMessageText") - editsBefore
	t.Logf("a 3000-character answer streamed over 10 s: 1 message, %d edits", edits)
	if edits > 10 {
		t.Errorf("%d edits of the streamed answer, want at most 10", edits)
	}

	// 6,000 characters: two messages, each valid, together the whole text.
	longer := longText(6000)
	b.tg.PushMessage(forumChat, thread, allowedUser, "long 6000 20")
	var parts []string
	waitLong(t, "the longer answer in parts", func() bool {
		parts = nil
		settled := true
		for _, m := range b.tg.Sent(forumChat, thread) {
			if strings.HasPrefix(m.Text, "word") && m.Text != long {
				parts = append(parts, m.Text)
				settled = len(m.ReplyMarkup) == 0
			}
		}
		// Cut at a paragraph's end: the parts are the text again.
		return settled && strings.Join(parts, "\n\n") == longer
	}, func() string { return fmt.Sprintf("parts %q", parts) })
	for _, p := range parts {
		if len(p) > 4096 {
			t.Errorf("a part of %d characters, more than a Telegram message takes", len(p))
		}
	}

	// The stop button under a streaming answer.
	b.tg.PushMessage(forumChat, thread, allowedUser, "endless z")
	var streaming botapi.Message
	waitLong(t, "the endless answer with its stop button", func() bool {
		for _, m := range b.tg.Sent(forumChat, thread) {
			if strings.HasPrefix(m.Text, "thinking hard about z") && strings.Contains(string(m.ReplyMarkup), "pi:stop") {
				streaming = m
				return true
			}
		}
		return false
	}, func() string { return fmt.Sprintf("%+v", b.tg.Sent(forumChat, thread)) })
	b.tg.PushCallbackQuery(forumChat, streaming.MessageID, allowedUser, "pi:stop")
	waitLong(t, "pi aborting the run", func() bool {
		select {
		case <-script.aborted("z"):
			return true
		default:
			return false
		}
	}, func() string { return "" })
	waitLong(t, "the stopped answer", func() bool {
		for _, m := range b.tg.Sent(forumChat, thread) {
			if m.MessageID == streaming.MessageID {
				return strings.Contains(m.Text, "stopped") && len(m.ReplyMarkup) == 0
			}
		}
		return false
	}, func() string { return fmt.Sprintf("%+v", b.tg.Sent(forumChat, thread)) })

	// Every message once, in order.
	var got []string
	for _, m := range b.tg.Sent(forumChat, thread) {
		switch {
		case strings.HasPrefix(m.Text, "word"):
			got = append(got, fmt.Sprintf("word… (%d)", len(m.Text)))
		case strings.HasPrefix(m.Text, "thinking hard about z"):
			got = append(got, "thinking hard about z (stopped)")
		default:
			got = append(got, m.Text)
		}
	}
	if len(got) < 5 {
		t.Fatalf("sent in the topic: %q", got)
	}
	exactly(t, "the topic", append(got[:3:3], got[len(got)-1]), []string{"re: hello gamma", "re: " + photoText, "word… (3000)", "thinking hard about z (stopped)"})
	if parts := len(got) - 4; parts != 2 {
		t.Errorf("the 6000-character answer came in %d messages, want 2: %q", parts, got)
	}
}
