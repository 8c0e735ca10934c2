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
	var unrouted, dead bool
	var retry, drop string
	var limit uint32
	cmd := &cobra.Command{
		Use:     "updates [BINDING]",
		Aliases: []string{"journal"},
		Short:   "Show the updates held for a binding (by profile key), --unrouted ones, or --dead-letters",
		Long: `Show the updates held for a binding (by profile key), or --unrouted ones.

--dead-letters [PROVIDER] lists the platform updates a provider could not
convert (a decoding failure, a panic): each was set aside, durably, so
that the updates after it flow. With --retry ID the provider converts it
again (a provider upgraded since may now) and it is journalled and routed
as it would have been; with --drop ID it is forgotten.`,
		Args: cobra.MaximumNArgs(1),
		ValidArgsFunction: func(cmd *cobra.Command, args []string, _ string) ([]cobra.Completion, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return a.completeBindings(cmd)
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if dead || retry != "" || drop != "" {
				return a.deadLetters(cmd, unrouted, args, retry, drop)
			}
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
	cmd.Flags().BoolVar(&dead, "dead-letters", false, "show the updates providers could not convert, set aside (all providers', or PROVIDER's)")
	cmd.Flags().StringVar(&retry, "retry", "", "with --dead-letters PROVIDER: have the provider convert dead letter ID again, and journal it")
	cmd.Flags().StringVar(&drop, "drop", "", "with --dead-letters PROVIDER: forget dead letter ID")
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

// deadLetters lists, retries or drops dead letters.
func (a *app) deadLetters(cmd *cobra.Command, unrouted bool, args []string, retry, drop string) error {
	provider := ""
	if len(args) == 1 {
		provider = args[0]
	}
	switch {
	case unrouted:
		return usagef("--unrouted and --dead-letters are two lists: ask for one")
	case retry != "" && drop != "":
		return usagef("--retry or --drop, not both")
	case (retry != "" || drop != "") && provider == "":
		return usagef("name the dead letter's provider: busctl updates --dead-letters PROVIDER --retry ID")
	}
	return a.show(cmd, func(ctx context.Context, c *client.Client) (*view, error) {
		switch {
		case retry != "":
			resp, err := c.Admin.RetryDeadLetter(ctx, &chatbusv1.RetryDeadLetterRequest{Provider: provider, Id: retry})
			if err != nil {
				return nil, clientErr(err)
			}
			msg := fmt.Sprintf("dead letter %s of %s converted and journalled\n", retry, provider)
			if resp.GetUpdate() == nil {
				msg = fmt.Sprintf("dead letter %s of %s converted: nothing to route (removed)\n", retry, provider)
			}
			return &view{data: protoData(resp), head: msg}, nil
		case drop != "":
			resp, err := c.Admin.DropDeadLetter(ctx, &chatbusv1.DropDeadLetterRequest{Provider: provider, Id: drop})
			if err != nil {
				return nil, clientErr(err)
			}
			return &view{data: protoData(resp), head: fmt.Sprintf("dead letter %s of %s dropped\n", drop, provider)}, nil
		}
		resp, err := c.Admin.ListDeadLetters(ctx, &chatbusv1.ListDeadLettersRequest{Provider: provider})
		if err != nil {
			return nil, clientErr(err)
		}
		t := newTable(col("PROVIDER"), col("ID"), col("UPDATE ID"), col("KIND"), col("RECEIVED"), col("RETRIES"), col("CAUSE"), col("ERROR"), wideCol("PAYLOAD"))
		t.empty = "(no dead letters)"
		for _, d := range resp.GetDeadLetters() {
			errLine, _, _ := strings.Cut(d.GetError(), "\n")
			t.add(txt(d.GetProvider()), txt(d.GetId()), txt(fmt.Sprint(d.GetPlatformUpdateId())),
				txt(orDash(strings.ToLower(strings.TrimPrefix(d.GetKind().String(), "UPDATE_KIND_")))),
				txt(d.GetReceivedAt().AsTime().Local().Format(time.DateTime)), txt(fmt.Sprint(d.GetRetries())),
				txt(orDash(strings.ToLower(strings.TrimPrefix(d.GetCause().String(), "DEAD_LETTER_CAUSE_")))),
				txt(clip(errLine, 80)), txt(clip(string(d.GetPayload()), 200)))
		}
		return &view{data: protoData(resp), table: t}, nil
	})
}
