package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
	"github.com/chatbus/chatbus/provider/telegram/botapi"
)

// launchedTerminals is the supervisor's own tmux server (docs/launch.md:
// tmux.sock beside its socket), to look at the launched sessions as a
// person at the desk would. Launched sessions outlive the supervisor, so
// the test ends the server (and waits for the programs) at cleanup,
// before the supervisor stops.
func launchedTerminals(t *testing.T, b *tgBus) *terminals {
	tmux, err := exec.LookPath("tmux")
	if err != nil {
		t.Fatal(err)
	}
	m := &terminals{t: t, tmux: tmux, sock: filepath.Join(filepath.Dir(b.socket), "tmux.sock"), env: []string{"PATH=" + os.Getenv("PATH")}}
	t.Cleanup(m.end)
	return m
}

// windows lists the windows of the supervisor's tmux server: name and the
// directory its program runs in ("" when no server runs).
func (m *terminals) windows() string {
	out, _ := m.run("list-windows", "-a", "-F", "#{window_name} #{pane_current_path}")
	return strings.TrimSpace(out)
}

// waitControl waits for the n-th answer in the forum's General topic (the
// control place) and returns it; a new may take as long as Claude Code
// takes to start.
func waitControl(t *testing.T, b *tgBus, n int) botapi.Message {
	t.Helper()
	var sent []botapi.Message
	waitLong(t, fmt.Sprintf("answer %d in the General topic", n), func() bool {
		sent = b.tg.Sent(forumChat, 0)
		return len(sent) >= n
	}, func() string { return fmt.Sprintf("%q", texts(sent)) })
	if len(sent) > n {
		t.Fatalf("%d answers in the General topic, want %d: %q", len(sent), n, texts(sent))
	}
	return sent[n-1]
}

// TestLaunchClaudeCode: /new claude alpha in the forum's General topic
// starts the real Claude Code in the supervisor's tmux, in the project
// alpha (the template's argv, its development-channel warning answered by
// the template); its topic appears, a message there reaches it and its
// reply lands there; after a restart of the supervisor it still runs and
// is found again; /stop ends it its own way (/exit) and parks the topic,
// which is told. A project not in the list, a ../ and a symbolic
// link leading out of the projects' root are refused with a clear answer,
// and start nothing.
func TestLaunchClaudeCode(t *testing.T) {
	flags := map[string]any{"tengu_harbor": true, "tengu_harbor_permissions": true}
	r := startClaudeRigWith(t, flags, func(root string, env []string) string {
		claude, _ := claudeCode(t)
		var b strings.Builder
		fmt.Fprintf(&b, "\nlaunch_templates:\n  claude:\n")
		fmt.Fprintf(&b, "    argv: [%q, --debug-file, %q, --dangerously-load-development-channels, \"server:chatbus\"]\n",
			claude, filepath.Join(root, "launched.debug.log"))
		fmt.Fprintf(&b, "    roots: [%q]\n    env:\n", root)
		for _, kv := range env {
			k, v, _ := strings.Cut(kv, "=")
			fmt.Fprintf(&b, "      %s: %q\n", k, v)
		}
		b.WriteString("    stop_keys: [/exit, Enter]\n    stop_timeout: 30s\n    register_timeout: 2m\n")
		b.WriteString("    answers:\n      - screen: I am using this for local development\n        keys: [Enter]\n")
		return b.String()
	}, "alpha")
	b := r.b
	alpha := r.projects[0]
	desk := launchedTerminals(t, b)
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("the launched windows: %q", desk.windows())
			if data, err := os.ReadFile(r.mcpLog(alpha)); err == nil {
				t.Logf("chatbus-mcp's log:\n%s", data)
			}
		}
	})
	// A symbolic link in the root leading out of it.
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(r.root, "escape")); err != nil {
		t.Fatal(err)
	}
	b.waitProvider(t, func(pi *chatbusv1.ProviderInfo) bool { return pi.GetServing() }, "SERVING")

	// Refused, each with why, and nothing starts: no window, no topic.
	refusals := []struct{ project, want string }{
		{"nope", `template claude has no project "nope"; the projects of template claude: alpha`},
		{"../alpha", "not a path"},
		{"escape", "project escape: its directory leads outside " + r.root},
	}
	for i, rf := range refusals {
		b.tg.PushMessage(forumChat, 0, allowedUser, "/new claude "+rf.project)
		got := waitControl(t, b, i+1)
		contains(t, "the answer to new claude "+rf.project, got.Text, rf.want)
	}
	if w := desk.windows(); w != "" {
		t.Errorf("refused news started windows: %q", w)
	}
	if tops := b.tg.Topics(forumChat); len(tops) != 0 {
		t.Errorf("refused news made topics: %+v", tops)
	}

	// Started: in tmux, in the project, its topic linked in the answer.
	b.tg.PushMessage(forumChat, 0, allowedUser, "/new claude alpha")
	started := waitControl(t, b, len(refusals)+1)
	contains(t, "the answer to new", started.Text, "Started A from template claude in alpha")
	topic := b.topicOf(t, "alpha")
	b.waitBound(t, alpha.profileKey, topic)
	if w := desk.windows(); w != "alpha "+alpha.dir {
		t.Errorf("the launched window: %q, want alpha in %s", w, alpha.dir)
	}

	// A message in its topic reaches it; its reply lands there.
	b.tg.PushMessage(forumChat, topic, allowedUser, "hello launched")
	b.waitText(t, topic, "re: hello launched")

	// The supervisor restarts: the session goes on in tmux, its
	// follower comes back, and the new supervisor finds the window (and
	// stops it below).
	desk.waitScreenAfter("chatbus:alpha", "hello launched", "Answered in the chat.")
	evs, _, _ := b.busctl("events")
	contains(t, "busctl events", evs, "launch_started")
	b.restartSupervisor(t)
	b.tg.PushMessage(forumChat, topic, allowedUser, "after the restart")
	b.waitText(t, topic, "re: after the restart")

	// Stopped its own way once its turn is over; the topic parked, and
	// told.
	desk.waitScreenAfter("chatbus:alpha", "after the restart", "Answered in the chat.")
	b.tg.PushMessage(forumChat, 0, allowedUser, "/stop A")
	stopped := waitControl(t, b, len(refusals)+2)
	contains(t, "the answer to stop", stopped.Text, "Stopped A (it ended after /exit Enter); its thread is parked.")
	waitLong(t, "the topic parked", func() bool {
		return b.binding(t, alpha.profileKey).GetBinding().GetStatus() == chatbusv1.BindingStatus_BINDING_STATUS_OFFLINE
	}, func() string { return b.binding(t, alpha.profileKey).String() })
	waitLong(t, "the topic told", func() bool {
		return slices.ContainsFunc(b.replies(topic), func(s string) bool { return strings.HasPrefix(s, "Stopped by ") })
	}, func() string { return fmt.Sprintf("%q", b.replies(topic)) })
	if w := desk.windows(); w != "" {
		t.Errorf("windows after the stop: %q", w)
	}
	evs, _, _ = b.busctl("events") // the restarted supervisor's
	for _, kind := range []string{"launch_stopped", "launch_ended"} {
		contains(t, "busctl events", evs, kind)
	}
}
