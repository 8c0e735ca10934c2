package control

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"go.uber.org/goleak"

	"github.com/chatbus/chatbus/server/events"
	"github.com/chatbus/chatbus/server/store"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// side is the supervisor and the messenger the commands see: it counts
// what they did and keeps what they sent.
type side struct {
	mu       sync.Mutex
	statuses int
	restarts []string
	stops    []string
	sent     []sent
	answered []string
	progress int
	// refuseEdits: the platform refuses every edit.
	refuseEdits bool
}

type sent struct {
	key string
	t   store.Target
	m   Message
}

func (s *side) Sessions() []Session {
	return []Session{
		{Slot: "B", Provider: "chat", Thread: "9", ThreadName: "beta", Live: true, Agent: "pi", Dir: "/src/beta", Host: "h"},
		{Slot: "A", Provider: "chat", Thread: "8", ThreadName: "alpha", Live: true, Agent: "claude-code", Dir: "/src/alpha", Host: "h",
			Link: "https://example.test/8", Working: true, Queued: 2},
		{Slot: "C", Provider: "chat", Thread: "7", ThreadName: "old", Status: "offline"},
	}
}

func (s *side) Status() Status {
	s.mu.Lock()
	s.statuses++
	s.mu.Unlock()
	return Status{Version: "v1", Started: time.Now().Add(-time.Hour), Followers: 2,
		Providers: []ProviderStatus{{Name: "chat", State: "running", Serving: true, Attached: 2}}}
}

func (s *side) CommandPrefix(string) string { return "/" }

func (s *side) Restart(_ context.Context, provider string, step func(string)) (string, bool, error) {
	s.mu.Lock()
	s.restarts = append(s.restarts, provider)
	s.mu.Unlock()
	if provider != "chat" {
		return "", false, errors.New("unknown provider")
	}
	step("observe")
	step("ready")
	return "restarted in 1s", true, nil
}

func (s *side) RequestStop(provider, chat, slot string, _ Requester) (Session, error) {
	s.mu.Lock()
	s.stops = append(s.stops, slot)
	s.mu.Unlock()
	if slot != "A" {
		return Session{}, ErrNoSession
	}
	return Session{Slot: "A", ThreadName: "alpha"}, nil
}

func (s *side) Send(_ context.Context, t store.Target, m Message, key string) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sent = append(s.sent, sent{key, t, m})
	return "m1", nil
}

// Edit keeps an answer that replaces a message (its key set); progress
// edits (no key) are counted.
func (s *side) Edit(_ context.Context, t store.Target, id string, m Message, key string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.refuseEdits {
		return errors.New("denied: no edits here")
	}
	if key == "" {
		s.progress++
		return nil
	}
	m.EditOf = id
	s.sent = append(s.sent, sent{key, t, m})
	return nil
}

func (s *side) Answer(_ context.Context, _ store.Target, id, _ string) error {
	s.mu.Lock()
	s.answered = append(s.answered, id)
	s.mu.Unlock()
	return nil
}

func (s *side) sends() []sent {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]sent(nil), s.sent...)
}

// rig is a Controller over a real store in a temporary directory.
type rig struct {
	st   *store.Bolt
	side *side
	evs  *events.Hub
	c    *Controller
}

func newRig(t *testing.T, l Launcher) *rig {
	t.Helper()
	st, err := store.Open(filepath.Join(t.TempDir(), "state.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	r := &rig{st: st, side: &side{}, evs: events.NewHub(zerolog.Nop())}
	r.c = New(Config{Store: st, Supervisor: r.side, Messenger: r.side, Launcher: l, Events: r.evs, Logger: zerolog.Nop()})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); r.c.Wait() })
	r.c.Start(ctx)
	return r
}

// journal appends updates of provider "chat" as the hub does, and returns
// them as stored.
func (r *rig) journal(t *testing.T, ups ...store.Update) []store.Update {
	t.Helper()
	stored, err := r.st.Append(context.Background(), "chat", ups, nil)
	if err != nil {
		t.Fatal(err)
	}
	return stored
}

func command(id, text string) store.Update {
	return store.Update{Kind: store.UpdateCommand, DedupID: id, Chat: "c1", Sender: "42", SenderName: "@me", Text: text}
}

func (r *rig) events(kind events.Kind) []events.Event {
	var out []events.Event
	for _, e := range r.evs.Recent() {
		if e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

// TestCommandsAnswered: each command's answer goes to the chat's control
// place under a key derived from the update, and is an event.
func TestCommandsAnswered(t *testing.T) {
	r := newRig(t, nil)
	r.c.Take(r.journal(t,
		command("1", "sessions"),
		command("2", "status"),
		command("3", "restart chat"),
		command("4", "restart nope"),
		command("5", "stop A"),
		command("6", "stop Z"),
		command("7", "new claude web"),
		command("8", "frobnicate"),
		command("9", "help"),
	))
	r.c.Wait()
	byKey := map[string]sent{}
	for _, s := range r.side.sends() {
		if s.t != (store.Target{Provider: "chat", Chat: "c1"}) {
			t.Errorf("answer %s sent to %+v, not the control place", s.key, s.t)
		}
		byKey[s.key] = s
	}
	want := map[string][]string{
		"answer/chat/1": {"**Sessions**: 2 live, 1 parked", "**A** [alpha](https://example.test/8) · Claude Code · working · `/src/alpha` on h · 2 queued",
			"**B** beta · pi · idle", "**C** old · follower · parked (offline)"},
		"answer/chat/2": {"**chatbus v1**: supervisor up 1h", "**chat**: running, serving, 2 attached, 0 queued"},
		"answer/chat/3": {"**chat restarted**: restarted in 1s", "1. observe", "2. ready"},
		"answer/chat/4": {"restart nope: no provider of that name (the providers: chat)"},
		"answer/chat/5": {"**A** (alpha) was not started by chatbus: it was asked to stop"},
		"answer/chat/6": {"No live session holds slot Z"},
		"answer/chat/7": {"No launch templates are configured"},
		"answer/chat/8": {`unknown command "frobnicate"`, "`/sessions`"},
		"answer/chat/9": {"`/new <template> [<project>]`", "No launch templates are configured"},
	}
	for key, says := range want {
		s, ok := byKey[key]
		if !ok {
			t.Errorf("no answer %s", key)
			continue
		}
		for _, w := range says {
			if !strings.Contains(s.m.Text, w) {
				t.Errorf("%s does not say %q:\n%s", key, w, s.m.Text)
			}
		}
	}
	// restart: a message as it began, which its answer replaces.
	if begun, ok := byKey["answer/chat/3/begun"]; !ok || begun.m.Text != "Restarting **chat**…" || byKey["answer/chat/3"].m.EditOf != "m1" {
		t.Errorf("restart's first message %+v; its answer replaces %q", begun, byKey["answer/chat/3"].m.EditOf)
	}
	if len(byKey) != len(want)+1 {
		t.Errorf("%d answers, want %d", len(byKey), len(want)+1)
	}
	if b := byKey["answer/chat/1"].m.Buttons; len(b) != 2 || b[0] != (Button{Label: "Stop A", Data: "/stop A"}) {
		t.Errorf("sessions buttons %+v", b)
	}
	evs := r.events(events.ControlCommand)
	if len(evs) != len(want) {
		t.Fatalf("%d command events, want %d", len(evs), len(want))
	}
	outcomes := map[string]string{}
	for _, e := range evs {
		outcomes[e.Attrs["command"]] = e.Attrs["outcome"]
		if e.Attrs["sender"] != "42" || e.Attrs["sender_name"] != "@me" || e.Attrs["provider"] != "chat" {
			t.Errorf("event %+v: who?", e.Attrs)
		}
	}
	for cmd, o := range map[string]string{"sessions": "ok", "restart chat": "ok", "restart nope": "refused", "stop Z": "refused",
		"new claude web": "refused", "frobnicate": "refused"} {
		if outcomes[cmd] != o {
			t.Errorf("outcome of %q: %q, want %q", cmd, outcomes[cmd], o)
		}
	}
}

// TestReplayRunsAtMostOnce: what the journal holds at start is taken up
// by its record: a command with none runs; one cut off mid-way is not run
// again and is answered as such; one that ran has its answer sent again
// under the same key; an old one, and a message that is no command, are
// left. Handed over again, none runs a second time.
func TestReplayRunsAtMostOnce(t *testing.T) {
	r := newRig(t, nil)
	old := command("5", "status")
	old.ReceivedAt = time.Now().Add(-2 * ReplayWindow)
	chat := store.Update{Kind: store.UpdateMessage, DedupID: "4", Chat: "c1", Text: "hello there"}
	stored := r.journal(t, command("1", "status"), command("2", "restart chat"), command("3", "sessions"), chat, old)
	// 2 was under way when the previous run stopped; 3 ran.
	if _, _, err := r.st.BeginCall(store.CallRecord{BindingKey: RecordBinding, Key: "chat/2", Provider: recordProvider("chat"),
		Method: "command", State: store.CallSending}); err != nil {
		t.Fatal(err)
	}
	ran, _ := json.Marshal(Message{Text: "the sessions, as answered"})
	rec, _, err := r.st.BeginCall(store.CallRecord{BindingKey: RecordBinding, Key: "chat/3", Provider: recordProvider("chat"),
		Method: "command", State: store.CallSending})
	if err != nil {
		t.Fatal(err)
	}
	rec.State, rec.Result = store.CallDone, ran
	if err := r.st.SetCall(rec); err != nil {
		t.Fatal(err)
	}

	if err := r.c.Replay(); err != nil {
		t.Fatal(err)
	}
	r.c.Wait()
	r.c.Take(stored[:4]) // the same updates once more (the old one never comes so)
	r.c.Wait()

	if r.side.statuses != 1 {
		t.Errorf("status ran %d times, want 1 (the old one not at all)", r.side.statuses)
	}
	if len(r.side.restarts) != 0 {
		t.Errorf("the cut-off restart ran again: %v", r.side.restarts)
	}
	texts := map[string][]string{}
	for _, s := range r.side.sends() {
		texts[s.key] = append(texts[s.key], s.m.Text)
	}
	if len(texts["answer/chat/1"]) != 2 || !strings.Contains(texts["answer/chat/1"][0], "supervisor up") ||
		texts["answer/chat/1"][0] != texts["answer/chat/1"][1] {
		t.Errorf("status answered %q (the second: its record's answer, under the same key)", texts["answer/chat/1"])
	}
	if got := texts["answer/chat/2"]; len(got) != 1 || !strings.Contains(got[0], "stopped while it ran `restart chat`") {
		t.Errorf("the cut-off command answered %q", got)
	}
	if got := texts["answer/chat/3"]; len(got) != 2 || got[0] != "the sessions, as answered" {
		t.Errorf("the command that ran answered %q", got)
	}
	if len(texts["answer/chat/4"])+len(texts["answer/chat/5"]) != 0 {
		t.Errorf("answered what it should not: %v", texts)
	}
	if n := len(r.events(events.ControlInterrupted)); n != 1 {
		t.Errorf("%d interrupted events, want 1", n)
	}
	if rec, err := r.st.GetCall(RecordBinding, "chat/2"); err != nil || rec.State != store.CallUnknown {
		t.Errorf("the cut-off command's record: %+v, %v", rec, err)
	}
}

// TestButtonPress: a pressed button in the control place whose data is a
// command runs it and answers the press; another bot's command, and a
// message that is no command, are not taken.
func TestButtonPress(t *testing.T) {
	r := newRig(t, nil)
	press := store.Update{Kind: store.UpdateCallbackQuery, DedupID: "1", Chat: "c1", Text: "/stop A",
		Refs: []store.Ref{{Kind: store.RefInteraction, ID: "q1"}}}
	other := store.Update{Kind: store.UpdateMessage, DedupID: "2", Chat: "c1", Text: "/status@otherbot"}
	inThread := store.Update{Kind: store.UpdateMessage, DedupID: "3", Chat: "c1", Thread: "8", Text: "/status"}
	plain := store.Update{Kind: store.UpdateMessage, DedupID: "4", Chat: "c1", Text: "good morning"}
	unknown := store.Update{Kind: store.UpdateMessage, DedupID: "5", Chat: "c1", Text: "/weather"}
	r.c.Take(r.journal(t, press, other, inThread, plain, unknown))
	r.c.Wait()
	if len(r.side.stops) != 1 || r.side.stops[0] != "A" || len(r.side.answered) != 1 || r.side.answered[0] != "q1" {
		t.Errorf("stops %v, presses answered %v", r.side.stops, r.side.answered)
	}
	if n := len(r.side.sends()); n != 1 || r.side.statuses != 0 {
		t.Errorf("%d answers, %d status runs; want the press's only", n, r.side.statuses)
	}
}

// TestNotAllowedIsAnEvent: a command from a sender not allowed runs
// nothing, is answered nothing, and is an event.
func TestNotAllowedIsAnEvent(t *testing.T) {
	r := newRig(t, nil)
	r.c.NotAllowed("chat", store.Update{Kind: store.UpdateCommand, Chat: "c1", Sender: "666", Text: "restart chat"})
	r.c.NotAllowed("chat", store.Update{Kind: store.UpdateMessage, Chat: "c1", Sender: "666", Text: "hello"})
	r.c.Wait()
	if len(r.side.restarts) != 0 || len(r.side.sends()) != 0 {
		t.Errorf("restarts %v, answers %d", r.side.restarts, len(r.side.sends()))
	}
	evs := r.events(events.ControlNotAllowed)
	if len(evs) != 1 || evs[0].Attrs["sender"] != "666" {
		t.Errorf("not-allowed events %+v", evs)
	}
}

// launcher is a Launcher that refuses a project and starts the rest.
type launcher struct{ stopped []string }

func (l *launcher) Templates() []Template {
	return []Template{{Name: "claude", Projects: []string{"web", "api"}}}
}

func (l *launcher) New(_ context.Context, r NewRequest) (Launched, error) {
	if r.Project == "secret" {
		return Launched{}, &Refusal{Reason: "project secret: only the projects of template claude may be named: web, api"}
	}
	return Launched{Slot: "A", Window: "alpha"}, nil
}

func (l *launcher) Stop(_ context.Context, slot string, _ Requester) (Stopped, error) {
	if slot != "A" {
		return Stopped{}, ErrNotLaunched
	}
	l.stopped = append(l.stopped, slot)
	return Stopped{Slot: slot, How: "exited after /exit"}, nil
}

// TestLauncher: new and stop go through the launcher; its refusal is told
// as is; a session it did not launch is asked to stop.
func TestLauncher(t *testing.T) {
	l := &launcher{}
	r := newRig(t, l)
	r.c.Take(r.journal(t, command("1", "new claude web"), command("2", "new claude secret"), command("3", "stop A"),
		command("4", "stop Z"), command("5", "help")))
	r.c.Wait()
	texts := map[string]string{}
	for _, s := range r.side.sends() {
		texts[s.key] = s.m.Text
	}
	for key, w := range map[string]string{
		"answer/chat/1": "Started **A** from template `claude` in `web`: [alpha](https://example.test/8) (tmux window `alpha`)",
		"answer/chat/2": "project secret: only the projects of template claude may be named: web, api",
		"answer/chat/3": "Stopped **A** (exited after /exit); its thread is parked.",
		"answer/chat/4": "No live session holds slot Z",
		"answer/chat/5": "Templates: `claude` (web, api)",
	} {
		if !strings.Contains(texts[key], w) {
			t.Errorf("%s: %q does not say %q", key, texts[key], w)
		}
	}
	if len(l.stopped) != 1 || len(r.side.stops) != 1 || r.side.stops[0] != "Z" {
		t.Errorf("launcher stopped %v; asked to stop %v", l.stopped, r.side.stops)
	}
}

// TestRestartAnswer: restart's first message is replaced by its answer;
// where the platform refuses the edit, the answer is a message of its
// own; a restart from an interaction (an application command) answers it
// once, with no message before.
func TestRestartAnswer(t *testing.T) {
	r := newRig(t, nil)
	r.side.refuseEdits = true
	r.c.Take(r.journal(t, command("1", "restart chat")))
	r.c.Wait()
	got := r.side.sends()
	if len(got) != 2 || got[0].key != "answer/chat/1/begun" || got[1].key != "answer/chat/1/sent" ||
		!strings.Contains(got[1].m.Text, "**chat restarted**") || got[1].m.EditOf != "" {
		t.Fatalf("answers %+v", got)
	}

	r = newRig(t, nil)
	u := command("2", "restart chat")
	u.Refs = []store.Ref{{Kind: store.RefInteraction, ID: "i2"}}
	r.c.Take(r.journal(t, u))
	r.c.Wait()
	got = r.side.sends()
	if len(got) != 1 || got[0].key != "answer/chat/2" || got[0].m.ReplyTo != "i2" || !strings.Contains(got[0].m.Text, "2. ready") {
		t.Fatalf("answers to an interaction %+v", got)
	}
}
