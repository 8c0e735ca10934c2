package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/chatbus/chatbus/client"
)

func (a *app) startCmd() *cobra.Command {
	var binary string
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "start",
		Short: "Start the profile's supervisord in the background unless one is running",
		Long: `start makes sure a supervisord serves the profile's socket: if one answers, it
says so; otherwise it starts one in the background (its own session; it logs
to <state dir>/supervisord.log, rotated at 10 MiB with 3 old files kept, and
anything it prints outside its log goes to <state dir>/supervisord.out) and
waits until it serves.

Concurrent starts of one profile start exactly one supervisord.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, err := a.paths()
			if err != nil {
				return err
			}
			st, err := client.Ensure(cmd.Context(), client.EnsureOptions{
				Socket:     p.Socket,
				StateDir:   p.StateDir,
				Profile:    p.Profile,
				SecretFile: p.Secret,
				Binary:     binary,
				Timeout:    timeout,
			})
			if err != nil {
				return fmt.Errorf("start supervisord (profile %q): %w", p.Profile, err)
			}
			pid := "pid unknown"
			if st.PID > 0 {
				pid = fmt.Sprintf("pid %d", st.PID)
			}
			head := fmt.Sprintf("supervisord already running (%s)\n", pid)
			if st.Started {
				head = fmt.Sprintf("supervisord running (%s), started now; log: %s\n", pid, st.Log)
			}
			return a.render(&view{head: head, data: jsonData(map[string]any{"pid": st.PID, "started": st.Started, "socket": p.Socket, "log": st.Log})})
		},
	}
	// --timeout shadows the global one here: it bounds the whole start,
	// with a longer default than a single call.
	cmd.Flags().DurationVar(&timeout, "timeout", client.DefaultEnsureTimeout, "how long to wait until it serves")
	cmd.Flags().StringVar(&binary, "supervisord", "", "supervisord binary to start (default: the one beside busctl, else from PATH)")
	return cmd
}
