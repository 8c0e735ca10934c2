// Package proc identifies processes on Linux: an incarnation is a pid plus
// the process's start time (/proc/<pid>/stat field 22, clock ticks since
// boot), so a recycled pid is never mistaken for the process it replaced.
package proc

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"syscall"
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

// StartTime reads field 22 of /proc/<pid>/stat.
func StartTime(pid int) (uint64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ESRCH) {
		return 0, fmt.Errorf("pid %d: %w", pid, ErrGone)
	}
	if err != nil {
		return 0, err
	}
	// The command name (field 2) is in parentheses and may hold spaces or
	// parentheses itself: fields resume after the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("pid %d: malformed /proc stat", pid)
	}
	fields := bytes.Fields(b[i+1:])
	// fields[0] is field 3 (state); field 22 is fields[19].
	if len(fields) < 20 {
		return 0, fmt.Errorf("pid %d: short /proc stat", pid)
	}
	if fields[0][0] == 'Z' || fields[0][0] == 'X' {
		return 0, fmt.Errorf("pid %d is a zombie: %w", pid, ErrGone)
	}
	return strconv.ParseUint(string(fields[19]), 10, 64)
}

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
