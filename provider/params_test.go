package provider_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/chatbus/chatbus/provider"
)

// TestParamsScope: the scope helper every platform's Call uses.
func TestParamsScope(t *testing.T) {
	tests := []struct {
		name, params string
		want         error
	}{
		{"empty", ``, nil},
		{"own chat, number", `{"chat_id":-100}`, nil},
		{"own chat, string", `{"chat_id":"-100","reply":{"chat_id":-100}}`, nil},
		{"another chat", `{"chat_id":-200}`, provider.ErrOutOfScope},
		{"another chat, nested", `{"reply":{"chat_id":"-200"}}`, provider.ErrOutOfScope},
		{"nested not an object", `{"reply":7}`, provider.ErrInvalid},
		{"refused key", `{"inline_message_id":"x"}`, provider.ErrOutOfScope},
		{"not an object", `[1]`, provider.ErrInvalid},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := provider.ParseParams("send", json.RawMessage(tc.params))
			if err == nil {
				err = m.Pin("chat_id", "-100", "chat")
			}
			if err == nil {
				err = m.Pin("reply.chat_id", "-100", "chat")
			}
			if err == nil {
				err = m.Refuse("send", "inline_message_id")
			}
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
	m, _ := provider.ParseParams("send", json.RawMessage(`{"a":{"b":12345678901234567890}}`))
	if got := m.Text("a.b"); got != "12345678901234567890" {
		t.Errorf("Text(a.b) = %q: a number keeps its text", got)
	}
	m.Set("chat_id", "x")
	if got := m.Text("chat_id"); got != "x" {
		t.Errorf("after Set: %q", got)
	}
}
