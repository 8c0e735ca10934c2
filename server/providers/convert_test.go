package providers

import (
	"testing"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
)

// TestInboundIDs: an update's thread and sender are the text the provider
// reported, and the sender repeats as a number (chatbus.v1's
// from_user_id) only where the platform's id is one.
func TestInboundIDs(t *testing.T) {
	tests := []struct {
		name           string
		chat, thread   string
		sender         string
		wantFromUserID int64
	}{
		{name: "telegram", chat: "-1001234567890", thread: "42", sender: "12345", wantFromUserID: 12345},
		{name: "telegram general topic", chat: "-1001234567890", sender: "7", wantFromUserID: 7},
		{name: "negative id", chat: "-5", thread: "1", sender: "-136817688", wantFromUserID: -136817688},
		{name: "discord snowflake", chat: "1100000000000000001", thread: "1100000000000000002", sender: "80351110224678912", wantFromUserID: 80351110224678912},
		{name: "slack", chat: "C0123ABCD", thread: "1712345678.000100", sender: "U0123ABCD"},
		{name: "digits then letters", chat: "c", thread: "t", sender: "123abc"},
		{name: "too large for int64", chat: "c", thread: "t", sender: "99999999999999999999"},
		{name: "a lone minus", chat: "c", thread: "t", sender: "-"},
		{name: "no sender", chat: "c", thread: "t"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := inbound(&providerv1.Update{UpdateId: 1, Chat: tt.chat, Thread: tt.thread, Sender: tt.sender}).Update
			if got.Chat != tt.chat || got.Thread != tt.thread || got.Sender != tt.sender {
				t.Errorf("stored %q/%q from %q, want %q/%q from %q", got.Chat, got.Thread, got.Sender, tt.chat, tt.thread, tt.sender)
			}
			if got.FromUserID != tt.wantFromUserID {
				t.Errorf("FromUserID %d, want %d", got.FromUserID, tt.wantFromUserID)
			}
		})
	}
}
