// Package proc identifies processes: an incarnation is a pid plus the
// process's start time, so a recycled pid is never mistaken for the
// process it replaced; and it says who is at the other end of a Unix
// socket (PeerCred).
//
// A start time is opaque: a number the OS gives for the process, equal
// for the same process whenever it is read and different for another
// process that later gets the same pid. It is compared, never converted
// to a time, and means something only on the machine that read it (Linux:
// /proc/<pid>/stat field 22, clock ticks since boot; macOS: the
// kern.proc.pid sysctl's p_starttime, in microseconds since the epoch;
// proc_<os>.go reads it).
package proc

import (
	"errors"
	"fmt"
	"os"
)

// ErrGone reports that no process has the pid.
var ErrGone = errors.New("process gone")

// Incarnation is one process: pid and start time.
type Incarnation struct {
	PID       int
	StartTime uint64
}

func (i Incarnation) String() string { return fmt.Sprintf("%d@%d", i.PID, i.StartTime) }

// Of returns the incarnation of pid now.
func Of(pid int) (Incarnation, error) {
	st, err := StartTime(pid)
	if err != nil {
		return Incarnation{}, err
	}
	return Incarnation{PID: pid, StartTime: st}, nil
}

// Self returns the calling process's incarnation.
func Self() (Incarnation, error) { return Of(os.Getpid()) }

// StartTime returns the start time of the process pid (see the package
// doc): an error matching ErrGone if no process has the pid or it is a
// zombie (it has exited and waits to be reaped).
func StartTime(pid int) (uint64, error) { return startTime(pid) }

// Alive reports whether inc is still running: the pid exists and has the
// same start time. An error means it could not be told (never "gone").
func Alive(inc Incarnation) (bool, error) {
	st, err := StartTime(inc.PID)
	if errors.Is(err, ErrGone) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return st == inc.StartTime, nil
}
