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
// occupancy watch), and no doctor restart is under way.
type admission struct {
	mu         sync.Mutex    // guards everything below
	child      bool          // a child runs and its fence is being watched
	childOpen  bool          // the running child's fence admits
	restarting string        // request id of the doctor restart under way, "" if none
	changed    chan struct{} // closed and replaced at every change
}

func newAdmission() *admission { return &admission{changed: make(chan struct{})} }

// open reports whether calls may go to the child now.
func (a *admission) open() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.openLocked()
}

func (a *admission) openLocked() bool { return a.child && a.childOpen && a.restarting == "" }

// state returns whether admission is open and a channel closed at its next
// change.
func (a *admission) state() (open bool, changed <-chan struct{}) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.openLocked(), a.changed
}

// restartUnderWay reports whether a doctor restart holds the provider.
func (a *admission) restartUnderWay() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.restarting != ""
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

// beginRestart holds the provider for the doctor restart requestID. Only
// one restart at a time.
func (a *admission) beginRestart(requestID string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.restarting != "" {
		return fmt.Errorf("a restart is already under way (request %s)", a.restarting)
	}
	a.restarting = requestID
	a.notifyLocked()
	return nil
}

// endRestart ends the hold of the restart requestID.
func (a *admission) endRestart(requestID string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.restarting != requestID {
		return
	}
	a.restarting = ""
	a.notifyLocked()
}

func (a *admission) notifyLocked() {
	close(a.changed)
	a.changed = make(chan struct{})
}
