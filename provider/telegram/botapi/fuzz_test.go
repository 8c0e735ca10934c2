package botapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
)

// The fuzz targets' seed corpora are in testdata/fuzz/<target>; run one
// with, for example, go test -fuzz=FuzzUpdate ./provider/telegram/botapi.

// fuzzToken is the token of the fuzzed client: it must never appear in an
// error's text.
const fuzzToken = "123456789:FUZZ-secret_token"

// FuzzUpdate decodes an update as getUpdates returns it: input that is not
// JSON is refused with an error; what decodes keeps its JSON verbatim in
// Raw, decodes again from Raw to the same update (a round trip), and its
// accessors agree with its fields.
func FuzzUpdate(f *testing.F) {
	f.Add([]byte(`{"update_id":1,"message":{"message_id":7,"message_thread_id":3,"is_topic_message":true,"from":{"id":42,"is_bot":false,"first_name":"A"},"chat":{"id":-100,"type":"supergroup","is_forum":true},"date":1,"text":"hi"}}`))
	f.Add([]byte(`{"update_id":2,"callback_query":{"id":"cq","from":{"id":42,"is_bot":false,"first_name":"A"},"message":{"message_id":7,"chat":{"id":-100,"type":"supergroup"},"date":0},"data":"yes"}}`))
	f.Add([]byte(`{"update_id":3,"message_reaction":{"chat":{"id":-100,"type":"supergroup"},"message_id":7,"date":1,"old_reaction":[],"new_reaction":[{"type":"emoji","emoji":"👍"}]}}`))
	f.Add([]byte(`{"update_id":4,"my_chat_member":{}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var u Update
		err := json.Unmarshal(data, &u)
		if !json.Valid(data) {
			if err == nil {
				t.Fatalf("invalid JSON %q decoded", data)
			}
			return
		}
		if err != nil {
			return // valid JSON of another shape (an array, a string, a wrong field type)
		}
		if !json.Valid(u.Raw) || !bytes.Equal(bytes.TrimSpace(u.Raw), bytes.TrimSpace(data)) {
			t.Fatalf("Raw %q, decoded from %q", u.Raw, data)
		}
		var again Update
		if err := json.Unmarshal(u.Raw, &again); err != nil {
			t.Fatalf("Raw does not decode again: %v", err)
		}
		if !reflect.DeepEqual(u, again) {
			t.Fatalf("round trip: %+v, then %+v", u, again)
		}
		switch k := u.Kind(); {
		case u.Message != nil && k != KindMessage,
			u.Message == nil && u.EditedMessage != nil && k != KindEditedMessage,
			u.Message == nil && u.EditedMessage == nil && u.CallbackQuery != nil && k != KindCallbackQuery:
			t.Fatalf("Kind %q of %+v", k, u)
		}
		if th := u.ThreadID(); th != 0 && (u.message() == nil || !u.message().IsTopicMessage) {
			t.Fatalf("ThreadID %d of a message that is not a topic message", th)
		}
		_, _ = u.ChatID(), u.FromID()
	})
}

// answer is an http.RoundTripper that answers every request with one
// status and body: the Bot API's answer under test.
type answer struct {
	status int
	body   []byte
}

func (a answer) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil {
		r.Body.Close()
	}
	return &http.Response{StatusCode: a.status, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(bytes.NewReader(a.body)), Request: r}, nil
}

// FuzzAnswer feeds a Bot API answer (HTTP status and body) to getUpdates
// and sendMessage: each returns a result or an *APIError (ok: false) or a
// *DecodeError (not an envelope), never anything else; an error never
// holds the token and quotes at most 512 bytes of the body; an APIError
// has a code; the updates of a good answer keep their JSON.
func FuzzAnswer(f *testing.F) {
	f.Add(200, []byte(`{"ok":true,"result":[{"update_id":5,"message":{"message_id":1,"chat":{"id":-100,"type":"supergroup"},"date":1,"text":"a"}}]}`))
	f.Add(200, []byte(`{"ok":true,"result":{"message_id":9,"chat":{"id":-100,"type":"supergroup"},"date":1,"text":"sent"}}`))
	f.Add(429, []byte(`{"ok":false,"error_code":429,"description":"Too Many Requests: retry after 7","parameters":{"retry_after":7}}`))
	f.Add(409, []byte(`{"ok":false,"error_code":409,"description":"Conflict: terminated by other getUpdates request"}`))
	f.Add(400, []byte(`{"ok":false,"description":"Bad Request: chat not found","parameters":{"migrate_to_chat_id":-1001}}`))
	f.Add(502, []byte("<html>502 Bad Gateway for /bot"+fuzzToken+"/getUpdates</html>"))
	f.Add(200, []byte(`{"ok":true}`))
	f.Add(502, []byte(strings.Repeat("x", 490)+fuzzToken)) // the excerpt ends inside the token
	f.Fuzz(func(t *testing.T, status int, body []byte) {
		status = 100 + (status%500+500)%500 // a status line net/http could carry
		c, err := New(Config{Token: fuzzToken, BaseURL: "http://bot.invalid", HTTPClient: &http.Client{Transport: answer{status, body}}})
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		ups, err := c.GetUpdates(ctx, GetUpdatesParams{})
		check(t, body, err)
		for _, u := range ups {
			if len(u.Raw) > 0 && !json.Valid(u.Raw) {
				t.Fatalf("an update's Raw %q is not JSON", u.Raw)
			}
		}
		_, err = c.SendMessage(ctx, SendMessageParams{ChatID: -100, Text: "x"})
		check(t, body, err)
	})
}

func check(t *testing.T, body []byte, err error) {
	t.Helper()
	if err == nil {
		return
	}
	if strings.Contains(err.Error(), fuzzToken) {
		t.Fatalf("the token in an error: %v", err)
	}
	var api *APIError
	var dec *DecodeError
	switch {
	case errors.As(err, &api):
		if api.Code == 0 {
			t.Fatalf("an APIError without a code: %#v", api)
		}
	case errors.As(err, &dec):
		// The excerpt is the body (or its result member, where that did
		// not decode) with the token redacted, cut at 512 bytes: nothing
		// of a token is left where the cut goes through one.
		var env struct{ Result json.RawMessage }
		_ = json.Unmarshal(body, &env)
		ok := false
		for _, quoted := range [][]byte{body, env.Result} {
			want := strings.ReplaceAll(string(quoted), fuzzToken, redactedToken)
			if len(want) > 512 {
				want = want[:512] + "…"
			}
			ok = ok || dec.Body == want
		}
		if !ok {
			t.Fatalf("body excerpt %q of %q", dec.Body, body)
		}
	default:
		t.Fatalf("an error that is neither an APIError nor a DecodeError: %#v (body %q)", err, body)
	}
}
