package providers

import (
	"errors"
	"fmt"
	"syscall"
	"testing"
)

// TestHealthFlips: a flip is a change between serving and not, never a
// change of the reason alone.
func TestHealthFlips(t *testing.T) {
	h := newHealth()
	steps := []struct {
		name  string
		do    func()
		flips uint64
	}{
		{"the child serves", func() { h.setChild(true, "") }, 0},
		{"the child stops serving", func() { h.setChild(false, "409") }, 1},
		{"another reason, still not serving", func() { h.setChild(false, "revoked") }, 1},
		{"serving again", func() { h.setChild(true, "") }, 2},
		{"journal writes fail", func() { h.setJournal(errors.New("disk full")) }, 3},
		{"the child goes; the journal still fails", func() { h.childGone() }, 3},
		{"journal writes succeed", func() { h.setJournal(nil) }, 4},
	}
	for _, s := range steps {
		s.do()
		if got := h.flipCount(); got != s.flips {
			t.Fatalf("%s: %d flips, want %d", s.name, got, s.flips)
		}
	}
}

// TestStoreReason: a journal write failure is reported by the system's
// reason where the error carries one, else in full.
func TestStoreReason(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want string
	}{
		{
			name: "a full disk, however deep in the chain",
			err:  fmt.Errorf("store s.db: journal j: segment x at offset 7: %w: write: %w", errors.New("journal write failed"), syscall.ENOSPC),
			want: "no space left on device",
		},
		{name: "an I/O error", err: fmt.Errorf("fdatasync: %w", syscall.EIO), want: "input/output error"},
		{name: "no system error", err: errors.New("journal closed"), want: "journal closed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := storeReason(tc.err); got != tc.want {
				t.Errorf("storeReason(%v) = %q, want %q", tc.err, got, tc.want)
			}
			h := newHealth()
			h.setJournal(tc.err)
			if _, why, _ := h.state(); why != "state store: "+tc.want {
				t.Errorf("health reason %q", why)
			}
		})
	}
}
