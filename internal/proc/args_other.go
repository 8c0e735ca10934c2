//go:build !linux && !darwin

package proc

import "errors"

// Args returns the command line of pid; not on this system.
func Args(pid int) ([]string, error) {
	return nil, errors.New("reading another process's command line is not supported on this system")
}
