package discord

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestCursor(t *testing.T) {
	tests := []struct {
		name, in, channel string
		want              cursor
		err               string
	}{
		{name: "none", channel: "10", want: cursor{V: 1, Channel: "10", Threads: map[string]string{}}},
		{name: "round trip", channel: "10", in: `{"v":1,"channel":"10","session":"s","seq":7,"resume_url":"wss://r","threads":{"20":"25","bad":"1"}}`,
			want: cursor{V: 1, Channel: "10", Session: "s", Seq: 7, ResumeURL: "wss://r", Threads: map[string]string{"20": "25"}}},
		{name: "another channel keeps the session only", channel: "11", in: `{"v":1,"channel":"10","session":"s","seq":7,"threads":{"20":"25"}}`,
			want: cursor{V: 1, Channel: "11", Session: "s", Seq: 7, Threads: map[string]string{}}},
		{name: "a Telegram offset", channel: "10", in: `1001`, err: "not a Discord cursor"},
		{name: "another version", channel: "10", in: `{"v":2}`, err: "version 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeCursor([]byte(tt.in), tt.channel)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("got %+v, want %+v", got, tt.want)
			}
			again, err := decodeCursor(got.encode(), tt.channel)
			if err != nil || fmt.Sprint(again) != fmt.Sprint(got) {
				t.Errorf("round trip: %+v %v", again, err)
			}
		})
	}
}

// TestCursorMarks: a mark only moves forward; beyond maxMarks the least
// recently active unbound threads are forgotten, never a bound one.
func TestCursorMarks(t *testing.T) {
	c := cursor{Threads: map[string]string{}}
	none := func(string) bool { return false }
	c.mark("5", "100", none)
	c.mark("5", "90", none)
	if c.Threads["5"] != "100" {
		t.Fatalf("mark moved back: %v", c.Threads)
	}
	bound := func(th string) bool { return th == "1" }
	c.mark("1", "2", bound) // the oldest, but bound
	for i := range maxMarks + 10 {
		c.mark(fmt.Sprint(1000+i), fmt.Sprint(5000+i), bound)
	}
	if len(c.Threads) != maxMarks {
		t.Errorf("%d marks, want %d", len(c.Threads), maxMarks)
	}
	if c.Threads["1"] != "2" {
		t.Error("a bound thread's mark was forgotten")
	}
	if _, ok := c.Threads["5"]; ok {
		t.Error("the least recently active unbound thread was kept")
	}
	if c.Threads[fmt.Sprint(1000+maxMarks+9)] == "" {
		t.Error("the newest mark was forgotten")
	}
}

// TestTimingBackoff: each wait doubles from its first to its cap, ±20%
// for reconnects and refusals, exact for REST retries.
func TestTimingBackoff(t *testing.T) {
	const ms = time.Millisecond
	tm := Timing{}.withDefaults()
	tests := []struct {
		name   string
		wait   func(int) time.Duration
		n      int
		step   time.Duration
		jitter bool
	}{
		{name: "reconnect at once", wait: tm.backoff, n: 0, step: 0},
		{name: "first reconnect wait", wait: tm.backoff, n: 1, step: time.Second, jitter: true},
		{name: "third reconnect wait", wait: tm.backoff, n: 3, step: 4 * time.Second, jitter: true},
		{name: "reconnect capped", wait: tm.backoff, n: 7, step: 30 * time.Second, jitter: true},
		{name: "first refusal", wait: tm.fatalBackoff, n: 0, step: 10 * time.Second, jitter: true},
		{name: "fifth refusal", wait: tm.fatalBackoff, n: 4, step: 160 * time.Second, jitter: true},
		{name: "refusals capped", wait: tm.fatalBackoff, n: 5, step: 5 * time.Minute, jitter: true},
		{name: "first REST retry", wait: tm.retryBackoff, n: 0, step: 250 * ms},
		{name: "third REST retry", wait: tm.retryBackoff, n: 2, step: time.Second},
		{name: "REST retries capped", wait: tm.retryBackoff, n: 7, step: 30 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lo, hi := tt.step, tt.step
			if tt.jitter {
				lo, hi = tt.step*4/5, tt.step*6/5+1
			}
			for range 200 {
				if d := tt.wait(tt.n); d < lo || d > hi {
					t.Fatalf("wait(%d) = %v, want within [%v, %v]", tt.n, d, lo, hi)
				}
			}
		})
	}
}

func TestTiming(t *testing.T) {
	tm := Timing{}.withDefaults()
	if tm.backoff(0) != 0 {
		t.Error("the first reconnect waits")
	}
	for n := 1; n < 20; n++ {
		if d := tm.backoff(n); d < 800*1e6 || d > 36*1e9 {
			t.Errorf("backoff(%d) = %v", n, d)
		}
		if d := tm.identifyDelay(); d < 1e9 || d > 5e9 {
			t.Errorf("identify delay %v", d)
		}
	}
}
