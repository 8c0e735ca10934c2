package supervise

import (
	"fmt"
	"time"

	"github.com/chatbus/chatbus/internal/proc"
)

// Launch is what a new start of the provider is made from: the parts of a
// Spec that a config reload may change. Zero values take the same
// defaults as in Spec.
type Launch struct {
	Path         string
	Config       []byte
	StartLimit   int
	StartTimeout time.Duration
	BackoffMax   time.Duration
}

// Respec makes every start from now on use l; the running child (if any)
// keeps what it was started with. The running child is not touched: to
// bring the change into effect, restart it through the doctor protocol
// (ExpectExit, its commit), or Restart a FATAL or BACKOFF provider. It
// fails with ErrBadSpec if l.Config is not a JSON object.
func (s *Supervisor) Respec(l Launch) error {
	if _, err := withSecret(l.Config, "x"); err != nil {
		return fmt.Errorf("provider %s: %w: %v", s.spec.Name, ErrBadSpec, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next = &l
	return nil
}

// applyNextLocked takes a pending Respec into the spec. s.mu held; called
// by Run's goroutine only, before a start: the fields it changes are read
// only by that goroutine (or under s.mu).
func (s *Supervisor) applyNextLocked() {
	l := s.next
	if l == nil {
		return
	}
	s.next = nil
	s.spec.Path = l.Path
	if s.spec.Path == "" {
		s.spec.Path = "provider-" + s.spec.Name
	}
	s.spec.Config = l.Config
	s.spec.StartLimit = l.StartLimit
	if s.spec.StartLimit <= 0 {
		s.spec.StartLimit = DefaultStartLimit
	}
	s.spec.StartTimeout = l.StartTimeout
	if s.spec.StartTimeout <= 0 {
		s.spec.StartTimeout = DefaultStartTimeout
	}
	s.spec.BackoffMax = l.BackoffMax
	if s.spec.BackoffMax <= 0 {
		s.spec.BackoffMax = DefaultBackoffMax
	}
	if s.spec.BackoffMax < s.spec.BackoffInitial {
		s.spec.BackoffMax = s.spec.BackoffInitial
	}
	s.log.Info().Str("path", s.spec.Path).Msg("new settings take effect with this start")
}

// Retire declares that the next exit of inc, the current child, is planned
// and final: it is not counted as a death, no successor is started, and
// Run returns (STOPPED) once it is reaped. It is ExpectExit for a provider
// being removed; like it, it signals nothing, and CancelExpectExit undoes
// it. It fails with ErrNotCurrent if inc is not the current child.
func (s *Supervisor) Retire(inc proc.Incarnation) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cur == nil || s.cur.inc != inc {
		return fmt.Errorf("provider %s: incarnation %s: %w", s.spec.Name, inc, ErrNotCurrent)
	}
	s.cur.planned, s.cur.final = true, true
	s.log.Info().Str("incarnation", inc.String()).Msg("final exit expected: no successor")
	return nil
}
