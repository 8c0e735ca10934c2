package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/chatbus/chatbus/internal/testkit"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rs/zerolog"
	"go.uber.org/goleak"

	"github.com/chatbus/chatbus/server/events"
	"github.com/chatbus/chatbus/server/registry"
	"github.com/chatbus/chatbus/server/store"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const chat = "-100500"

// fakeProviders provisions threads 101, 102, … in one forum chat (or
// reuses the one asked for unless it is gone), and declares a
// Telegram-like method set. Calls and closes into a gone thread fail as
// a platform answers for a deleted one.
type fakeProviders struct {
	mu        sync.Mutex
	next      int64
	attached  map[string]store.Target
	calls     []string
	created   int             // threads created
	reused    []string        // names given to reused threads
	closed    map[string]bool // by thread
	gone      map[string]bool // deleted threads
	closeErr  error           // CloseTarget fails so if set
	attachErr error           // Attach fails so if set
	// during, if set, runs when Provision is called, before it answers
	// (without mu): what happens while a thread is provisioned.
	during func()
}

var fakeDescription = Description{Platform: "fake", MaxTextChars: 4096, Methods: []Method{
	{Name: "sendMessage", Params: []Param{{Name: "reply_parameters.message_id", Kind: store.RefMessage}}},
	{Name: "editMessageText", Params: []Param{{Name: "message_id", Kind: store.RefMessage, Required: true}}},
	{Name: "deleteMessage", Params: []Param{{Name: "message_id", Kind: store.RefMessage, Required: true}}},
	{Name: "answerCallbackQuery", Params: []Param{{Name: "callback_query_id", Kind: store.RefInteraction, Required: true}}},
	verbMethod(VerbSend), verbMethod(VerbEdit), verbMethod(VerbAnswer), // no react, no typing
}}

func verbMethod(name string) Method {
	m, ok := VerbMethod(name, false)
	if !ok {
		panic(name)
	}
	return m
}

func (p *fakeProviders) Default() string             { return "telegram" }
func (p *fakeProviders) Configured(name string) bool { return name == "telegram" }
func (p *fakeProviders) Description(name string) (Description, bool) {
	return fakeDescription, name == "telegram"
}
func (p *fakeProviders) Provision(_ context.Context, provider, name string, reuse *store.Target) (store.Target, error) {
	if p.during != nil {
		p.during()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if reuse != nil && !p.gone[reuse.Thread] {
		p.reused = append(p.reused, name)
		delete(p.closed, reuse.Thread)
		return *reuse, nil
	}
	p.next++
	p.created++
	return store.Target{Provider: provider, Chat: chat, Thread: fmt.Sprint(100 + p.next)}, nil
}
func (p *fakeProviders) CloseTarget(_ context.Context, t store.Target) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case p.closeErr != nil:
		return p.closeErr
	case p.gone[t.Thread]:
		return fmt.Errorf("closing %s: %w", t.Thread, ErrTargetGone)
	}
	if p.closed == nil {
		p.closed = map[string]bool{}
	}
	p.closed[t.Thread] = true
	return nil
}
func (p *fakeProviders) Attach(_ context.Context, _, id string, t store.Target) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.attachErr != nil {
		return p.attachErr
	}
	p.attached[id] = t
	return nil
}
func (p *fakeProviders) Detach(_, id string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.attached, id)
}

// Call answers message 777, as a send does.
func (p *fakeProviders) Call(_ context.Context, c Call) (Result, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls = append(p.calls, c.Method+" "+c.Target.Thread+" "+string(c.Params))
	if p.gone[c.Target.Thread] {
		return Result{}, fmt.Errorf("%s: message thread not found: %w", c.Method, ErrTargetGone)
	}
	return Result{JSON: json.RawMessage(`{"message_id":777}`), Refs: []store.Ref{{Kind: store.RefMessage, ID: "777"}}}, nil
}
func (p *fakeProviders) Upload(context.Context, store.Target, Upload, io.Reader) (Result, error) {
	return Result{}, errors.New("no uploads here")
}
func (p *fakeProviders) Download(context.Context, string, string, func([]byte, int64, string) error) error {
	return errors.New("no downloads here")
}

type clock = testkit.Clock

// env is a hub over a real store file.
type env struct {
	t     testing.TB
	path  string
	st    *store.Bolt
	reg   *registry.Registry
	h     *Hub
	provs *fakeProviders
	evs   *events.Watcher
	clock *clock
}

func newEnv(t testing.TB, path string, limits store.Limits, provs *fakeProviders, c *clock) *env {
	t.Helper()
	return newEnvOpts(t, path, store.Options{Limits: limits}, provs, c)
}

// newEnvOpts is newEnv with the store's options (Now and OnDrop are set here).
func newEnvOpts(t testing.TB, path string, opts store.Options, provs *fakeProviders, c *clock) *env {
	t.Helper()
	return newEnvWith(t, path, opts, provs, c, nil)
}

// newEnvWith is newEnvOpts with the hub's store wrapped by wrap, if set.
func newEnvWith(t testing.TB, path string, opts store.Options, provs *fakeProviders, c *clock, wrap func(store.Store) store.Store) *env {
	t.Helper()
	if path == "" {
		path = filepath.Join(t.TempDir(), "state.db")
	}
	if provs == nil {
		provs = &fakeProviders{attached: map[string]store.Target{}}
	}
	if c == nil {
		c = testkit.NewClock(time.Unix(1_700_000_000, 0))
	}
	e := &env{t: t, path: path, provs: provs, clock: c}
	hubEvents := events.NewHub(zerolog.Nop())
	e.evs = hubEvents.Watch(false)
	opts.Now = c.Now
	opts.OnDrop = DropReporter(hubEvents)
	st, err := store.Open(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	e.st = st
	e.reg = registry.New(registry.Config{Events: hubEvents, Now: c.Now, StaleAfter: time.Hour})
	var hs store.Store = st
	if wrap != nil {
		hs = wrap(st)
	}
	h := New(Config{Store: hs, Registry: e.reg, Providers: provs, Events: hubEvents, Now: c.Now})
	e.h = h
	t.Cleanup(e.close)
	return e
}

func (e *env) close() {
	if e.st == nil {
		return
	}
	e.h.Shutdown()
	e.evs.Close()
	e.st.Close()
	e.st = nil
}

func (e *env) register(instance, profile string, token string) Registration {
	e.t.Helper()
	r, err := e.h.Register(context.Background(), registry.Info{InstanceID: instance, ProfileKey: profile, PID: 1, ThreadName: profile},
		Request{HandoffToken: token})
	if err != nil {
		e.t.Fatalf("register %s: %v", instance, err)
	}
	return r
}

// ingest pushes texts into a thread as one batch, with ids from first;
// update n names message n.
func (e *env) ingest(first int64, thread string, texts ...string) {
	e.t.Helper()
	var batch []Inbound
	for i, text := range texts {
		id := first + int64(i)
		batch = append(batch, Inbound{Allowed: true, Update: store.Update{
			PlatformUpdateID: id, Chat: chat, Thread: thread, Sender: "1", Kind: 1, Text: text,
			Refs:    []store.Ref{{Kind: store.RefMessage, ID: fmt.Sprint(id)}},
			Payload: fmt.Appendf(nil, `{"update_id":%d,"message":{"message_id":%d}}`, id, id)}})
	}
	if _, err := e.h.Ingest(context.Background(), "telegram", batch, fmt.Append(nil, first+int64(len(texts)))); err != nil {
		e.t.Fatal(err)
	}
}

// decoded decodes what a stream sent.
func decoded(t *testing.T, ups []store.Encoded) []store.Update {
	t.Helper()
	out := make([]store.Update, len(ups))
	for i, e := range ups {
		u, err := e.Update()
		if err != nil {
			t.Fatal(err)
		}
		out[i] = u
	}
	return out
}

// collect streams the follower's updates until n arrived.
func collect(t *testing.T, h *Hub, f *registry.Follower, after uint64, n int) []store.Update {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var got []store.Update
	errDone := errors.New("done")
	err := h.Stream(ctx, f, after, 1, func(ups []store.Encoded) error {
		got = append(got, decoded(t, ups)...)
		if len(got) >= n {
			return errDone
		}
		return nil
	}, nil)
	if !errors.Is(err, errDone) {
		t.Fatalf("stream: %v after %d of %d", err, len(got), n)
	}
	return got
}

func TestFreshReuseAndSlots(t *testing.T) {
	e := newEnv(t, "", store.Limits{}, nil, nil)
	a := e.register("a-1", "manual:a", "")
	b := e.register("b-1", "manual:b", "")
	if a.Origin != OriginFresh || a.Binding.Slot != "A" || b.Binding.Slot != "B" || a.Binding.Target.Thread == b.Binding.Target.Thread {
		t.Fatalf("a %+v b %+v", a, b)
	}
	e.h.Unregister(a.Follower)
	got, _ := e.st.GetBinding("manual:a")
	if got.Status != store.StatusOffline {
		t.Errorf("after unregister: %s", got.Status)
	}
	again := e.register("a-2", "manual:a", "")
	if again.Origin != OriginReuse || again.Binding.Target != a.Binding.Target {
		t.Errorf("re-register: %v %+v, want reuse of %+v", again.Origin, again.Binding.Target, a.Binding.Target)
	}
}

// TestFailedAttachLeavesBinding: the provider's Attach runs beside the
// binding's write; when it fails, Register fails and the binding is as it
// was before (offline, its last instance), with no session holding it.
func TestFailedAttachLeavesBinding(t *testing.T) {
	e := newEnv(t, "", store.Limits{}, nil, nil)
	a := e.register("a-1", "manual:a", "")
	e.h.Unregister(a.Follower)
	before, err := e.st.GetBinding("manual:a")
	if err != nil {
		t.Fatal(err)
	}
	e.provs.mu.Lock()
	e.provs.attachErr = errors.New("provider went away")
	e.provs.mu.Unlock()
	_, err = e.h.Register(context.Background(), registry.Info{InstanceID: "a-2", ProfileKey: "manual:a", PID: 1}, Request{})
	if err == nil || !strings.Contains(err.Error(), "provider went away") {
		t.Fatalf("register with a failing attach: %v", err)
	}
	after, err := e.st.GetBinding("manual:a")
	if err != nil {
		t.Fatal(err)
	}
	if after.Status != store.StatusOffline || after.InstanceID != before.InstanceID {
		t.Errorf("binding after a failed attach: %s of %q, want %s of %q", after.Status, after.InstanceID, before.Status, before.InstanceID)
	}
	if e.h.Live("manual:a") || e.h.FollowerCount() != 0 {
		t.Errorf("a session holds the binding after a failed register")
	}
}

// TestSlotsFollowBindings: a slot is free again once its binding goes
// offline, and taken once a fresh thread holds it; with every slot held a
// fresh registration is refused.
func TestSlotsFollowBindings(t *testing.T) {
	e := newEnvOpts(t, "", store.Options{MaxSlots: 2}, nil, nil)
	a := e.register("a-1", "manual:a", "")
	e.register("b-1", "manual:b", "")
	e.h.Unregister(a.Follower) // a's binding goes offline: slot A is free
	c := e.register("c-1", "manual:c", "")
	if c.Origin != OriginFresh || c.Binding.Slot != "A" {
		t.Fatalf("c got %v slot %q, want fresh A", c.Origin, c.Binding.Slot)
	}
	_, err := e.h.Register(context.Background(), registry.Info{InstanceID: "d-1", ProfileKey: "manual:d", PID: 1}, Request{})
	if !errors.Is(err, store.ErrNoFreeSlot) {
		t.Fatalf("d with every slot held: %v, want ErrNoFreeSlot", err)
	}
	e.h.Unregister(c.Follower)
	if d := e.register("d-2", "manual:d", ""); d.Binding.Slot != "A" {
		t.Errorf("d got slot %q, want the freed A", d.Binding.Slot)
	}
}

// TestHandoffMidStream: the successor receives every unacknowledged update
// exactly once, in order, then live ones.
func TestHandoffMidStream(t *testing.T) {
	e := newEnv(t, "", store.Limits{}, nil, nil)
	old := e.register("old", "manual:x", "")
	thread := old.Binding.Target.Thread
	var texts []string
	for i := range 100 {
		texts = append(texts, fmt.Sprint("m", i))
	}
	e.ingest(1, thread, texts...)
	seen := collect(t, e.h, old.Follower, 0, 40)
	if _, err := e.h.Ack(old.Follower, seen[29].Seq); err != nil {
		t.Fatal(err)
	}
	token, _, err := e.h.Suspend(old.Follower)
	if err != nil {
		t.Fatal(err)
	}
	succ := e.register("new", "manual:x", token)
	if succ.Origin != OriginHandoff || succ.Binding.Target != old.Binding.Target {
		t.Fatalf("successor %+v", succ)
	}
	select {
	case <-old.Follower.Done():
	default:
		t.Error("the predecessor's session is still live")
	}
	if _, err := e.reg.Touch("old", old.Follower.Token); err == nil {
		t.Error("the predecessor's token still works")
	}
	e.ingest(101, thread, "live1", "live2")
	got := collect(t, e.h, succ.Follower, 0, 72)
	for i, u := range got {
		want := fmt.Sprint("m", 30+i)
		if i >= 70 {
			want = fmt.Sprint("live", i-69)
		}
		if u.Text != want || u.Seq != uint64(31+i) {
			t.Fatalf("update %d: seq %d %q, want seq %d %q", i, u.Seq, u.Text, 31+i, want)
		}
	}
	if _, err := e.h.Register(context.Background(), registry.Info{InstanceID: "third", ProfileKey: "manual:x", PID: 1}, Request{HandoffToken: token}); !errors.Is(err, ErrHandoff) {
		t.Errorf("token used twice: %v", err)
	}
}

func TestHandoffExpires(t *testing.T) {
	e := newEnv(t, "", store.Limits{}, nil, nil)
	old := e.register("old", "manual:x", "")
	token, _, err := e.h.Suspend(old.Follower)
	if err != nil {
		t.Fatal(err)
	}
	e.clock.Add(31 * time.Second)
	e.h.expireHandoffs()
	if b, _ := e.st.GetBinding("manual:x"); b.Status != store.StatusOffline {
		t.Errorf("after expiry: %s", b.Status)
	}
	if _, err := e.h.Register(context.Background(), registry.Info{InstanceID: "new", ProfileKey: "manual:x", PID: 1}, Request{HandoffToken: token}); !errors.Is(err, ErrHandoff) {
		t.Errorf("expired token: %v", err)
	}
}

func TestRedeliveredUpdateStoredOnce(t *testing.T) {
	e := newEnv(t, "", store.Limits{}, nil, nil)
	a := e.register("a", "manual:a", "")
	th := a.Binding.Target.Thread
	e.ingest(10, th, "x", "y")
	e.ingest(10, th, "x", "y", "z") // the platform sent them again, and one more
	got := collect(t, e.h, a.Follower, 0, 3)
	if got[0].Text != "x" || got[1].Text != "y" || got[2].Text != "z" || got[2].Seq != 3 {
		t.Errorf("got %+v", got)
	}
	if st, _ := e.st.Stats("manual:a"); st.LastSeq != 3 {
		t.Errorf("last seq %d, want 3", st.LastSeq)
	}
}

// restarts returns start, which opens the hub over the same state file,
// providers and clock each time: a supervisor restarting.
func restarts(t *testing.T) (start func() *env, c *clock) {
	path := filepath.Join(t.TempDir(), "state.db")
	provs := &fakeProviders{attached: map[string]store.Target{}}
	c = testkit.NewClock(time.Unix(1_700_000_000, 0))
	return func() *env { return newEnv(t, path, store.Limits{}, provs, c) }, c
}

// TestReconcileAfterRestart: a follower back inside the grace keeps its
// thread; one that is not goes offline and its slot is reused.
func TestReconcileAfterRestart(t *testing.T) {
	start, c := restarts(t)
	first := start()
	a := first.register("a-1", "manual:a", "")
	b := first.register("b-1", "manual:b", "")
	first.close() // the supervisor dies; bindings stay as they were

	c.Add(time.Minute)
	second := start()
	back := second.register("a-2", "manual:a", "") // inside the grace
	if back.Origin != OriginReuse || back.Binding.Target != a.Binding.Target {
		t.Fatalf("a came back with %v %+v", back.Origin, back.Binding.Target)
	}
	c.Add(5 * time.Second)
	n, err := second.h.Reconcile()
	if err != nil || n != 1 {
		t.Fatalf("reconcile: %d %v, want 1", n, err)
	}
	gone, _ := second.st.GetBinding("manual:b")
	if gone.Status != store.StatusOffline || gone.LastAction != store.ActionRealityOffline || gone.InstanceID != "" {
		t.Errorf("b after reconcile: %+v", gone)
	}
	kept, _ := second.st.GetBinding("manual:a")
	if kept.Status != store.StatusActive {
		t.Errorf("a after reconcile: %s", kept.Status)
	}
	c2 := second.register("c-1", "manual:c", "")
	if c2.Origin != OriginFresh || c2.Binding.Slot != b.Binding.Slot {
		t.Errorf("new follower got slot %q, want the freed %q", c2.Binding.Slot, b.Binding.Slot)
	}
	// b's owner coming back later gets a fresh thread, not the forgotten one.
	b2 := second.register("b-2", "manual:b", "")
	if b2.Origin != OriginFresh || b2.Binding.Target == b.Binding.Target {
		t.Errorf("b came back with %v %+v", b2.Origin, b2.Binding.Target)
	}
}

func TestJournalBoundDropsOldestVisibly(t *testing.T) {
	e := newEnv(t, "", store.Limits{MaxCount: 10}, nil, nil)
	a := e.register("a", "manual:a", "")
	var texts []string
	for i := range 15 {
		texts = append(texts, fmt.Sprint(i))
	}
	e.ingest(1, a.Binding.Target.Thread, texts...)
	st, _ := e.st.Stats("manual:a")
	if st.Pending != 10 || st.Dropped != 5 {
		t.Errorf("pending %d dropped %d, want 10 and 5", st.Pending, st.Dropped)
	}
	got := collect(t, e.h, a.Follower, 0, 10)
	if got[0].Text != "5" {
		t.Errorf("oldest held %q, want 5", got[0].Text)
	}
	for {
		ev := <-e.evs.C()
		if ev.Kind == events.UpdatesDropped {
			if ev.Attrs["count"] != "5" || ev.Attrs["binding"] != "manual:a" {
				t.Errorf("drop event %+v", ev)
			}
			break
		}
	}
}

func TestUnroutedAndNotAllowed(t *testing.T) {
	e := newEnv(t, "", store.Limits{}, nil, nil)
	batch := []Inbound{
		{Update: store.Update{PlatformUpdateID: 1, Chat: chat, Text: "general"}, Allowed: true},
		{Update: store.Update{PlatformUpdateID: 2, Chat: chat, Thread: "999", Text: "nobody's thread"}, Allowed: true},
		{Update: store.Update{PlatformUpdateID: 3, Chat: chat, Text: "stranger"}, Allowed: false},
	}
	through, err := e.h.Ingest(context.Background(), "telegram", batch, []byte("4"))
	if err != nil || through != 3 {
		t.Fatalf("ingest: %d %v", through, err)
	}
	ups, _ := e.st.ListUnrouted(0)
	if len(ups) != 2 || e.h.DroppedNotAllowed() != 1 {
		t.Errorf("unrouted %d, dropped %d", len(ups), e.h.DroppedNotAllowed())
	}
	if cur, _ := e.st.Cursor("telegram"); string(cur) != "4" {
		t.Errorf("cursor %s, want 4", cur)
	}
}

// TestCallScope: only declared methods pass; a declared parameter naming
// an id must name one the thread saw, in an update or a call result, of
// the kind declared; required ones must be there. The call reaches the
// provider with the caller's thread, for the provider to scope.
func TestCallScope(t *testing.T) {
	e := newEnv(t, "", store.Limits{}, nil, nil)
	a := e.register("a", "manual:a", "")
	b := e.register("b", "manual:b", "")
	th := a.Binding.Target.Thread
	e.ingest(1, th, "hello")                   // message 1 arrived in a's thread
	e.ingest(2, b.Binding.Target.Thread, "hi") // message 2 in b's
	tests := []struct {
		name, method, params string
		want                 error
	}{
		{name: "send", method: "sendMessage", params: `{"text":"hi"}`},
		{name: "edit a received message", method: "editMessageText", params: `{"message_id":1,"text":"x"}`},
		{name: "id as a string", method: "editMessageText", params: `{"message_id":"1","text":"x"}`},
		{name: "edit a sent message", method: "editMessageText", params: `{"message_id":777,"text":"x"}`},
		{name: "another thread's message", method: "editMessageText", params: `{"message_id":2,"text":"x"}`, want: ErrOutOfScope},
		{name: "delete an unknown message", method: "deleteMessage", params: `{"message_id":5}`, want: ErrOutOfScope},
		{name: "required id missing", method: "deleteMessage", params: `{}`, want: ErrBadParams},
		{name: "null is missing", method: "deleteMessage", params: `{"message_id":null}`, want: ErrBadParams},
		{name: "nested id, known", method: "sendMessage", params: `{"text":"re","reply_parameters":{"message_id":1}}`},
		{name: "nested id, another thread's", method: "sendMessage", params: `{"text":"re","reply_parameters":{"message_id":2}}`, want: ErrOutOfScope},
		{name: "message id named as an interaction", method: "answerCallbackQuery", params: `{"callback_query_id":"1"}`, want: ErrOutOfScope},
		{name: "foreign callback", method: "answerCallbackQuery", params: `{"callback_query_id":"q"}`, want: ErrOutOfScope},
		{name: "not declared", method: "getChat", params: `{}`, want: ErrMethodNotAllowed},
		{name: "not an object", method: "editMessageText", params: `[1]`, want: ErrBadParams},
		{name: "an object as id", method: "editMessageText", params: `{"message_id":{"x":1}}`, want: ErrBadParams},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.h.Call(context.Background(), a.Follower, tt.method, []byte(tt.params), "")
			if !errors.Is(err, tt.want) {
				t.Errorf("err = %v, want %v", err, tt.want)
			}
		})
	}
	first := e.provs.calls[0]
	if want := `sendMessage ` + th + ` {"text":"hi"}`; first != want {
		t.Errorf("first call %s, want %s", first, want)
	}
}

// TestVerbScope: a verb is checked like a call, against the supervisor's
// own declaration of the ids each verb names; a verb the platform lacks is
// ErrVerbUnsupported; Call refuses the verbs' names (they have calls of
// their own) and Verb refuses a platform's methods.
func TestVerbScope(t *testing.T) {
	e := newEnv(t, "", store.Limits{}, nil, nil)
	a := e.register("a", "manual:a", "")
	b := e.register("b", "manual:b", "")
	e.ingest(1, a.Binding.Target.Thread, "hello")
	e.ingest(2, b.Binding.Target.Thread, "hi")
	ctx := context.Background()
	tests := []struct {
		name, verb, params string
		want               error
	}{
		{name: "send", verb: "send", params: `{"text":"**hi**"}`},
		{name: "reply to the thread's message", verb: "send", params: `{"text":"re","reply_to":"1"}`},
		{name: "reply to another thread's", verb: "send", params: `{"text":"re","reply_to":"2"}`, want: ErrOutOfScope},
		{name: "edit what was sent", verb: "edit", params: `{"message_id":"777","text":"x"}`},
		{name: "edit another thread's", verb: "edit", params: `{"message_id":"2","text":"x"}`, want: ErrOutOfScope},
		{name: "edit without an id", verb: "edit", params: `{"text":"x"}`, want: ErrBadParams},
		{name: "answer a foreign interaction", verb: "answer", params: `{"interaction_id":"q"}`, want: ErrOutOfScope},
		{name: "a verb the platform lacks", verb: "typing", params: `{}`, want: ErrVerbUnsupported},
		{name: "not a verb", verb: "sendMessage", params: `{"text":"x"}`, want: ErrMethodNotAllowed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := e.h.Verb(ctx, a.Follower, tt.verb, []byte(tt.params), "")
			if !errors.Is(err, tt.want) {
				t.Errorf("err = %v, want %v", err, tt.want)
			}
		})
	}
	if _, err := e.h.Call(ctx, a.Follower, "send", []byte(`{"text":"x"}`), ""); !errors.Is(err, ErrMethodNotAllowed) || !strings.Contains(err.Error(), "SendMessage") {
		t.Errorf("Call of a verb's name: %v, want ErrMethodNotAllowed naming SendMessage", err)
	}
	if want := `send ` + a.Binding.Target.Thread + ` {"text":"**hi**"}`; e.provs.calls[0] != want {
		t.Errorf("first call %s, want %s", e.provs.calls[0], want)
	}
}

// TestReportedReferences: the ids a provider reports with an update are
// what the thread may name, each as its kind; the payload is never read.
func TestReportedReferences(t *testing.T) {
	e := newEnv(t, "", store.Limits{}, nil, nil)
	a := e.register("a", "manual:a", "")
	th := a.Binding.Target.Thread
	payload := func(id int64) []byte {
		return fmt.Appendf(nil, `{"update_id":%d,"callback_query":{"id":"payload-q","message":{"message_id":%d}}}`, id, 900+id)
	}
	batch := []Inbound{
		{Allowed: true, Update: store.Update{PlatformUpdateID: 1, Chat: chat, Thread: th, Kind: 3, Payload: payload(1),
			Refs: []store.Ref{{Kind: store.RefMessage, ID: "41"}, {Kind: store.RefInteraction, ID: "q-41"}, {Kind: store.RefFile, ID: "f-41"}}}},
		{Allowed: true, Update: store.Update{PlatformUpdateID: 2, Chat: chat, Thread: th, Kind: 3, Payload: payload(2)}},
	}
	if _, err := e.h.Ingest(context.Background(), "telegram", batch, nil); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		method, params string
		want           error
	}{
		{"editMessageText", `{"message_id":41,"text":"x"}`, nil},
		{"answerCallbackQuery", `{"callback_query_id":"q-41"}`, nil},
		{"editMessageText", `{"message_id":901,"text":"x"}`, ErrOutOfScope},         // in a payload only
		{"answerCallbackQuery", `{"callback_query_id":"payload-q"}`, ErrOutOfScope}, // in a payload only
	} {
		if _, err := e.h.Call(context.Background(), a.Follower, tc.method, []byte(tc.params), ""); !errors.Is(err, tc.want) {
			t.Errorf("%s %s: %v, want %v", tc.method, tc.params, err, tc.want)
		}
	}
	if sc := e.h.scopeOf(a.Binding.Target); !sc.has(store.RefFile, "f-41") || sc.has(store.RefFile, "f-42") || sc.has(store.RefMessage, "f-41") {
		t.Errorf("files: f-41 known %v, f-42 known %v", sc.has(store.RefFile, "f-41"), sc.has(store.RefFile, "f-42"))
	}
}

func TestAckBeyondDelivered(t *testing.T) {
	e := newEnv(t, "", store.Limits{}, nil, nil)
	a := e.register("a", "manual:a", "")
	e.ingest(1, a.Binding.Target.Thread, "x")
	if _, err := e.h.Ack(a.Follower, 2); !errors.Is(err, ErrNotDelivered) {
		t.Errorf("ack 2: %v", err)
	}
	if n, err := e.h.Ack(a.Follower, 1); err != nil || n != 1 {
		t.Errorf("ack 1: %d %v", n, err)
	}
}

func TestSlotBefore(t *testing.T) {
	for in, want := range map[string]string{"A": "", "B": "A", "Z": "Y", "AA": "Z", "AB": "AA", "BA": "AZ", "ZZ": "ZY"} {
		if got := slotBefore(in); got != want {
			t.Errorf("slotBefore(%q) = %q, want %q", in, got, want)
		}
	}
}

// BenchmarkIngest journals batches of 512 updates across 16 threads, as
// the provider pump does under load:
//
//	go test -run xxx -bench Ingest ./server/hub/
func BenchmarkIngest(b *testing.B) {
	e := newEnv(b, "", store.Limits{MaxCount: -1, MaxBytes: -1, MaxAge: -1}, nil, nil)
	var threads []string
	for i := range 16 {
		threads = append(threads, e.register(fmt.Sprint("i", i), fmt.Sprint("manual:", i), "").Binding.Target.Thread)
	}
	const batch = 512
	payload := []byte(`{"update_id":1,"message":{"message_id":1,"text":"a typical message of some forty bytes"}}`)
	id := int64(0)
	b.ResetTimer()
	for b.Loop() {
		in := make([]Inbound, batch)
		for i := range in {
			id++
			in[i] = Inbound{Allowed: true, Update: store.Update{PlatformUpdateID: id, Chat: chat, Thread: threads[i%len(threads)],
				Sender: "1", Kind: 1, Payload: payload, Refs: []store.Ref{{Kind: store.RefMessage, ID: fmt.Sprint(id)}}}}
		}
		if _, err := e.h.Ingest(context.Background(), "telegram", in, fmt.Append(nil, id+1)); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*batch)/b.Elapsed().Seconds(), "updates/s")
}

func TestRing(t *testing.T) {
	r := newRing[int64](3)
	for _, v := range []int64{1, 2, 2, 3, 4} { // 2 twice: remembered once
		r.add(v)
	}
	for v, want := range map[int64]bool{1: false, 2: true, 3: true, 4: true} {
		if r.has(v) != want {
			t.Errorf("has(%d) = %v, want %v", v, r.has(v), want)
		}
	}
	r.add(5) // forgets 2, the oldest left
	if r.has(2) || !r.has(5) || len(r.set) != 3 || len(r.order) != 3 {
		t.Errorf("after 5: set %v order %v", r.set, r.order)
	}
}

// TestRefusedRegisterProvisionsNothing: a registration the registry would
// refuse (full, shutting down) creates no thread on the platform.
func TestRefusedRegisterProvisionsNothing(t *testing.T) {
	e := newEnv(t, "", store.Limits{}, nil, nil)
	e.register("a-1", "manual:a", "")
	provisioned := e.provs.next
	e.h.Shutdown()
	_, err := e.h.Register(context.Background(), registry.Info{InstanceID: "b-1", ProfileKey: "manual:b", PID: 1}, Request{})
	if !errors.Is(err, registry.ErrShutdown) {
		t.Fatalf("register after shutdown: %v, want ErrShutdown", err)
	}
	if e.provs.next != provisioned {
		t.Errorf("%d threads provisioned for a refused registration", e.provs.next-provisioned)
	}
	if _, err := e.st.GetBinding("manual:b"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("binding of the refused registration: %v, want none", err)
	}
}

// TestScopeSurvivesRestart: a follower edits the message it sent before the
// supervisor restarted; messages it never sent stay out of reach, and a
// thread the binding left keeps nothing.
func TestScopeSurvivesRestart(t *testing.T) {
	start, c := restarts(t)
	first := start()
	a := first.register("a-1", "manual:a", "")
	if _, err := first.h.Call(context.Background(), a.Follower, "sendMessage", []byte(`{"text":"working…"}`), ""); err != nil {
		t.Fatal(err) // the platform answers message 777
	}
	first.close() // the supervisor restarts

	second := start()
	back := second.register("a-2", "manual:a", "")
	if back.Origin != OriginReuse {
		t.Fatalf("came back with %v", back.Origin)
	}
	edit := func(e *env, f *registry.Follower, id int) error {
		_, err := e.h.Call(context.Background(), f, "editMessageText", fmt.Appendf(nil, `{"message_id":%d,"text":"done"}`, id), "")
		return err
	}
	if err := edit(second, back.Follower, 777); err != nil {
		t.Errorf("editing its own message after the restart: %v", err)
	}
	// A write through the committer: whatever the edit queued before it
	// has landed too.
	if err := second.st.ApplyRetention(); err != nil {
		t.Fatal(err)
	}
	if msgs, _ := second.st.Sent(a.Binding.Target); len(msgs) != 1 {
		t.Errorf("remembered %v: an edit of a known message is remembered once", msgs)
	}
	if err := edit(second, back.Follower, 778); !errors.Is(err, ErrOutOfScope) {
		t.Errorf("editing a message it never sent: %v, want ErrOutOfScope", err)
	}

	// The binding goes offline and is retired by reconciliation; its
	// profile coming back takes its parked thread up again (REUSE) and
	// still reaches what it sent there. (A newcomer that takes a retired
	// thread over does not: TestRetiredThreadTakenOver.)
	second.h.Unregister(back.Follower)
	c.Add(time.Minute)
	if _, err := second.h.Reconcile(); err != nil {
		t.Fatal(err)
	}
	again := second.register("a-3", "manual:a", "")
	if again.Origin != OriginReuse || again.Binding.Target != a.Binding.Target {
		t.Fatalf("after reconcile: %v %+v, want reuse of %+v", again.Origin, again.Binding.Target, a.Binding.Target)
	}
	if err := edit(second, again.Follower, 777); err != nil {
		t.Errorf("editing its own message after reconciliation: %v", err)
	}
}
