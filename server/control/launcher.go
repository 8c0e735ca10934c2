// Package control answers the commands people send to chatbus itself from
// the chat (sessions, status, new, stop, restart), on every platform's
// control place (docs/control.md: a group's general topic or a private
// chat outside any topic, a /chatbus slash or application command, a
// mention, the playground's control room). Each platform's provider says
// which of its updates are commands; this package knows no platform.
package control

import (
	"context"
	"errors"
)

// Launcher starts and stops agent sessions from the launch templates of
// the config file. Without templates the supervisor has none, and new and
// stop say so.
type Launcher interface {
	// Templates lists the configured templates, for help and refusals.
	Templates() []Template
	// New starts a session from r.Template in r.Project and returns once
	// its follower has registered (Launched names its slot), or the
	// reason it did not start. A *Refusal is told to the person as is.
	New(ctx context.Context, r NewRequest) (Launched, error)
	// Stop ends the launched session in slot: the agent's own way
	// first, then signals; its thread is parked. It returns
	// ErrNotLaunched for a session chatbus did not launch.
	Stop(ctx context.Context, slot string, by Requester) (Stopped, error)
}

// Template is a launch template as the chat sees it.
type Template struct {
	Name string
	// Projects are the names a person may give new (directory base
	// names), in order.
	Projects []string
}

// Requester is who sent a command: the provider it came through, the
// sender's platform id and display name.
type Requester struct {
	Provider string
	Sender   string
	Name     string
}

// NewRequest asks for a session from Template in Project ("" is the
// template's only or first directory, as the template says).
type NewRequest struct {
	Template string
	Project  string
	By       Requester
}

// Launched is a started session: its follower's slot and its tmux window.
type Launched struct {
	Slot   string
	Window string
}

// Stopped says how a launched session ended ("exited after /exit",
// "SIGTERM", "SIGKILL").
type Stopped struct {
	Slot string
	How  string
}

// ErrNotLaunched: the session was not started by chatbus, so it is only
// asked to suspend.
var ErrNotLaunched = errors.New("control: the session was not launched by chatbus")

// Refusal is a refusal the person is told verbatim ("project ../x: only
// the projects of template claude may be named: web, api").
type Refusal struct{ Reason string }

func (r *Refusal) Error() string { return r.Reason }
