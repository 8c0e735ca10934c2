package telegram

import (
	"errors"
	"strconv"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/chatbus/chatbus/provider"
	"github.com/chatbus/chatbus/provider/render"
	"github.com/chatbus/chatbus/provider/telegram/botapi"
	"github.com/chatbus/chatbus/provider/telegram/tgtest"
)

func threadOf(t *testing.T, tg provider.Target) int {
	t.Helper()
	n, err := strconv.Atoi(tg.Thread)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// u16 is s's length in UTF-16 code units.
func u16(s string) int { return len(utf16.Encode([]rune(s))) }

// TestSendRendersMarkdown: an agent's Markdown reaches Telegram as plain
// text with entities whose offsets count UTF-16 code units (characters
// outside the Basic Multilingual Plane before them included), with no
// parse_mode and none of the Markdown's marks in the text.
func TestSendRendersMarkdown(t *testing.T) {
	tg, p, a := withTopic(t)
	tt := a.Target
	md := "😀 𝒳 Run **make test** then `go vet`.\n\n```go\nfunc main() {}\n```\n\nSee [the docs](https://example.com/docs)."
	res, err := p.Send(ctxT(t), tt, provider.Message{Text: md}, "")
	if err != nil {
		t.Fatal(err)
	}
	sent := tg.Sent(forum, threadOf(t, tt))
	if len(sent) != 1 || len(res.Refs) != 1 || res.Refs[0].ID != strconv.Itoa(sent[0].MessageID) {
		t.Fatalf("sent %+v, refs %v", sent, res.Refs)
	}
	m := sent[0]
	for _, mark := range []string{"**", "`", "```", "](", "[the"} {
		if strings.Contains(m.Text, mark) {
			t.Errorf("text keeps the Markdown mark %q: %q", mark, m.Text)
		}
	}
	at := func(sub string) int {
		i := strings.Index(m.Text, sub)
		if i < 0 {
			t.Fatalf("%q not in %q", sub, m.Text)
		}
		return u16(m.Text[:i])
	}
	want := []botapi.MessageEntity{
		{Type: "bold", Offset: at("make test"), Length: u16("make test")},
		{Type: "code", Offset: at("go vet"), Length: u16("go vet")},
		{Type: "pre", Offset: at("func main"), Length: u16("func main() {}"), Language: "go"},
		{Type: "text_link", Offset: at("the docs"), Length: u16("the docs"), URL: "https://example.com/docs"},
	}
	if at("make test") != 10 { // "😀 𝒳 Run ": 😀 and 𝒳 are two units each
		t.Errorf("bold starts at %d UTF-16 units, want 10", at("make test"))
	}
	if len(m.Entities) != len(want) {
		t.Fatalf("entities %+v, want %+v", m.Entities, want)
	}
	for i := range want {
		if m.Entities[i] != want[i] {
			t.Errorf("entity %d: %+v, want %+v", i, m.Entities[i], want[i])
		}
	}
}

// TestSendSplitsLongText: 9,000 characters with a code block longer than
// one message (so across a cut) arrive as several messages, each within Telegram's limit
// in UTF-16 units, each valid on its own (the stand-in checks entity
// bounds and nesting), together the whole rendering.
func TestSendSplitsLongText(t *testing.T) {
	tg, p, a := withTopic(t)
	tt := a.Target
	var sb strings.Builder
	for sb.Len() < 2000 {
		sb.WriteString("Prose with **bold** words and 🚀 rockets, line after line.\n")
	}
	sb.WriteString("\n```go\n")
	for i := 0; sb.Len() < 7600; i++ {
		sb.WriteString("\tfmt.Println(\"line " + strconv.Itoa(i) + "\") // 𝒳\n")
	}
	sb.WriteString("```\n\n")
	for sb.Len() < 9000 {
		sb.WriteString("More text after the code, ending the answer. ")
	}
	md := sb.String()
	res, err := p.Send(ctxT(t), tt, provider.Message{Text: md, Buttons: []provider.Button{{Label: "OK", Data: "ok"}}}, "")
	if err != nil {
		t.Fatal(err)
	}
	sent := tg.Sent(forum, threadOf(t, tt))
	parts := render.Telegram(md, MaxTextChars)
	if len(sent) < 3 || len(sent) != len(parts) || len(res.Refs) != len(sent) {
		t.Fatalf("%d messages sent, %d parts rendered, %d refs", len(sent), len(parts), len(res.Refs))
	}
	pres := 0
	for i, m := range sent {
		if n := u16(m.Text); n > MaxTextChars {
			t.Errorf("part %d: %d UTF-16 units", i, n)
		}
		if m.Text != parts[i].Text {
			t.Errorf("part %d differs from the rendering", i)
		}
		for _, e := range m.Entities {
			if e.Type == "pre" {
				pres++
				if e.Language != "go" {
					t.Errorf("part %d: pre without its language: %+v", i, e)
				}
			}
		}
		if hasKeyboard := len(m.ReplyMarkup) > 0; hasKeyboard != (i == len(sent)-1) {
			t.Errorf("part %d: keyboard %s", i, m.ReplyMarkup)
		}
	}
	if pres < 2 {
		t.Errorf("the code block is in %d pre entities, want it cut in two", pres)
	}
}

// TestSendPartsFailing: a later part waits out a rate limit; a later part
// that fails otherwise makes the whole send's outcome unknown (the first
// part is out: sending again would repeat it).
func TestSendPartsFailing(t *testing.T) {
	tg, p, a := withTopic(t)
	tt := a.Target
	long := strings.Repeat("word ", 1000) // two parts

	tg.Fail("sendMessage", tgtest.Fault{Delay: 1})      // part 1 goes through
	tg.Fail("sendMessage", tgtest.Fault{RetryAfter: 1}) // part 2: 429, then it goes through
	res, err := p.Send(ctxT(t), tt, provider.Message{Text: long}, "")
	if err != nil || len(res.Refs) != 2 {
		t.Fatalf("send through a rate limit: %v, %v", res.Refs, err)
	}

	tg.Fail("sendMessage", tgtest.Fault{Delay: 1})
	tg.Fail("sendMessage", tgtest.Fault{Status: 400, Description: "Bad Request: something"})
	_, err = p.Send(ctxT(t), tt, provider.Message{Text: long}, "")
	if !errors.Is(err, provider.ErrAmbiguous) || !strings.Contains(err.Error(), "sent 1 of 2 parts") {
		t.Fatalf("a failed second part: %v, want ErrAmbiguous saying what was sent", err)
	}
	if n := len(tg.Sent(forum, threadOf(t, tt))); n != 3 {
		t.Fatalf("%d messages in the topic, want 3", n)
	}
}

// TestEditReactTypingAnswer: the other verbs, on the Bot API.
func TestEditReactTypingAnswer(t *testing.T) {
	tg, p, a := withTopic(t)
	tt := a.Target
	ctx := ctxT(t)
	res, err := p.Send(ctx, tt, provider.Message{Text: "pick", Buttons: []provider.Button{{Label: "A", Data: "a"}}}, "")
	if err != nil {
		t.Fatal(err)
	}
	id := res.Refs[0].ID
	if _, err := p.Edit(ctx, tt, id, provider.Message{Text: "picked **A**"}); err != nil {
		t.Fatal(err)
	}
	m := tg.Sent(forum, threadOf(t, tt))[0]
	if m.Text != "picked A" || len(m.Entities) != 1 || m.Entities[0].Type != "bold" || len(m.ReplyMarkup) != 0 {
		t.Fatalf("after the edit: %+v", m)
	}
	if _, err := p.Edit(ctx, tt, id, provider.Message{Text: "picked **A**"}); err != nil {
		t.Fatalf("an edit that changes nothing: %v", err)
	}
	if _, err := p.Edit(ctx, tt, id, provider.Message{Text: strings.Repeat("x ", 3000)}); !errors.Is(err, provider.ErrInvalid) {
		t.Fatalf("an edit longer than one message: %v, want ErrInvalid", err)
	}
	mid, _ := strconv.Atoi(id)
	if err := p.React(ctx, tt, id, "👀"); err != nil {
		t.Fatal(err)
	}
	if r := tg.BotReactions(forum, mid); len(r) != 1 || r[0].Emoji != "👀" {
		t.Fatalf("reactions %+v", r)
	}
	if err := p.Typing(ctx, tt); err != nil {
		t.Fatal(err)
	}
	if a := tg.ChatActions(forum, threadOf(t, tt)); len(a) != 1 || a[0] != "typing" {
		t.Fatalf("chat actions %v", a)
	}
	_, q := tg.PushCallbackQuery(forum, mid, 42, "a")
	if err := p.Answer(ctx, tt, q, "Noted"); err != nil {
		t.Fatal(err)
	}
	if text, ok := tg.CallbackAnswer(q); !ok || text != "Noted" {
		t.Fatalf("callback answer %q %v", text, ok)
	}
}
