package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/chatbus/chatbus/client"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
)

// deadLetters lists the bus's dead letters.
func deadLetters(t *testing.T, c *client.Client) []*chatbusv1.DeadLetter {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := c.Admin.ListDeadLetters(ctx, &chatbusv1.ListDeadLettersRequest{})
	if err != nil {
		t.Fatal(err)
	}
	return resp.GetDeadLetters()
}

// hasEvent reports whether the bus still holds an event of kind.
func hasEvent(t *testing.T, c *client.Client, kind chatbusv1.EventKind) bool {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := c.Admin.ListEvents(ctx, &chatbusv1.ListEventsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range resp.GetEvents() {
		if e.GetKind() == kind {
			return true
		}
	}
	return false
}

// TestTelegramPoisonUpdateDeadLettered: an update provider-telegram cannot
// decode (a field of a type it does not expect, as after a Bot API change)
// is set aside as a dead letter and the 100 updates after it are
// delivered, in order, once; the operator sees it in busctl, can retry it
// (it fails again: the same provider) and drop it.
func TestTelegramPoisonUpdateDeadLettered(t *testing.T) {
	b := startTelegramBus(t, "")
	alpha := b.follow(t, "manual:1", "/home/u/alpha")
	thread := int(alpha.thread())

	b.tg.PushMessage(forumChat, thread, allowedUser, "before")
	alpha.waitTexts(t, "before")

	poison := fmt.Sprintf(`{"message":{"message_id":"not a number","date":1700000000,"chat":{"id":%d,"type":"supergroup","is_forum":true},"message_thread_id":%d,"from":{"id":%d,"is_bot":false,"first_name":"P"},"text":"poison"}}`,
		forumChat, thread, allowedUser)
	poisonID := b.tg.PushRaw(json.RawMessage(poison))
	want := []string{"before"}
	for i := range 100 {
		text := fmt.Sprintf("after %d", i)
		b.tg.PushMessage(forumChat, thread, allowedUser, text)
		want = append(want, text)
	}
	alpha.waitTexts(t, want...)

	dls := deadLetters(t, b.c)
	if len(dls) != 1 {
		t.Fatalf("dead letters %v, want the poison update's", dls)
	}
	d := dls[0]
	if d.GetProvider() != "telegram" || d.GetPlatformUpdateId() != poisonID || d.GetId() != fmt.Sprint(poisonID) ||
		!strings.Contains(d.GetError(), "message_id") || !strings.Contains(string(d.GetPayload()), `"not a number"`) {
		t.Errorf("dead letter %v: want update %d with its payload and the decoding error", d, poisonID)
	}
	if b.tg.Confirmed() < poisonID+100 {
		t.Errorf("Telegram's offset confirmed through %d, want past the poison update and the 100 after it (%d)", b.tg.Confirmed(), poisonID+100)
	}
	if !hasEvent(t, b.c, chatbusv1.EventKind_EVENT_KIND_UPDATE_DEAD_LETTERED) {
		t.Error("no update_dead_lettered event")
	}
	if pi := b.provider(t); pi.GetRestarts() != 0 {
		t.Errorf("the provider restarted %d times", pi.GetRestarts())
	}

	out, errOut, code := b.busctl("updates", "--dead-letters")
	if code != 0 || !strings.Contains(out, fmt.Sprint(poisonID)) || !strings.Contains(out, "message_id") {
		t.Errorf("busctl updates --dead-letters: %d %q %q", code, out, errOut)
	}
	// The same provider cannot convert it now either: it stays, counted.
	_, errOut, code = b.busctl("updates", "--dead-letters", "telegram", "--retry", d.GetId())
	if code == 0 || !strings.Contains(errOut, "could not convert") {
		t.Errorf("busctl retry of a dead letter the provider still cannot convert: %d %q", code, errOut)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := b.c.Admin.RetryDeadLetter(ctx, &chatbusv1.RetryDeadLetterRequest{Provider: "telegram", Id: d.GetId()})
	if !errors.Is(client.Err(err), client.ErrFailedPrecondition) {
		t.Errorf("retry: %v, want FAILED_PRECONDITION", err)
	}
	if dls := deadLetters(t, b.c); len(dls) != 1 || dls[0].GetRetries() != 2 {
		t.Errorf("after two retries: %v, want the dead letter with 2 retries", dls)
	}
	if out, errOut, code := b.busctl("updates", "--dead-letters", "telegram", "--drop", d.GetId()); code != 0 {
		t.Errorf("busctl drop: %d %q %q", code, out, errOut)
	}
	if dls := deadLetters(t, b.c); len(dls) != 0 {
		t.Errorf("after the drop: %v", dls)
	}
	if got := alpha.texts(); len(got) != len(want) {
		t.Errorf("the follower got %d updates, want %d (nothing of the poison update)", len(got), len(want))
	}
}

// TestDiscordPoisonDispatchDeadLettered: a MESSAGE_CREATE provider-discord
// cannot decode (content of another type) is set aside as a dead letter,
// with no restart of the child, and the 100 messages after it are
// delivered, in order, once.
func TestDiscordPoisonDispatchDeadLettered(t *testing.T) {
	b := startDiscordBus(t)
	alpha := follow(t, b.c, "manual:1", "/home/u/alpha")
	thread := threadOf(alpha)
	b.dc.PostMessage(thread, b.alice, "before")
	alpha.waitTexts(t, "before")
	before := b.waitProvider(t, func(*chatbusv1.ProviderInfo) bool { return true }, "listed")

	id := b.dc.NewID()
	b.dc.DispatchRaw("MESSAGE_CREATE", json.RawMessage(fmt.Sprintf(
		`{"id":%q,"channel_id":%q,"guild_id":%q,"type":0,"content":12345,"timestamp":"2026-01-01T00:00:00Z","author":{"id":%q,"username":"alice"}}`,
		id, thread, b.dc.GuildID(), b.alice.ID)))
	want := []string{"before"}
	for i := range 100 {
		text := fmt.Sprintf("after %d", i)
		b.dc.PostMessage(thread, b.alice, text)
		want = append(want, text)
	}
	alpha.waitTexts(t, want...)

	dls := deadLetters(t, b.c)
	if len(dls) != 1 || dls[0].GetProvider() != "discord" || dls[0].GetId() != id ||
		dls[0].GetKind() != chatbusv1.UpdateKind_UPDATE_KIND_MESSAGE || !strings.Contains(dls[0].GetError(), "content") {
		t.Fatalf("dead letters %v, want message %s with the decoding error", dls, id)
	}
	after := b.waitProvider(t, func(*chatbusv1.ProviderInfo) bool { return true }, "listed")
	if after.GetPid() != before.GetPid() || after.GetRestarts() != before.GetRestarts() {
		t.Errorf("the child restarted: pid %d → %d, restarts %d → %d", before.GetPid(), after.GetPid(), before.GetRestarts(), after.GetRestarts())
	}
	// The provider converts it again (ConvertUpdate), apart from its
	// receive loop: it still cannot decode it, so it stays, with one more
	// retry counted each time; then it is dropped.
	if _, errOut, code := b.busctl("updates", "--dead-letters", "discord", "--retry", id); code == 0 || !strings.Contains(errOut, "content") {
		t.Errorf("busctl retry of a dead letter the provider still cannot convert: %d %q", code, errOut)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := b.c.Admin.RetryDeadLetter(ctx, &chatbusv1.RetryDeadLetterRequest{Provider: "discord", Id: id})
	if !errors.Is(client.Err(err), client.ErrFailedPrecondition) {
		t.Errorf("retry: %v, want FAILED_PRECONDITION", err)
	}
	if dls := deadLetters(t, b.c); len(dls) != 1 || dls[0].GetRetries() != 2 || !strings.Contains(dls[0].GetError(), "content") {
		t.Errorf("after two retries: %v, want the dead letter with 2 retries and the decoding error", dls)
	}
	if out, errOut, code := b.busctl("updates", "--dead-letters", "discord", "--drop", id); code != 0 {
		t.Errorf("busctl drop: %d %q %q", code, out, errOut)
	}
	if dls := deadLetters(t, b.c); len(dls) != 0 {
		t.Errorf("after the drop: %v", dls)
	}
}

// TestBrowserConsoleShowsDeadLetters: a Telegram update the provider
// cannot decode is set aside; the operator sees it on the console page
// (headless Chromium) with its cause and reason, and as
// chatbus_dead_letters{provider="telegram"} 1 in a scrape; a retry that
// fails again shows one more retry; once dropped, the page shows none and
// the gauge 0.
func TestBrowserConsoleShowsDeadLetters(t *testing.T) {
	tab := browserCtx(t)
	sock := metricsSocket(t)
	b := startTelegramBus(t, "metrics:\n  listen: unix://"+sock+"\n")
	s := unixScraper(t, sock)
	alpha := b.follow(t, "manual:1", "/home/u/alpha")
	thread := int(alpha.thread())
	if v := s.scrape(t).Get("chatbus_dead_letters", "provider", "telegram"); v != 0 {
		t.Errorf("chatbus_dead_letters before any: %v", v)
	}

	poisonID := b.tg.PushRaw(json.RawMessage(fmt.Sprintf(`{"message":{"message_id":"not a number","date":1700000000,"chat":{"id":%d,"type":"supergroup","is_forum":true},"message_thread_id":%d,"from":{"id":%d,"is_bot":false,"first_name":"P"},"text":"poison"}}`,
		forumChat, thread, allowedUser)))
	b.tg.PushMessage(forumChat, thread, allowedUser, "after")
	alpha.waitTexts(t, "after")
	id := fmt.Sprint(poisonID)
	if dls := deadLetters(t, b.c); len(dls) != 1 || dls[0].GetId() != id {
		t.Fatalf("dead letters %v, want update %s", dls, id)
	}
	if v := s.scrape(t).Get("chatbus_dead_letters", "provider", "telegram"); v != 1 {
		t.Errorf("chatbus_dead_letters = %v, want 1", v)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	info, err := b.c.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	within(t, tab, 20*time.Second, "open the console", chromedp.Navigate(info.GetConsoleUrl()))
	until(t, tab, "the console to be live", `document.querySelector("#conn").textContent === "live"`)
	row := fmt.Sprintf(`document.querySelector('#deadletters tr[data-provider="telegram"][data-id="%s"]')`, id)
	until(t, tab, "the dead letter with its cause and reason", fmt.Sprintf(`(() => { const r = %s;
		return !!r && r.querySelector('[data-field=cause]').textContent === "conversion" &&
			r.querySelector('[data-field=reason]').textContent.includes("message_id") &&
			r.querySelector('[data-field=retries]').textContent === "0"; })()`, row))
	screenshot(t, tab, t.TempDir(), "console-dead-letters.png")

	if _, errOut, code := b.busctl("updates", "--dead-letters", "telegram", "--retry", id); code == 0 {
		t.Errorf("busctl retry succeeded: %q", errOut)
	}
	until(t, tab, "one retry counted", fmt.Sprintf(`(() => { const r = %s; return !!r && r.querySelector('[data-field=retries]').textContent === "1"; })()`, row))

	if out, errOut, code := b.busctl("updates", "--dead-letters", "telegram", "--drop", id); code != 0 {
		t.Fatalf("busctl drop: %d %q %q", code, out, errOut)
	}
	until(t, tab, "no dead letters", `document.querySelector('#deadletters td.empty') !== null`)
	if v := s.scrape(t).Get("chatbus_dead_letters", "provider", "telegram"); v != 0 {
		t.Errorf("chatbus_dead_letters after the drop = %v, want 0", v)
	}
}
