package discord_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/provider"
)

func refsOf(u *providerv1.Update) []provider.Ref {
	var out []provider.Ref
	for _, r := range u.GetReferences().GetItems() {
		out = append(out, provider.Ref{Kind: provider.RefKind(r.GetKind()), ID: r.GetId()})
	}
	return out
}

// TestRouting: what a person does in the channel's threads reaches the
// supervisor as updates naming the thread, with their references; the
// bot's own messages, system messages and other channels do not; people
// off the allow-list are sent with allowed=false.
func TestRouting(t *testing.T) {
	f := newFixture(t)
	sk, _, alpha := f.start()
	beta := f.thread(f.p, "B · beta")
	other := f.dc.AddChannel(0, "elsewhere")

	m1 := f.dc.PostMessage(alpha.Thread, f.alice, "hello alpha")
	f.dc.PostMessage(beta.Thread, f.mallory, "from mallory")
	f.dc.PostMessage(other, f.alice, "in another channel")
	f.dc.PostMessage(f.dc.Channel(), f.alice, "in the channel itself")
	// The bot's own message (a follower's) is not routed back.
	sent, err := f.call(f.p, alpha, "createMessage", `{"content":"pick one","components":[{"type":1,"components":[
		{"type":2,"style":1,"label":"Yes","custom_id":"yes"},{"type":2,"style":2,"label":"No","custom_id":"no"}]}]}`)
	if err != nil {
		t.Fatal(err)
	}
	var botMsg struct{ ID string }
	json.Unmarshal(sent.JSON, &botMsg)
	file := f.dc.PostFile(alpha.Thread, f.alice, "see attached", "notes.txt", []byte("some notes"))
	f.dc.React(alpha.Thread, m1.ID, f.alice, "👍")
	iid, token := f.dc.Press(alpha.Thread, botMsg.ID, f.alice, "yes")
	reply := f.dc.PostReply(alpha.Thread, f.alice, "a reply", m1.ID)

	j := sk.waitTextSet(t, "hello alpha", "from mallory", "in the channel itself", "see attached", "👍", "yes", "a reply")
	byText := map[string]*providerv1.Update{}
	for _, u := range j {
		byText[u.GetText()] = u
	}
	tests := []struct {
		text, thread string
		kind         providerv1.UpdateKind
		allowed      bool
		refs         []provider.Ref
		dedup        string
	}{
		{"hello alpha", alpha.Thread, providerv1.UpdateKind_UPDATE_KIND_MESSAGE, true, []provider.Ref{{Kind: provider.RefMessage, ID: m1.ID}}, m1.ID},
		{"from mallory", beta.Thread, providerv1.UpdateKind_UPDATE_KIND_MESSAGE, false, nil, ""},
		{"in the channel itself", "", providerv1.UpdateKind_UPDATE_KIND_MESSAGE, true, nil, ""},
		{"see attached", alpha.Thread, providerv1.UpdateKind_UPDATE_KIND_MESSAGE, true, []provider.Ref{{Kind: provider.RefMessage, ID: file.ID},
			{Kind: provider.RefFile, ID: alpha.Thread + "/" + file.ID + "/" + file.Attachments[0].ID}}, file.ID},
		{"👍", alpha.Thread, providerv1.UpdateKind_UPDATE_KIND_REACTION, true, []provider.Ref{{Kind: provider.RefMessage, ID: m1.ID}}, ""},
		{"yes", alpha.Thread, providerv1.UpdateKind_UPDATE_KIND_CALLBACK_QUERY, true, []provider.Ref{{Kind: provider.RefInteraction, ID: iid},
			{Kind: provider.RefInteraction, ID: token}, {Kind: provider.RefMessage, ID: botMsg.ID}}, iid},
		{"a reply", alpha.Thread, providerv1.UpdateKind_UPDATE_KIND_MESSAGE, true, []provider.Ref{{Kind: provider.RefMessage, ID: reply.ID}}, reply.ID},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			u := byText[tt.text]
			if u.GetChat() != f.dc.Channel() || u.GetThread() != tt.thread || u.GetKind() != tt.kind || u.GetAllowed() != tt.allowed {
				t.Errorf("update %v", u)
			}
			if tt.refs != nil && !slices.Equal(refsOf(u), tt.refs) {
				t.Errorf("refs %v, want %v", refsOf(u), tt.refs)
			}
			if tt.dedup != "" && u.GetDedupId() != tt.dedup {
				t.Errorf("dedup id %q, want %q", u.GetDedupId(), tt.dedup)
			}
			if tt.allowed && (u.GetSender() != f.alice.ID || u.GetSenderName() != "alice") {
				t.Errorf("sender %q %q", u.GetSender(), u.GetSenderName())
			}
		})
	}
	if d := byText["👍"].GetDedupId(); !strings.HasPrefix(d, "reaction:") {
		t.Errorf("reaction dedup id %q", d)
	}
	// The button press was acknowledged to Discord (deferred update) at
	// once, and a follow-up answers it in the thread.
	f.waitUntil("interaction acknowledged", func() bool { typ, _ := f.dc.Interaction(iid); return typ == 6 })
	if _, err := f.call(f.p, alpha, "interactionFollowup", `{"interaction_token":"`+token+`","content":"you said yes"}`); err != nil {
		t.Fatalf("follow-up: %v", err)
	}
	bot := f.dc.BotMessages(alpha.Thread)
	if len(bot) != 2 || bot[1].Content != "you said yes" {
		t.Errorf("bot messages in alpha: %+v", bot)
	}
	if sk.delivered() != len(j) {
		t.Errorf("%d updates delivered, %d distinct", sk.delivered(), len(j))
	}
}

// TestSystemMessagesAndRenames: renaming a reused thread posts a system
// message that is not routed; a stranger's interaction is not
// acknowledged.
func TestSystemMessagesAndRenames(t *testing.T) {
	f := newFixture(t)
	sk, _, alpha := f.start()
	f.dc.PostMessage(alpha.Thread, f.alice, "before")
	sk.waitTexts(t, "before")
	if _, err := f.p.Provision(t.Context(), provider.ProvisionRequest{Name: "A · renamed", Reuse: &alpha}); err != nil {
		t.Fatal(err)
	}
	sent, err := f.call(f.p, alpha, "createMessage", `{"content":"buttons","components":[{"type":1,"components":[{"type":2,"style":1,"label":"Go","custom_id":"go"}]}]}`)
	if err != nil {
		t.Fatal(err)
	}
	var m struct{ ID string }
	json.Unmarshal(sent.JSON, &m)
	iid, _ := f.dc.Press(alpha.Thread, m.ID, f.mallory, "go")
	f.dc.PostMessage(alpha.Thread, f.alice, "after")
	j := sk.waitTexts(t, "before", "go", "after")
	if j[1].GetAllowed() {
		t.Error("mallory's press is allowed")
	}
	if typ, n := f.dc.Interaction(iid); typ != 0 || n != 0 {
		t.Errorf("a stranger's interaction was acknowledged (type %d, %d requests)", typ, n)
	}
}
