package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chatbus/chatbus/internal/durable"
	"github.com/chatbus/chatbus/paths"
)

func TestHandoffFile(t *testing.T) {
	state := t.TempDir()
	d := newStateDirs(state, "mcp:1234@5678")
	now := time.Now()
	tests := []struct {
		name   string
		write  *handoffFile
		key    string
		wantOK bool
	}{
		{name: "none", key: "mcp:1234@5678"},
		{name: "valid", write: &handoffFile{ProfileKey: "mcp:1234@5678", Token: "tok", Expires: now.Add(time.Minute)}, key: "mcp:1234@5678", wantOK: true},
		{name: "expired", write: &handoffFile{ProfileKey: "mcp:1234@5678", Token: "tok", Expires: now.Add(-time.Second)}, key: "mcp:1234@5678"},
		{name: "another key's", write: &handoffFile{ProfileKey: "other", Token: "tok", Expires: now.Add(time.Minute)}, key: "mcp:1234@5678"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.write != nil {
				var synced []string
				restore := durable.OnSyncDir(func(dir string) { synced = append(synced, dir) })
				err := d.writeHandoff(*tt.write)
				restore()
				if err != nil {
					t.Fatal(err)
				}
				// The rename is on disk once its directory is synced.
				if !slices.Contains(synced, filepath.Dir(d.handoffPath())) {
					t.Errorf("directories synced %v, not the handoff file's", synced)
				}
				for path, mode := range map[string]os.FileMode{d.root: 0o700, d.handoffPath(): 0o600} {
					if st, err := os.Stat(path); err != nil || st.Mode().Perm() != mode {
						t.Errorf("%s: %v %v, want %v", path, st.Mode().Perm(), err, mode)
					}
				}
			}
			h, ok, err := d.takeHandoff(tt.key, now)
			if err != nil || ok != tt.wantOK || ok && h.Token != "tok" {
				t.Errorf("takeHandoff: %+v %v %v, want ok %v", h, ok, err, tt.wantOK)
			}
			if _, err := os.Stat(d.handoffPath()); !os.IsNotExist(err) {
				t.Errorf("the file is still there after it was read: %v", err)
			}
		})
	}
	if other := newStateDirs(state, "mcp:1234@5679"); other.handoffPath() == d.handoffPath() || filepath.Dir(other.inbox()) != filepath.Dir(d.inbox()) {
		t.Errorf("paths of two keys: %s %s", other.handoffPath(), d.handoffPath())
	}
}

// TestNotifierLines: every notification is one JSON-RPC line, meta keys
// that Claude Code would drop are left out, and the SDK's own writes
// interleave only between lines.
// TestDeliveredFile: the delivered file gives a successor the last seq
// stored, whatever was stored before it (a shorter number after a longer
// one), per profile key, private.
func TestDeliveredFile(t *testing.T) {
	tests := []struct {
		name   string
		stores []uint64
		want   uint64
	}{
		{name: "new", want: 0},
		{name: "one", stores: []uint64{7}, want: 7},
		{name: "grows", stores: []uint64{9, 10, 123456789012}, want: 123456789012},
		{name: "shorter after longer", stores: []uint64{1000, 99}, want: 99},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			d := newStateDirs(root, "manual:1")
			df, seq, err := d.openDelivered()
			if err != nil || seq != 0 {
				t.Fatalf("first open: %d %v", seq, err)
			}
			for _, s := range tt.stores {
				if err := df.store(s); err != nil {
					t.Fatal(err)
				}
			}
			df.close() // as a kill leaves it: written, not synced
			df2, seq, err := d.openDelivered()
			if err != nil || seq != tt.want {
				t.Fatalf("reopened: %d %v, want %d", seq, err, tt.want)
			}
			df2.close()
			df3, other, err := newStateDirs(root, "manual:2").openDelivered()
			if err != nil || other != 0 {
				t.Errorf("another profile key reads %d %v", other, err)
			} else {
				df3.close()
			}
			if st, err := os.Stat(d.deliveredPath()); err != nil || st.Mode().Perm() != 0o600 {
				t.Errorf("mode %v %v", st.Mode().Perm(), err)
			}
		})
	}
}

func TestNotifierLines(t *testing.T) {
	var buf bytes.Buffer
	n := &notifier{w: &buf}
	if err := n.channelMessage("hi\nthere", map[string]string{"chat_id": "-100", "bad-key": "x", "1st": "x", "empty": "", "ts": "2026-01-01T00:00:00Z"}); err != nil {
		t.Fatal(err)
	}
	n.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}` + "\n"))
	if err := n.verdict("abcde", behaviorAllow); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines: %q", len(lines), buf.String())
	}
	var msg struct {
		JSONRPC string `json:"jsonrpc"`
		Method  string `json:"method"`
		Params  struct {
			Content string            `json:"content"`
			Meta    map[string]string `json:"meta"`
		} `json:"params"`
	}
	if err := json.Unmarshal([]byte(lines[0]), &msg); err != nil {
		t.Fatal(err)
	}
	if msg.JSONRPC != "2.0" || msg.Method != methodChannel || msg.Params.Content != "hi\nthere" ||
		len(msg.Params.Meta) != 3 || msg.Params.Meta["chat_id"] != "-100" {
		t.Errorf("channel notification %s", lines[0])
	}
	// Every <channel> tag says how to answer: a session whose first turn
	// starts from a channel message has neither the instructions nor the
	// (deferred) tools in its first request.
	if got := msg.Params.Meta["reply_with"]; !strings.Contains(got, "reply tool") {
		t.Errorf("reply_with = %q in %s", got, lines[0])
	}
	// The keys Claude Code keeps (others it drops with a warning).
	claudeKey := regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)
	for k := range msg.Params.Meta {
		if !claudeKey.MatchString(k) {
			t.Errorf("meta key %q would be dropped by Claude Code", k)
		}
	}
	if want := `{"jsonrpc":"2.0","method":"notifications/claude/channel/permission","params":{"behavior":"allow","request_id":"abcde"}}`; lines[2] != want {
		t.Errorf("verdict\n got %s\nwant %s", lines[2], want)
	}
}

func TestVerdictReply(t *testing.T) {
	tests := []struct {
		text, id, behavior string
	}{
		{"yes abcde", "abcde", behaviorAllow},
		{"  Y ABCDE ", "abcde", behaviorAllow},
		{"no fghij", "fghij", behaviorDeny},
		{"N fghij", "fghij", behaviorDeny},
		{"yes", "", ""},
		{"yes abcdl", "", ""}, // no 'l' in Claude Code's ids
		{"yes abcde please", "", ""},
		{"sure, yes abcde", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			m := verdictReply.FindStringSubmatch(tt.text)
			switch {
			case tt.id == "" && m != nil:
				t.Errorf("%q taken as a verdict: %q", tt.text, m)
			case tt.id != "" && (m == nil || strings.ToLower(m[2]) != tt.id || verdictOf(m[1]) != tt.behavior):
				t.Errorf("%q: %q, want %s %s", tt.text, m, tt.behavior, tt.id)
			}
		})
	}
}

func TestSendable(t *testing.T) {
	state := t.TempDir()
	b := &bridge{cfg: config{}, dirs: newStateDirs(state, "k")}
	b.cfg.paths.StateDir = state
	os.WriteFile(filepath.Join(state, "secret"), []byte("s"), 0o600)
	paths.PrivateDir(b.dirs.inbox())
	os.WriteFile(filepath.Join(b.dirs.inbox(), "1-0.jpg"), []byte("j"), 0o600)
	work := t.TempDir()
	os.WriteFile(filepath.Join(work, "report.txt"), []byte("r"), 0o600)
	os.Symlink(filepath.Join(state, "secret"), filepath.Join(work, "innocent.txt"))
	tests := []struct {
		name, path string
		ok         bool
	}{
		{"a work file", filepath.Join(work, "report.txt"), true},
		{"a received file", filepath.Join(b.dirs.inbox(), "1-0.jpg"), true},
		{"relative", "report.txt", false},
		{"a directory", work, false},
		{"the supervisor's secret", filepath.Join(state, "secret"), false},
		{"the secret through a link", filepath.Join(work, "innocent.txt"), false},
		{"missing", filepath.Join(work, "nope"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := b.sendable(tt.path); (err == nil) != tt.ok {
				t.Errorf("sendable(%s) = %v, want ok %v", tt.path, err, tt.ok)
			}
		})
	}
}

func TestHelp(t *testing.T) {
	var out bytes.Buffer
	_, err := parseFlags([]string{"--help"}, func(string) string { return "" }, &out, &out)
	if err == nil || !strings.Contains(out.String(), "--dangerously-load-development-channels server:chatbus") || !strings.Contains(out.String(), "-profile-key") {
		t.Errorf("--help: %v\n%s", err, out.String())
	}
	cfg, err := parseFlags(nil, func(k string) string { return map[string]string{"CHATBUS_PROFILE_KEY": "me", "HOME": t.TempDir()}[k] }, &out, &out)
	if err != nil || cfg.profileKey != "me" || cfg.threadName == "" {
		t.Errorf("from the environment: %+v %v", cfg, err)
	}
	if k, err := launcherKey(); err != nil || !strings.HasPrefix(k, "mcp:") {
		t.Errorf("launcher key %q %v", k, err)
	}
}

// TestInboxPruned: downloaded files older than the age bound go, and
// beyond the size bound the oldest go first; the newest always stays.
func TestInboxPruned(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	files := []struct {
		name string
		age  time.Duration
		size int
	}{
		{"1-0.jpg", 8 * 24 * time.Hour, 10}, // too old
		{".download-1", 9 * 24 * time.Hour, 10},
		{"2-0.pdf", 3 * time.Hour, 40},
		{"3-0.txt", 2 * time.Hour, 40},
		{"4-0.txt", time.Hour, 40},
		{".download-2", 0, 1000}, // being written
	}
	for _, f := range files {
		p := filepath.Join(dir, f.name)
		if err := os.WriteFile(p, make([]byte, f.size), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(p, now.Add(-f.age), now.Add(-f.age)); err != nil {
			t.Fatal(err)
		}
	}
	if err := pruneInbox(dir, now, 7*24*time.Hour, 100); err != nil {
		t.Fatal(err)
	}
	var left []string
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		left = append(left, e.Name())
	}
	if want := []string{".download-2", "3-0.txt", "4-0.txt"}; !slices.Equal(left, want) {
		t.Errorf("left %v, want %v", left, want)
	}
	// A file alone over the size bound stays: the session was just told of it.
	if err := pruneInbox(dir, now, 7*24*time.Hour, 10); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "4-0.txt")); err != nil {
		t.Errorf("the newest file went: %v", err)
	}
}
