package main

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/chatbus/chatbus/paths"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
)

// Shell completion is cobra's: "busctl completion bash|zsh|fish|powershell"
// prints a script that calls "busctl __complete <words so far>" at every
// TAB. The functions here answer it from the live supervisor (provider
// names, binding keys) and from the profiles on this machine. Whatever
// fails (no supervisor, a refusal) completes nothing rather than
// printing an error into the shell.

// completeTimeout bounds a completion's call: a shell waits for it.
const completeTimeout = 2 * time.Second

// completeProviders completes the first argument with the names of the
// configured providers.
func (a *app) completeProviders(cmd *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return a.completeFlagProviders(cmd, args, "")
}

// completeFlagProviders completes a flag's value with provider names.
func (a *app) completeFlagProviders(cmd *cobra.Command, _ []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
	var out []cobra.Completion
	a.completeWith(cmd, func(ctx context.Context, c chatbusv1.AdminServiceClient) error {
		resp, err := c.ListProviders(ctx, &chatbusv1.ListProvidersRequest{})
		for _, p := range resp.GetProviders() {
			desc := strings.TrimPrefix(p.GetState().String(), "PROVIDER_STATE_")
			if p.GetPlatform() != "" {
				desc = p.GetPlatform() + ", " + desc
			}
			out = append(out, cobra.CompletionWithDesc(p.GetName(), desc))
		}
		return err
	})
	return out, cobra.ShellCompDirectiveNoFileComp
}

// completeBindings completes with the binding keys (profile keys).
func (a *app) completeBindings(cmd *cobra.Command) ([]cobra.Completion, cobra.ShellCompDirective) {
	var out []cobra.Completion
	a.completeWith(cmd, func(ctx context.Context, c chatbusv1.AdminServiceClient) error {
		resp, err := c.ListBindings(ctx, &chatbusv1.ListBindingsRequest{})
		for _, bi := range resp.GetBindings() {
			b := bi.GetBinding()
			desc := strings.ToLower(strings.TrimPrefix(b.GetStatus().String(), "BINDING_STATUS_"))
			if b.GetThreadName() != "" {
				desc = b.GetThreadName() + ", " + desc
			}
			out = append(out, cobra.CompletionWithDesc(b.GetProfileKey(), desc))
		}
		return err
	})
	return out, cobra.ShellCompDirectiveNoFileComp
}

func (a *app) completeFlagBindings(cmd *cobra.Command, _ []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
	return a.completeBindings(cmd)
}

// completeWith calls fn with the supervisor the flags name, bounded by
// completeTimeout; errors complete nothing.
func (a *app) completeWith(cmd *cobra.Command, fn func(context.Context, chatbusv1.AdminServiceClient) error) {
	c, _, err := a.dial()
	if err != nil {
		return
	}
	defer c.Close()
	ctx, cancel := context.WithTimeout(cmd.Context(), min(a.timeout, completeTimeout))
	defer cancel()
	fn(ctx, c.Admin)
}

// completeProfiles completes --profile with the profiles this user has on
// this machine (a runtime dir, a state dir or a config file), each said to
// be running when its supervisor's socket answers.
func (a *app) completeProfiles(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
	var out []cobra.Completion
	for _, name := range profiles(a.getenv) {
		desc := "not running"
		if p, err := paths.Resolve(name, a.getenv, os.Getuid()); err == nil && answers(p.Socket) {
			desc = "running"
		}
		out = append(out, cobra.CompletionWithDesc(name, desc))
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}

// profiles lists the profile names found under the directories
// paths.Resolve puts profiles in, sorted.
func profiles(getenv func(string) string) []string {
	def, err := paths.Resolve(paths.DefaultProfile, getenv, os.Getuid())
	if err != nil {
		return nil
	}
	seen := map[string]bool{}
	add := func(name string) {
		if _, err := paths.Resolve(name, getenv, os.Getuid()); err == nil {
			seen[name] = true
		}
	}
	dirsIn := func(root string) {
		ents, _ := os.ReadDir(root)
		for _, e := range ents {
			if e.IsDir() {
				add(e.Name())
			}
		}
	}
	dirsIn(filepath.Dir(def.RuntimeDir))
	if filepath.Base(def.StateDir) == def.Profile { // not the /tmp fallback's <profile>/state
		dirsIn(filepath.Dir(def.StateDir))
	}
	if def.Config != "" {
		ents, _ := os.ReadDir(filepath.Dir(def.Config))
		for _, e := range ents {
			if name, ok := strings.CutSuffix(e.Name(), ".yaml"); ok && !e.IsDir() {
				add(name)
			}
		}
	}
	out := make([]string, 0, len(seen))
	for name := range seen {
		out = append(out, name)
	}
	slices.Sort(out)
	return out
}

// answers reports whether something accepts connections on socket.
func answers(socket string) bool {
	conn, err := net.DialTimeout("unix", socket, 200*time.Millisecond)
	if err != nil {
		return false
	}
	conn.Close()
	return true
}
