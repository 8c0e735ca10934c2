package e2e

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/chatbus/chatbus/client"
	"github.com/chatbus/chatbus/internal/testkit"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
	"github.com/chatbus/chatbus/provider/telegram/botapi"
	"github.com/chatbus/chatbus/provider/telegram/tgtest"
)

// The outbound scheduler against a Telegram stand-in that enforces
// Telegram's limits (tgtest.TelegramLimits: 30 calls a second, 3 in 3 s
// in a chat, 20 a minute in a group, 429 with retry_after beyond them),
// with the supervisor's default settings. The subtests run in parallel:
// the first takes a minute of real time, which is what 40 messages in one
// group take at 20 a minute.

// pacedBus is a supervisord on a rate-limited Telegram stand-in.
type pacedBus struct {
	*tgBus
	t *testing.T
}

func startPacedBus(t *testing.T) *pacedBus {
	tg := tgtest.New(t, tgtest.WithRateLimits(tgtest.TelegramLimits))
	tg.AddForum(forumChat)
	b := startBus(t, newProfile(t), telegramConfig(tg, ""))
	b.tg = tg
	b.waitProvider(t, func(pi *chatbusv1.ProviderInfo) bool {
		return pi.GetState() == chatbusv1.ProviderState_PROVIDER_STATE_RUNNING && pi.GetOutbound() != nil && len(pi.GetOutbound().GetLimits()) == 3
	}, "RUNNING with Telegram's limits")
	return &pacedBus{tgBus: b, t: t}
}

// taken is how many calls the provider's queue has taken so far.
func (b *pacedBus) taken() uint64 {
	q := b.provider(b.t).GetOutbound()
	return q.GetSent() + uint64(q.GetQueued()) + q.GetCoalesced() + q.GetSkipped()
}

// session is a follower that only sends.
type session struct {
	name string
	f    *client.Follower
}

func (b *pacedBus) session(name string) *session {
	b.t.Helper()
	fl := b.follow(b.t, "pace:"+name, sessionDir(b.t, name))
	return &session{name: name, f: fl.f}
}

func (s *session) thread() int {
	n, _ := strconv.Atoi(s.f.Registered().GetBinding().GetTarget().GetThread())
	return n
}

// sends runs calls in the background, each once the previous one was
// taken by the supervisor's queue, so that they are queued in this order
// (and at once: each is taken in milliseconds, long before the limits let
// them go). wait returns their errors in that order.
type sends struct {
	b    *pacedBus
	wg   sync.WaitGroup
	mu   sync.Mutex
	errs []error
}

func (b *pacedBus) sends() *sends { return &sends{b: b} }

func (ss *sends) add(call func() error) {
	ss.b.t.Helper()
	before := ss.b.taken()
	ss.mu.Lock()
	i := len(ss.errs)
	ss.errs = append(ss.errs, nil)
	ss.mu.Unlock()
	ss.wg.Add(1)
	go func() {
		defer ss.wg.Done()
		err := call()
		ss.mu.Lock()
		ss.errs[i] = err
		ss.mu.Unlock()
	}()
	deadline := time.Now().Add(20 * time.Second)
	for ss.b.taken() == before {
		if time.Now().After(deadline) {
			ss.b.t.Fatalf("call %d was never taken by the queue", i)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func (ss *sends) wait() []error {
	ss.wg.Wait()
	return ss.errs
}

// arrivals are the texts the stand-in accepted in the chat, in the order
// it accepted them (message ids grow per chat), with their thread.
func (b *pacedBus) arrivals(threads ...int) []botapi.Message {
	var all []botapi.Message
	for _, th := range threads {
		all = append(all, b.tg.Sent(forumChat, th)...)
	}
	slices.SortFunc(all, func(a, c botapi.Message) int { return a.MessageID - c.MessageID })
	return all
}

func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

func TestTelegramPacing(t *testing.T) {
	// Four sessions each send ten messages at once into one forum group:
	// all get OK, the stand-in gives at most one 429, the first 20
	// accepted hold at least four of each session, each session's order is
	// kept and every text lands once.
	t.Run("fair and paced", func(t *testing.T) {
		t.Parallel()
		b := startPacedBus(t)
		ctx := ctxFor(t, 3*time.Minute)
		names := []string{"a", "b", "c", "d"}
		var sessions []*session
		var threads []int
		for _, n := range names {
			s := b.session(n)
			sessions = append(sessions, s)
			threads = append(threads, s.thread())
		}
		ss := b.sends()
		for i := range 10 {
			for _, s := range sessions {
				text := fmt.Sprintf("%s-%02d", s.name, i)
				ss.add(func() error { _, err := s.f.Send(ctx, client.Message{Text: text}, ""); return err })
			}
		}
		for i, err := range ss.wait() {
			if err != nil {
				t.Errorf("send %d: %v", i, err)
			}
		}
		got := b.arrivals(threads...)
		if n := b.tg.RateLimited(); n > 1 {
			t.Errorf("the stand-in answered 429 %d times", n)
		}
		if len(got) != 40 {
			t.Fatalf("%d messages arrived, want 40", len(got))
		}
		per := map[string]int{}
		for _, m := range got[:20] {
			per[m.Text[:1]]++
		}
		for _, n := range names {
			if per[n] < 4 {
				t.Errorf("session %s has %d of the first 20: %v", n, per[n], texts(got[:20]))
			}
		}
		seen := map[string]bool{}
		last := map[string]string{}
		for _, m := range got {
			if seen[m.Text] {
				t.Errorf("%s arrived twice", m.Text)
			}
			seen[m.Text] = true
			if prev := last[m.Text[:1]]; prev > m.Text {
				t.Errorf("%s arrived after %s", m.Text, prev)
			}
			last[m.Text[:1]] = m.Text
		}
		q := b.provider(t).GetOutbound()
		t.Logf("429s %d; queue: sent %d, rate limited %d, refused %d; arrival order %v", b.tg.RateLimited(), q.GetSent(), q.GetRateLimited(), q.GetRefused(), texts(got))
	})

	// A permission prompt sent behind a 30-message backlog of other
	// sessions is the next message sent, at most one other before it (one
	// under way when it came).
	t.Run("prompt first", func(t *testing.T) {
		t.Parallel()
		b := startPacedBus(t)
		ctx := ctxFor(t, 3*time.Minute)
		var sessions []*session
		var threads []int
		for _, n := range []string{"a", "b", "c", "p"} {
			s := b.session(n)
			sessions = append(sessions, s)
			threads = append(threads, s.thread())
		}
		ss := b.sends()
		for i := range 10 {
			for _, s := range sessions[:3] {
				text := fmt.Sprintf("%s-%02d", s.name, i)
				ss.add(func() error { _, err := s.f.Send(ctx, client.Message{Text: text}, ""); return err })
			}
		}
		// Two bursts of the chat's three are out: the next opens in about
		// three seconds, with 24 messages waiting.
		testkit.Eventually(t, "the backlog to be under way", func() bool { return len(b.arrivals(threads...)) >= 6 })
		before := int(b.provider(t).GetOutbound().GetSent())
		p := sessions[3]
		ids, err := p.f.Send(ctx, client.Message{Text: "🔐 may I run `make test`?", Prompt: true,
			Buttons: []client.Button{{Label: "Allow", Data: "perm:allow:abcde"}, {Label: "Deny", Data: "perm:deny:abcde"}}}, "")
		if err != nil {
			t.Fatal(err)
		}
		got := b.arrivals(threads...)
		i := slices.IndexFunc(got, func(m botapi.Message) bool { return strconv.Itoa(m.MessageID) == ids[0] })
		if i < 0 || i > before+1 {
			t.Fatalf("the prompt arrived %dth; %d had been sent when it was: %v", i, before, texts(got))
		}
		if n := b.tg.RateLimited(); n > 1 {
			t.Errorf("the stand-in answered 429 %d times", n)
		}
	})

	// 30 edits of one message in two seconds reach the platform as at
	// most 8 edits, the last one "v30"; every caller gets OK.
	t.Run("edits coalesce", func(t *testing.T) {
		t.Parallel()
		b := startPacedBus(t)
		ctx := ctxFor(t, time.Minute)
		s := b.session("a")
		ids, err := s.f.Send(ctx, client.Message{Text: "v0"}, "")
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make([]error, 31)
		tick := time.NewTicker(2 * time.Second / 30)
		defer tick.Stop()
		for i := 1; i <= 30; i++ {
			wg.Add(1)
			go func() { defer wg.Done(); errs[i] = s.f.Edit(ctx, ids[0], fmt.Sprintf("v%d", i), nil, "") }()
			<-tick.C
		}
		wg.Wait()
		for i, err := range errs {
			if err != nil {
				t.Errorf("edit v%d: %v", i, err)
			}
		}
		if n := b.tg.Calls("editMessageText"); n > 8 || n < 1 {
			t.Errorf("%d edits reached the platform, want 1 to 8", n)
		}
		if m := b.tg.Sent(forumChat, s.thread()); len(m) != 1 || m[0].Text != "v30" {
			t.Errorf("the message reads %+v, want v30", m)
		}
		if q := b.provider(t).GetOutbound(); q.GetCoalesced() < 20 {
			t.Errorf("coalesced %d", q.GetCoalesced())
		}
	})

	// 20 typing calls in a second make at most 3 platform calls.
	t.Run("typing", func(t *testing.T) {
		t.Parallel()
		b := startPacedBus(t)
		ctx := ctxFor(t, time.Minute)
		s := b.session("a")
		for range 20 {
			if err := s.f.Typing(ctx); err != nil {
				t.Fatal(err)
			}
			time.Sleep(50 * time.Millisecond)
		}
		if n := b.tg.Calls("sendChatAction"); n > 3 || n < 1 {
			t.Errorf("%d typing calls reached the platform, want 1 to 3", n)
		}
	})

	// One session's 40-message backlog does not delay another session's
	// single message by more than two sends.
	t.Run("backlog", func(t *testing.T) {
		t.Parallel()
		b := startPacedBus(t)
		ctx := ctxFor(t, 3*time.Minute)
		a, other := b.session("a"), b.session("b")
		threads := []int{a.thread(), other.thread()}
		ss := b.sends()
		for i := range 40 {
			text := fmt.Sprintf("a-%02d", i)
			ss.add(func() error { _, err := a.f.Send(ctx, client.Message{Text: text}, ""); return err })
		}
		testkit.Eventually(t, "the backlog to be under way", func() bool { return len(b.arrivals(threads...)) >= 3 })
		before := int(b.provider(t).GetOutbound().GetSent())
		ids, err := other.f.Send(ctx, client.Message{Text: "b-00"}, "")
		if err != nil {
			t.Fatal(err)
		}
		got := b.arrivals(threads...)
		i := slices.IndexFunc(got, func(m botapi.Message) bool { return strconv.Itoa(m.MessageID) == ids[0] })
		if i < 0 || i > before+2 {
			t.Fatalf("b's message arrived %dth; %d had been sent when it was: %v", i, before, texts(got))
		}
	})
}

func texts(ms []botapi.Message) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Text
	}
	return out
}
