package main

import (
	"context"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rs/zerolog"

	"github.com/chatbus/chatbus/internal/inboxtest"
	"github.com/chatbus/chatbus/internal/testkit"
)

// TestInboxReports: a post names chatbus-mcp's reply socket and an id,
// and learns from the stand-in's reports, sent as Claude Code sends
// them, what became of the message: taken at once (no report), held
// then delivered, held then declined, refused, dropped; the reply socket
// sits in the inbox's directory and goes at close.
func TestInboxReports(t *testing.T) {
	dir := shortDir(t)
	in := inboxtest.Start(t, filepath.Join(dir, "4242.sock"))
	held := make(chan report, 8)
	p := newInboxPoster(zerolog.New(zerolog.NewTestWriter(t)), nil)
	defer p.close()
	p.settle, p.trail = 100*time.Millisecond, 200*time.Millisecond // the stand-in reports at once
	ctx := context.Background()
	post := func(text string) report {
		t.Helper()
		r, err := p.post(ctx, in.Path, in.Token, text, func(r report) { held <- r })
		if err != nil {
			t.Fatal(err)
		}
		return r
	}

	if r := post("taken"); r.status != statusDelivered || len(held) != 0 {
		t.Errorf("accepted: %+v, %d held", r, len(held))
	}
	msgs := in.Messages()
	if len(msgs) != 1 || msgs[0].ID == "" || msgs[0].From != "uds:"+filepath.Join(dir, "chatbus-"+strconv.Itoa(os.Getpid())+".sock") {
		t.Fatalf("the line: %+v", msgs)
	}

	in.SetPolicy(inboxtest.Hold)
	done := make(chan report, 1)
	go func() {
		r, _ := p.post(ctx, in.Path, in.Token, "held, then approved", func(r report) { held <- r })
		done <- r
	}()
	testkit.Eventually(t, "the message held", func() bool { return len(in.Held()) == 1 })
	select {
	case r := <-done:
		t.Fatalf("the post ended while held: %+v", r)
	case <-time.After(2 * p.trail): // longer than a post waits for a report
	}
	in.SetPolicy(inboxtest.Accept)
	if r := <-done; r.status != statusDelivered || len(held) != 1 {
		t.Errorf("held then delivered: %+v, %d held", r, len(held))
	}
	if h := <-held; h.status != statusHeld || !strings.Contains(h.reason, "approval") {
		t.Errorf("held: %+v", h)
	}

	in.SetPolicy(inboxtest.Hold)
	go func() { r, _ := p.post(ctx, in.Path, in.Token, "held, then declined", nil); done <- r }()
	testkit.Eventually(t, "the message held", func() bool { return len(in.Held()) == 1 })
	in.Deny()
	if r := <-done; r.status != statusDenied {
		t.Errorf("declined: %+v", r)
	}

	in.SetPolicy(inboxtest.Refuse)
	if r := post("refused"); r.status != statusRefused || !strings.Contains(r.reason, "not accepting") {
		t.Errorf("refused: %+v", r)
	}
	in.SetPolicy(inboxtest.Accept)
	in.DropNext("rate-limited")
	if r := post("dropped"); r.status != statusDropped || r.dropReason != "rate-limited" {
		t.Errorf("dropped: %+v", r)
	}
	if r := post("taken again"); r.status != statusDelivered {
		t.Errorf("after the drop: %+v", r)
	}

	// The session ends while a post waits for a report: taken, as no
	// hold or refusal came.
	p.settle, p.trail = time.Hour, time.Hour
	cctx, cancel := context.WithCancel(ctx)
	go func() { r, err := p.post(cctx, in.Path, in.Token, "taken at the end", nil); done <- r; _ = err }()
	testkit.Eventually(t, "the last message taken", func() bool { return len(in.Messages()) == 4 })
	cancel()
	if r := <-done; r.status != statusDelivered {
		t.Errorf("ended while waiting for a report: %+v", r)
	}

	var texts []string
	for _, m := range in.Messages() {
		texts = append(texts, m.Content)
	}
	if strings.Join(texts, "|") != "taken|held, then approved|taken again|taken at the end" {
		t.Errorf("the session took %q", texts)
	}
	for _, r := range in.Reports() {
		if r.Err != nil || r.OrigID == "" {
			t.Errorf("a report: %+v", r)
		}
	}
	sock := filepath.Join(dir, "chatbus-"+strconv.Itoa(os.Getpid())+".sock")
	if st, err := os.Stat(sock); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("reply socket %s: %v %v", sock, st, err)
	}
	p.close()
	if _, err := os.Stat(sock); !os.IsNotExist(err) {
		t.Errorf("the reply socket stays after close: %v", err)
	}
}

// TestReplySocketLines: the reply socket reads Claude Code's report
// lines, refused as Claude Code writes it (expired, status_detail
// refused), a drop reported for several ids at once, a report for an id
// no post waits for (late), and ignores what is not a report.
func TestReplySocketLines(t *testing.T) {
	dir := shortDir(t)
	late := make(chan string, 4)
	s := newReplySocket(zerolog.New(zerolog.NewTestWriter(t)), func(id string, r report) { late <- id + " " + r.status })
	defer s.close()
	from, err := s.bind(dir)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := s.expect("a")
	b, _ := s.expect("b")
	write := func(line string) {
		t.Helper()
		c, err := net.Dial("unix", unescapeFrom(from))
		if err != nil {
			t.Fatal(err)
		}
		c.Write([]byte(line + "\n"))
		c.Close()
	}
	write(`not json`)
	write(`{"type":"user","message":{"role":"user","content":"x"}}`)
	write(`{"type":"control","action":"peer_message_status","status":"expired","status_detail":"refused","reason":"no","orig_msg_id":"a","msgV":1,"msg_id":"x"}`)
	if r := <-a; r.status != statusRefused || r.reason != "no" {
		t.Errorf("refused: %+v", r)
	}
	write(`{"type":"control","action":"peer_message_status","status":"dropped","drop_reason":"queue-full","orig_msg_id":"c","dropped_msg_ids":["a","b","c"],"msgV":1,"msg_id":"y"}`)
	for _, ch := range []<-chan report{a, b} {
		if r := <-ch; r.status != statusDropped || r.dropReason != "queue-full" {
			t.Errorf("dropped: %+v", r)
		}
	}
	if got := <-late; got != "c dropped" {
		t.Errorf("late: %q", got)
	}
}

// TestFromAddress: the from address escapes a path as Claude Code does.
func TestFromAddress(t *testing.T) {
	for _, tt := range []struct{ path, want string }{
		{"/tmp/cc-socks/chatbus-1.sock", "uds:/tmp/cc-socks/chatbus-1.sock"},
		{"/run/user/1000/cc socks/é.sock", "uds:/run/user/1000/cc%20socks/%C3%A9.sock"},
	} {
		if got := fromAddress(tt.path); got != tt.want || unescapeFrom(got) != tt.path {
			t.Errorf("fromAddress(%q) = %q (back: %q), want %q", tt.path, got, unescapeFrom(got), tt.want)
		}
	}
}

// unescapeFrom is the path a from address names.
func unescapeFrom(from string) string {
	p, err := url.PathUnescape(strings.TrimPrefix(from, "uds:"))
	if err != nil {
		return strings.TrimPrefix(from, "uds:")
	}
	return p
}
