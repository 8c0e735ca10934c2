package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/chatbus/chatbus/client"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
)

func (a *app) updatesCmd() *cobra.Command {
	var unrouted bool
	var limit uint32
	cmd := &cobra.Command{
		Use:     "updates [BINDING]",
		Aliases: []string{"journal"},
		Short:   "Show the updates held for a binding (by profile key), or --unrouted ones",
		Args:    cobra.MaximumNArgs(1),
		ValidArgsFunction: func(cmd *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return a.completeBindings(cmd)
		},
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
			return a.show(cmd, func(ctx context.Context, c *client.Client) (*view, error) { return updatesView(ctx, c, req) })
		},
	}
	cmd.Flags().BoolVar(&unrouted, "unrouted", false, "show updates no binding claimed (no live thread, General topic)")
	cmd.Flags().Uint32Var(&limit, "limit", 100, "at most this many (up to 1000)")
	return cmd
}

func updatesView(ctx context.Context, c *client.Client, req *chatbusv1.ListUpdatesRequest) (*view, error) {
	resp, err := c.Admin.ListUpdates(ctx, req)
	if err != nil {
		if err := clientErr(err); errors.Is(err, errNotFound) && req.Binding != "" {
			return nil, notFoundf("no binding for %s yet: a follower registering with that profile key makes one (busctl bindings lists them)", req.Binding)
		}
		return nil, clientErr(err)
	}
	st := resp.GetStats()
	t := newTable(col("SEQ"), col("UPDATE ID"), col("KIND"), col("TARGET"), col("FROM"), col("RECEIVED"), col("TEXT"), wideCol("REFERENCES"))
	t.empty = "(none held)"
	for _, u := range resp.GetUpdates() {
		var refs []string
		for _, r := range u.GetReferences() {
			refs = append(refs, strings.ToLower(strings.TrimPrefix(r.GetKind().String(), "REFERENCE_KIND_"))+":"+r.GetId())
		}
		t.add(txt(fmt.Sprint(u.GetSeq())), txt(fmt.Sprint(u.GetPlatformUpdateId())),
			txt(strings.ToLower(strings.TrimPrefix(u.GetKind().String(), "UPDATE_KIND_"))), txt(target(u.GetTarget())),
			txt(orDash(firstOf(u.GetSenderName(), u.GetSender()))), txt(u.GetReceivedAt().AsTime().Local().Format(time.DateTime)),
			txt(clip(u.GetText(), 60)), txt(orDash(strings.Join(refs, " "))))
	}
	head := fmt.Sprintf("held %d (%d bytes), acked through %d, last seq %d, dropped %d\n",
		st.GetUnacked(), st.GetBytes(), st.GetAckedThrough(), st.GetLastSeq(), st.GetDropped())
	return &view{data: protoData(resp), table: t, head: head}, nil
}
