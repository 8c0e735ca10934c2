package e2e

import (
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
// and answers each pressed button, recording what it got.
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
	call := func(method string, params any, key string) {
		raw, _ := json.Marshal(params)
		for range 100 {
			cctx, ccancel := context.WithTimeout(sctx, 30*time.Second)
			_, err := f.Call(cctx, method, raw, key)
			ccancel()
			if err == nil || sctx.Err() != nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Errorf("%s %s: gave up", method, raw)
	}
	go func() {
		done <- f.Updates(sctx, 0, func(u *chatbusv1.Update) error {
			key := fmt.Sprintf("web:%d", u.GetSeq())
			switch u.GetKind() {
			case chatbusv1.UpdateKind_UPDATE_KIND_MESSAGE:
				bf.mu.Lock()
				bf.texts[u.GetText()]++
				bf.mu.Unlock()
				call("sendChatAction", map[string]string{"action": "typing"}, "")
				if u.GetText() == "/buttons" {
					call("sendMessage", map[string]any{"text": "Which colour?", "reply_markup": map[string]any{
						"inline_keyboard": [][]map[string]string{{{"text": "Red", "callback_data": "red"}, {"text": "Blue", "callback_data": "blue"}}},
					}}, key)
				} else {
					call("sendMessage", map[string]string{"text": "echo: " + u.GetText()}, key)
				}
			case chatbusv1.UpdateKind_UPDATE_KIND_CALLBACK_QUERY:
				bf.mu.Lock()
				bf.taps = append(bf.taps, u.GetText())
				bf.mu.Unlock()
				for _, r := range u.GetReferences() {
					if r.GetKind() == chatbusv1.ReferenceKind_REFERENCE_KIND_INTERACTION {
						call("answerCallbackQuery", map[string]string{"callback_query_id": r.GetId(), "text": "you chose " + u.GetText()}, key)
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
// restarts the provider while the person types: outcome restarted, the
// message arrives once.
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

	// The follower starts sending a file and holds the upload open: the
	// provider has an outbound delivery in flight, so a restart waits for
	// it to settle.
	upCtx, upCancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer upCancel()
	up, err := b.c.Bus.UploadFile(upCtx)
	if err != nil {
		t.Fatal(err)
	}
	up.Send(&chatbusv1.UploadFileRequest{Msg: &chatbusv1.UploadFileRequest_Header{Header: &chatbusv1.UploadHeader{
		Session: bf.f.Session(), Filename: "report.txt", Caption: "the report, sent across the restart"}}})
	up.Send(&chatbusv1.UploadFileRequest{Msg: &chatbusv1.UploadFileRequest_Chunk{Chunk: []byte("first half\n")}})
	until(t, con, "the upload in flight", `(() => { const r = document.querySelector('#providers tr[data-provider="playground"]');
		return !!r && r.querySelector('[data-field=occupancy]').textContent.split(" / ")[3] === "1"; })()`)

	// Restart; type in the chat while it waits; see restarted and the
	// message arrive once.
	within(t, con, 10*time.Second, "press restart", chromedp.Click(chromedp.CSS(`#providers tr[data-provider="playground"] button.restart`)))
	until(t, con, "the restart under way", `[...document.querySelectorAll("#restart-steps .phase")].some(e => e.textContent === "prepare")`)
	within(t, tab, 10*time.Second, "type during the restart", chromedp.SendKeys(chromedp.CSS("#text"), "typed during the restart\r"))
	until(t, tab, "the message stored by the playground", `[...document.querySelectorAll(".msg.you:not(.pending) .text")].some(e => e.textContent === "typed during the restart")`)
	// Admission is closed and the upload holds the old owner: the restart
	// is still under way, and the message waits at the platform.
	if kind, _ := chromedp.Run(con, chromedp.Evaluate[string](`document.querySelector("#outcome").dataset.kind`)); kind != "" {
		t.Fatalf("the restart ended (%s) while an upload held the owner", kind)
	}
	if n := bf.count("typed during the restart"); n != 0 {
		t.Fatalf("delivered while admission was closed (%d)", n)
	}
	up.Send(&chatbusv1.UploadFileRequest{Msg: &chatbusv1.UploadFileRequest_Chunk{Chunk: []byte("second half\n")}})
	if _, err := up.CloseAndRecv(); err != nil {
		t.Fatalf("the upload admitted before the restart: %v", err)
	}
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
	until(t, tab, "the file", `[...document.querySelectorAll(".msg.bot .file a")].some(e => e.textContent.includes("report.txt"))`)
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
		[...document.querySelectorAll(".msg.you .text")].filter(e => e.textContent === "typed during the restart").length === 1`)
}
