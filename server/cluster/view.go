package cluster

import (
	"context"
	"encoding/json"
	"sort"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
)

const (
	getClusterMethod = "/chatbus.v1.ClusterService/GetCluster"
	subscribeMethod  = "/chatbus.v1.BusService/Subscribe"
)

// memberRecord is a node's record under /chatbus/<cluster>/members/<node>,
// on a lease of its own: it disappears when the node is gone.
type memberRecord struct {
	Node      string    `json:"node"`
	Addr      string    `json:"addr"`
	Leading   bool      `json:"leading"`
	Followers int       `json:"followers"`
	Terms     int       `json:"terms"`
	Fenced    int       `json:"fenced"`
	Started   time.Time `json:"started"`
}

func (c *Config) memberKey(node string) string { return c.prefix() + "members/" + node }

// track counts the update streams open on the front: the node's
// followers.
func (n *Node) track(method string) func() {
	if method != subscribeMethod {
		return func() {}
	}
	n.mu.Lock()
	n.streams++
	n.mu.Unlock()
	return func() {
		n.mu.Lock()
		n.streams--
		n.mu.Unlock()
	}
}

func (n *Node) record() memberRecord {
	n.mu.Lock()
	defer n.mu.Unlock()
	return memberRecord{Node: n.cfg.Node, Addr: n.cfg.Advertise, Leading: n.leading, Followers: n.streams,
		Terms: n.terms, Fenced: n.fenced, Started: n.started}
}

// member keeps this node's record in etcd while it runs: written at once,
// then again within a second of any change, on a lease of the node's TTL.
func (n *Node) member(ctx context.Context) {
	ttl := int(max(n.cfg.LeaseTTL.Round(time.Second)/time.Second, 1))
	for ctx.Err() == nil {
		sess, err := concurrency.NewSession(n.cli, concurrency.WithTTL(ttl), concurrency.WithContext(ctx))
		if err != nil {
			if ctx.Err() == nil {
				n.log.Warn().Err(err).Msg("member lease")
				time.Sleep(time.Second)
			}
			continue
		}
		var last memberRecord
		written := false
		tick := time.NewTicker(time.Second)
	loop:
		for {
			if r := n.record(); !written || r != last {
				b, _ := json.Marshal(r)
				if _, err := n.cli.Put(ctx, n.cfg.memberKey(n.cfg.Node), string(b), clientv3.WithLease(sess.Lease())); err == nil {
					last, written = r, true
				}
			}
			select {
			case <-ctx.Done():
				break loop
			case <-sess.Done():
				break loop
			case <-tick.C:
			}
		}
		tick.Stop()
		dctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		n.cli.Delete(dctx, n.cfg.memberKey(n.cfg.Node))
		cancel()
		sess.Close()
	}
}

// getCluster answers ClusterService.GetCluster from etcd.
func (n *Node) getCluster(ctx context.Context, in []byte) ([]byte, error) {
	var req chatbusv1.GetClusterRequest
	if err := proto.Unmarshal(in, &req); err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	resp := &chatbusv1.GetClusterResponse{Cluster: n.cfg.Cluster, Node: n.cfg.Node}
	l := &chatbusv1.ClusterLeader{Provider: n.cfg.Provider}
	got, err := n.cli.Get(ctx, n.cfg.electionKey()+"/", clientv3.WithFirstCreate()...)
	if err != nil {
		return nil, status.Errorf(codes.Unavailable, "etcd: %v", err)
	}
	if len(got.Kvs) > 0 {
		kv := got.Kvs[0]
		var v Leader
		_ = json.Unmarshal(kv.Value, &v)
		l.Node, l.Address, l.FenceRevision = v.Node, v.Addr, kv.CreateRevision
		if !v.Since.IsZero() {
			l.Since = timestamppb.New(v.Since)
		}
		if ttl, err := n.cli.TimeToLive(ctx, clientv3.LeaseID(kv.Lease)); err == nil {
			l.LeaseTtlSeconds, l.LeaseRemainingSeconds = ttl.GrantedTTL, ttl.TTL
		}
	}
	resp.Leaders = append(resp.Leaders, l)
	ms, err := n.cli.Get(ctx, n.cfg.prefix()+"members/", clientv3.WithPrefix())
	if err != nil {
		return nil, status.Errorf(codes.Unavailable, "etcd: %v", err)
	}
	for _, kv := range ms.Kvs {
		var r memberRecord
		if json.Unmarshal(kv.Value, &r) != nil {
			r.Node = strings.TrimPrefix(string(kv.Key), n.cfg.prefix()+"members/")
		}
		m := &chatbusv1.ClusterMember{Node: r.Node, Address: r.Addr, Leading: r.Leading, Followers: int32(r.Followers),
			Terms: int64(r.Terms), Fenced: int64(r.Fenced)}
		if !r.Started.IsZero() {
			m.StartedAt = timestamppb.New(r.Started)
		}
		resp.Members = append(resp.Members, m)
	}
	sort.Slice(resp.Members, func(i, j int) bool { return resp.Members[i].Node < resp.Members[j].Node })
	return proto.Marshal(resp)
}
