package platform

import (
	"encoding/json"
	"errors"
	"testing"
)

func TestTelegramCalls(t *testing.T) {
	tg, err := For("telegram")
	if err != nil {
		t.Fatal(err)
	}
	typing, ok := tg.Typing()
	tests := []struct {
		name string
		call Call
		want string
	}{
		{name: "send", call: tg.Send("hi", "", nil), want: `sendMessage {"text":"hi"}`},
		{name: "send as a reply with buttons", call: tg.Send("ok?", "42", []Button{{"Allow", "perm:allow:abcde"}, {"Deny", "perm:deny:abcde"}}),
			want: `sendMessage {"reply_markup":{"inline_keyboard":[[{"callback_data":"perm:allow:abcde","text":"Allow"},{"callback_data":"perm:deny:abcde","text":"Deny"}]]},"reply_parameters":{"allow_sending_without_reply":true,"message_id":42},"text":"ok?"}`},
		{name: "edit drops the keyboard", call: tg.Edit("7", "done"), want: `editMessageText {"message_id":7,"text":"done"}`},
		{name: "react", call: tg.React("7", "👀"), want: `setMessageReaction {"message_id":7,"reaction":[{"emoji":"👀","type":"emoji"}]}`},
		{name: "typing", call: typing, want: `sendChatAction {"action":"typing"}`},
		{name: "answer", call: tg.Answer("99", "✅ Allowed"), want: `answerCallbackQuery {"callback_query_id":"99","text":"✅ Allowed"}`},
	}
	if !ok {
		t.Fatal("Telegram has a typing call")
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, _ := json.Marshal(tt.call.Params)
			if got := tt.call.Method + " " + string(b); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
	if tg.UploadKind(".png") != "photo" || tg.UploadKind(".pdf") != "document" {
		t.Error("upload kinds")
	}
	if _, err := For("irc"); !errors.Is(err, ErrUnknown) {
		t.Errorf("For(irc): %v", err)
	}
}
