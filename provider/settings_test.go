package provider_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

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
		{"slack bad duration", "slack", `{"channel_id":"C0123ABCD","dead_after":"soon"}`, "dead_after", `"soon" is not a duration (e.g. 30s)`},
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

// TestURLSetting: a URL setting is absolute, has a host and the scheme or
// its secure form; empty is left to the default; a wrong one is refused
// naming the key, with a right one to copy.
func TestURLSetting(t *testing.T) {
	for _, tc := range []struct{ value, scheme, want string }{
		{"", "http", ""},
		{"https://api.telegram.org", "http", ""},
		{"http://127.0.0.1:8081/api/", "http", ""},
		{"wss://gateway.discord.gg", "ws", ""},
		{"ws://127.0.0.1:1/gateway", "ws", ""},
		{"api.telegram.org", "http", `base_url: "api.telegram.org" is not an absolute http(s) URL (e.g. https://x.example)`},
		{"https://", "http", `base_url: "https://" is not an absolute http(s) URL (e.g. https://x.example)`},
		{"ftp://x.example", "http", `base_url: "ftp://x.example" is not an absolute http(s) URL (e.g. https://x.example)`},
		{"https://gateway.discord.gg", "ws", `base_url: "https://gateway.discord.gg" is not an absolute ws(s) URL (e.g. https://x.example)`},
		{"http://%zz", "http", `base_url: "http://%zz" is not an absolute http(s) URL (e.g. https://x.example)`},
	} {
		err := provider.URLSetting("base_url", tc.value, tc.scheme, "https://x.example")
		if got := fmt.Sprint(err); (tc.want == "" && err != nil) || (tc.want != "" && got != tc.want) {
			t.Errorf("URLSetting(%q, %q) = %v, want %q", tc.value, tc.scheme, err, tc.want)
		}
		if err != nil && !errors.Is(err, provider.ErrSettings) {
			t.Errorf("URLSetting(%q): %v is not a setting error", tc.value, err)
		}
	}
}

// TestDurationSetting: a duration setting is its default when empty, and
// refused naming the key when it is no duration or out of its range (the
// default comes back with the error).
func TestDurationSetting(t *testing.T) {
	for _, tc := range []struct {
		value string
		got   time.Duration
		err   string
	}{
		{"", 30 * time.Second, ""},
		{"1s", time.Second, ""},
		{"5m", 5 * time.Minute, ""},
		{"2m30s", 150 * time.Second, ""},
		{"soon", 30 * time.Second, `poll_timeout: "soon" is not a duration (e.g. 30s)`},
		{"30", 30 * time.Second, `poll_timeout: "30" is not a duration (e.g. 30s)`},
		{"0s", 30 * time.Second, "poll_timeout: 0s is out of range (1s to 5m0s)"},
		{"-1m", 30 * time.Second, "poll_timeout: -1m is out of range (1s to 5m0s)"},
		{"5m1s", 30 * time.Second, "poll_timeout: 5m1s is out of range (1s to 5m0s)"},
	} {
		got, err := provider.DurationSetting("poll_timeout", tc.value, 30*time.Second, time.Second, 5*time.Minute)
		if got != tc.got || (tc.err == "" && err != nil) || (tc.err != "" && fmt.Sprint(err) != tc.err) {
			t.Errorf("DurationSetting(%q) = %v, %v; want %v, %q", tc.value, got, err, tc.got, tc.err)
		}
		if err != nil && !errors.Is(err, provider.ErrSettings) {
			t.Errorf("DurationSetting(%q): %v is not a setting error", tc.value, err)
		}
	}
}
