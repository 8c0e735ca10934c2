package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/chatbus/chatbus/client"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
)

func (a *app) statusCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "status",
		Short: "Is the supervisor running: pid, socket, profile, followers",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, p, err := a.dial()
			if err != nil {
				if a.json && errors.Is(err, client.ErrNotRunning) {
					a.printJSON(map[string]any{"running": false, "socket": p.Socket, "profile": p.Profile,
						"config": p.Config, "config_exists": fileExists(p.Config)})
				}
				return err
			}
			defer c.Close()
			ctx, cancel := a.callCtx(cmd)
			defer cancel()
			info, err := c.Info(ctx)
			if err != nil {
				return err
			}
			cfg := info.GetConfigPath()
			if cfg == "" { // a supervisor that names no path read the profile's
				cfg = p.Config
			}
			cfgExists := fileExists(cfg)
			if a.json {
				return a.printJSON(map[string]any{
					"running": true, "pid": info.GetPid(), "version": info.GetVersion(), "profile": info.GetProfile(),
					"socket": info.GetSocketPath(), "state_dir": info.GetStateDir(), "config": cfg, "config_exists": cfgExists,
					"started_at": info.GetStartedAt().AsTime(), "followers": info.GetFollowerCount(),
				})
			}
			up := time.Since(info.GetStartedAt().AsTime()).Round(time.Second)
			w := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintf(w, "supervisord\trunning (pid %d, up %s)\n", info.GetPid(), up)
			fmt.Fprintf(w, "version\t%s\n", info.GetVersion())
			fmt.Fprintf(w, "profile\t%s\n", info.GetProfile())
			fmt.Fprintf(w, "socket\t%s\n", info.GetSocketPath())
			fmt.Fprintf(w, "state dir\t%s\n", info.GetStateDir())
			fmt.Fprintf(w, "config\t%s%s\n", cfg, absentNote(cfgExists))
			fmt.Fprintf(w, "followers\t%d\n", info.GetFollowerCount())
			return w.Flush()
		},
	}
}

func (a *app) followersCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "followers",
		Short: "List registered followers (agent sessions)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, ctx, done, err := a.connect(cmd)
			if err != nil {
				return err
			}
			defer done()
			fs, err := c.Followers(ctx)
			if err != nil {
				return err
			}
			if a.json {
				return a.printProtoList(fs)
			}
			w := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(w, "INSTANCE\tPID\tTHREAD\tTARGET\tPROFILE KEY\tORIGIN\tSTREAM\tCONNECTED\tLAST HEARTBEAT")
			for _, f := range fs {
				stream := "-"
				if f.GetSubscribed() {
					stream = "open"
				}
				thread := f.GetThreadName()
				if b := f.GetBinding(); b != nil && b.GetSlot() != "" {
					thread = b.GetSlot() + " · " + thread
				}
				fmt.Fprintf(w, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s ago\t%s ago\n",
					f.GetInstanceId(), f.GetPid(), orDash(thread), target(f.GetBinding().GetTarget()), f.GetProfileKey(),
					strings.ToLower(strings.TrimPrefix(f.GetOrigin().String(), "ORIGIN_")), stream,
					ago(f.GetConnectedAt().AsTime()), ago(f.GetLastHeartbeat().AsTime()))
			}
			if len(fs) == 0 {
				fmt.Fprintln(w, "(no followers)")
			}
			return w.Flush()
		},
	}
}

func (a *app) eventsCmd() *cobra.Command {
	var follow bool
	cmd := &cobra.Command{
		Use:   "events",
		Short: "Show recent runtime events; --follow streams new ones",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, _, err := a.dial()
			if err != nil {
				return err
			}
			defer c.Close()
			if !follow {
				ctx, cancel := a.callCtx(cmd)
				defer cancel()
				evs, err := c.Events(ctx)
				if err != nil {
					return err
				}
				for _, e := range evs {
					a.printEvent(e)
				}
				return nil
			}
			err = c.WatchEvents(cmd.Context(), true, func(e *chatbusv1.Event) error {
				a.printEvent(e)
				return nil
			})
			if errors.Is(err, context.Canceled) {
				return nil
			}
			return err
		},
	}
	cmd.Flags().BoolVarP(&follow, "follow", "f", false, "keep streaming events until interrupted")
	return cmd
}

func (a *app) printEvent(e *chatbusv1.Event) {
	if a.json {
		b, _ := protojson.MarshalOptions{UseProtoNames: true}.Marshal(e)
		fmt.Fprintln(a.stdout, string(b))
		return
	}
	kind := strings.ToLower(strings.TrimPrefix(e.GetKind().String(), "EVENT_KIND_"))
	line := fmt.Sprintf("%s  %-22s %s", e.GetTime().AsTime().Local().Format("15:04:05.000"), kind, e.GetMessage())
	if e.GetInstanceId() != "" {
		line += "  instance=" + e.GetInstanceId()
	}
	keys := make([]string, 0, len(e.GetAttrs()))
	for k := range e.GetAttrs() {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		line += fmt.Sprintf("  %s=%s", k, e.GetAttrs()[k])
	}
	fmt.Fprintln(a.stdout, line)
}

// printProtoList prints proto messages as a JSON array.
func (a *app) printProtoList(fs []*chatbusv1.Follower) error {
	m := protojson.MarshalOptions{UseProtoNames: true, EmitUnpopulated: true}
	fmt.Fprint(a.stdout, "[")
	for i, f := range fs {
		if i > 0 {
			fmt.Fprint(a.stdout, ",")
		}
		b, err := m.Marshal(f)
		if err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "\n  %s", b)
	}
	if len(fs) > 0 {
		fmt.Fprintln(a.stdout)
	}
	fmt.Fprintln(a.stdout, "]")
	return nil
}

// fileExists reports whether path names something that exists.
func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// absentNote is what a table says beside a config file that is not there.
func absentNote(exists bool) string {
	if exists {
		return ""
	}
	return "  (not present: the defaults apply)"
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func ago(t time.Time) string {
	d := time.Since(t)
	if d < time.Second {
		return d.Round(time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}
