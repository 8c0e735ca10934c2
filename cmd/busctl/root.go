package main

import (
	"context"
	"encoding/json"
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

// app holds the global flags and output streams of one invocation.
type app struct {
	stdout, stderr io.Writer
	getenv         func(string) string

	profile, socket, stateDir, secretFile string
	json                                  bool
	timeout                               time.Duration
}

func newRoot(stdout, stderr io.Writer, getenv func(string) string) *cobra.Command {
	a := &app{stdout: stdout, stderr: stderr, getenv: getenv}
	root := &cobra.Command{
		Use:   "busctl",
		Short: "Operate a chatbus supervisor",
		Long: `busctl talks to the chatbus supervisor of a profile over its Unix socket,
with the bearer secret from the profile's state dir.

Exit codes (every command):
  0   ok
  1   error
  2   usage: unknown command or flag, wrong arguments
  3   the supervisor is not running
  4   refused: wrong secret, another user's supervisor or socket
  5   not found: no such binding or provider
  10-13  doctor restart outcomes (see busctl doctor --help)
  20-22  reload outcomes (see busctl reload --help)`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version.Version,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	pf := root.PersistentFlags()
	pf.StringVar(&a.profile, "profile", paths.DefaultProfile, "profile of the supervisor to talk to")
	pf.StringVar(&a.socket, "socket", "", "supervisor socket (default: the profile's)")
	pf.StringVar(&a.stateDir, "state-dir", "", "supervisor state dir, where the secret is (default: the profile's)")
	pf.StringVar(&a.secretFile, "secret-file", "", "bearer secret file (default: <state dir>/secret)")
	pf.BoolVar(&a.json, "json", false, "print JSON instead of a table")
	pf.DurationVar(&a.timeout, "timeout", 5*time.Second, "bound on each call (not on --follow)")

	root.AddCommand(a.startCmd(), a.statusCmd(), a.followersCmd(), a.bindingsCmd(), a.providersCmd(), a.updatesCmd(), a.eventsCmd(), a.doctorCmd(), a.consoleCmd(), a.pathsCmd())
	root.AddCommand(a.followCmd())
	root.AddCommand(a.reloadCmd())
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

func (a *app) printJSON(v any) error {
	enc := json.NewEncoder(a.stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
