package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
)

func (a *app) providersCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "providers",
		Short: "List chat providers: state, pid, uptime, restarts, last exit",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, ctx, done, err := a.connect(cmd)
			if err != nil {
				return err
			}
			defer done()
			resp, err := c.Admin.ListProviders(ctx, &chatbusv1.ListProvidersRequest{})
			if err != nil {
				return clientErr(err)
			}
			if a.json {
				return a.printProto(resp)
			}
			w := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(w, "NAME\tSTATE\tPID\tUPTIME\tRESTARTS\tLAST EXIT\tHEALTH\tATTACHED\tINGESTED\tDROPPED\tLAST ERROR")
			for _, p := range resp.GetProviders() {
				up := "-"
				if p.GetSince() != nil && p.GetState() == chatbusv1.ProviderState_PROVIDER_STATE_RUNNING {
					up = time.Since(p.GetSince().AsTime()).Round(time.Second).String()
				}
				health := "serving"
				if !p.GetServing() {
					health = "not-serving"
				}
				name := p.GetName()
				if p.GetDefault() {
					name += "*"
				}
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%d\t%d\t%d\t%s\n", name,
					strings.TrimPrefix(p.GetState().String(), "PROVIDER_STATE_"), pidOrDash(p.GetPid()), up,
					p.GetRestarts(), orDash(p.GetLastExit()), health, p.GetAttached(), p.GetIngested(),
					p.GetDroppedNotAllowed(), orDash(p.GetLastError()))
			}
			if len(resp.GetProviders()) == 0 {
				fmt.Fprintln(w, "(no providers configured: see deploy/config.example.yaml)")
			}
			return w.Flush()
		},
	}
}

func (a *app) bindingsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "bindings",
		Short: "List bindings (threads): status, owner, last reconcile action, unacked updates",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, ctx, done, err := a.connect(cmd)
			if err != nil {
				return err
			}
			defer done()
			resp, err := c.Admin.ListBindings(ctx, &chatbusv1.ListBindingsRequest{})
			if err != nil {
				return clientErr(err)
			}
			if a.json {
				return a.printProto(resp)
			}
			w := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(w, "PROFILE KEY\tSLOT\tTHREAD\tTARGET\tSTATUS\tLIVE\tINSTANCE\tLAST ACTION\tUNACKED\tDROPPED\tUPDATED")
			for _, bi := range resp.GetBindings() {
				b := bi.GetBinding()
				live := "-"
				if bi.GetLive() {
					live = "yes"
				}
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%s ago\n", b.GetProfileKey(), orDash(b.GetSlot()),
					orDash(b.GetThreadName()), target(b.GetTarget()),
					strings.ToLower(strings.TrimPrefix(b.GetStatus().String(), "BINDING_STATUS_")), live,
					orDash(b.GetInstanceId()), orDash(bi.GetLastAction()), bi.GetJournal().GetUnacked(),
					bi.GetJournal().GetDropped(), ago(bi.GetUpdatedAt().AsTime()))
				if bi.GetLastError() != "" {
					fmt.Fprintf(w, "\t\terror: %s\n", bi.GetLastError())
				}
			}
			if len(resp.GetBindings()) == 0 {
				fmt.Fprintln(w, "(no bindings)")
			}
			return w.Flush()
		},
	}
}

func (a *app) updatesCmd() *cobra.Command {
	var unrouted bool
	var limit uint32
	cmd := &cobra.Command{
		Use:     "updates [BINDING]",
		Aliases: []string{"journal"},
		Short:   "Show the updates held for a binding (by profile key), or --unrouted ones",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			req := &chatbusv1.ListUpdatesRequest{Unrouted: unrouted, Limit: limit}
			switch {
			case unrouted && len(args) > 0:
				return usagef("name a binding or --unrouted, not both")
			case !unrouted && len(args) == 0:
				return usagef("name a binding (its profile key, see busctl bindings) or use --unrouted")
			case len(args) == 1:
				req.Binding = args[0]
			}
			c, ctx, done, err := a.connect(cmd)
			if err != nil {
				return err
			}
			defer done()
			resp, err := c.Admin.ListUpdates(ctx, req)
			if err != nil {
				if err := clientErr(err); errors.Is(err, errNotFound) && req.Binding != "" {
					return notFoundf("no binding for %s yet: a follower registering with that profile key makes one (busctl bindings lists them)", req.Binding)
				}
				return clientErr(err)
			}
			if a.json {
				return a.printProto(resp)
			}
			st := resp.GetStats()
			fmt.Fprintf(a.stdout, "held %d (%d bytes), acked through %d, last seq %d, dropped %d\n",
				st.GetUnacked(), st.GetBytes(), st.GetAckedThrough(), st.GetLastSeq(), st.GetDropped())
			w := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
			fmt.Fprintln(w, "SEQ\tUPDATE ID\tKIND\tTARGET\tFROM\tRECEIVED\tTEXT")
			for _, u := range resp.GetUpdates() {
				fmt.Fprintf(w, "%d\t%d\t%s\t%s\t%d\t%s\t%s\n", u.GetSeq(), u.GetPlatformUpdateId(),
					strings.ToLower(strings.TrimPrefix(u.GetKind().String(), "UPDATE_KIND_")), target(u.GetTarget()),
					u.GetFromUserId(), u.GetReceivedAt().AsTime().Local().Format(time.DateTime), clip(u.GetText(), 60))
			}
			return w.Flush()
		},
	}
	cmd.Flags().BoolVar(&unrouted, "unrouted", false, "show updates no binding claimed (no live thread, General topic)")
	cmd.Flags().Uint32Var(&limit, "limit", 100, "at most this many (up to 1000)")
	return cmd
}

func target(t *chatbusv1.Target) string {
	if t == nil {
		return "-"
	}
	return fmt.Sprintf("%s:%d/%d", t.GetProvider(), t.GetChatId(), t.GetThreadId())
}

func pidOrDash(pid int32) string {
	if pid == 0 {
		return "-"
	}
	return strconv.Itoa(int(pid))
}

func clip(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func (a *app) printProto(m proto.Message) error {
	b, err := protojson.MarshalOptions{UseProtoNames: true, EmitUnpopulated: true, Multiline: true}.Marshal(m)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(a.stdout, string(b))
	return err
}
