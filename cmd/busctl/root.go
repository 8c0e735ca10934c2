package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/chatbus/chatbus/client"
	"github.com/chatbus/chatbus/internal/version"
	"github.com/chatbus/chatbus/paths"
)

// verbs are busctl's top-level commands, one file each (status.go,
// stop.go, …); help lists them by name. A verb joins busctl with one line
// here.
var verbs = []func(*app) *cobra.Command{
	(*app).startCmd,
	(*app).stopCmd,
	(*app).statusCmd,
	(*app).followersCmd,
	(*app).bindingsCmd,
	(*app).providersCmd,
	(*app).updatesCmd,
	(*app).eventsCmd,
	(*app).doctorCmd,
	(*app).consoleCmd,
	(*app).pathsCmd,
	(*app).followCmd,
	(*app).reloadCmd,
	(*app).clusterCmd,
}

// app holds the global flags and output streams of one invocation.
type app struct {
	stdout, stderr io.Writer
	getenv         func(string) string
	// tty: stdout is a terminal (a watch redraws in place); color: and
	// NO_COLOR is unset, so tables are coloured (color.go).
	tty, color bool

	profile, socket, stateDir, secretFile string
	json                                  bool
	output                                string
	timeout                               time.Duration
}

const rootLong = `busctl talks to the chatbus supervisor of a profile over its Unix socket,
with the bearer secret from the profile's state dir.

Output: a table by default; -o wide adds columns, -o json and -o yaml print
the same record (the API's JSON form, --json is -o json), -o name prints
only the names (followers, bindings, providers). followers, bindings and
providers take -w to redraw on every change. Colour only on a terminal, and
never with NO_COLOR set.

Exit codes (every command):
  0   ok
  1   error
  2   usage: unknown command, flag or output format, wrong arguments
  3   the supervisor is not running, or went away (events --follow, -w)
  4   refused: wrong secret, another user's supervisor or socket
  5   not found: no such binding or provider
  10-13  doctor restart outcomes (see busctl doctor --help)
  20-22  reload outcomes (see busctl reload --help)`

// newApp is an invocation writing to stdout and stderr.
func newApp(stdout, stderr io.Writer, getenv func(string) string) *app {
	a := &app{stdout: stdout, stderr: stderr, getenv: getenv}
	a.tty = isTerminal(stdout)
	a.color = a.tty && colorAllowed(getenv)
	return a
}

func newRoot(stdout, stderr io.Writer, getenv func(string) string) *cobra.Command {
	a := newApp(stdout, stderr, getenv)
	root := &cobra.Command{
		Use:           "busctl",
		Short:         "Operate a chatbus supervisor",
		Long:          rootLong,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version.String(),
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			return a.checkFormat(cmd)
		},
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetVersionTemplate(version.CobraTemplate)
	pf := root.PersistentFlags()
	pf.StringVar(&a.profile, "profile", paths.DefaultProfile, "profile of the supervisor to talk to")
	pf.StringVar(&a.socket, "socket", "", "supervisor socket (default: the profile's)")
	pf.StringVar(&a.stateDir, "state-dir", "", "supervisor state dir, where the secret is (default: the profile's)")
	pf.StringVar(&a.secretFile, "secret-file", "", "bearer secret file (default: <state dir>/secret)")
	pf.BoolVar(&a.json, "json", false, "print JSON instead of a table (the same as -o json)")
	pf.StringVarP(&a.output, "output", "o", "", "output format: json, yaml, wide or name (default: a table)")
	pf.DurationVar(&a.timeout, "timeout", 5*time.Second, "bound on each call (not on --follow or --watch)")
	root.RegisterFlagCompletionFunc("profile", a.completeProfiles)
	root.RegisterFlagCompletionFunc("output", cobra.FixedCompletions(formatNames(), cobra.ShellCompDirectiveNoFileComp))

	for _, verb := range verbs {
		root.AddCommand(verb(a))
	}
	markUsage(root)
	return root
}

// paths resolves the profile's paths with the flag overrides.
func (a *app) paths() (paths.Paths, error) {
	p, err := paths.Resolve(a.profile, a.getenv, os.Getuid())
	if err != nil {
		return p, err
	}
	if a.socket != "" {
		p.SetSocket(a.socket)
	}
	if a.stateDir != "" {
		p.SetStateDir(a.stateDir)
	}
	if a.secretFile != "" {
		p.Secret = a.secretFile
	}
	return p, nil
}

// dial connects; the caller closes the client.
func (a *app) dial() (*client.Client, paths.Paths, error) {
	p, err := a.paths()
	if err != nil {
		return nil, p, err
	}
	c, err := client.Dial(p.Socket, client.WithSecretFile(p.Secret))
	if errors.Is(err, client.ErrNotRunning) {
		if refusal := socketRefusal(p.Socket); refusal != nil {
			return nil, p, refusal
		}
		return nil, p, fmt.Errorf("%w (profile %q; start it with: busctl start, or supervisord --profile %s)", err, p.Profile, p.Profile)
	}
	if err != nil {
		return nil, p, err
	}
	return c, p, nil
}

// connect dials and bounds the call by --timeout; done closes both.
func (a *app) connect(cmd *cobra.Command) (*client.Client, context.Context, func(), error) {
	c, _, err := a.dial()
	if err != nil {
		return nil, nil, nil, err
	}
	ctx, cancel := a.callCtx(cmd)
	return c, ctx, func() { cancel(); c.Close() }, nil
}

func (a *app) callCtx(cmd *cobra.Command) (context.Context, context.CancelFunc) {
	return context.WithTimeout(cmd.Context(), a.timeout)
}
