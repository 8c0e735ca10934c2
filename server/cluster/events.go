package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/chatbus/chatbus/server/events"
)

// The cluster's events. A node publishes what happens to itself as it
// happens (node.go: elected, its term ended, fenced, its relay follows a
// new leader), and what the member records of the others say happened to
// them (watchMembers, here): each member writes its record again at once
// when one of those changes, and every node compares each record with the
// last it saw of that member. So each node's feed tells the cluster's
// story once, the node's own part first-hand and the others' as their
// records tell it (attribute reported_by), including what happened to a
// node while it was cut off: its record, written again when it comes
// back, still says it was fenced.

// publish publishes a cluster event about node, with attrs as pairs.
func (n *Node) publish(kind events.Kind, node, msg string, attrs ...string) {
	a := map[string]string{"node": node, "provider": n.cfg.Provider}
	for i := 0; i+1 < len(attrs); i += 2 {
		if attrs[i+1] != "" {
			a[attrs[i]] = attrs[i+1]
		}
	}
	if node != n.cfg.Node {
		a["reported_by"] = n.cfg.Node
	}
	n.evs.Publish(events.Event{Kind: kind, Message: msg, Attrs: a})
}

// member is what a node knows of another member: its last record, and
// whether it is in the cluster now.
type member struct {
	rec     memberRecord
	present bool
}

// watchMembers follows the member records of the other nodes until ctx
// ends, and publishes what their changes say. The members already there
// when it starts are taken as they are; after a watch that ended (etcd
// compacted past it, a connection lost), the records are listed again and
// compared with what it knew.
func (n *Node) watchMembers(ctx context.Context) {
	pfx := n.cfg.prefix() + "members/"
	known := map[string]*member{}
	first := true
	for ctx.Err() == nil {
		resp, err := n.cli.Get(ctx, pfx, clientv3.WithPrefix())
		if err != nil {
			if ctx.Err() == nil {
				n.log.Warn().Err(err).Msg("listing the members")
				time.Sleep(200 * time.Millisecond)
			}
			continue
		}
		there := map[string]bool{}
		for _, kv := range resp.Kvs {
			if rec, ok := n.decodeMember(pfx, kv.Key, kv.Value); ok {
				there[rec.Node] = true
				n.memberPut(known, rec, !first)
			}
		}
		for node, m := range known {
			if m.present && !there[node] {
				n.memberGone(known, node, !first)
			}
		}
		first = false
		wctx, cancel := context.WithCancel(ctx)
		for wr := range n.cli.Watch(wctx, pfx, clientv3.WithPrefix(), clientv3.WithRev(resp.Header.Revision+1)) {
			if wr.Err() != nil {
				break
			}
			for _, ev := range wr.Events {
				switch ev.Type {
				case clientv3.EventTypePut:
					if rec, ok := n.decodeMember(pfx, ev.Kv.Key, ev.Kv.Value); ok {
						n.memberPut(known, rec, true)
					}
				case clientv3.EventTypeDelete:
					n.memberGone(known, strings.TrimPrefix(string(ev.Kv.Key), pfx), true)
				}
			}
		}
		cancel()
	}
}

// decodeMember reads a member record; this node's own is skipped (what
// happens to it, it publishes itself).
func (n *Node) decodeMember(pfx string, key, value []byte) (memberRecord, bool) {
	var rec memberRecord
	if err := json.Unmarshal(value, &rec); err != nil {
		n.log.Warn().Err(err).Str("key", string(key)).Msg("a member record that is not one")
		return rec, false
	}
	if rec.Node == "" {
		rec.Node = strings.TrimPrefix(string(key), pfx)
	}
	return rec, rec.Node != n.cfg.Node
}

// memberPut takes in a member's record as written now, publishing (if
// publish) what changed since the last one this node saw of the same
// process (Started): it joined, it won, its term ended, it was fenced,
// its relay follows a new leader.
func (n *Node) memberPut(known map[string]*member, rec memberRecord, publish bool) {
	m, had := known[rec.Node]
	if !had {
		m = &member{}
		known[rec.Node] = m
	}
	old, wasPresent := m.rec, m.present
	m.rec, m.present = rec, true
	if !publish {
		return
	}
	node := rec.Node
	if !wasPresent {
		n.publish(events.ClusterMemberJoined, node, fmt.Sprintf("member %s joined the cluster (%s)", node, rec.Addr), "address", rec.Addr)
	}
	if !had || !rec.Started.Equal(old.Started) {
		// A node new to this one, or the same name started again: all
		// its record says is news.
		old = memberRecord{}
	}
	fence := strconv.FormatInt(rec.Fence, 10)
	if rec.Fenced > old.Fenced {
		n.publish(events.ClusterFenced, node, fmt.Sprintf("a write of %s was refused by the fence: it no longer leads %s", node, n.cfg.Provider),
			"fence_revision", fence)
	}
	if rec.Terms > old.Terms {
		n.publish(events.ClusterLeaderElected, node, fmt.Sprintf("%s was elected leader of %s", node, n.cfg.Provider),
			"fence_revision", fence, "term", strconv.Itoa(rec.Terms))
	}
	if (old.Leading || rec.Terms > old.Terms) && !rec.Leading && rec.Ended != "" {
		n.publish(events.ClusterLeadershipLost, node, fmt.Sprintf("%s no longer leads %s (%s)", node, n.cfg.Provider, rec.Ended),
			events.ReasonAttr, rec.Ended, "fence_revision", fence)
	}
	if rec.Following != old.Following && rec.Following != "" {
		n.publish(events.ClusterRelayFollowed, node, fmt.Sprintf("the relay of %s follows %s", node, rec.Following),
			"leader", rec.Following)
	}
}

// memberGone takes in a member's record gone (the node stopped, or its
// member lease ended), publishing (if publish) that it left, and that its
// leadership ended with it if it led.
func (n *Node) memberGone(known map[string]*member, node string, publish bool) {
	m, ok := known[node]
	if !ok || !m.present {
		return
	}
	m.present = false
	if !publish {
		return
	}
	n.publish(events.ClusterMemberLeft, node, fmt.Sprintf("member %s left the cluster", node), "address", m.rec.Addr)
	if m.rec.Leading {
		// Its record says no more: as far as the others know it led
		// until it went (killed, or cut off past its leases).
		m.rec.Leading = false
		n.publish(events.ClusterLeadershipLost, node, fmt.Sprintf("%s left while it led %s", node, n.cfg.Provider),
			events.ReasonAttr, "left", "fence_revision", strconv.FormatInt(m.rec.Fence, 10))
	}
}
