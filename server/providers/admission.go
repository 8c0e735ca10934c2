package providers

import (
	"fmt"
	"sync"
)

// admission says whether a provider's calls may go to its child now. It is
// the supervisor's one owner of that question: the call path, the held
// calls, attachments and the doctor consult it, and it wakes its waiters
// when the answer changes (nobody polls). It is open when a child runs,
// that child's doctor fence admits (as the child reports it, live, on its
// occupancy watch), and no doctor restart holds the calls.
//
// It is also the one owner of "a doctor restart of this provider is under
// way", and its one guard (one restart at a time): the doctor claims the
// provider here for a restart (beginRestart) and keeps no record of its
// own. What the others hold is not that fact: the child's fence is the
// child's own admission, which the doctor prepares and commits and which
// this admission follows (setChild); a child whose exit the doctor
// committed is the Supervisor's to know (supervise.ExpectExit), for as
// long as that child lives, which may outlast the restart.
type admission struct {
	mu        sync.Mutex // guards everything below
	child     bool       // a child runs and its fence is being watched
	childOpen bool       // the running child's fence admits
	// restart is the request id of the doctor restart under way, "" if
	// none; holding is set once it holds the calls (from prepare until
	// the restart ends).
	restart string
	holding bool
	changed chan struct{} // closed and replaced at every change
}

func newAdmission() *admission { return &admission{changed: make(chan struct{})} }

func (a *admission) openLocked() bool { return a.child && a.childOpen && !a.holding }

// state returns whether admission is open and a channel closed at its next
// change.
func (a *admission) state() (open bool, changed <-chan struct{}) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.openLocked(), a.changed
}

// holdingCalls reports whether a doctor restart holds the provider's
// calls.
func (a *admission) holdingCalls() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.holding
}

// setChild records that a child runs (or none does) and whether its fence
// admits.
func (a *admission) setChild(running, admitting bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.child == running && a.childOpen == admitting {
		return
	}
	a.child, a.childOpen = running, admitting
	a.notifyLocked()
}

// refused records that the child refused a call as not admitting, ahead of
// its fence watch saying so.
func (a *admission) refused() { a.setChildAdmittingIfRunning(false) }

func (a *admission) setChildAdmittingIfRunning(admitting bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.child || a.childOpen == admitting {
		return
	}
	a.childOpen = admitting
	a.notifyLocked()
}

// beginRestart claims the provider for the doctor restart requestID,
// unless one is under way: then it returns that one's request id (busy).
func (a *admission) beginRestart(requestID string) (busy string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.restart != "" {
		return a.restart
	}
	a.restart = requestID
	return ""
}

// holdCalls holds the calls for the restart requestID under way (it
// fails if that is not the one).
func (a *admission) holdCalls(requestID string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.restart != requestID {
		return fmt.Errorf("restart %s is not the one under way (%q)", requestID, a.restart)
	}
	if !a.holding {
		a.holding = true
		a.notifyLocked()
	}
	return nil
}

// endRestart ends the restart requestID: its hold of the calls, if any,
// and its claim.
func (a *admission) endRestart(requestID string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.restart != requestID {
		return
	}
	a.restart = ""
	if a.holding {
		a.holding = false
		a.notifyLocked()
	}
}

func (a *admission) notifyLocked() {
	close(a.changed)
	a.changed = make(chan struct{})
}
