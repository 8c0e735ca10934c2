package main

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/chatbus/chatbus/client"
)

// Exit codes, the same for every command (docs/busctl.md's table).
const (
	exitOK         = 0
	exitError      = 1 // anything not below
	exitUsage      = 2 // unknown command or flag, wrong arguments
	exitNotRunning = 3 // no supervisor serves the profile (like systemctl status)
	exitDenied     = 4 // the supervisor, or the socket's permissions, refused the caller
	exitNotFound   = 5 // no such binding or provider
	// 10–13: doctor restart outcomes (doctor.go).
)

// exitCode maps an error to the exit code table.
func exitCode(err error) int {
	var oe *outcomeError
	var ue *usageError
	switch {
	case errors.As(err, &oe):
		return oe.code
	case errors.As(err, &ue), isCobraUsage(err):
		return exitUsage
	case errors.Is(err, errNotFound):
		return exitNotFound
	case errors.Is(err, client.ErrUnauthenticated), errors.Is(err, client.ErrPermissionDenied):
		return exitDenied
	case errors.Is(err, client.ErrNotRunning):
		return exitNotRunning
	}
	return exitError
}

// usageError is a mistake in how busctl was called.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Errorf(format, args...)}
}

// usageArgs makes an argument check's failure a usage error.
func usageArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if err := check(cmd, args); err != nil {
			return &usageError{err}
		}
		return nil
	}
}

// markUsage makes every flag and argument error under root a usage error.
func markUsage(root *cobra.Command) {
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{err} })
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		switch {
		case c.HasSubCommands():
			// The root's unknown subcommands are cobra's own error
			// (exitCode knows it); a group answers them itself.
			if c != root && c.RunE == nil && c.Run == nil {
				c.RunE = func(cmd *cobra.Command, args []string) error {
					if len(args) > 0 {
						return usagef("unknown command %q for %q", args[0], cmd.CommandPath())
					}
					return cmd.Help()
				}
			}
		case c.Args != nil:
			c.Args = usageArgs(c.Args)
		default:
			c.Args = usageArgs(cobra.NoArgs)
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// isCobraUsage reports cobra's own errors for an unknown subcommand of
// the root.
func isCobraUsage(err error) bool {
	return strings.HasPrefix(err.Error(), "unknown command ")
}

// errNotFound: what the command names does not exist.
var errNotFound = errors.New("not found")

// notFoundf returns an error matching errNotFound with the message given.
func notFoundf(format string, args ...any) error {
	return &notFound{msg: fmt.Sprintf(format, args...)}
}

type notFound struct{ msg string }

func (e *notFound) Error() string        { return e.msg }
func (e *notFound) Is(target error) bool { return target == errNotFound }

// clientErr maps a call's error for the operator: the client's sentinels
// (so the exit code follows the table), and a NOT_FOUND as errNotFound
// with the supervisor's words (the client's wording for followers,
// "session unknown", does not apply).
func clientErr(err error) error {
	if status.Code(err) == codes.NotFound {
		return notFoundf("%s", status.Convert(err).Message())
	}
	return client.Err(err)
}

// socketRefusal explains a socket this user may not connect to, nil if
// the reason it could not be reached is another. dial(2) on a Unix socket
// fails with EACCES when the socket, or a directory on its path, is
// another user's (the supervisor makes them 0600 and 0700).
func socketRefusal(socket string) error {
	conn, err := net.DialTimeout("unix", socket, time.Second)
	if err == nil {
		conn.Close()
		return nil
	}
	if !errors.Is(err, syscall.EACCES) && !errors.Is(err, syscall.EPERM) {
		return nil
	}
	uid, where := ownerOf(socket)
	owner := "its owner"
	if uid >= 0 {
		owner = fmt.Sprintf("uid %d", uid)
	}
	return fmt.Errorf("%w on the socket %s (owned by %s%s; you are uid %d): each user runs their own supervisor; run busctl as %s, or name your own with --profile or --socket",
		client.ErrPermissionDenied, socket, owner, where, os.Getuid(), owner)
}

// ownerOf returns the uid owning path, else its nearest directory this
// user can see (and which, when it is not path itself).
func ownerOf(path string) (uid int, where string) {
	for p := path; ; p = filepath.Dir(p) {
		fi, err := os.Stat(p)
		if err == nil {
			if st, ok := fi.Sys().(*syscall.Stat_t); ok {
				if p != path {
					where = ", its directory " + p
				}
				return int(st.Uid), where
			}
		}
		if p == filepath.Dir(p) || (err != nil && !errors.Is(err, fs.ErrPermission) && !errors.Is(err, fs.ErrNotExist)) {
			return -1, ""
		}
	}
}
