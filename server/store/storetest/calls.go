package storetest

import (
	"errors"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/chatbus/chatbus/server/store"
)

// calls: one record per (binding, key): a repeat gets the first
// record; open records list in the order they were made, per provider,
// and survive a reopen; final ones do not change.
func calls(t *testing.T, bk Backend) {
	s, reopen := bk.Open(t, Options{})
	begin := func(binding, key, provider string, st store.CallState) (store.CallRecord, bool) {
		t.Helper()
		c, created, err := s.BeginCall(store.CallRecord{BindingKey: binding, Key: key, Provider: provider, Chat: "-100", Thread: "7",
			Method: "send", Params: []byte(`{"text":"` + key + `"}`), State: st})
		if err != nil {
			t.Fatalf("BeginCall(%s/%s): %v", binding, key, err)
		}
		return c, created
	}
	a1, created := begin("a", "k1", "alpha", store.CallSending)
	if !created || a1.State != store.CallSending || a1.Order == 0 {
		t.Fatalf("first BeginCall = %+v, %v", a1, created)
	}
	begin("a", "k2", "alpha", store.CallQueued)
	begin("b", "k1", "alpha", store.CallQueued) // the same key of another binding is another call
	begin("c", "k1", "beta", store.CallQueued)
	again, created := begin("a", "k1", "alpha", store.CallQueued)
	if created || again.State != store.CallSending || again.Order != a1.Order || string(again.Params) != `{"text":"k1"}` {
		t.Fatalf("repeat BeginCall = %+v, %v; want the first record", again, created)
	}
	if open, err := s.OpenCalls("alpha"); err != nil || !slices.Equal(keysOf(open), []string{"a/k1", "a/k2", "b/k1"}) {
		t.Fatalf("OpenCalls(alpha) = %v, %v", keysOf(open), err)
	}
	if open, _ := s.OpenCalls("tele"); len(open) != 0 {
		t.Errorf("OpenCalls of a provider name prefix = %v", keysOf(open))
	}

	done := a1
	done.State, done.Result, done.Refs = store.CallDone, []byte(`{"msg":9}`), []store.Ref{{Kind: store.RefMessage, ID: "9"}}
	if err := s.SetCall(done); err != nil {
		t.Fatal(err)
	}
	if err := s.SetCall(store.CallRecord{BindingKey: "a", Key: "k1", Provider: "alpha", State: store.CallFailed}); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("changing a final record: %v, want ErrInvalid", err)
	}
	if err := s.SetCall(store.CallRecord{BindingKey: "a", Key: "nope", Provider: "alpha", State: store.CallDone}); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("SetCall of an unknown record: %v, want ErrNotFound", err)
	}
	s = reopen()
	got, err := s.GetCall("a", "k1")
	if err != nil || got.State != store.CallDone || string(got.Result) != `{"msg":9}` || !slices.Equal(got.Refs, []store.Ref{{Kind: store.RefMessage, ID: "9"}}) {
		t.Fatalf("GetCall after reopen = %+v, %v", got, err)
	}
	if open, _ := s.OpenCalls("alpha"); !slices.Equal(keysOf(open), []string{"a/k2", "b/k1"}) {
		t.Errorf("open after the first was done: %v", keysOf(open))
	}
	if _, _, err := s.BeginCall(store.CallRecord{BindingKey: "a", Key: "k9", Provider: "alpha", State: store.CallDone}); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("BeginCall of a final state: %v, want ErrInvalid", err)
	}
	for _, bad := range []store.CallRecord{
		{Key: "k", Provider: "alpha", State: store.CallQueued},
		{BindingKey: "a", Provider: "alpha", State: store.CallQueued},
		{BindingKey: "a", Key: "k", State: store.CallQueued},
		{BindingKey: "a", Key: "k", Provider: "alpha", State: "bogus"},
	} {
		if _, _, err := s.BeginCall(bad); !errors.Is(err, store.ErrInvalid) {
			t.Errorf("BeginCall(%+v) = %v, want ErrInvalid", bad, err)
		}
	}
}

// pruneCalls: final records go after keep, and beyond the newest
// maxPerBinding of a binding; open ones never.
func pruneCalls(t *testing.T, bk Backend) {
	clk := newClock()
	s, _ := bk.Open(t, Options{Now: clk.Now})
	for i, key := range []string{"old", "mid", "new", "open"} {
		c, _, err := s.BeginCall(store.CallRecord{BindingKey: "a", Key: key, Provider: "alpha", State: store.CallSending})
		if err != nil {
			t.Fatal(err)
		}
		if key != "open" {
			c.State = store.CallDone
			if err := s.SetCall(c); err != nil {
				t.Fatal(err)
			}
		}
		clk.Add(time.Duration(i+1) * time.Hour)
	}
	// old: updated at +0, mid: +1h, new: +3h; now +10h.
	n, err := s.PruneCalls(clk.Now(), 9*time.Hour+30*time.Minute, 0)
	if err != nil || n != 1 {
		t.Fatalf("prune by age = %d, %v; want 1 (old)", n, err)
	}
	n, err = s.PruneCalls(clk.Now(), 0, 1)
	if err != nil || n != 1 {
		t.Fatalf("prune by count = %d, %v; want 1 (mid)", n, err)
	}
	for key, want := range map[string]bool{"old": false, "mid": false, "new": true, "open": true} {
		if _, err := s.GetCall("a", key); (err == nil) != want {
			t.Errorf("after pruning, %s present = %v, want %v", key, err == nil, want)
		}
	}
}

func handoff(t *testing.T, bk Backend) {
	s, reopen := bk.Open(t, Options{})
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, h := range []struct{ token, key string }{
		{"tok-live", "manual:1"}, {"tok-expiring", "manual:2"}, {"tok-late", "manual:3"},
	} {
		if err := s.PutHandoff(h.token, h.key, t0.Add(30*time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.PutHandoff("tok-long", "manual:4", t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}

	steps := []struct {
		name    string
		token   string
		now     time.Time
		wantKey string
		wantErr error
	}{
		{name: "take before the deadline", token: "tok-live", now: t0.Add(10 * time.Second), wantKey: "manual:1"},
		{name: "second take fails", token: "tok-live", now: t0.Add(11 * time.Second), wantErr: store.ErrHandoffUnknown},
		{name: "unknown token", token: "nope", now: t0, wantErr: store.ErrHandoffUnknown},
		{name: "empty token", token: "", now: t0, wantErr: store.ErrHandoffUnknown},
		{name: "at the deadline it has expired", token: "tok-expiring", now: t0.Add(30 * time.Second), wantKey: "manual:2", wantErr: store.ErrHandoffExpired},
		{name: "still expired, not consumed", token: "tok-expiring", now: t0.Add(31 * time.Second), wantKey: "manual:2", wantErr: store.ErrHandoffExpired},
	}
	for _, tc := range steps {
		t.Run(tc.name, func(t *testing.T) {
			key, err := s.TakeHandoff(tc.token, tc.now)
			if !errors.Is(err, tc.wantErr) || key != tc.wantKey {
				t.Errorf("TakeHandoff(%q) = %q, %v; want %q, %v", tc.token, key, err, tc.wantKey, tc.wantErr)
			}
		})
	}

	keys, err := s.ExpireHandoffs(t0.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(keys)
	if !slices.Equal(keys, []string{"manual:2", "manual:3"}) {
		t.Errorf("ExpireHandoffs = %v, want [manual:2 manual:3]", keys)
	}
	if _, err := s.TakeHandoff("tok-late", t0); !errors.Is(err, store.ErrHandoffUnknown) {
		t.Errorf("TakeHandoff of a swept token = %v, want ErrHandoffUnknown", err)
	}
	if keys, _ := s.ExpireHandoffs(t0.Add(time.Minute)); len(keys) != 0 {
		t.Errorf("second ExpireHandoffs = %v, want none", keys)
	}

	for _, tc := range []struct {
		name, token, key string
		expires          time.Time
	}{
		{name: "empty token", token: "", key: "k", expires: t0},
		{name: "empty key", token: "t", key: "", expires: t0},
		{name: "no deadline", token: "t", key: "k"},
	} {
		t.Run("PutHandoff refuses "+tc.name, func(t *testing.T) {
			if err := s.PutHandoff(tc.token, tc.key, tc.expires); !errors.Is(err, store.ErrInvalid) {
				t.Errorf("PutHandoff = %v, want ErrInvalid", err)
			}
		})
	}

	// Survives reopen.
	s = reopen()
	if key, err := s.TakeHandoff("tok-long", t0); err != nil || key != "manual:4" {
		t.Errorf("TakeHandoff after reopen = %q, %v", key, err)
	}
}

// sent: what a thread's follower sent survives a reopen, per thread,
// bounded to the most recent MaxSent.
func sent(t *testing.T, bk Backend) {
	s, reopen := bk.Open(t, Options{MaxSent: 4})
	a, b := store.Target{Provider: "alpha", Chat: "-100", Thread: "7"}, store.Target{Provider: "alpha", Chat: "-100", Thread: "8"}
	if msgs, files := sentOf(t, s, a); msgs != nil || files != nil {
		t.Fatalf("before anything was sent: %v %v", msgs, files)
	}
	remember(t, s, a, []int64{1, 2}, nil)
	remember(t, s, a, []int64{3}, []string{"f-3", ""}) // an empty file id is no id
	remember(t, s, b, []int64{100}, nil)
	remember(t, s, a, []int64{4}, nil) // a holds 5 now: the oldest goes
	s = reopen()
	if msgs, files := sentOf(t, s, a); !slices.Equal(msgs, []int64{2, 3, 4}) || !slices.Equal(files, []string{"f-3"}) {
		t.Errorf("thread a after reopen: %v %v, want [2 3 4] [f-3]", msgs, files)
	}
	if msgs, _ := sentOf(t, s, b); !slices.Equal(msgs, []int64{100}) {
		t.Errorf("thread b: %v, want [100]", msgs)
	}
	if err := <-s.RememberSent(store.Target{}, toRefs([]int64{1}, nil)); !errors.Is(err, store.ErrInvalid) {
		t.Errorf("no target: %v, want ErrInvalid", err)
	}
}

// sentFollowsBinding: a binding that moves to another thread, or is
// deleted, leaves nothing remembered for the thread it left.
func sentFollowsBinding(t *testing.T, bk Backend) {
	s, _ := bk.Open(t, Options{})
	old, neu := store.Target{Provider: "alpha", Chat: "-100", Thread: "7"}, store.Target{Provider: "alpha", Chat: "-100", Thread: "9"}
	putBinding(t, s, "p", old)
	remember(t, s, old, []int64{1}, nil)
	putBinding(t, s, "p", old) // the same thread again: kept
	if msgs, _ := sentOf(t, s, old); len(msgs) != 1 {
		t.Fatalf("rewriting the binding lost its thread's ids: %v", msgs)
	}
	putBinding(t, s, "p", neu)
	if msgs, _ := sentOf(t, s, old); msgs != nil {
		t.Errorf("the thread left behind still has %v", msgs)
	}
	remember(t, s, neu, []int64{2}, nil)
	if err := s.DeleteBinding("p"); err != nil {
		t.Fatal(err)
	}
	if msgs, _ := sentOf(t, s, neu); msgs != nil {
		t.Errorf("a deleted binding's thread still has %v", msgs)
	}
}

// rememberSentAfterClose: a closed store refuses, and says so.
func rememberSentAfterClose(t *testing.T, bk Backend) {
	s, _ := bk.Open(t, Options{})
	s.Close()
	if err := <-s.RememberSent(store.Target{Provider: "alpha", Chat: "-100", Thread: "7"}, toRefs([]int64{1}, nil)); !errors.Is(err, store.ErrClosed) {
		t.Errorf("after Close: %v, want ErrClosed", err)
	}
}

func keysOf(cs []store.CallRecord) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.BindingKey+"/"+c.Key)
	}
	return out
}

func remember(t *testing.T, s store.Store, tg store.Target, msgs []int64, files []string) {
	t.Helper()
	if err := <-s.RememberSent(tg, toRefs(msgs, files)); err != nil {
		t.Fatalf("RememberSent %v: %v", tg, err)
	}
}

func toRefs(msgs []int64, files []string) []store.Ref {
	var refs []store.Ref
	for _, m := range msgs {
		refs = append(refs, store.Ref{Kind: store.RefMessage, ID: strconv.FormatInt(m, 10)})
	}
	for _, f := range files {
		refs = append(refs, store.Ref{Kind: store.RefFile, ID: f})
	}
	return refs
}

func sentOf(t *testing.T, s store.Store, tg store.Target) (msgs []int64, files []string) {
	t.Helper()
	refs, err := s.Sent(tg)
	if err != nil {
		t.Fatalf("Sent %v: %v", tg, err)
	}
	for _, r := range refs {
		switch r.Kind {
		case store.RefMessage:
			n, err := strconv.ParseInt(r.ID, 10, 64)
			if err != nil {
				t.Fatalf("Sent %v: message id %q", tg, r.ID)
			}
			msgs = append(msgs, n)
		case store.RefFile:
			files = append(files, r.ID)
		}
	}
	return msgs, files
}
