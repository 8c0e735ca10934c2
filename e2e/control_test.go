package e2e

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/chatbus/chatbus/client"
	"github.com/chatbus/chatbus/internal/testkit"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
	"github.com/chatbus/chatbus/provider/telegram/botapi"
)

// The chat's control surface (docs/control.md) on Telegram: commands in
// the forum's General topic or in the private chat outside any topic,
// answered there by the bot.

// controlAnswers waits until the bot has sent n messages into the chat's
// control place (thread 0) and returns them.
func (b *tgBus) controlAnswers(t *testing.T, chat int64, n int) []botapi.Message {
	t.Helper()
	var out []botapi.Message
	testkit.Eventually(t, fmt.Sprintf("%d answers in the control place", n), func() bool {
		out = b.tg.Sent(chat, 0)
		return len(out) >= n
	})
	if len(out) > n {
		t.Fatalf("%d answers in the control place, want %d: %+v", len(out), n, texts(out))
	}
	return out
}

func texts(ms []botapi.Message) []string {
	out := make([]string, 0, len(ms))
	for _, m := range ms {
		out = append(out, m.Text)
	}
	return out
}

// followAgent registers a follower that says what it is (agent).
func followAgent(t *testing.T, c *client.Client, profileKey, cwd, agent string) *follower {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	f, err := c.Register(ctx, client.Registration{ProfileKey: profileKey, Cwd: cwd, InstanceID: profileKey + "-1", Agent: agent})
	if err != nil {
		t.Fatalf("register %s: %v", profileKey, err)
	}
	return attach(t, f)
}

// commandEvents returns the control_command events busctl events shows.
func (p *profile) commandEvents(t *testing.T) string {
	t.Helper()
	out, _, code := p.busctl("events")
	if code != 0 {
		t.Fatalf("busctl events: exit %d", code)
	}
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "control_") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// TestControlTelegramForum: in the forum's General topic, sessions lists
// the two live followers (slot, topic link, directory, what each is),
// status names the provider's state, a stranger's command is neither
// answered nor run, restart runs the doctor and reports its steps, and
// the Stop button under sessions asks the session it names to stop.
func TestControlTelegramForum(t *testing.T) {
	b := startTelegramBus(t, "")
	b.waitProvider(t, func(pi *chatbusv1.ProviderInfo) bool { return pi.GetServing() }, "SERVING")
	testkit.Eventually(t, "the bot's command menu set", func() bool { return len(b.tg.Commands()) == 6 })
	alpha := followAgent(t, b.c, "manual:1", "/home/u/alpha", "claude-code")
	beta := followAgent(t, b.c, "manual:2", "/home/u/beta", "")

	b.tg.PushMessage(forumChat, 0, allowedUser, "/sessions")
	got := b.controlAnswers(t, forumChat, 1)[0]
	lines := strings.Split(got.Text, "\n")
	want := []string{
		"Sessions: 2 live, 0 parked",
		"",
		"• A alpha · Claude Code · idle · /home/u/alpha on ",
		"• B beta · follower · idle · /home/u/beta on ",
	}
	if len(lines) < 4 || lines[0] != want[0] || !strings.HasPrefix(lines[2], want[2]) || !strings.HasPrefix(lines[3], want[3]) {
		t.Fatalf("sessions answered:\n%s", got.Text)
	}
	// The topics are links to themselves.
	for _, fl := range []*follower{alpha, beta} {
		link := fmt.Sprintf("https://t.me/c/1234567890/%d", fl.thread())
		if !strings.Contains(string(mustJSON(t, got)), link) {
			t.Errorf("sessions does not link %s: %s", link, mustJSON(t, got))
		}
	}
	if !strings.Contains(string(got.ReplyMarkup), `"Stop A"`) || !strings.Contains(string(got.ReplyMarkup), `"/stop B"`) {
		t.Errorf("sessions buttons %s", got.ReplyMarkup)
	}

	// status, spelt with the bot's name.
	b.tg.PushMessage(forumChat, 0, allowedUser, "/status@"+b.tg.Bot().Username)
	status := b.controlAnswers(t, forumChat, 2)[1].Text
	contains(t, "status", status, "• telegram: running, serving, 2 attached, 0 queued")
	contains(t, "status", status, "2 follower(s)")

	// A stranger: nothing runs (the provider is not restarted), nothing
	// is answered; a command for another bot is not taken either.
	before := b.provider(t)
	b.tg.PushMessage(forumChat, 0, strangerID, "/restart telegram")
	b.tg.PushMessage(forumChat, 0, allowedUser, "/status@someotherbot")
	b.tg.PushMessage(forumChat, 0, allowedUser, "/help")
	help := b.controlAnswers(t, forumChat, 3)[2].Text
	contains(t, "help", help, "/new <template> [<project>]")
	contains(t, "help", help, "No launch templates are configured")
	if after := b.provider(t); after.GetPid() != before.GetPid() {
		t.Errorf("a stranger's restart ran: pid %d → %d", before.GetPid(), after.GetPid())
	}
	testkit.Eventually(t, "the stranger's command an event", func() bool {
		return strings.Contains(b.commandEvents(t), "control_not_allowed")
	})

	// restart: the doctor's, its steps reported; the provider's child is
	// a new one.
	b.tg.PushMessage(forumChat, 0, allowedUser, "/restart telegram")
	// One message, sent as it begins and edited as its steps pass; the
	// answer replaces it.
	var restarted string
	testkit.Eventually(t, "the restart's answer", func() bool {
		restarted = b.controlAnswers(t, forumChat, 4)[3].Text
		return strings.Contains(restarted, "telegram restarted: restarted")
	})
	for _, step := range []string{"observe", "prepare", "commit", "exit_proof", "successor", "ready"} {
		contains(t, "restart steps", restarted, step)
	}
	if after := b.provider(t); after.GetPid() == before.GetPid() {
		t.Errorf("restart answered, but the provider's child is the same (pid %d)", after.GetPid())
	}

	// The Stop button of B: beta is asked to stop; alpha is not.
	msgID := got.MessageID
	_, query := b.tg.PushCallbackQuery(forumChat, msgID, allowedUser, "/stop B")
	stopped := b.controlAnswers(t, forumChat, 5)[4].Text
	contains(t, "stop", stopped, "B (beta) was not started by chatbus: it was asked to stop")
	asked, _ := beta.f.StopRequested()
	select {
	case <-asked:
	case <-time.After(20 * time.Second):
		t.Fatal("beta was not told it was asked to stop")
	}
	if _, by := beta.f.StopRequested(); by.GetRequestedBy() == "" || by.GetProvider() != "telegram" {
		t.Errorf("asked by %+v", by)
	}
	if a, _ := alpha.f.StopRequested(); isClosed(a) {
		t.Error("alpha was asked to stop too")
	}
	if _, ok := b.tg.CallbackAnswer(query); !ok {
		t.Error("the press was not answered")
	}

	// Every command an event: who, what, outcome.
	evs := b.commandEvents(t)
	for _, want := range []string{`command "sessions"`, `command "status"`, `command "help"`, `command "restart telegram"`, `command "stop B"`} {
		contains(t, "events", evs, want)
	}
	// The followers got none of it.
	if len(alpha.texts()) != 0 || len(beta.texts()) != 0 {
		t.Errorf("followers got %q and %q", alpha.texts(), beta.texts())
	}
}

// TestControlTelegramPrivateChat: in the bot's private chat, outside any
// topic, the same commands; a command in a session's topic is the
// session's message, not a command.
func TestControlTelegramPrivateChat(t *testing.T) {
	b := startPrivateBus(t, "", nil)
	b.waitProvider(t, func(pi *chatbusv1.ProviderInfo) bool { return pi.GetServing() }, "SERVING")
	alpha := followAgent(t, b.c, "manual:1", "/home/u/alpha", "pi")
	beta := followAgent(t, b.c, "manual:2", "/home/u/beta", "claude-code")

	b.tg.PushMessage(allowedUser, int(alpha.thread()), allowedUser, "/sessions")
	alpha.waitTexts(t, "/sessions")
	b.tg.PushMessage(allowedUser, 0, allowedUser, "/sessions")
	got := b.controlAnswers(t, allowedUser, 1)[0].Text
	contains(t, "sessions", got, "Sessions: 2 live, 0 parked")
	contains(t, "sessions", got, "• A alpha · pi · idle · /home/u/alpha on ")
	contains(t, "sessions", got, "• B beta · Claude Code · idle · /home/u/beta on ")

	b.tg.PushMessage(allowedUser, 0, allowedUser, "/status")
	contains(t, "status", b.controlAnswers(t, allowedUser, 2)[1].Text, "• telegram: running, serving, 2 attached")

	b.tg.PushMessage(allowedUser, 0, allowedUser, "/stop Q")
	contains(t, "stop", b.controlAnswers(t, allowedUser, 3)[2].Text, "No live session holds slot Q")
	if len(beta.texts()) != 0 {
		t.Errorf("beta got %q", beta.texts())
	}
}

func isClosed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

func mustJSON(t *testing.T, m botapi.Message) []byte {
	t.Helper()
	// The message's text with its entities' URLs: a text link's URL is an
	// entity of the text, not in it.
	var b strings.Builder
	b.WriteString(m.Text)
	for _, e := range m.Entities {
		b.WriteString(" " + e.URL)
	}
	return []byte(b.String())
}

// TestControlCommandOnceAcrossSupervisorKill: supervisord is killed (-9)
// after a command was journalled and run, while its answer is at the
// platform and not yet acknowledged. The new supervisord finds the command
// in the journal and does not run it again (its record says it ran), and
// the person has exactly one answer; the next command is answered as
// usual.
func TestControlCommandOnceAcrossSupervisorKill(t *testing.T) {
	b := startTelegramBus(t, "")
	b.waitProvider(t, func(pi *chatbusv1.ProviderInfo) bool { return pi.GetServing() }, "SERVING")
	alpha := followAgent(t, b.c, "manual:1", "/home/u/alpha", "")

	took, release := b.tg.HoldAnswer("sendMessage")
	defer release()
	b.tg.PushMessage(forumChat, 0, allowedUser, "/stop A")
	select {
	case <-took:
	case <-time.After(30 * time.Second):
		t.Fatal("the command was not answered")
	}
	asked, _ := alpha.f.StopRequested()
	select {
	case <-asked:
	case <-time.After(20 * time.Second):
		t.Fatal("the command did not run: alpha was not asked to stop")
	}
	if err := syscall.Kill(b.d.cmd.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-b.d.exited
	release()

	d2 := b.profile.start("--config", b.configPath)
	b.profile.waitServing(d2)
	testkit.Eventually(t, "the new supervisor took the command up", func() bool {
		return strings.Contains(d2.stderr.String(), "answering a command of the previous run")
	})
	b.tg.PushMessage(forumChat, 0, allowedUser, "/help")
	answers := b.controlAnswers(t, forumChat, 2)
	contains(t, "the stop answer", answers[0].Text, "A (alpha) was not started by chatbus")
	contains(t, "the help answer", answers[1].Text, "chatbus commands")
	evs := b.commandEvents(t)
	if strings.Contains(evs, `command "stop A"`) || strings.Contains(evs, "control_interrupted") {
		t.Errorf("the new supervisor ran the command again, or called it interrupted:\n%s", evs)
	}
	contains(t, "events", evs, `command "help"`)
}

// TestBrowserControlRoom: the playground's control room on the chat page
// (real Chromium): sessions lists the two live followers, status names
// the provider's state, restart runs the doctor and reports its steps, a
// session's Stop button asks it to stop. A visitor without the page's
// token gets nothing, and nothing runs.
func TestBrowserControlRoom(t *testing.T) {
	tab := browserCtx(t)
	b := startPlaygroundBus(t, "")
	chatURL := b.loggedURL(t, "playground chat page: open ")
	alpha := followAgent(t, b.c, "manual:1", "/home/u/alpha", "claude-code")
	beta := followAgent(t, b.c, "manual:2", "/home/u/beta", "pi")

	within(t, tab, 20*time.Second, "open the chat page", chromedp.Navigate(chatURL))
	until(t, tab, "the page to be live", `document.querySelector("#conn").textContent === "live"`)
	control := `#room-list li.control`
	until(t, tab, "the control room, first", `document.querySelector("#room-list li").classList.contains("control")`)
	within(t, tab, 10*time.Second, "pick the control room", chromedp.Click(chromedp.CSS(control)), chromedp.WaitEnabled(chromedp.CSS("#text")))
	answer := func(what, contains string) {
		t.Helper()
		until(t, tab, what, fmt.Sprintf(`[...document.querySelectorAll(".msg.bot .text")].some(e => e.textContent.includes(%q))`, contains))
	}

	within(t, tab, 10*time.Second, "type sessions", chromedp.SendKeys(chromedp.CSS("#text"), "sessions\r"))
	answer("the sessions", "Sessions: 2 live, 0 parked")
	answer("alpha", "A alpha · Claude Code · idle · /home/u/alpha on ")
	answer("beta", "B beta · pi · idle · /home/u/beta on ")

	within(t, tab, 10*time.Second, "type status", chromedp.SendKeys(chromedp.CSS("#text"), "status\r"))
	answer("the status", "playground: running, serving, 2 attached")

	before := b.provider(t)
	within(t, tab, 10*time.Second, "type restart", chromedp.SendKeys(chromedp.CSS("#text"), "restart playground\r"))
	answer("the restart", "playground restarted: restarted")
	answer("its steps", "exit_proof")
	if after := b.provider(t); after.GetPid() == before.GetPid() {
		t.Errorf("restart answered, but the provider's child is the same (pid %d)", after.GetPid())
	}

	// The Stop button of B, under the sessions answer.
	within(t, tab, 10*time.Second, "press Stop B", chromedp.Click(chromedp.CSS(`.kb button[data-data="/stop B"]`)))
	answer("the stop", "was not started by chatbus: it was asked to stop")
	asked, _ := beta.f.StopRequested()
	select {
	case <-asked:
	case <-time.After(20 * time.Second):
		t.Fatal("beta was not told it was asked to stop")
	}
	if a, _ := alpha.f.StopRequested(); isClosed(a) {
		t.Error("alpha was asked to stop too")
	}

	// A visitor without the token: refused at the door; nothing journalled,
	// nothing run.
	u, err := url.Parse(chatURL)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(fmt.Sprintf("http://%s/api/rooms/1/messages", u.Host), "application/json",
		strings.NewReader(`{"client_id":"x","text":"restart playground"}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode < 400 {
		t.Errorf("a visitor without the token: %s", resp.Status)
	}
	out, _, _ := b.busctl("events")
	if n := strings.Count(out, `command "restart playground"`); n != 1 {
		t.Errorf("restart ran %d times, want once:\n%s", n, out)
	}
	if len(alpha.texts())+len(beta.texts()) != 0 {
		t.Errorf("followers got %q and %q", alpha.texts(), beta.texts())
	}
}

// TestControlStopsBusctlFollow: stop for a busctl follow session (chatbus
// did not start it) is a stop_requested line for the shell agent, which
// decides: here it ends its input, and the session suspends.
func TestControlStopsBusctlFollow(t *testing.T) {
	b := startTelegramBus(t, "")
	fl := b.startFollow(t, sessionDir(t, "shelly"), "--profile-key", "shell:stop")
	fl.next("registered")
	b.tg.PushMessage(forumChat, 0, allowedUser, "/stop A")
	line := fl.next("stop_requested")
	if line["by"] != "@user4242" || line["provider"] != "telegram" {
		t.Errorf("stop_requested %v", line)
	}
	contains(t, "stop", b.controlAnswers(t, forumChat, 1)[0].Text, "A (shelly) was not started by chatbus: it was asked to stop")
	fl.stdin.Close()
	fl.next("handoff")
	fl.wait()
}
