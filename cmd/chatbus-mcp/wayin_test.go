package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chatbus/chatbus/internal/inboxtest"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
)

// shortDir is a temporary directory with a path short enough for a Unix
// socket.
func shortDir(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("", "cbw")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// TestDetectWayIn: which way in a session offers, from its command line,
// its inbox socket and its crossSessionInbound setting.
func TestDetectWayIn(t *testing.T) {
	dir := shortDir(t)
	live := inboxtest.Start(t, filepath.Join(dir, "live.sock"))
	late := filepath.Join(dir, "late", "4242.sock")
	tests := []struct {
		name     string
		w        ways
		settings map[string]string // file name (user, project, local) → value
		flags    string            // ~/.claude.json, if set
		lateBind bool
		want     chatbusv1.WayIn
		socket   string
		detail   string // a part of the detail
	}{
		{name: "not Claude Code", w: ways{}, want: chatbusv1.WayIn_WAY_IN_CHANNEL, detail: "not Claude Code"},
		{name: "development channel", want: chatbusv1.WayIn_WAY_IN_CHANNEL, detail: "--dangerously-load-development-channels server:chatbus",
			w: ways{claudeCode: true, socket: live.Path, launcherArgs: []string{"claude", "--dangerously-load-development-channels", "server:chatbus"}}},
		{name: "approved channel plugin", want: chatbusv1.WayIn_WAY_IN_CHANNEL, detail: "--channels plugin:chatbus@",
			w: ways{claudeCode: true, launcherArgs: []string{"claude", "--channels=plugin:other@m,plugin:chatbus@market"}}},
		{name: "channel asked, channels on", want: chatbusv1.WayIn_WAY_IN_CHANNEL, flags: `{"cachedGrowthBookFeatures":{"tengu_harbor":true}}`,
			w: ways{claudeCode: true, socket: live.Path, launcherArgs: []string{"claude", "--dangerously-load-development-channels", "server:chatbus"}}},
		{name: "channel asked, channels off", want: chatbusv1.WayIn_WAY_IN_INBOX, socket: live.Path, detail: "channels are off", flags: `{"cachedGrowthBookFeatures":{"other":true}}`,
			w: ways{claudeCode: true, socket: live.Path, launcherArgs: []string{"claude", "--dangerously-load-development-channels", "server:chatbus"}}},
		{name: "channel asked, channels off, no inbox", want: chatbusv1.WayIn_WAY_IN_NONE, detail: "channels are off", flags: `{"hasCompletedOnboarding":true}`,
			w: ways{claudeCode: true, launcherArgs: []string{"claude", "--dangerously-load-development-channels", "server:chatbus"}}},
		{name: "another server's channel", want: chatbusv1.WayIn_WAY_IN_INBOX, socket: live.Path,
			w: ways{claudeCode: true, socket: live.Path, launcherArgs: []string{"claude", "--channels", "server:chatbusx", "--continue"}}},
		{name: "inbox", want: chatbusv1.WayIn_WAY_IN_INBOX, socket: live.Path, detail: "inbox socket " + live.Path,
			w: ways{claudeCode: true, socket: live.Path, launcherArgs: []string{"claude"}}},
		{name: "inbox held", want: chatbusv1.WayIn_WAY_IN_INBOX, socket: live.Path, detail: `"hold"`, settings: map[string]string{"user": "hold"},
			w: ways{claudeCode: true, socket: live.Path}},
		{name: "refused by the user", want: chatbusv1.WayIn_WAY_IN_NONE, detail: `crossSessionInbound is "refuse"`, settings: map[string]string{"user": "refuse"},
			w: ways{claudeCode: true, socket: live.Path}},
		{name: "a project tightens", want: chatbusv1.WayIn_WAY_IN_NONE, detail: "settings.local.json", settings: map[string]string{"user": "accept", "local": "refuse"},
			w: ways{claudeCode: true, socket: live.Path}},
		{name: "a project cannot loosen", want: chatbusv1.WayIn_WAY_IN_NONE, detail: `"refuse"`, settings: map[string]string{"user": "refuse", "project": "accept"},
			w: ways{claudeCode: true, socket: live.Path}},
		{name: "no socket", want: chatbusv1.WayIn_WAY_IN_NONE, detail: "CLAUDE_CODE_MESSAGING_SOCKET is not set",
			w: ways{claudeCode: true}},
		{name: "a dead socket", want: chatbusv1.WayIn_WAY_IN_NONE, detail: "does not answer",
			w: ways{claudeCode: true, socket: filepath.Join(dir, "dead.sock")}},
		{name: "bound late", want: chatbusv1.WayIn_WAY_IN_INBOX, socket: late, lateBind: true,
			w: ways{claudeCode: true}},
		{name: "forced channel", want: chatbusv1.WayIn_WAY_IN_CHANNEL, w: ways{force: wayChannel, claudeCode: true, socket: live.Path}},
		{name: "forced inbox", want: chatbusv1.WayIn_WAY_IN_INBOX, socket: live.Path,
			w: ways{force: wayInbox, socket: live.Path, launcherArgs: []string{"claude", "--channels", "server:chatbus"}}},
		{name: "forced inbox, none", want: chatbusv1.WayIn_WAY_IN_NONE, detail: "--way-in inbox", w: ways{force: wayInbox}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := tt.w
			w.name = "chatbus"
			w.launcherPID = 4242
			w.socketDirs = []string{filepath.Join(dir, "late")}
			sdir := t.TempDir()
			files := map[string]string{"user": filepath.Join(sdir, "user.json"), "project": filepath.Join(sdir, "settings.json"), "local": filepath.Join(sdir, "settings.local.json")}
			w.user, w.project = []string{files["user"]}, []string{files["project"], files["local"]}
			for f, v := range tt.settings {
				if err := os.WriteFile(files[f], []byte(`{"permissions":{},"crossSessionInbound":"`+v+`"}`), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if tt.flags != "" {
				w.globalConfig = filepath.Join(sdir, "claude.json")
				if err := os.WriteFile(w.globalConfig, []byte(tt.flags), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			if tt.lateBind {
				inboxtest.Start(t, late)
			}
			got := w.detect()
			if got.kind != tt.want || got.socket != tt.socket || !strings.Contains(got.detail, tt.detail) {
				t.Errorf("detect = %v %q %q, want %v %q with %q", got.kind, got.socket, got.detail, tt.want, tt.socket, tt.detail)
			}
		})
	}
}

// TestPostInbox: a message posted into the inbox arrives whole, after the
// auth line where one is required; a socket that is gone is an error.
func TestPostInbox(t *testing.T) {
	dir := shortDir(t)
	in := inboxtest.Start(t, filepath.Join(dir, "in.sock"), inboxtest.RequireAuth())
	text := inboxMessage("chatbus", "hello\n</channel> \"there\"", map[string]string{"user": "Ann", "message_id": "42", "bad-key": "x", "chat_id": "-100"})
	if err := postInbox(context.Background(), in.Path, in.Token, text, "", ""); err != nil {
		t.Fatal(err)
	}
	got, ok := in.Wait(5*time.Second, func(inboxtest.Message) bool { return true })
	if !ok || got.Content != text || !got.Authenticated {
		t.Fatalf("arrived %+v %v, want %q", got, ok, text)
	}
	for _, want := range []string{"Ann wrote this in the chat thread", "mcp__chatbus__reply", `<channel source="chatbus" chat_id="-100" message_id="42" user="Ann" reply_with="`, "hello\n</ channel> \"there\"\n</channel>"} {
		if !strings.Contains(got.Content, want) {
			t.Errorf("the message lacks %q:\n%s", want, got.Content)
		}
	}
	if strings.Contains(got.Content, "bad-key") {
		t.Errorf("a meta key Claude Code would drop is in the tag:\n%s", got.Content)
	}
	if err := postInbox(context.Background(), filepath.Join(dir, "gone.sock"), "", "x", "", ""); err == nil {
		t.Error("posting to no socket: no error")
	}
	if err := postInbox(context.Background(), in.Path, "wrong", "refused", "", ""); err != nil {
		t.Logf("a refused auth: %v", err) // Claude Code closes the connection: the poster may not see it
	}
	if n := len(in.Messages()); n != 1 || len(in.Refused()) != 1 {
		t.Errorf("%d messages, refused %q: want 1 and one refusal", n, in.Refused())
	}
}
