package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chatbus/chatbus/client"
)

// streamAnswer streams a 3,000-character answer over about 10 s (a call
// every 100 ms, 30 characters more each time), then its final text, and
// the final once more (a retry): both finals answer the same messages.
func streamAnswer(t *testing.T, fl *follower, id string) (final string, ids []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var sb strings.Builder
	for i := 0; sb.Len() < 3000; i++ {
		fmt.Fprintf(&sb, "word%03d ", i%1000) // 8 characters a word
		if i%12 == 11 {
			sb.WriteString("\n\n")
		}
	}
	text := strings.TrimSpace(sb.String()[:3000])
	for n := 30; n < len(text); n += 30 {
		if _, err := fl.f.Stream(ctx, client.StreamUpdate{StreamID: id, Text: text[:n], Buttons: []client.Button{{Label: "Stop", Data: "stop"}}}, ""); err != nil {
			t.Fatalf("stream at %d: %v", n, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	ids, err := fl.f.Stream(ctx, client.StreamUpdate{StreamID: id, Text: text, Final: true}, "")
	if err != nil || len(ids) == 0 {
		t.Fatalf("final: %v %v", ids, err)
	}
	again, err := fl.f.Stream(ctx, client.StreamUpdate{StreamID: id, Text: text, Final: true}, "")
	if err != nil || strings.Join(again, ",") != strings.Join(ids, ",") {
		t.Fatalf("final again: %v %v, want %v", again, err, ids)
	}
	return text, ids
}

// TestStreamMessageForum: a streamed answer reaches a forum topic as one
// message, edited at most 10 times, ending on the final text without the
// buttons it had while it grew.
func TestStreamMessageForum(t *testing.T) {
	b := startTelegramBus(t, "")
	fl := b.follow(t, "manual:1", "/home/u/alpha")
	sends, edits := b.tg.Calls("sendMessage"), b.tg.Calls("editMessageText")
	final, ids := streamAnswer(t, fl, "answer-1")
	sent := b.tg.Sent(forumChat, int(fl.thread()))
	if len(sent) != 1 || len(ids) != 1 || fmt.Sprint(sent[0].MessageID) != ids[0] {
		t.Fatalf("%d messages %v, ids %v; want one", len(sent), sent, ids)
	}
	if !sameWords(sent[0].Text, final) || len(sent[0].ReplyMarkup) != 0 {
		t.Errorf("the message ends as %q (keyboard %s), want the final text without buttons", sent[0].Text, sent[0].ReplyMarkup)
	}
	nSends, nEdits := b.tg.Calls("sendMessage")-sends, b.tg.Calls("editMessageText")-edits
	if nSends != 1 || nEdits < 2 || nEdits > 10 {
		t.Errorf("%d sends, %d edits; want 1 send and 2 to 10 edits", nSends, nEdits)
	}
	if n := b.tg.Calls("sendMessageDraft"); n != 0 {
		t.Errorf("%d drafts in a forum", n)
	}
	t.Logf("3,000 characters over 10 s into a forum topic: %d send, %d edits", nSends, nEdits)
}

// TestStreamMessagePrivateChat: in a private chat the answer grows as a
// draft (sendMessageDraft) and lands as one message, sent once; no edits.
func TestStreamMessagePrivateChat(t *testing.T) {
	b := startPrivateBus(t, "", nil)
	fl := b.follow(t, "manual:1", "/home/u/alpha")
	th := int(fl.thread())
	sends := b.tg.Calls("sendMessage")
	final, ids := streamAnswer(t, fl, "answer-1")
	sent := b.tg.Sent(allowedUser, th)
	if len(sent) != 1 || len(ids) != 1 || fmt.Sprint(sent[0].MessageID) != ids[0] || !sameWords(sent[0].Text, final) {
		t.Fatalf("sent %+v, ids %v; want the final text once", sent, ids)
	}
	if n := b.tg.Calls("sendMessage") - sends; n != 1 {
		t.Errorf("%d sends, want 1", n)
	}
	if n := b.tg.Calls("editMessageText"); n != 0 {
		t.Errorf("%d edits in a private chat", n)
	}
	drafts := b.tg.Drafts(allowedUser, th)
	if len(drafts) != 1 || len(drafts[0].Texts) < 2 || len(drafts[0].Texts) > 10 {
		t.Fatalf("drafts %+v; want one draft shown 2 to 10 times", drafts)
	}
	for i, d := range drafts[0].Texts {
		if !strings.HasPrefix(strings.Join(strings.Fields(final), " "), strings.Join(strings.Fields(d), " ")) {
			t.Errorf("draft %d is not the start of the answer: %q", i, d)
		}
	}
	t.Logf("3,000 characters over 10 s into a private chat: %d drafts, 1 message", len(drafts[0].Texts))
}

// sameWords reports whether a and b have the same words (rendering turns
// paragraph breaks into line breaks of its own).
func sameWords(a, b string) bool {
	return strings.Join(strings.Fields(a), " ") == strings.Join(strings.Fields(b), " ")
}

// TestStreamMessageOutgrowsOneMessage: a streamed answer longer than one
// message goes on in new messages, each valid, together the final text.
func TestStreamMessageOutgrowsOneMessage(t *testing.T) {
	b := startTelegramBus(t, "")
	fl := b.follow(t, "manual:1", "/home/u/alpha")
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	text := strings.TrimSpace(strings.Repeat("A sentence of a long streamed answer. ", 240)) // ~9,000
	for _, n := range []int{2000, 4000, 6000, 8000} {
		if _, err := fl.f.Stream(ctx, client.StreamUpdate{StreamID: "long", Text: text[:n]}, ""); err != nil {
			t.Fatal(err)
		}
	}
	ids, err := fl.f.Stream(ctx, client.StreamUpdate{StreamID: "long", Text: text, Final: true}, "")
	if err != nil {
		t.Fatal(err)
	}
	sent := b.tg.Sent(forumChat, int(fl.thread()))
	var parts []string
	for _, m := range sent {
		parts = append(parts, m.Text)
	}
	if len(sent) < 3 || len(ids) != len(sent) || !sameWords(strings.Join(parts, " "), text) {
		t.Fatalf("%d messages (ids %v) making %d characters; want 3 or more making the answer", len(sent), ids, len(strings.Join(parts, " ")))
	}
}
