package slack

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/rs/zerolog"
	"github.com/slack-go/slack/socketmode"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
)

// The fuzz target's seed corpus is in testdata/fuzz/FuzzSocketMode; run it
// with go test -fuzz=FuzzSocketMode ./provider/slack.

// noNetwork refuses every request at once: the Web API lookups a fuzzed
// event may cause (the thread of a reacted message) fail as Slack being
// unreachable does, without waiting.
type noNetwork struct{}

func (noNetwork) RoundTrip(*http.Request) (*http.Response, error) {
	return nil, errors.New("no network in a fuzz test")
}

// FuzzSocketMode reads one Socket Mode frame as it comes off the
// connection and, if it is an envelope, converts it as the receiver does:
// what is not JSON is ignored with an error; hello and disconnect are
// never envelopes; an envelope has its id; its conversion is an update or
// a reason it is not one, never both; an update journals the payload
// verbatim, has a de-duplication id and a kind the contract names, is
// never the bot's own, is allowed only for an allowed sender, and names a
// kind for every reference; a command (a slash command, a mention of the
// bot) is in the configured channel's control place, the mention taken
// off.
func FuzzSocketMode(f *testing.F) {
	f.Add([]byte(`{"type":"hello","num_connections":1,"debug_info":{"host":"h"},"connection_info":{"app_id":"A1"}}`))
	f.Add([]byte(`{"type":"disconnect","reason":"refresh_requested"}`))
	f.Add([]byte(`{"envelope_id":"e1","type":"events_api","accepts_response_payload":false,"retry_attempt":0,"payload":{"type":"event_callback","event_id":"Ev1","event":{"type":"message","channel":"C1","user":"U1","text":"hi","ts":"1700000000.000200","thread_ts":"1700000000.000100"}}}`))
	f.Add([]byte(`{"envelope_id":"e2","type":"interactive","payload":{"type":"block_actions","trigger_id":"T1","user":{"id":"U1","username":"u"},"channel":{"id":"C1"},"container":{"message_ts":"1700000000.000300","channel_id":"C1","thread_ts":"1700000000.000100"},"actions":[{"action_id":"allow","value":"yes"}]}}`))
	f.Add([]byte(`{"envelope_id":"e3","type":"slash_commands","accepts_response_payload":true,"payload":{"token":"t","team_id":"T1","channel_id":"C1","user_id":"U1","user_name":"u","command":"/chatbus","text":"new claude web","response_url":"https://hooks.slack.com/commands/T1/1/x","trigger_id":"1.2.3"}}`))
	f.Add([]byte(`{"envelope_id":"e4","type":"events_api","payload":{"type":"event_callback","event_id":"Ev4","event":{"type":"app_mention","channel":"C1","user":"U1","text":"<@UBOT> sessions","ts":"1700000000.000400"}}}`))
	f.Add([]byte(`{"envelope_id":"e5","type":"events_api","payload":{"type":"event_callback","event_id":"Ev5","event":{"type":"message","channel":"C1","user":"U2","text":"<@UBOT|chatbus>: stop 2","ts":"1700000000.000500"}}}`))
	p, err := New(Config{Settings: Settings{Name: "slack", AppToken: "xapp-fuzz", BotToken: "xoxb-fuzz", ChannelID: "C1",
		AllowedUserIDs: []string{"U1"}}, Logger: zerolog.Nop(), HTTPClient: &http.Client{Transport: noNetwork{}}})
	if err != nil {
		f.Fatal(err)
	}
	bot := identity{UserID: "UBOT", BotID: "BBOT"}
	kinds := map[providerv1.UpdateKind]bool{providerv1.UpdateKind_UPDATE_KIND_MESSAGE: true, providerv1.UpdateKind_UPDATE_KIND_EDITED_MESSAGE: true,
		providerv1.UpdateKind_UPDATE_KIND_CALLBACK_QUERY: true, providerv1.UpdateKind_UPDATE_KIND_REACTION: true,
		providerv1.UpdateKind_UPDATE_KIND_COMMAND: true}
	f.Fuzz(func(t *testing.T, data []byte) {
		req, kind, err := parseFrame(data)
		switch kind {
		case frameIgnored:
			if err == nil {
				t.Fatalf("%q ignored without a reason", data)
			}
			return
		case frameHello, frameDisconnect:
			if (kind == frameHello) != (req.Type == socketmode.RequestTypeHello) {
				t.Fatalf("%q read as %v", data, kind)
			}
			return
		}
		if req.EnvelopeID == "" {
			t.Fatalf("an envelope without its id: %q", data)
		}
		env := &envelope{ID: req.EnvelopeID, Type: req.Type, Payload: req.Payload}
		u, why := p.convertContained(context.Background(), bot, env)
		if (u == nil) == (why == "") {
			t.Fatalf("convert: %v and %q", u, why)
		}
		if u == nil {
			return
		}
		if u.GetConversionError() != "" {
			// A dead letter: the envelope as received, a dedup id.
			if !bytes.Equal(u.GetPayload(), env.Payload) || u.GetDedupId() == "" {
				t.Fatalf("dead letter %v of %q", u, data)
			}
			return
		}
		switch {
		case !bytes.Equal(u.GetPayload(), env.Payload):
			t.Fatalf("payload %q, envelope's %q", u.GetPayload(), env.Payload)
		case u.GetDedupId() == "":
			t.Fatal("an update without a de-duplication id")
		case !kinds[u.GetKind()]:
			t.Fatalf("kind %v", u.GetKind())
		case u.GetSender() == bot.UserID:
			t.Fatalf("the bot's own event became an update: %q", data)
		case u.GetAllowed() != (u.GetSender() == "U1"):
			t.Fatalf("allowed %v for sender %q", u.GetAllowed(), u.GetSender())
		case u.GetKind() == providerv1.UpdateKind_UPDATE_KIND_COMMAND && (u.GetThread() != "" || u.GetChat() != "C1"):
			// A command belongs to the channel's control place, and
			// only the configured channel's.
			t.Fatalf("a command in %q/%q: %q", u.GetChat(), u.GetThread(), data)
		case u.GetKind() == providerv1.UpdateKind_UPDATE_KIND_COMMAND && strings.HasPrefix(u.GetText(), "<@UBOT"):
			t.Fatalf("the mention was left in a command's text %q", u.GetText())
		}
		for _, r := range u.GetReferences().GetItems() {
			if r.GetKind() == providerv1.ReferenceKind_REFERENCE_KIND_UNSPECIFIED {
				t.Fatalf("a reference of no kind: %v", r)
			}
		}
	})
}
