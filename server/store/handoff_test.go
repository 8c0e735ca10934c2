package store

import (
	"bytes"
	"errors"
	"os"
	"slices"
	"testing"
	"time"
)

func TestHandoff(t *testing.T) {
	s, path := newStore(t, Options{})
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
		{name: "second take fails", token: "tok-live", now: t0.Add(11 * time.Second), wantErr: ErrHandoffUnknown},
		{name: "unknown token", token: "nope", now: t0, wantErr: ErrHandoffUnknown},
		{name: "empty token", token: "", now: t0, wantErr: ErrHandoffUnknown},
		{name: "at the deadline it has expired", token: "tok-expiring", now: t0.Add(30 * time.Second), wantKey: "manual:2", wantErr: ErrHandoffExpired},
		{name: "still expired, not consumed", token: "tok-expiring", now: t0.Add(31 * time.Second), wantKey: "manual:2", wantErr: ErrHandoffExpired},
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
	if _, err := s.TakeHandoff("tok-late", t0); !errors.Is(err, ErrHandoffUnknown) {
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
			if err := s.PutHandoff(tc.token, tc.key, tc.expires); !errors.Is(err, ErrInvalid) {
				t.Errorf("PutHandoff = %v, want ErrInvalid", err)
			}
		})
	}

	// Survives reopen, and the file never holds the token itself.
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte("tok-long")) {
		t.Errorf("the store file contains a handoff token in clear")
	}
	s = openAt(t, path, Options{})
	if key, err := s.TakeHandoff("tok-long", t0); err != nil || key != "manual:4" {
		t.Errorf("TakeHandoff after reopen = %q, %v", key, err)
	}
}

func TestOutbox(t *testing.T) {
	clk := newClock()
	s, path := newStore(t, Options{Now: clk.Now})
	put := func(key, provider string) OutboxEntry {
		t.Helper()
		e, err := s.PutOutbox(OutboxEntry{Key: key, Provider: provider, Method: "sendMessage", Params: []byte(`{"text":"` + key + `"}`)})
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	put("k1", "telegram")
	put("k2", "slack")
	put("k3", "telegram")
	clk.Add(time.Second)

	keysOf := func(es []OutboxEntry) []string {
		out := []string{}
		for _, e := range es {
			out = append(out, e.Key)
		}
		return out
	}
	steps := []struct {
		name string
		do   func(t *testing.T)
	}{
		{name: "list per provider in put order", do: func(t *testing.T) {
			l, err := s.ListOutbox("telegram")
			if err != nil || !slices.Equal(keysOf(l), []string{"k1", "k3"}) {
				t.Errorf("ListOutbox(telegram) = %v, %v", keysOf(l), err)
			}
			if l, _ := s.ListOutbox("tele"); len(l) != 0 {
				t.Errorf("ListOutbox of a provider name prefix = %v", keysOf(l))
			}
		}},
		{name: "put is idempotent on the key", do: func(t *testing.T) {
			e, err := s.PutOutbox(OutboxEntry{Key: "k1", Provider: "telegram", Method: "deleteMessage"})
			if err != nil || e.Method != "sendMessage" || string(e.Params) != `{"text":"k1"}` {
				t.Errorf("second PutOutbox(k1) = %+v, %v; want the first entry", e, err)
			}
			if l, _ := s.ListOutbox("telegram"); len(l) != 2 {
				t.Errorf("%d pending after a repeated put, want 2", len(l))
			}
		}},
		{name: "complete keeps the result and leaves the pending list", do: func(t *testing.T) {
			if err := s.CompleteOutbox("k1", []byte(`{"message_id":5}`)); err != nil {
				t.Fatal(err)
			}
			if err := s.CompleteOutbox("k1", []byte(`{"message_id":6}`)); err != nil {
				t.Fatal(err)
			}
			e, err := s.GetOutbox("k1")
			if err != nil || !e.Done || string(e.Result) != `{"message_id":5}` || !e.Completed.Equal(clk.Now()) {
				t.Errorf("GetOutbox(k1) = %+v, %v", e, err)
			}
			if l, _ := s.ListOutbox("telegram"); !slices.Equal(keysOf(l), []string{"k3"}) {
				t.Errorf("pending = %v, want [k3]", keysOf(l))
			}
			// A retried call with the same key gets the stored result.
			if e, _ := s.PutOutbox(OutboxEntry{Key: "k1", Provider: "telegram"}); !e.Done || string(e.Result) != `{"message_id":5}` {
				t.Errorf("PutOutbox of a completed key = %+v", e)
			}
		}},
		{name: "unknown keys", do: func(t *testing.T) {
			if err := s.CompleteOutbox("nope", nil); !errors.Is(err, ErrNotFound) {
				t.Errorf("CompleteOutbox(nope) = %v", err)
			}
			if _, err := s.GetOutbox("nope"); !errors.Is(err, ErrNotFound) {
				t.Errorf("GetOutbox(nope) = %v", err)
			}
		}},
		{name: "invalid entries", do: func(t *testing.T) {
			for _, e := range []OutboxEntry{{Provider: "telegram"}, {Key: "k"}, {Key: "k", Provider: "a\x00"}} {
				if _, err := s.PutOutbox(e); !errors.Is(err, ErrInvalid) {
					t.Errorf("PutOutbox(%+v) = %v, want ErrInvalid", e, err)
				}
			}
		}},
		{name: "prune removes old completed entries only", do: func(t *testing.T) {
			if n, err := s.PruneOutbox(clk.Now()); err != nil || n != 0 {
				t.Errorf("PruneOutbox(completion time) = %d, %v; want 0", n, err)
			}
			clk.Add(time.Hour)
			if n, err := s.PruneOutbox(clk.Now()); err != nil || n != 1 {
				t.Errorf("PruneOutbox = %d, %v; want 1", n, err)
			}
			if _, err := s.GetOutbox("k1"); !errors.Is(err, ErrNotFound) {
				t.Errorf("GetOutbox(pruned) = %v", err)
			}
			if _, err := s.GetOutbox("k3"); err != nil {
				t.Errorf("pending k3 pruned: %v", err)
			}
		}},
	}
	for _, tc := range steps {
		t.Run(tc.name, tc.do)
	}

	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s = openAt(t, path, Options{})
	if l, _ := s.ListOutbox("slack"); !slices.Equal(keysOf(l), []string{"k2"}) {
		t.Errorf("after reopen ListOutbox(slack) = %v", keysOf(l))
	}
}
