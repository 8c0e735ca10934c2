package providers

import (
	"errors"
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
