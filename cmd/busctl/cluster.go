package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
)

func (a *app) clusterCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "cluster",
		Short: "The cluster this supervisord is a node of: the leader of each provider, its lease, the members and their followers",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, _, err := a.dial()
			if err != nil {
				return err
			}
			defer c.Close()
			ctx, cancel := a.callCtx(cmd)
			defer cancel()
			cl, err := c.Cluster.GetCluster(ctx, &chatbusv1.GetClusterRequest{})
			if status.Code(err) == codes.Unimplemented {
				return fmt.Errorf("this supervisord is not in a cluster (its config has no cluster: section)")
			}
			if err != nil {
				return clientErr(err)
			}
			return a.render(clusterView(cl))
		},
	}
}

// clusterLine is status's one-line summary of the cluster.
func clusterLine(cl *chatbusv1.GetClusterResponse) string {
	var leads []string
	for _, l := range cl.GetLeaders() {
		if l.GetNode() == "" {
			leads = append(leads, l.GetProvider()+" has no leader")
			continue
		}
		leads = append(leads, fmt.Sprintf("%s led by %s (lease %ds of %ds)", l.GetProvider(), l.GetNode(),
			l.GetLeaseRemainingSeconds(), l.GetLeaseTtlSeconds()))
	}
	return fmt.Sprintf("%s, this node %s; %s; %d members", cl.GetCluster(), cl.GetNode(), strings.Join(leads, ", "), len(cl.GetMembers()))
}

func clusterData(cl *chatbusv1.GetClusterResponse) map[string]any {
	var leaders, members []map[string]any
	for _, l := range cl.GetLeaders() {
		leaders = append(leaders, map[string]any{"provider": l.GetProvider(), "node": l.GetNode(), "address": l.GetAddress(),
			"since": l.GetSince().AsTime(), "fence_revision": l.GetFenceRevision(),
			"lease_ttl_seconds": l.GetLeaseTtlSeconds(), "lease_remaining_seconds": l.GetLeaseRemainingSeconds()})
	}
	for _, m := range cl.GetMembers() {
		members = append(members, map[string]any{"node": m.GetNode(), "address": m.GetAddress(), "leading": m.GetLeading(),
			"followers": m.GetFollowers(), "terms": m.GetTerms(), "fenced": m.GetFenced(), "started_at": m.GetStartedAt().AsTime()})
	}
	return map[string]any{"cluster": cl.GetCluster(), "node": cl.GetNode(), "leaders": leaders, "members": members}
}

// clusterView is a table of the members, leaders first marked.
func clusterView(cl *chatbusv1.GetClusterResponse) *view {
	leaderOf := map[string][]string{}
	for _, l := range cl.GetLeaders() {
		leaderOf[l.GetNode()] = append(leaderOf[l.GetNode()], l.GetProvider())
	}
	t := newTable(col("NODE"), col("ADDRESS"), col("LEADS"), col("FOLLOWERS"), col("TERMS"), col("FENCED"), col("UP"))
	for _, m := range cl.GetMembers() {
		leads := strings.Join(leaderOf[m.GetNode()], ",")
		st := stylePlain
		if leads != "" {
			st = styleGood
		}
		name := m.GetNode()
		if name == cl.GetNode() {
			name += " (this)"
		}
		t.add(txt(name), txt(m.GetAddress()), paint(firstOf(leads, "-"), st), txt(fmt.Sprint(m.GetFollowers())),
			txt(fmt.Sprint(m.GetTerms())), txt(fmt.Sprint(m.GetFenced())),
			txt(time.Since(m.GetStartedAt().AsTime()).Round(time.Second).String()))
	}
	names := make([]string, 0, len(cl.GetMembers()))
	for _, m := range cl.GetMembers() {
		names = append(names, m.GetNode())
	}
	return &view{data: jsonData(clusterData(cl)), head: clusterLine(cl), table: t, names: names}
}
