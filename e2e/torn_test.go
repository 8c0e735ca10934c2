package e2e

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/chatbus/chatbus/client"
	"github.com/chatbus/chatbus/provider/telegram/tgtest"
)

// TestTornJournalWrite: the supervisor's journal cut off (a torn write) at
// many offsets of its last segment, or a byte of its last batch damaged,
// and the real supervisor started on it with a Telegram stand-in that
// offers every update again from its first id. Every update must reach the
// follower exactly once, in order: those whose journal batch survived from
// the journal (the stand-in offers only ids from the cursor stored with
// the last surviving batch: a record lost while its cursor survived would
// be missing), the rest fetched again from the platform (the cursor was not
// advanced past them). Damage before the last batch is refused, naming the
// segment.
func TestTornJournalWrite(t *testing.T) {
	const n = 24
	var texts []string
	for i := range n {
		texts = append(texts, fmt.Sprintf("torn %02d %s", i, strings.Repeat("x", 40*i)))
	}
	// One run that journals n updates, one batch each, none acked, then
	// SIGKILL: its state directory is the original.
	tg := tgtest.New(t)
	tg.AddForum(forumChat)
	p := newProfile(t)
	b := startBus(t, p, telegramConfig(tg, ""))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	f, err := b.c.Register(ctx, client.Registration{ProfileKey: "manual:torn", Cwd: "/w/torn", InstanceID: "torn-1"})
	if err != nil {
		t.Fatal(err)
	}
	thread := int(f.Registered().GetBinding().GetTarget().GetThreadId())
	for _, text := range texts {
		id := tg.PushMessage(forumChat, thread, allowedUser, text)
		deadline := time.Now().Add(20 * time.Second)
		for tg.Confirmed() < id { // acknowledged to the provider: durable
			if time.Now().After(deadline) {
				t.Fatalf("update %d was never confirmed", id)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
	if err := b.d.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	<-b.d.exited
	seg, data := lastSegment(t, p.state)
	t.Logf("last segment %s: %d bytes of frames", filepath.Base(seg), len(data))
	lastBatch := lastBatchStart(data, texts[n-1])

	type damage struct {
		name    string
		cut     int // truncate the segment here; -1: keep its length
		flip    int // then flip this byte; -1: none
		refused bool
	}
	var cases []damage
	for _, frac := range []float64{0, 0.05, 0.2, 0.35, 0.5, 0.65, 0.8, 0.95} {
		cases = append(cases, damage{name: fmt.Sprintf("cut at %d%%", int(frac*100)), cut: int(frac * float64(len(data))), flip: -1})
	}
	for _, back := range []int{1, 9, 30} {
		cases = append(cases, damage{name: fmt.Sprintf("cut %d bytes before the end", back), cut: len(data) - back, flip: -1})
	}
	cases = append(cases,
		damage{name: "a byte of the last batch flipped", cut: -1, flip: lastBatch + (len(data)-lastBatch)/2},
		damage{name: "a byte of an earlier batch flipped", cut: -1, flip: lastBatch / 2, refused: true},
	)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p2 := newProfile(t)
			copyTree(t, p.state, p2.state)
			seg2 := filepath.Join(p2.state, strings.TrimPrefix(seg, p.state))
			d := slices.Clone(data)
			if tc.cut >= 0 {
				d = d[:tc.cut]
			}
			if tc.flip >= 0 {
				d[tc.flip] ^= 0x5a
			}
			if err := os.WriteFile(seg2, d, 0o600); err != nil {
				t.Fatal(err)
			}
			// The platform offers every update again, with the same ids.
			tg2 := tgtest.New(t)
			tg2.AddForum(forumChat)
			if _, err := tg2.Client().CreateForumTopic(context.Background(), forumChat, "torn", 0); err != nil {
				t.Fatal(err)
			}
			for _, text := range texts {
				tg2.PushMessage(forumChat, thread, allowedUser, text)
			}
			if tc.refused {
				path := filepath.Join(t.TempDir(), "config.yaml")
				os.WriteFile(path, []byte(telegramConfig(tg2, "")), 0o600)
				d := p2.start("--config", path)
				if err := d.wait(t, 20*time.Second); err == nil {
					t.Fatal("supervisord started on a journal damaged before its last batch")
				}
				contains(t, "stderr", d.stderr.String(), filepath.Base(seg))
				return
			}
			// Reconciliation waits for the follower however long the
			// start takes on a loaded machine: a binding forgotten before
			// it registers would get a fresh thread, and the update
			// fetched again would go to the old one.
			b2 := startBus(t, p2, strings.Replace(telegramConfig(tg2, ""), "reconcile_grace: 1s", "reconcile_grace: 10m", 1))
			fl := follow(t, b2.c, "manual:torn", "/w/torn")
			fl.waitTextsWithin(t, 60*time.Second, texts...)
			if got := fl.f.Registered().GetBinding().GetTarget().GetThreadId(); int(got) != thread {
				t.Errorf("thread %d after the restart, want %d", got, thread)
			}
		})
	}
}

// lastSegment returns the path of the journal's last segment under state
// and its bytes up to the end of what was written (it is preallocated:
// zeros follow).
func lastSegment(t *testing.T, state string) (string, []byte) {
	t.Helper()
	segs, _ := filepath.Glob(filepath.Join(state, "*.journal", "*.seg"))
	if len(segs) == 0 {
		t.Fatalf("no journal segment under %s", state)
	}
	slices.Sort(segs)
	var last string
	var data []byte
	for _, s := range slices.Backward(segs) {
		b, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		if end := len(bytes.TrimRight(b, "\x00")); end > 0 {
			last, data = s, b[:end]
			break
		}
	}
	if last == "" {
		t.Fatal("every segment is empty")
	}
	return last, data
}

// lastBatchStart finds where the batch holding the last update begins: the
// frame that holds its text, less a margin inside the same frame. (Frames
// are not parsed here; the text is in the data of the last entry, which
// the batch's first frame is.)
func lastBatchStart(data []byte, lastText string) int {
	i := bytes.LastIndex(data, []byte(lastText))
	if i < 0 {
		return len(data) / 2
	}
	return i
}

// copyTree copies the directory from into to (created), files and
// directories, skipping sockets.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.Walk(from, func(path string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		dst := filepath.Join(to, rel)
		switch {
		case fi.IsDir():
			return os.MkdirAll(dst, 0o700)
		case !fi.Mode().IsRegular():
			return nil
		}
		src, err := os.Open(path)
		if err != nil {
			return err
		}
		defer src.Close()
		out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, fi.Mode().Perm())
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, src); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	})
	if err != nil {
		t.Fatal(err)
	}
}
