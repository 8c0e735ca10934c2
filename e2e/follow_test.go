package e2e

import (
	"bufio"
	"encoding/json"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chatbus/chatbus/internal/testkit"
)

// shellFollow is a running `busctl follow` on real pipes.
type shellFollow struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stderr *testkit.SyncBuffer
	lines  chan map[string]any
	exited chan error
}

func (p *profile) startFollow(t *testing.T, dir string, args ...string) *shellFollow {
	t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "busctl"), append([]string{"follow"}, args...)...)
	cmd.Env = p.env()
	cmd.Dir = dir
	s := &shellFollow{t: t, cmd: cmd, stderr: &testkit.SyncBuffer{}, lines: make(chan map[string]any, 1024), exited: make(chan error, 1)}
	var stdout io.Reader
	s.stdin, stdout = startPiped(t, cmd, s.stderr)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			var m map[string]any
			if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
				t.Errorf("busctl follow wrote a line that is not JSON: %q", sc.Text())
				continue
			}
			s.lines <- m
		}
		close(s.lines)
	}()
	go func() { s.exited <- cmd.Wait() }()
	t.Cleanup(func() {
		s.stdin.Close()
		cmd.Process.Signal(syscall.SIGTERM)
		if t.Failed() {
			t.Logf("busctl follow stderr:\n%s", s.stderr.String())
		}
	})
	return s
}

// next returns the next line of the given type, failing on any other.
func (s *shellFollow) next(typ string) map[string]any {
	s.t.Helper()
	select {
	case m, ok := <-s.lines:
		if !ok {
			s.t.Fatalf("busctl follow ended; wanted a %s line\n%s", typ, s.stderr.String())
		}
		if m["type"] != typ {
			s.t.Fatalf("got a %v line, want %s: %v", m["type"], typ, m)
		}
		return m
	case <-time.After(30 * time.Second):
		s.t.Fatalf("no %s line in 30s\n%s", typ, s.stderr.String())
	}
	return nil
}

// refOf is the id of the reference of kind ("message", "interaction",
// "file") in an update line, "" if it has none.
func refOf(u map[string]any, kind string) string {
	refs, _ := u["references"].([]any)
	for _, r := range refs {
		if r, _ := r.(map[string]any); r["kind"] == kind {
			id, _ := r["id"].(string)
			return id
		}
	}
	return ""
}

func (s *shellFollow) send(line string) {
	s.t.Helper()
	if _, err := io.WriteString(s.stdin, line+"\n"); err != nil {
		s.t.Fatal(err)
	}
}

func (s *shellFollow) wait() {
	s.t.Helper()
	select {
	case err := <-s.exited:
		if err != nil {
			s.t.Fatalf("busctl follow: %v\n%s", err, s.stderr.String())
		}
	case <-time.After(20 * time.Second):
		s.t.Fatal("busctl follow still running")
	}
}

func TestBusctlFollow(t *testing.T) {
	b := startTelegramBus(t, "")
	dir := sessionDir(t, "shelly")
	fl := b.startFollow(t, dir, "--profile-key", "shell:test")
	reg := fl.next("registered")
	if reg["origin"] != "FRESH" || reg["platform"] != "telegram" {
		t.Fatalf("registered %v", reg)
	}
	thread := b.topicOf(t, "shelly")

	// Updates out, one JSON line each, with the neutral fields and the
	// platform's update.
	upd := b.tg.PushMessage(forumChat, thread, allowedUser, "hello shell")
	u := fl.next("update")
	payload, _ := u["payload"].(map[string]any)
	refs, _ := u["references"].([]any)
	if u["text"] != "hello shell" || u["kind"] != "message" || u["thread"] != strconv.Itoa(thread) ||
		u["sender"] != strconv.FormatInt(allowedUser, 10) || payload["update_id"] != float64(upd) || len(refs) != 1 {
		t.Errorf("update line %v", u)
	}

	// Replies in: plain text is a message in the thread.
	fl.send("hello from the shell")
	res := fl.next("result")
	if res["line"] != float64(1) || len(res["message_ids"].([]any)) != 1 {
		t.Errorf("result %v", res)
	}
	if msgs := b.waitSent(t, thread, 1); msgs[0].Text != "hello from the shell" {
		t.Errorf("sent %+v", msgs)
	}
	// A JSON line is any allowed call, scoped to the thread.
	fl.send(`{"method":"sendChatAction","params":{"action":"typing"}}`)
	if res := fl.next("result"); res["line"] != float64(2) || res["result"] != true {
		t.Errorf("sendChatAction %v", res)
	}
	testkit.Eventually(t, "typing", func() bool { return slices.Contains(b.tg.ChatActions(forumChat, thread), "typing") })
	fl.send(`{"method":"sendMessage","params":{"text":"x","message_thread_id":99999}}`)
	if e := fl.next("error"); e["line"] != float64(3) || e["code"] != "PermissionDenied" {
		t.Errorf("out of scope: %v", e)
	}
	fl.send(`{not json`)
	if e := fl.next("error"); e["line"] != float64(4) || e["code"] != "InvalidArgument" {
		t.Errorf("bad JSON: %v", e)
	}
	long := strings.Repeat("para one ", 400) + "\n\n" + strings.Repeat("para two ", 400) // > 4096
	fl.send(strings.ReplaceAll(long, "\n", " "))                                         // one input line: split at words
	if res := fl.next("result"); len(res["message_ids"].([]any)) != 2 {
		t.Errorf("long line: %v", res)
	}

	// EOF suspends and prints the handoff token.
	fl.stdin.Close()
	h := fl.next("handoff")
	token, _ := h["token"].(string)
	fl.wait()
	if token == "" || !strings.Contains(fl.stderr.String(), token) {
		t.Fatalf("handoff %v; stderr:\n%s", h, fl.stderr.String())
	}

	// What arrives meanwhile is held; the resumed follow gets the thread
	// by its token and that update, once.
	b.tg.PushMessage(forumChat, thread, allowedUser, "while suspended")
	again := b.startFollow(t, dir, "--profile-key", "shell:test", "--handoff", token)
	if reg := again.next("registered"); reg["origin"] != "HANDOFF" {
		t.Fatalf("resumed: %v", reg)
	}
	if u := again.next("update"); u["text"] != "while suspended" {
		t.Errorf("after the handoff: %v", u)
	}
	// Ctrl-C suspends as well.
	again.cmd.Process.Signal(syscall.SIGINT)
	if h := again.next("handoff"); h["token"] == "" || h["token"] == token {
		t.Errorf("handoff at SIGINT: %v", h)
	}
	again.wait()
	if len(b.tg.Topics(forumChat)) != 1 {
		t.Errorf("topics %+v", b.tg.Topics(forumChat))
	}
}
