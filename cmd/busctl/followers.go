package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/chatbus/chatbus/client"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
)

// followerComings are the events of a follower coming or going.
var followerComings = []chatbusv1.EventKind{
	chatbusv1.EventKind_EVENT_KIND_FOLLOWER_REGISTERED,
	chatbusv1.EventKind_EVENT_KIND_FOLLOWER_REPLACED,
	chatbusv1.EventKind_EVENT_KIND_FOLLOWER_PRUNED,
	chatbusv1.EventKind_EVENT_KIND_FOLLOWER_UNREGISTERED,
}

// followerEvents are the changes that alter busctl followers.
var followerEvents = append([]chatbusv1.EventKind{chatbusv1.EventKind_EVENT_KIND_BINDING_CHANGED,
	chatbusv1.EventKind_EVENT_KIND_FOLLOWER_WAY_IN}, followerComings...)

func (a *app) followersCmd() *cobra.Command {
	return a.listCmd(&cobra.Command{
		Use:   "followers",
		Short: "List registered followers (agent sessions); -o name prints their instance ids",
	}, followerEvents, followersView)
}

func followersView(ctx context.Context, c *client.Client) (*view, error) {
	fs, err := c.Followers(ctx)
	if err != nil {
		return nil, err
	}
	t := newTable(col("INSTANCE"), col("PID"), col("PLATFORM"), col("THREAD"), col("TARGET"), col("PROFILE KEY"),
		col("ORIGIN"), col("STREAM"), col("WAY IN"), col("CONNECTED"), col("LAST HEARTBEAT"), wideCol("BINDING"), wideCol("CWD"),
		wideCol("WAY IN DETAIL"))
	t.empty = "(no followers)"
	names := make([]string, 0, len(fs))
	for _, f := range fs {
		names = append(names, f.GetInstanceId())
		stream := txt("-")
		if f.GetSubscribed() {
			stream = paint("open", styleGood)
		}
		thread := f.GetThreadName()
		b := f.GetBinding()
		if b.GetSlot() != "" {
			thread = b.GetSlot() + " · " + thread
		}
		t.add(txt(f.GetInstanceId()), txt(fmt.Sprint(f.GetPid())), txt(orDash(b.GetPlatform())), txt(orDash(thread)),
			txt(target(b.GetTarget())), txt(f.GetProfileKey()),
			txt(strings.ToLower(strings.TrimPrefix(f.GetOrigin().String(), "ORIGIN_"))), stream, wayIn(f.GetWayIn()),
			txt(ago(f.GetConnectedAt().AsTime())+" ago"), txt(ago(f.GetLastHeartbeat().AsTime())+" ago"),
			bindingStatus(b), txt(orDash(f.GetCwd())), txt(orDash(f.GetWayInDetail())))
	}
	return &view{data: protoListData(fs), table: t, names: names}, nil
}

// wayIn is how a follower's session takes the thread's updates: "none"
// (held until one appears) stands out; "-" if the follower does not say.
func wayIn(w chatbusv1.WayIn) cell {
	switch w {
	case chatbusv1.WayIn_WAY_IN_UNSPECIFIED:
		return txt("-")
	case chatbusv1.WayIn_WAY_IN_NONE:
		return paint("none", styleWarn)
	}
	return txt(strings.ToLower(strings.TrimPrefix(w.String(), "WAY_IN_")))
}
