package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/chatbus/chatbus/client"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
)

// The browser tests drive a real headless Chromium (Debian's chromium;
// CHATBUS_CHROMIUM names another binary). Without one they skip loudly,
// unless CHATBUS_REQUIRE_BROWSER_TESTS=1 (set by .ci/run) makes that a
// failure. CHATBUS_SCREENSHOTS=DIR also writes the screenshots there (the
// ones in docs/ were made so).

// chromium finds the browser or skips (fails when required).
func chromium(t *testing.T) string {
	t.Helper()
	candidates := []string{os.Getenv("CHATBUS_CHROMIUM"), "chromium", "chromium-browser", "google-chrome"}
	for _, c := range candidates {
		if c == "" {
			continue
		}
		if p, err := exec.LookPath(c); err == nil {
			return p
		}
	}
	unavailable(t, "CHATBUS_REQUIRE_BROWSER_TESTS", "browser tests cannot run: no chromium on PATH (apt-get install -y chromium, or set CHATBUS_CHROMIUM)")
	return ""
}

// browserCtx starts a fresh headless Chromium (its own profile dir) and
// returns a tab's context; the browser stops at cleanup.
func browserCtx(t *testing.T) context.Context {
	t.Helper()
	return browserCtxWith(t)
}

// browserCtxWith is browserCtx with more of Chromium's options.
func browserCtxWith(t *testing.T, more ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	bin := chromium(t)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(bin),
		chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("no-default-browser-check", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 800),
	}
	opts = append(opts, more...)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil { // starts the browser, bound to ctx
		t.Fatalf("starting %s: %v", bin, err)
	}
	return ctx
}

// within runs actions on tab with a bound.
func within(t *testing.T, tab context.Context, d time.Duration, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, d)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// until waits for a JavaScript predicate to hold on tab.
func until(t *testing.T, tab context.Context, what, js string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(tab, 40*time.Second)
	defer cancel()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](js, chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(0))); err != nil {
		page, _ := chromedp.Run(tab, chromedp.Evaluate[string](`document.body.innerText`))
		t.Fatalf("waiting for %s: %v\npage text:\n%s", what, err, page)
	}
}

// screenshot saves the tab as PNG in the test's artifacts dir (and in
// $CHATBUS_SCREENSHOTS when set), and logs where.
func screenshot(t *testing.T, tab context.Context, dir, name string) {
	t.Helper()
	png, err := chromedp.Run(tab, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
	if extra := os.Getenv("CHATBUS_SCREENSHOTS"); extra != "" {
		if err := os.WriteFile(filepath.Join(extra, name), png, 0o644); err != nil {
			t.Error(err)
		}
	}
}

// buttonFollower echoes messages, answers "/buttons" with two buttons,
// and answers each pressed button, recording what it got: through the
// message verbs, with typing before each answer.
type buttonFollower struct {
	f     *client.Follower
	room  string
	mu    sync.Mutex
	texts map[string]int
	taps  []string
}

func (b *pgBus) buttonFollower(t *testing.T) *buttonFollower {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	f, err := b.c.Register(ctx, client.Registration{ProfileKey: "manual:web", Cwd: "/home/you/webapp", InstanceID: "web-1"})
	if err != nil {
		t.Fatal(err)
	}
	bf := &buttonFollower{f: f, room: f.Registered().GetBinding().GetTarget().GetThread(), texts: map[string]int{}}
	sctx, scancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	// verb makes one verb, again while the playground restarts.
	verb := func(what string, do func(ctx context.Context) error) {
		for range 100 {
			cctx, ccancel := context.WithTimeout(sctx, 30*time.Second)
			err := do(cctx)
			ccancel()
			if err == nil || sctx.Err() != nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Errorf("%s: gave up", what)
	}
	send := func(key string, m client.Message) {
		verb("send "+m.Text, func(ctx context.Context) error { _, err := f.Send(ctx, m, key); return err })
	}
	go func() {
		done <- f.Updates(sctx, 0, func(u *chatbusv1.Update) error {
			key := fmt.Sprintf("web:%d", u.GetSeq())
			switch u.GetKind() {
			case chatbusv1.UpdateKind_UPDATE_KIND_MESSAGE:
				bf.mu.Lock()
				bf.texts[u.GetText()]++
				bf.mu.Unlock()
				verb("typing", f.Typing)
				if u.GetText() == "/buttons" {
					send(key, client.Message{Text: "Which **colour**?", Buttons: []client.Button{{Label: "Red", Data: "red"}, {Label: "Blue", Data: "blue"}}})
				} else {
					send(key, client.Message{Text: "echo: " + u.GetText()})
				}
			case chatbusv1.UpdateKind_UPDATE_KIND_CALLBACK_QUERY:
				bf.mu.Lock()
				bf.taps = append(bf.taps, u.GetText())
				bf.mu.Unlock()
				for _, r := range u.GetReferences() {
					if r.GetKind() == chatbusv1.ReferenceKind_REFERENCE_KIND_INTERACTION {
						verb("answer", func(ctx context.Context) error { return f.Answer(ctx, r.GetId(), "you chose "+u.GetText(), key) })
					}
				}
			}
			return f.Ack(sctx, u.GetSeq())
		})
	}()
	t.Cleanup(func() {
		scancel()
		<-done
		f.Close(context.Background())
	})
	return bf
}

func (bf *buttonFollower) count(text string) int {
	bf.mu.Lock()
	defer bf.mu.Unlock()
	return bf.texts[text]
}

func (bf *buttonFollower) tapped() []string {
	bf.mu.Lock()
	defer bf.mu.Unlock()
	return append([]string(nil), bf.taps...)
}

// TestBrowserChatAndConsole: a person opens the printed URL, sees the
// follower's thread appear, chats with it and presses its button; the
// operator opens the console, sees the follower and the provider, and
// restarts the provider (its drain held by a follower's download that is
// not read) while the person types and the follower sends: the console
// shows the calls waiting; outcome restarted, the message arrives once and
// the upload held across the restart is delivered once after it.
func TestBrowserChatAndConsole(t *testing.T) {
	tab := browserCtx(t)
	artifacts := t.TempDir()
	b := startPlaygroundBus(t, "")
	chatURL := b.loggedURL(t, "playground chat page: open ")
	consoleURL := b.loggedURL(t, "operator console: open ")

	// The page opens with no threads, then the follower's appears.
	within(t, tab, 20*time.Second, "open the chat page", chromedp.Navigate(chatURL), chromedp.WaitVisible(chromedp.CSS("#no-rooms")))
	until(t, tab, "the page to be live", `document.querySelector("#conn").textContent === "live"`)
	if loc, _ := chromedp.Run(tab, chromedp.Location()); strings.Contains(loc, "token") {
		t.Errorf("the token stayed in the address bar: %s", loc)
	}
	bf := b.buttonFollower(t)
	room := fmt.Sprintf(`#room-list li[data-room="%s"]`, bf.room)
	until(t, tab, "the follower's room", fmt.Sprintf(`!!document.querySelector(%q) && document.querySelector(%q).textContent.includes("A · webapp")`, room, room))
	within(t, tab, 10*time.Second, "pick the room", chromedp.Click(chromedp.CSS(room)), chromedp.WaitEnabled(chromedp.CSS("#text")))

	// Type, send with Enter, see the echo.
	within(t, tab, 10*time.Second, "type a message", chromedp.SendKeys(chromedp.CSS("#text"), "hello from the browser\r"))
	until(t, tab, "the echo", `[...document.querySelectorAll(".msg.bot .text")].some(e => e.textContent === "echo: hello from the browser")`)

	// Ask for buttons, press one, see the follower's answer.
	within(t, tab, 10*time.Second, "ask for buttons", chromedp.SendKeys(chromedp.CSS("#text"), "/buttons\r"))
	until(t, tab, "the buttons", `!!document.querySelector('.kb button[data-data="blue"]')`)
	within(t, tab, 10*time.Second, "press Blue", chromedp.Click(chromedp.CSS(`.kb button[data-data="blue"]`)))
	until(t, tab, "the callback's answer", `document.querySelector("#toast").textContent === "you chose blue" || [...document.querySelectorAll(".answer")].some(e => e.textContent.includes("you chose blue"))`)
	if got := bf.tapped(); len(got) != 1 || got[0] != "blue" {
		t.Fatalf("the follower got callbacks %q, want [blue]", got)
	}

	// The console, in a second tab: the follower and the provider.
	con, cancelCon := chromedp.NewContext(tab)
	defer cancelCon()
	if err := chromedp.Do(con); err != nil { // opens the tab, bound to con
		t.Fatal(err)
	}
	within(t, con, 20*time.Second, "open the console", chromedp.Navigate(consoleURL))
	until(t, con, "the console to be live", `document.querySelector("#conn").textContent === "live"`)
	until(t, con, "the follower row", `!!document.querySelector('#followers tr[data-instance="web-1"]')`)
	until(t, con, "the provider running", `(() => { const r = document.querySelector('#providers tr[data-provider="playground"]');
		return !!r && r.querySelector('[data-field=state]').textContent === "running" && r.querySelector('[data-field=health]').textContent === "serving"; })()`)
	until(t, con, "the events", `[...document.querySelectorAll("#events .kind")].some(e => e.textContent === "follower_registered")`)
	oldPID, _ := chromedp.Run(con, chromedp.Evaluate[string](`document.querySelector('#providers tr[data-provider="playground"] [data-field=pid]').textContent`))

	// The follower sends a large file, then starts downloading it and
	// does not read: the provider has the download in flight (flow control
	// holds its stream), so a restart's drain waits for it.
	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<20) // 16 MiB, beyond what the streams buffer
	bigRes, err := bf.f.UploadFile(context.Background(), client.Upload{Filename: "big.bin", IdempotencyKey: "big-1"}, bytes.NewReader(big))
	if err != nil {
		t.Fatal(err)
	}
	var bigID string
	for _, r := range bigRes.GetReferences() {
		if r.GetKind() == chatbusv1.ReferenceKind_REFERENCE_KIND_FILE {
			bigID = r.GetId()
		}
	}
	if bigID == "" {
		t.Fatalf("the large file's upload named no file: %v", bigRes)
	}
	downCtx, downCancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer downCancel()
	down, err := b.c.Bus.DownloadFile(downCtx, &chatbusv1.DownloadFileRequest{Session: bf.f.Session(), FileId: bigID})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := down.Recv(); err != nil { // the first chunk: the download is under way
		t.Fatalf("the held download: %v", err)
	}
	until(t, con, "the download in flight", `(() => { const r = document.querySelector('#providers tr[data-provider="playground"]');
		return !!r && r.querySelector('[data-field=occupancy]').textContent.split(" / ")[3] === "1"; })()`)

	// The follower begins sending another file and is still writing it
	// when the restart begins.
	upCtx, upCancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer upCancel()
	up, err := b.c.Bus.UploadFile(upCtx)
	if err != nil {
		t.Fatal(err)
	}
	up.Send(&chatbusv1.UploadFileRequest{Msg: &chatbusv1.UploadFileRequest_Header{Header: &chatbusv1.UploadHeader{
		Session: bf.f.Session(), Filename: "report.txt", Caption: "the report, sent across the restart", IdempotencyKey: "report-1"}}})
	up.Send(&chatbusv1.UploadFileRequest{Msg: &chatbusv1.UploadFileRequest_Chunk{Chunk: []byte("first half\n")}})

	// Restart; type in the chat while it waits; see restarted, the
	// message arrive once and the file delivered once.
	within(t, con, 10*time.Second, "press restart", chromedp.Click(chromedp.CSS(`#providers tr[data-provider="playground"] button.restart`)))
	until(t, con, "the restart under way", `[...document.querySelectorAll("#restart-steps .phase")].some(e => e.textContent === "prepare")`)
	// The upload, finished now, waits in the provider's outbound queue
	// (admission is closed): the console shows it.
	up.Send(&chatbusv1.UploadFileRequest{Msg: &chatbusv1.UploadFileRequest_Chunk{Chunk: []byte("second half\n")}})
	uploaded := make(chan error, 1)
	go func() {
		_, err := up.CloseAndRecv()
		uploaded <- err
	}()
	until(t, con, "the upload waiting in the queue", `(() => { const r = document.querySelector('#providers tr[data-provider="playground"]');
		return !!r && r.querySelector('[data-field=queue]').textContent.startsWith("1 waiting"); })()`)
	// So does a message the follower sends meanwhile.
	sentDuring := make(chan error, 1)
	go func() {
		_, err := bf.f.Send(context.Background(), client.Message{Text: "sent during the restart"}, "during-1")
		sentDuring <- err
	}()
	until(t, con, "the calls waiting in the queue", `(() => { const r = document.querySelector('#providers tr[data-provider="playground"]');
		return !!r && r.querySelector('[data-field=queue]').textContent.startsWith("2 waiting"); })()`)
	within(t, tab, 10*time.Second, "type during the restart", chromedp.SendKeys(chromedp.CSS("#text"), "typed during the restart\r"))
	until(t, tab, "the message stored by the playground", `[...document.querySelectorAll(".msg.you:not(.pending) .text")].some(e => e.textContent === "typed during the restart")`)
	// Admission is closed and the download holds the old owner: the
	// restart is still under way, the upload and the message wait in the
	// queue, and what was typed waits at the platform.
	if kind, _ := chromedp.Run(con, chromedp.Evaluate[string](`document.querySelector("#outcome").dataset.kind`)); kind != "" {
		t.Fatalf("the restart ended (%s) while a download held the owner", kind)
	}
	if n := bf.count("typed during the restart"); n != 0 {
		t.Fatalf("delivered while admission was closed (%d)", n)
	}
	select {
	case err := <-uploaded:
		t.Fatalf("the upload ended while the restart held it: %v", err)
	default:
	}
	if n, _ := chromedp.Run(tab, chromedp.Evaluate[int](`[...document.querySelectorAll(".msg.bot .file a")].filter(e => e.textContent.includes("report.txt")).length`)); n != 0 {
		t.Fatalf("the file was delivered while the restart held it (%d)", n)
	}
	// The follower stops the download: the old owner settles.
	downCancel()
	until(t, con, "the outcome", `document.querySelector("#outcome").dataset.kind !== ""`)
	if kind, _ := chromedp.Run(con, chromedp.Evaluate[string](`document.querySelector("#outcome").dataset.kind`)); kind != "restarted" {
		out, _ := chromedp.Run(con, chromedp.Evaluate[string](`document.querySelector("#restart").innerText`))
		t.Fatalf("outcome %q:\n%s", kind, out)
	}
	steps, _ := chromedp.Run(con, chromedp.Evaluate[string](`document.querySelector("#restart-steps").innerText`))
	for _, phase := range []string{"prepare", "drain", "commit", "exit_proof", "ready"} {
		if !strings.Contains(steps, phase) {
			t.Errorf("restart steps lack %s:\n%s", phase, steps)
		}
	}
	t.Logf("restart steps:\n%s", steps)
	until(t, tab, "the echo of what was typed during the restart", `[...document.querySelectorAll(".msg.bot .text")].some(e => e.textContent === "echo: typed during the restart")`)
	if err := <-uploaded; err != nil {
		t.Fatalf("the upload held across the restart: %v", err)
	}
	until(t, tab, "the file", `[...document.querySelectorAll(".msg.bot .file a")].some(e => e.textContent.includes("report.txt"))`)
	if err := <-sentDuring; err != nil {
		t.Fatalf("the message sent during the restart: %v", err)
	}
	until(t, tab, "the message sent during the restart", `[...document.querySelectorAll(".msg.bot .text")].filter(e => e.textContent === "sent during the restart").length === 1`)
	until(t, con, "the queue empty again", `(() => { const r = document.querySelector('#providers tr[data-provider="playground"]');
		return !!r && r.querySelector('[data-field=queue]').textContent === "empty"; })()`)
	until(t, con, "the successor in the table", fmt.Sprintf(`(() => { const r = document.querySelector('#providers tr[data-provider="playground"]');
		return !!r && r.querySelector('[data-field=pid]').textContent !== %q && r.querySelector('[data-field=state]').textContent === "running"; })()`, oldPID))
	screenshot(t, con, artifacts, "console.png")
	screenshot(t, tab, artifacts, "playground-chat.png")

	// Exactly once at the follower and in the room (the page's history).
	if n := bf.count("typed during the restart"); n != 1 {
		t.Errorf("the follower got the message typed during the restart %d times", n)
	}
	n, err := chromedp.Run(tab, chromedp.Evaluate[int](`[...document.querySelectorAll(".msg.you .text")].filter(e => e.textContent === "typed during the restart").length`))
	if err != nil || n != 1 {
		t.Errorf("the room shows the message %d times (%v)", n, err)
	}
	within(t, tab, 10*time.Second, "reload the chat", chromedp.Reload())
	until(t, tab, "the history after a reload", `[...document.querySelectorAll(".msg.bot .text")].filter(e => e.textContent === "echo: typed during the restart").length === 1 &&
		[...document.querySelectorAll(".msg.you .text")].filter(e => e.textContent === "typed during the restart").length === 1 &&
		[...document.querySelectorAll(".msg.bot .file a")].filter(e => e.textContent.includes("report.txt")).length === 1`)
}

// verbLine is a busctl follow input line for a verb.
func verbLine(t *testing.T, v map[string]any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestBrowserFollowMarkdown: busctl follow speaks the verbs to the
// playground and a person sees it in Chromium: Markdown rendered (bold,
// code, a code block styled, a long message that stays within the page),
// typing, a reaction, buttons whose press comes out of follow and is
// answered; and an agent's <script>, javascript: link and onerror
// attribute do nothing.
func TestBrowserFollowMarkdown(t *testing.T) {
	tab := browserCtx(t)
	b := startPlaygroundBus(t, "")
	chatURL := b.loggedURL(t, "playground chat page: open ")
	within(t, tab, 20*time.Second, "open the chat page", chromedp.Navigate(chatURL))
	until(t, tab, "the page to be live", `document.querySelector("#conn").textContent === "live"`)
	fl := b.startFollow(t, sessionDir(t, "shelly"), "--profile-key", "shell:web")
	reg := fl.next("registered")
	room := reg["binding"].(map[string]any)["target"].(map[string]any)["thread"].(string)
	sel := fmt.Sprintf(`#room-list li[data-room="%s"]`, room)
	until(t, tab, "the follower's room", fmt.Sprintf(`!!document.querySelector(%q)`, sel))
	within(t, tab, 10*time.Second, "pick the room", chromedp.Click(chromedp.CSS(sel)), chromedp.WaitEnabled(chromedp.CSS("#text")))
	n := 0
	say := func(line string) map[string]any {
		t.Helper()
		n++
		fl.send(line)
		res := fl.next("result")
		if res["line"] != float64(n) {
			t.Fatalf("line %d: %v", n, res)
		}
		return res
	}

	// A plain line is Markdown.
	say("**bold** and `code`")
	until(t, tab, "bold rendered", `[...document.querySelectorAll(".msg.bot .md strong")].some(e => e.textContent === "bold") &&
		[...document.querySelectorAll(".msg.bot .md code")].some(e => e.textContent === "code")`)

	// A code block, styled: monospace, dark, scrolling sideways; a long
	// message stays within the page.
	long := strings.Repeat("All tests pass; the next step is the release notes. ", 160) +
		"\n\n```go\n" + strings.Repeat("x := 1 // a line far wider than the page ", 40) + "\n```\n"
	say(verbLine(t, map[string]any{"verb": "send", "text": long}))
	until(t, tab, "the long message", `!!document.querySelector(".msg.bot .md pre code.language-go")`)
	styled, err := chromedp.Run(tab, chromedp.Evaluate[bool](`(() => {
		const pre = document.querySelector(".msg.bot .md pre"), s = getComputedStyle(pre), box = document.querySelector("#messages");
		const msg = pre.closest(".msg");
		return s.whiteSpace === "pre" && s.overflowX === "auto" && s.fontFamily.includes("monospace") && s.backgroundColor !== "rgba(0, 0, 0, 0)" &&
			pre.scrollWidth > pre.clientWidth && box.scrollWidth <= box.clientWidth && msg.getBoundingClientRect().right <= box.getBoundingClientRect().right;
	})()`))
	if err != nil || !styled {
		t.Errorf("the code block is not styled, or the long message leaves the page (%v)", err)
	}

	// What would run script in a page does nothing here.
	hostile := "<script>window.pwned = 1</script>\n\n[click me](javascript:window.pwned=2)\n\n" +
		"<img src=x onerror=\"window.pwned=3\">\n\n[docs](https://example.com/docs)"
	say(verbLine(t, map[string]any{"verb": "send", "text": hostile}))
	until(t, tab, "the hostile message shown as text", `[...document.querySelectorAll(".msg.bot .md")].some(e => e.textContent.includes("<script>window.pwned = 1</script>"))`)
	within(t, tab, 10*time.Second, "click the javascript: link", chromedp.Click(chromedp.CSS(`.msg.bot .md a:not([href])`)))
	check, err := chromedp.Run(tab, chromedp.Evaluate[string](`(() => {
		const links = [...document.querySelectorAll(".msg.bot .md a")];
		const js = links.find(a => a.textContent === "click me"), docs = links.find(a => a.textContent === "docs");
		return [typeof window.pwned, document.querySelectorAll("#messages script, #messages img").length,
			js.hasAttribute("href"), docs.href, docs.target, docs.rel, location.pathname].join(" ");
	})()`))
	if want := "undefined 0 false https://example.com/docs _blank noopener noreferrer /"; err != nil || check != want {
		t.Errorf("after the hostile message: %q (%v), want %q", check, err, want)
	}

	// Typing; a reaction on what the person wrote.
	say(`{"verb":"typing"}`)
	until(t, tab, "typing shown", `!document.querySelector("#typing").hidden && document.querySelector("#typing").textContent === "follower is typing…"`)
	within(t, tab, 10*time.Second, "type a message", chromedp.SendKeys(chromedp.CSS("#text"), "look at this\r"))
	u := fl.next("update")
	mine := refOf(u, "message")
	if u["kind"] != "message" || u["text"] != "look at this" || mine == "" {
		t.Fatalf("update %v", u)
	}
	say(verbLine(t, map[string]any{"verb": "react", "message_id": mine, "emoji": "👀"}))
	until(t, tab, "the reaction", fmt.Sprintf(`[...document.querySelectorAll('.msg[data-id="%s"] .reactions span.theirs')].some(e => e.textContent === "👀")`, mine))

	// Buttons: pressed on the page, the press comes out of follow, its
	// answer shows.
	res := say(verbLine(t, map[string]any{"verb": "send", "text": "Ship it?", "reply_to": mine, "prompt": true,
		"buttons": []map[string]string{{"label": "Yes", "data": "yes"}, {"label": "Not yet", "data": "no"}}}))
	q := messageIDs(res["message_ids"])[0]
	btn := fmt.Sprintf(`.msg.prompt[data-id="%s"] .kb button[data-data="no"]`, q)
	until(t, tab, "the buttons", fmt.Sprintf(`!!document.querySelector('%s')`, btn))
	within(t, tab, 10*time.Second, "press Not yet", chromedp.Click(chromedp.CSS(btn)))
	u = fl.next("update")
	interaction := refOf(u, "interaction")
	if u["kind"] != "callback_query" || u["text"] != "no" || interaction == "" {
		t.Fatalf("press update %v", u)
	}
	say(verbLine(t, map[string]any{"verb": "answer", "interaction_id": interaction, "text": "holding the release"}))
	until(t, tab, "the answer", fmt.Sprintf(`document.querySelector('.msg[data-id="%s"] .answer')?.textContent === "↳ holding the release"`, q))
	screenshot(t, tab, t.TempDir(), "playground-markdown.png")
}
