package discord

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"

	"github.com/disgoorg/disgo/gateway"
	"github.com/rs/zerolog"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
)

// The fuzz targets' seed corpora are in testdata/fuzz/<target>; run one
// with, for example, go test -fuzz=FuzzGateway ./provider/discord.

const (
	fuzzGuild   = "100000000000000001"
	fuzzChannel = "100000000000000002"
	fuzzBot     = "100000000000000009"
	fuzzUser    = "100000000000000042" // the allowed one
)

// unknownChannel answers every REST request as Discord answers for a
// channel the bot cannot see: the lookups a fuzzed dispatch causes end at
// once, without the network.
type unknownChannel struct{}

func (unknownChannel) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		r.Body.Close()
	}
	return &http.Response{StatusCode: http.StatusNotFound, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(bytes.NewReader([]byte(`{"message":"Unknown Channel","code":10003}`))), Request: r}, nil
}

// fuzzPlatform is a Platform of the fuzzed guild and channel whose REST
// requests end at once (unknownChannel). One serves every input of a
// fuzzing process; fuzzRunner forgets what the last input taught it.
func fuzzPlatform(tb testing.TB) *Platform {
	p, err := New(Settings{Name: "discord", Token: "fuzz", GuildID: fuzzGuild, ChannelID: fuzzChannel, AllowedUserIDs: []Snowflake{fuzzUser},
		BaseURL: "http://discord.invalid/api"}, Options{Logger: zerolog.Nop(), HTTPClient: &http.Client{Transport: unknownChannel{}}})
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// fuzzRunner is a fresh runner on p, which knows no thread, channel or
// follower yet.
func fuzzRunner(p *Platform) *runner {
	p.mu.Lock()
	p.botID, p.appID = "", ""
	p.threads, p.foreign = map[string]bool{}, map[string]bool{}
	p.attached, p.provisioned = map[string]string{}, map[string]string{}
	p.mu.Unlock()
	cur, _ := decodeCursor(nil, fuzzChannel)
	return &runner{p: p, cur: cur, bot: fuzzBot, caught: map[string]bool{}}
}

// FuzzGateway reads one gateway payload as the connection does and, if it
// is a dispatch, applies it as the runner does: a payload that is not JSON
// is refused with an error; a dispatch never fails; every update it makes
// is in the configured channel (or one of its threads; a command in the
// channel's control place, a mention taken off), has a kind the
// contract names, a de-duplication id and an increasing update id, is
// never the bot's own, is allowed only for an allowed sender, and carries
// the runner's cursor, which decodes to itself.
func FuzzGateway(f *testing.F) {
	f.Add([]byte(`{"op":0,"s":3,"t":"MESSAGE_CREATE","d":{"id":"100000000000000100","channel_id":"` + fuzzChannel + `","guild_id":"` + fuzzGuild + `","type":0,"author":{"id":"` + fuzzUser + `","username":"u"},"content":"hi","attachments":[{"id":"100000000000000101"}]}}`))
	f.Add([]byte(`{"op":0,"s":4,"t":"MESSAGE_REACTION_ADD","d":{"user_id":"` + fuzzUser + `","channel_id":"` + fuzzChannel + `","message_id":"100000000000000100","guild_id":"` + fuzzGuild + `","emoji":{"id":null,"name":"👍"}}}`))
	f.Add([]byte(`{"op":0,"s":5,"t":"INTERACTION_CREATE","d":{"id":"100000000000000200","type":3,"token":"tok","application_id":"1","channel_id":"` + fuzzChannel + `","guild_id":"` + fuzzGuild + `","member":{"user":{"id":"` + fuzzUser + `","username":"u"}},"data":{"custom_id":"allow"},"message":{"id":"100000000000000100"}}}`))
	f.Add([]byte(`{"op":0,"s":6,"t":"INTERACTION_CREATE","d":{"id":"100000000000000201","type":2,"token":"tok2","application_id":"1","channel_id":"` + fuzzChannel + `","channel":{"id":"` + fuzzChannel + `","type":0},"guild_id":"` + fuzzGuild + `","member":{"user":{"id":"` + fuzzUser + `","username":"u"}},"data":{"id":"1","name":"chatbus","type":1,"options":[{"name":"new","type":1,"options":[{"name":"project","type":3,"value":"web"},{"name":"template","type":3,"value":"claude"}]}]}}}`))
	f.Add([]byte(`{"op":0,"s":7,"t":"MESSAGE_CREATE","d":{"id":"100000000000000102","channel_id":"` + fuzzChannel + `","guild_id":"` + fuzzGuild + `","type":0,"author":{"id":"` + fuzzUser + `","username":"u"},"content":"<@` + fuzzBot + `> <@!` + fuzzBot + `>: stop B"}}`))
	f.Add([]byte(`{"op":0,"s":1,"t":"READY","d":{"session_id":"s","resume_gateway_url":"wss://r","user":{"id":"` + fuzzBot + `"},"application":{"id":"1"}}}`))
	f.Add([]byte(`{"op":11}`))
	p := fuzzPlatform(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		var fr frame
		err := json.Unmarshal(data, &fr)
		if err == nil && !json.Valid(data) {
			t.Fatalf("%q is not JSON and decoded", data)
		}
		if err != nil {
			return // the connection logs it and reads on
		}
		if fr.Op != gateway.OpcodeDispatch || fr.S == nil || fr.T == nil {
			return
		}
		r := fuzzRunner(p)
		if err := r.process(context.Background(), event{T: *fr.T, S: *fr.S, D: fr.D, Session: "s1"}); err != nil {
			t.Fatalf("process: %v", err)
		}
		var last int64
		for _, u := range r.pending {
			checkUpdate(t, u, &last)
		}
		if *fr.T != "READY" && r.cur.Seq != *fr.S {
			t.Fatalf("cursor at %d after dispatch %d", r.cur.Seq, *fr.S)
		}
		again, err := decodeCursor(r.cur.encode(), fuzzChannel)
		if err != nil || !reflect.DeepEqual(again, r.cur) {
			t.Fatalf("cursor %+v decodes to %+v (%v)", r.cur, again, err)
		}
	})
}

func checkUpdate(t *testing.T, u *providerv1.Update, last *int64) {
	t.Helper()
	kinds := map[providerv1.UpdateKind]bool{providerv1.UpdateKind_UPDATE_KIND_MESSAGE: true, providerv1.UpdateKind_UPDATE_KIND_REACTION: true,
		providerv1.UpdateKind_UPDATE_KIND_CALLBACK_QUERY: true, providerv1.UpdateKind_UPDATE_KIND_COMMAND: true}
	switch {
	case u.GetChat() != fuzzChannel || (u.GetThread() != "" && !isSnowflake(u.GetThread())):
		t.Fatalf("an update in %q/%q", u.GetChat(), u.GetThread())
	case !kinds[u.GetKind()]:
		t.Fatalf("kind %v", u.GetKind())
	case u.GetDedupId() == "":
		t.Fatal("an update without a de-duplication id")
	case u.GetUpdateId() <= *last:
		t.Fatalf("update id %d after %d", u.GetUpdateId(), *last)
	case u.GetSender() == fuzzBot && u.GetKind() != providerv1.UpdateKind_UPDATE_KIND_CALLBACK_QUERY:
		t.Fatalf("the bot's own message or reaction became an update")
	case u.GetAllowed() != (u.GetSender() == fuzzUser):
		t.Fatalf("allowed %v for sender %q", u.GetAllowed(), u.GetSender())
	case u.GetKind() == providerv1.UpdateKind_UPDATE_KIND_COMMAND && u.GetThread() != "":
		t.Fatalf("a command outside the control place: thread %q", u.GetThread())
	case u.GetKind() == providerv1.UpdateKind_UPDATE_KIND_COMMAND && strings.HasPrefix(u.GetText(), "<@"+fuzzBot+">"):
		t.Fatalf("the mention was left in a command's text %q", u.GetText())
	}
	*last = u.GetUpdateId()
	for _, ref := range u.GetReferences().GetItems() {
		if ref.GetKind() == providerv1.ReferenceKind_REFERENCE_KIND_UNSPECIFIED {
			t.Fatalf("a reference of no kind: %v", ref)
		}
	}
	if c, err := decodeCursor(u.GetCursor(), fuzzChannel); err != nil || c.Channel != fuzzChannel {
		t.Fatalf("an update's cursor %q: %v", u.GetCursor(), err)
	}
}

// FuzzCursor reads a stored cursor: anything is read without a panic, as
// a cursor of the configured channel; only snowflake marks are kept; and
// what is read encodes and decodes to itself.
func FuzzCursor(f *testing.F) {
	f.Add([]byte(`{"v":1,"channel":"` + fuzzChannel + `","session":"s","seq":7,"resume_url":"wss://r","threads":{"100000000000000300":"100000000000000301"}}`))
	f.Add([]byte(`{"v":1,"channel":"another","session":"s","seq":7,"threads":{"100000000000000300":"100000000000000301"}}`))
	f.Add([]byte(`{"v":2}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := decodeCursor(data, fuzzChannel)
		if c.Channel != fuzzChannel || c.V != cursorVersion || c.Threads == nil {
			t.Fatalf("read as %+v", c)
		}
		if err != nil {
			if c.Session != "" || len(c.Threads) > 0 {
				t.Fatalf("a refused cursor kept %+v", c)
			}
			return
		}
		for th, m := range c.Threads {
			if !isSnowflake(th) || !isSnowflake(m) {
				t.Fatalf("mark %q: %q kept", th, m)
			}
		}
		again, err := decodeCursor(c.encode(), fuzzChannel)
		if err != nil || !reflect.DeepEqual(again, c) {
			t.Fatalf("%+v encodes and decodes to %+v (%v)", c, again, err)
		}
	})
}
