package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
)

// Exit codes of busctl reload (beside the common ones).
const (
	exitReloadRefused      = 20 // the new config was refused: nothing changed
	exitReloadNeedsRestart = 21 // applied, but some settings need a restart
	exitReloadFailed       = 22 // a change was tried and failed
)

// reloadTimeout bounds busctl reload: provider restarts take a while.
const reloadTimeout = 3 * time.Minute

func (a *app) reloadCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "reload",
		Short: "Read the config file again and apply what changed (as SIGHUP does)",
		Long: `busctl reload asks the supervisor to read its config file again, as SIGHUP
does, and prints what changed and what was done about each change:

  applied             the log level, a journal bound, the shutdown timeout,
                      the default provider: in effect now
  restarted provider  its settings (allow list, token…) or binary changed:
                      restarted through the doctor protocol, nothing lost
  started / stopped   a provider added / removed (a removed one is drained
                      first; its bindings go offline, their journals kept)
  needs restart       cannot change while it runs (socket, state dir,
                      timings, console, log file…): not applied
  failed              tried and failed; the old value holds

A config with a mistake is refused as a whole and the running one kept.

Exit codes: 0 everything applied (or nothing changed); 20 the config was
refused; 21 applied, but some settings need a restart; 22 a change failed.
The wait is bounded by --timeout or, if longer, 3m.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, _, err := a.dial()
			if err != nil {
				return err
			}
			defer c.Close()
			ctx, cancel := context.WithTimeout(cmd.Context(), max(a.timeout, reloadTimeout))
			defer cancel()
			resp, err := c.Admin.Reload(ctx, &chatbusv1.ReloadRequest{})
			if err != nil {
				return clientErr(err)
			}
			if err := a.render(reloadView(resp)); err != nil {
				return err
			}
			return reloadOutcome(resp)
		},
	}
}

// actionNames are the words busctl prints for each action.
var actionNames = map[chatbusv1.ConfigChangeAction]string{
	chatbusv1.ConfigChangeAction_CONFIG_CHANGE_ACTION_APPLIED:            "applied",
	chatbusv1.ConfigChangeAction_CONFIG_CHANGE_ACTION_RESTARTED_PROVIDER: "restarted provider",
	chatbusv1.ConfigChangeAction_CONFIG_CHANGE_ACTION_STARTED:            "started",
	chatbusv1.ConfigChangeAction_CONFIG_CHANGE_ACTION_STOPPED:            "stopped",
	chatbusv1.ConfigChangeAction_CONFIG_CHANGE_ACTION_NEEDS_RESTART:      "needs restart",
	chatbusv1.ConfigChangeAction_CONFIG_CHANGE_ACTION_FAILED:             "failed",
}

// reloadView is what busctl reload shows: one row per change, or the
// reasons the new config was refused.
func reloadView(resp *chatbusv1.ReloadResponse) *view {
	v := &view{data: protoData(resp)}
	switch {
	case len(resp.GetRefused()) > 0:
		var b strings.Builder
		fmt.Fprintf(&b, "config %s refused; the running config is kept:\n", resp.GetConfigPath())
		for _, l := range resp.GetRefused() {
			b.WriteString("  " + l + "\n")
		}
		v.head = b.String()
		return v
	case len(resp.GetChanges()) == 0:
		v.head = fmt.Sprintf("config %s reloaded: nothing changed\n", resp.GetConfigPath())
		return v
	}
	v.head = fmt.Sprintf("config %s reloaded:\n", resp.GetConfigPath())
	v.table = newTable(col("KEY"), col("ACTION"), col("OLD"), col("NEW"), col("DETAIL"))
	for _, ch := range resp.GetChanges() {
		st := styleGood
		switch ch.GetAction() {
		case chatbusv1.ConfigChangeAction_CONFIG_CHANGE_ACTION_FAILED:
			st = styleBad
		case chatbusv1.ConfigChangeAction_CONFIG_CHANGE_ACTION_NEEDS_RESTART:
			st = styleWarn
		}
		v.table.add(txt(ch.GetKey()), paint(actionNames[ch.GetAction()], st), txt(dash(ch.GetOldValue())), txt(dash(ch.GetNewValue())),
			txt(strings.ReplaceAll(ch.GetDetail(), "\n", " ")))
	}
	return v
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// reloadOutcome maps the response to the exit code table: refused beats
// failed beats needs restart.
func reloadOutcome(resp *chatbusv1.ReloadResponse) error {
	if len(resp.GetRefused()) > 0 {
		return &outcomeError{code: exitReloadRefused, msg: "reload refused: the config has mistakes (above)"}
	}
	failed, restart := 0, 0
	for _, ch := range resp.GetChanges() {
		switch ch.GetAction() {
		case chatbusv1.ConfigChangeAction_CONFIG_CHANGE_ACTION_FAILED:
			failed++
		case chatbusv1.ConfigChangeAction_CONFIG_CHANGE_ACTION_NEEDS_RESTART:
			restart++
		}
	}
	switch {
	case failed > 0:
		return &outcomeError{code: exitReloadFailed, msg: fmt.Sprintf("reload: %d change(s) failed", failed)}
	case restart > 0:
		return &outcomeError{code: exitReloadNeedsRestart, msg: fmt.Sprintf("reload: %d setting(s) need a restart of supervisord to apply", restart)}
	}
	return nil
}
