package provider_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/chatbus/chatbus/provider"
	"github.com/chatbus/chatbus/provider/discord"
	"github.com/chatbus/chatbus/provider/playground"
	"github.com/chatbus/chatbus/provider/slack"
	"github.com/chatbus/chatbus/provider/telegram"
)

// TestParseSettingsNamesTheKey: every provider's ParseSettings words a
// problem as README.md's check mode does, "<key>: <why>", as a
// *provider.SettingError naming the key, whatever is wrong: an unknown
// key, a value of the wrong type, a value out of range.
func TestParseSettingsNamesTheKey(t *testing.T) {
	getenv := func(string) string { return "" }
	parsers := map[string]func(json.RawMessage) error{
		"telegram": func(b json.RawMessage) error { _, err := telegram.ParseSettings(b, getenv); return err },
		"slack":    func(b json.RawMessage) error { _, err := slack.ParseSettings(b, getenv); return err },
		"discord":  func(b json.RawMessage) error { _, err := discord.ParseSettings(b, getenv); return err },
		"playground": func(b json.RawMessage) error {
			_, err := playground.ParseSettings(b, getenv)
			return err
		},
	}
	tests := []struct {
		name, provider, in, key, why string
	}{
		{"telegram unknown key", "telegram", `{"tokn":"1:a","private_chat_id":1}`, "tokn", "unknown setting; did you mean token?"},
		{"telegram wrong type", "telegram", `{"private_chat_id":"me"}`, "private_chat_id", "want an integer, got a string"},
		{"telegram bad value", "telegram", `{"private_chat_id":1,"token":"1:a","poll_timeout":"soon"}`, "poll_timeout", `"soon" is not a duration`},

		{"slack unknown key", "slack", `{"channel_id":"C0123ABCD","token":"x"}`, "token", "unknown setting"},
		{"slack wrong type", "slack", `{"channel_id":"C0123ABCD","allowed_user_ids":[123]}`, "allowed_user_ids", "want a list of strings"},
		{"slack bad value", "slack", `{"channel_id":"#general"}`, "channel_id", "not a channel id"},
		{"slack bad duration", "slack", `{"channel_id":"C0123ABCD","dead_after":"soon"}`, "dead_after", "not a positive duration"},
		{"slack missing token", "slack", `{"channel_id":"C0123ABCD","bot_token":"xoxb-1"}`, "app_token", "missing"},

		{"discord unknown key", "discord", `{"guild_id":"1","channel_id":"2","forum_chat_id":3}`, "forum_chat_id", "unknown setting"},
		{"discord wrong type", "discord", `{"guild_id":"1","channel_id":"2","allowed_user_ids":"3"}`, "allowed_user_ids", "want a list"},
		{"discord bad snowflake", "discord", `{"guild_id":"abc","channel_id":"2"}`, "guild_id", "not a Discord id"},
		{"discord required", "discord", `{"channel_id":"2"}`, "guild_id", "required"},
		{"discord bad value", "discord", `{"guild_id":"1","channel_id":"2","gateway_url":"https://x"}`, "gateway_url", "ws(s)"},
		{"discord missing token", "discord", `{"guild_id":"1","channel_id":"2"}`, "token", "missing"},

		{"playground unknown key", "playground", `{"prot":1}`, "prot", "unknown setting; did you mean port?"},
		{"playground wrong type", "playground", `{"title":7}`, "title", "want a string, got a number"},
		{"playground bad value", "playground", `{"port":70000}`, "port", "not a TCP port"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := parsers[tc.provider](json.RawMessage(tc.in))
			var se *provider.SettingError
			if !errors.As(err, &se) {
				t.Fatalf("ParseSettings(%s) = %v, want a *provider.SettingError", tc.in, err)
			}
			if se.Key != tc.key || !strings.HasPrefix(err.Error(), tc.key+": ") || !strings.Contains(se.Why, tc.why) {
				t.Fatalf("ParseSettings(%s) = %q (key %q), want %q: …%s…", tc.in, err, se.Key, tc.key, tc.why)
			}
		})
	}
}
