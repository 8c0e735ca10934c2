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
