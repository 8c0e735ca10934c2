package slack_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"

	"github.com/chatbus/chatbus/internal/testkit"
	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/provider"
	"github.com/chatbus/chatbus/provider/slack/slacktest"
)

// ephemeralText is the text of a slash command's answer in its
// acknowledgement, "" if it was acknowledged empty; it fails the test if
// the answer is not ephemeral.
func ephemeralText(t *testing.T, payload []byte) string {
	t.Helper()
	if payload == nil {
		return ""
	}
	var a struct {
		ResponseType string `json:"response_type"`
		Text         string `json:"text"`
	}
	if err := json.Unmarshal(payload, &a); err != nil || a.ResponseType != "ephemeral" {
		t.Fatalf("acknowledgement payload %s: not an ephemeral answer", payload)
	}
	return a.Text
}

// TestSlashCommand: /chatbus in the channel becomes a COMMAND of the
// control place whose text is the command's arguments, acknowledged
// empty; one used in another channel is answered, only to the person,
// with where chatbus listens, and routed nowhere; a person not allowed
// sees nothing and the update says not allowed; a command of another
// name brings its name as the first word.
func TestSlashCommand(t *testing.T) {
	r := newRig(t, rigConfig{})
	j := r.journal()
	tests := []struct {
		name, channel, user, command, text string
		routed, allowed                    bool
		want                               string // the update's text
		answer                             string // in the acknowledgement, "" none
	}{
		{name: "in the channel", channel: chanID, user: person, text: " new claude  web ", routed: true, allowed: true, want: "new claude  web"},
		{name: "no arguments", channel: chanID, user: person, text: "", routed: true, allowed: true, want: ""},
		{name: "another command", channel: chanID, user: person, command: "/sessions", routed: true, allowed: true, want: "sessions"},
		{name: "another channel", channel: "C0OTHER", user: person, text: "sessions", answer: "chatbus listens in <#" + chanID + ">"},
		{name: "not allowed", channel: chanID, user: stranger, text: "stop 2", routed: true, want: "stop 2"},
		{name: "not allowed, another channel", channel: "C0OTHER", user: stranger, text: "sessions"},
	}
	var routed []string
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			trig := r.st.SlashCommand(tc.channel, tc.user, tc.command, tc.text)
			testkit.Eventually(t, "acknowledged", func() bool { return r.st.Event(trig).Acked })
			ev := r.st.Event(trig)
			if got := ephemeralText(t, ev.Response); (tc.answer == "") != (got == "") || !strings.Contains(got, tc.answer) {
				t.Errorf("answered %q, want %q", got, tc.answer)
			}
			if !tc.routed {
				return
			}
			routed = append(routed, "trigger:"+trig)
			u := j.update("trigger:" + trig)
			if u.GetKind() != providerv1.UpdateKind_UPDATE_KIND_COMMAND || u.GetChat() != chanID || u.GetThread() != "" ||
				u.GetSender() != tc.user || u.GetAllowed() != tc.allowed || u.GetText() != tc.want || u.GetSenderName() == "" {
				t.Errorf("update %v", u)
			}
			var payload struct {
				Command   string `json:"command"`
				TriggerID string `json:"trigger_id"`
			}
			if json.Unmarshal(u.GetPayload(), &payload); payload.TriggerID != trig {
				t.Errorf("payload is not the slash command: %s", u.GetPayload())
			}
		})
	}
	testkit.Eventually(t, "every envelope acknowledged", func() bool { return r.st.Stats().Pending == 0 })
	j.mu.Lock()
	defer j.mu.Unlock()
	if !slices.Equal(j.order, routed) {
		t.Errorf("journalled %v, want %v", j.order, routed)
	}
	if st := r.st.Stats(); st.LateAcks != 0 || st.Acks != 0 || st.Expired != 0 {
		t.Errorf("stats %+v: a command acknowledged twice or late", st)
	}
}

// TestSlashCommandAckedWhileNotAdmitting: Slack waits 3 s for a slash
// command's acknowledgement and never sends it again, so it is
// acknowledged on arrival even while a doctor holds admission closed (an
// event would wait for the supervisor); the command is delivered once
// admission reopens.
func TestSlashCommandAckedWhileNotAdmitting(t *testing.T) {
	r := newRig(t, rigConfig{})
	j := r.journal()
	ctx := testCtx(t)
	if _, err := r.h.Client.Prepare(ctx, &providerv1.PrepareRequest{Fence: fence(t, "doctor-1")}); err != nil {
		t.Fatal(err)
	}
	trig := r.st.SlashCommand(chanID, person, "", "status")
	// Acked is set only by an acknowledgement within the 3 s.
	testkit.Eventually(t, "acknowledged in time", func() bool { return r.st.Event(trig).Acked })
	if n := j.count(); n != 0 {
		t.Fatalf("%d updates while admission was closed", n)
	}
	if _, err := r.h.Client.Cancel(ctx, &providerv1.CancelRequest{Fence: fence(t, "doctor-1")}); err != nil {
		t.Fatal(err)
	}
	if u := j.update("trigger:" + trig); u.GetText() != "status" {
		t.Errorf("update %v", u)
	}
	if st := r.st.Stats(); st.LateAcks != 0 || st.Acks != 0 {
		t.Errorf("stats %+v", st)
	}
}

// TestSlashCommandRedelivered: a slash command whose acknowledgement was
// lost is sent again when its connection drops (with another envelope
// id): both deliveries are the same command, one dedup id, journalled
// once.
func TestSlashCommandRedelivered(t *testing.T) {
	r := newRig(t, rigConfig{})
	j := r.journal()
	r.st.LoseAcks(true)
	trig := r.st.SlashCommand(chanID, person, "", "sessions")
	j.update("trigger:" + trig)
	testkit.Eventually(t, "the acknowledgement lost", func() bool { return r.st.Stats().LostAcks >= 1 })
	r.st.LoseAcks(false)
	r.st.DropLinks()
	testkit.Eventually(t, "delivered again and acknowledged", func() bool {
		e := r.st.Event(trig)
		return e.Deliveries == 2 && e.Acked
	})
	j.mu.Lock()
	defer j.mu.Unlock()
	for _, u := range j.all {
		if u.GetDedupId() != "trigger:"+trig {
			t.Errorf("update %v: another dedup id for the same command", u)
		}
	}
	if len(j.order) != 1 {
		t.Errorf("journalled %v", j.order)
	}
}

// TestMention: a top-level message of the channel that starts with a
// mention of the bot is a COMMAND of the control place, the mention taken
// off; Slack sends it as a message event and as app_mention, which make
// one update. A mention later in a message, or in a thread, is an
// ordinary message.
func TestMention(t *testing.T) {
	r := newRig(t, rigConfig{})
	j := r.journal()
	th := r.provision("A · alpha")
	bot := "<@" + slacktest.BotUserID + ">"
	tests := []struct {
		name, user, text, thread string
		kind                     providerv1.UpdateKind
		allowed                  bool
		want                     string
	}{
		{"command", person, bot + " sessions", "", providerv1.UpdateKind_UPDATE_KIND_COMMAND, true, "sessions"},
		{"with a colon", person, bot + ": new claude web", "", providerv1.UpdateKind_UPDATE_KIND_COMMAND, true, "new claude web"},
		{"not allowed", stranger, bot + " status", "", providerv1.UpdateKind_UPDATE_KIND_COMMAND, false, "status"},
		{"mention later", person, "ask " + bot + " later", "", providerv1.UpdateKind_UPDATE_KIND_MESSAGE, true, "ask " + bot + " later"},
		{"in a thread", person, bot + " status", th.GetThread(), providerv1.UpdateKind_UPDATE_KIND_MESSAGE, true, bot + " status"},
	}
	var want []string
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := r.st.PostMessage(chanID, tc.user, tc.text, tc.thread)
			dedup := m.EventID
			if tc.kind == providerv1.UpdateKind_UPDATE_KIND_COMMAND {
				dedup = "mention:" + chanID + ":" + m.TS
			}
			want = append(want, dedup)
			u := j.update(dedup)
			if u.GetKind() != tc.kind || u.GetThread() != tc.thread || u.GetSender() != tc.user || u.GetAllowed() != tc.allowed || u.GetText() != tc.want {
				t.Errorf("update %v", u)
			}
			if got := refs(u); !slices.Equal(got, []string{"message:" + m.TS}) {
				t.Errorf("refs %v", got)
			}
		})
	}
	testkit.Eventually(t, "every envelope acknowledged", func() bool { return r.st.Stats().Pending == 0 })
	j.mu.Lock()
	defer j.mu.Unlock()
	if !slices.Equal(j.order, want) {
		t.Errorf("journalled %v, want %v (an app_mention journalled on its own?)", j.order, want)
	}
}

// TestSendControlPlace: the send verb to the channel's control place
// (thread "") posts at the channel's top level, edit edits there, a
// button under such a message is pressed and answered in the control
// place; another channel's is out of scope, and raw calls still go to
// threads only.
func TestSendControlPlace(t *testing.T) {
	r := newRig(t, rigConfig{})
	control := &providerv1.Target{Chat: chanID}
	ids, err := r.verb(control, provider.VerbSend, &providerv1.SendParams{Text: "**2 sessions**"})
	if err != nil {
		t.Fatal(err)
	}
	top := r.st.Sent(chanID, "")
	if len(top) != 1 || top[0].Text != "*2 sessions*" || top[0].ThreadTS != "" || !slices.Equal(ids, []string{top[0].TS}) {
		t.Fatalf("top level holds %+v, ids %v", top, ids)
	}
	if _, err := r.verb(control, provider.VerbEdit, &providerv1.EditParams{MessageId: top[0].TS, Text: "3 sessions"}); err != nil {
		t.Fatal(err)
	}
	if m, _ := r.st.Message(chanID, top[0].TS); m.Text != "3 sessions" {
		t.Errorf("edited to %q", m.Text)
	}
	// A button under an answer: its press is in the control place, and
	// is answered there.
	j := r.journal()
	r.st.PostMessage(chanID, person, "hello", "") // the person is in the channel
	ids, err = r.verb(control, provider.VerbSend, &providerv1.SendParams{Text: "B beta", Buttons: []*providerv1.Button{{Label: "Stop B", Data: "/stop B"}}})
	if err != nil {
		t.Fatal(err)
	}
	press := r.st.PressButton(chanID, ids[0], person, "", "/stop B")
	if u := j.update("trigger:" + press); u.GetKind() != providerv1.UpdateKind_UPDATE_KIND_CALLBACK_QUERY || u.GetThread() != "" || u.GetText() != "/stop B" {
		t.Fatalf("press %v", u)
	}
	if _, err := r.verb(control, provider.VerbAnswer, &providerv1.AnswerParams{InteractionId: person + "/" + press, Text: "stopping"}); err != nil {
		t.Fatal(err)
	}
	if eph := r.st.Ephemeral(chanID); len(eph) != 1 || eph[0].User != person || eph[0].ThreadTS != "" || eph[0].Text != "stopping" {
		t.Errorf("ephemeral %+v", eph)
	}
	_, err = r.verb(&providerv1.Target{Chat: "C0OTHER"}, provider.VerbSend, &providerv1.SendParams{Text: "hi"})
	wantCode(t, err, codes.PermissionDenied, "")
	_, err = r.call(control, "chat.postMessage", `{"text":"raw"}`)
	wantCode(t, err, codes.PermissionDenied, "")
}
