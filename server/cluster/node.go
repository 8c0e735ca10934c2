// Package cluster runs one supervisord as a node of a cluster: several
// hosts, one bot. The nodes share their state in etcd; one of them, the
// leader of the cluster's provider (an etcd election on a lease), runs the
// supervisor proper (the provider child, the routing core, the state) over
// an etcd-backed store fenced on its leadership (server/store/etcdstore).
// Every node relays its local followers to the leader:
//
//	follower ─ Unix socket ─► node (front) ──┬─► its own supervisor, when it leads
//	                                         └─► the leader's relay listener (TCP,
//	                                             mutual TLS) ─► the leader's supervisor
//
// The relay forwards gRPC calls as they are (messages undecoded, metadata
// but the credentials, statuses, headers and trailers), so followers and
// their clients do not change: they talk to their local socket as on one
// host. A leadership change ends the relayed calls (UNAVAILABLE); followers
// register and subscribe again, as after a supervisor restart, and find
// their bindings and unacknowledged updates in the shared state.
//
// Node owns: the etcd client, the front listener on the follower socket,
// the relay listener, the campaign (one session, one election key per
// provider) and the observer of the election; the supervisor itself is
// the embedder's (Config.Lead), started on winning and stopped (its
// provider child with it) on losing: the lease ended (the process was
// paused or cut off from etcd for the TTL), a write was fenced, or the
// node stops.
package cluster

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
	"go.uber.org/zap"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	serverauth "github.com/chatbus/chatbus/server/auth"
	"github.com/chatbus/chatbus/server/safesocket"
	"github.com/chatbus/chatbus/server/store"
	"github.com/chatbus/chatbus/server/store/etcdstore"
)

// Config configures a node.
type Config struct {
	// Cluster names the cluster: its keys in etcd are under
	// /chatbus/<Cluster>/. Required.
	Cluster string
	// Node is this node's name, unique in the cluster. Required.
	Node string
	// Provider is the provider (bot) the cluster elects a leader for.
	// Required.
	Provider string
	// Etcd is how to reach etcd (Endpoints required; TLS optional).
	Etcd clientv3.Config
	// Listen is the relay listener's address (host:port); Advertise is the
	// address the other nodes dial it at. If Advertise is empty, Listen.
	Listen    string
	Advertise string
	// TLS is this node's certificate, key and the cluster's CA, for the
	// relay (mutual TLS both ways). Required.
	TLS TLSFiles
	// LeaseTTL is the leader's lease: a leader that cannot renew it for
	// this long is deposed. If zero, 5s; whole seconds.
	LeaseTTL time.Duration
	// Socket is the followers' Unix socket (the front); LockTimeout bounds
	// the wait for its startup lock (see safesocket).
	Socket      string
	LockTimeout time.Duration
	// Secret is the local bearer secret: the front checks callers against
	// it and the leader's relay listener presents it to its own supervisor.
	Secret string
	// AllowUID is the uid local callers must have.
	AllowUID int
	// Lead runs this node's supervisor, serving on socket (a private
	// socket beside Socket) over the store open opens (etcd, fenced on
	// this term's leadership), until ctx ends; it calls ready once the
	// socket serves. It is called each time the node wins. Required.
	Lead func(ctx context.Context, open func(store.Options) (store.Store, error), socket string, ready func()) error
	// StoreOptions are the etcd store's options (Prefix, Fence and
	// OnFenced are the node's).
	StoreOptions etcdstore.Options
	// Logger receives the node's log.
	Logger zerolog.Logger
	// OnReady, if set, is called once the front serves.
	OnReady func()
}

func (c *Config) prefix() string { return "/chatbus/" + c.Cluster + "/" }

// electionKey is the provider's election prefix.
func (c *Config) electionKey() string { return c.prefix() + "leader/" + c.Provider }

// innerSocket is where this node's own supervisor serves while it leads.
func (c *Config) innerSocket() string {
	return filepath.Join(filepath.Dir(c.Socket), "lead-"+filepath.Base(c.Socket))
}

// Leader is what a leader publishes as its election value.
type Leader struct {
	Node  string    `json:"node"`
	Addr  string    `json:"addr"`
	Since time.Time `json:"since"`
	// Key and Rev are the election key and its create revision (the
	// fence), filled in by Status.
	Key string `json:"-"`
	Rev int64  `json:"-"`
}

// Node is one running cluster member.
type Node struct {
	cfg    Config
	log    zerolog.Logger
	cli    *clientv3.Client
	client *tlsDialer

	// mu guards the routing state below; route() derives the front's
	// target from it.
	mu         sync.Mutex
	observed   Leader // the election's current leader ("" Node: none)
	localConn  *grpc.ClientConn
	remoteConn *grpc.ClientConn
	remoteAddr string
	leading    bool // this node's supervisor serves (localConn is usable)
	terms      int  // how many times this node won
	fenced     int  // how many of its terms ended fenced
	streams    int  // update streams open on the front (followers)
	started    time.Time
}

// New checks cfg and prepares a node.
func New(cfg Config) (*Node, error) {
	switch {
	case cfg.Cluster == "" || cfg.Node == "" || cfg.Provider == "":
		return nil, errors.New("cluster: name, node and the provider are required")
	case len(cfg.Etcd.Endpoints) == 0:
		return nil, errors.New("cluster: etcd endpoints are required")
	case cfg.Listen == "":
		return nil, errors.New("cluster: listen is required")
	case cfg.Lead == nil || cfg.Socket == "":
		return nil, errors.New("cluster: Lead and Socket are required")
	case strings.ContainsAny(cfg.Node, "/ ") || strings.ContainsAny(cfg.Cluster, "/ "):
		return nil, fmt.Errorf("cluster: names without / or spaces: %q, %q", cfg.Cluster, cfg.Node)
	}
	if cfg.Advertise == "" {
		cfg.Advertise = cfg.Listen
	}
	if cfg.LeaseTTL <= 0 {
		cfg.LeaseTTL = 5 * time.Second
	}
	ctls, err := cfg.TLS.Client()
	if err != nil {
		return nil, err
	}
	if cfg.Etcd.Logger == nil {
		cfg.Etcd.Logger = zap.NewNop()
	}
	if cfg.Etcd.DialTimeout == 0 {
		cfg.Etcd.DialTimeout = 5 * time.Second
	}
	return &Node{cfg: cfg, started: time.Now(), log: cfg.Logger.With().Str("component", "cluster").Str("node", cfg.Node).Logger(),
		client: &tlsDialer{tls: ctls}}, nil
}

// Run serves until ctx ends: the front, the relay listener, the campaign
// and the observer. When it returns, this node's supervisor (if it led)
// has stopped and its leadership is resigned.
func (n *Node) Run(ctx context.Context) error {
	stls, err := n.cfg.TLS.Server()
	if err != nil {
		return err
	}
	cli, err := clientv3.New(n.cfg.Etcd)
	if err != nil {
		return fmt.Errorf("etcd: %w", err)
	}
	defer cli.Close()
	n.cli = cli

	front, err := safesocket.Listen(ctx, safesocket.Config{Socket: n.cfg.Socket, LockTimeout: n.cfg.LockTimeout})
	if err != nil {
		return err
	}
	defer front.Close()
	rl, err := net.Listen("tcp", n.cfg.Listen)
	if err != nil {
		return fmt.Errorf("relay listener: %w", err)
	}
	defer rl.Close()

	fs := grpc.NewServer(grpc.Creds(safesocket.PeerCredentials()), grpc.ForceServerCodec(rawCodec{}),
		grpc.UnknownServiceHandler(relay{gate: n.checkLocal, pick: n.frontTarget, track: n.track,
			local: map[string]localHandler{getClusterMethod: n.getCluster}}.handler()),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: 5 * time.Second, PermitWithoutStream: true}),
		grpc.MaxRecvMsgSize(8<<20), grpc.MaxSendMsgSize(8<<20))
	rs := grpc.NewServer(grpc.Creds(credentials.NewTLS(stls)), grpc.ForceServerCodec(rawCodec{}),
		grpc.UnknownServiceHandler(relay{pick: n.relayTarget}.handler()),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: 5 * time.Second, PermitWithoutStream: true}),
		grpc.MaxRecvMsgSize(8<<20), grpc.MaxSendMsgSize(8<<20))

	var wg sync.WaitGroup
	wg.Go(func() { _ = fs.Serve(front) })
	wg.Go(func() { _ = rs.Serve(rl) })
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	wg.Go(func() { n.observe(runCtx) })
	wg.Go(func() { n.member(runCtx) })
	campaignDone := make(chan struct{})
	go func() { defer close(campaignDone); n.campaign(runCtx) }()
	n.log.Info().Str("socket", n.cfg.Socket).Str("relay", rl.Addr().String()).Str("provider", n.cfg.Provider).
		Msg("cluster node serving; campaigning for the provider's leadership")
	if n.cfg.OnReady != nil {
		n.cfg.OnReady()
	}
	<-ctx.Done()
	stop()
	<-campaignDone // the supervisor stopped, the leadership resigned
	fs.Stop()
	rs.Stop()
	wg.Wait()
	n.mu.Lock()
	for _, c := range []*grpc.ClientConn{n.localConn, n.remoteConn} {
		if c != nil {
			c.Close()
		}
	}
	n.mu.Unlock()
	return nil
}

// frontTarget routes a local caller's call (checked by checkLocal): to this
// node's supervisor while it leads, else to the leader's relay listener.
func (n *Node) frontTarget(context.Context) (*grpc.ClientConn, metadata.MD, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	switch {
	case n.leading:
		return n.localConn, metadata.Pairs("authorization", "Bearer "+n.cfg.Secret), nil
	case n.remoteConn != nil:
		return n.remoteConn, nil, nil
	}
	return nil, nil, status.Errorf(codes.Unavailable, "cluster %s: no leader of %s is known yet", n.cfg.Cluster, n.cfg.Provider)
}

// checkLocal is the front's gate: the caller is of our uid and presents
// the secret (health checks need no secret, as on one host).
func (n *Node) checkLocal(ctx context.Context, method string) error {
	info, ok := safesocket.PeerFromContext(ctx)
	if !ok || info.Cred == nil || int(info.Cred.Uid) != n.cfg.AllowUID {
		return status.Error(codes.PermissionDenied, "peer is not the supervisor's user")
	}
	if strings.HasPrefix(method, "/grpc.health.v1.Health/") {
		return nil
	}
	md, _ := metadata.FromIncomingContext(ctx)
	auth := md.Get("authorization")
	if len(auth) != 1 || !strings.HasPrefix(auth[0], "Bearer ") || !serverauth.Equal(strings.TrimPrefix(auth[0], "Bearer "), n.cfg.Secret) {
		return status.Error(codes.Unauthenticated, "missing or wrong bearer secret")
	}
	return nil
}

// relayTarget routes a call relayed by another node (its certificate was
// verified by TLS): only to this node's own supervisor, and only while it
// leads; never onwards (no relay loops).
func (n *Node) relayTarget(context.Context) (*grpc.ClientConn, metadata.MD, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.leading {
		return nil, nil, status.Errorf(codes.Unavailable, "node %s does not lead %s (now: %q)", n.cfg.Node, n.cfg.Provider, n.observed.Node)
	}
	return n.localConn, metadata.Pairs("authorization", "Bearer "+n.cfg.Secret), nil
}

// campaign wins the election, leads until the term ends, and campaigns
// again, until ctx ends.
func (n *Node) campaign(ctx context.Context) {
	backoff := 100 * time.Millisecond
	for ctx.Err() == nil {
		err := n.term(ctx)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			n.log.Warn().Err(err).Msg("leadership term ended")
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 2*time.Second)
	}
}

// term is one campaign: a session (lease), the wait to win, the
// supervisor run while the lease holds and no write was fenced.
func (n *Node) term(ctx context.Context) error {
	ttl := int(n.cfg.LeaseTTL.Round(time.Second) / time.Second)
	sess, err := concurrency.NewSession(n.cli, concurrency.WithTTL(max(ttl, 1)), concurrency.WithContext(ctx))
	if err != nil {
		return fmt.Errorf("session: %w", err)
	}
	defer sess.Close()
	e := concurrency.NewElection(sess, n.cfg.electionKey())
	val, _ := json.Marshal(Leader{Node: n.cfg.Node, Addr: n.cfg.Advertise, Since: time.Now()})
	if err := e.Campaign(ctx, string(val)); err != nil {
		return fmt.Errorf("campaign: %w", err)
	}
	fence := etcdstore.Fence{Key: e.Key(), Rev: e.Rev()}
	log := n.log.With().Str("key", fence.Key).Int64("rev", fence.Rev).Logger()
	log.Info().Msg("elected leader of " + n.cfg.Provider + "; starting the supervisor")

	leadCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	var fencedOnce sync.Once
	opts := n.cfg.StoreOptions
	opts.Prefix, opts.Fence = n.cfg.prefix()+"state/", fence
	opts.OnFenced = func() {
		fencedOnce.Do(func() {
			log.Error().Msg("a write was refused by the fence: this node no longer leads; stopping its supervisor and provider")
			n.mu.Lock()
			n.fenced++
			n.mu.Unlock()
		})
		cancel()
	}
	var st *etcdstore.Store
	open := func(so store.Options) (store.Store, error) {
		o := opts
		o.Limits, o.OnDrop, o.Now = so.Limits, so.OnDrop, so.Now
		o.SeenMaxCount, o.SeenMaxAge, o.MaxSlots, o.MaxSent = so.SeenMaxCount, so.SeenMaxAge, so.MaxSlots, so.MaxSent
		if so.OnCommit != nil && o.OnCommit == nil {
			o.OnCommit = func(ops int, took time.Duration, err error) { so.OnCommit(ops, took, err) }
		}
		s, err := etcdstore.Open(leadCtx, n.cli, o)
		if err != nil {
			return nil, err
		}
		st = s
		return s, nil
	}
	defer func() {
		if st != nil {
			st.Close()
		}
	}()
	go func() {
		select {
		case <-sess.Done():
			log.Error().Msg("leader lease lost: stopping the supervisor and provider")
			cancel()
		case <-leadCtx.Done():
		}
	}()
	n.mu.Lock()
	n.terms++
	n.mu.Unlock()
	inner := n.cfg.innerSocket()
	leadErr := n.cfg.Lead(leadCtx, open, inner, func() { n.setLocal(inner) })
	n.clearLocal()
	log.Info().Err(leadErr).Msg("supervisor stopped; leadership ends")
	if sess.Lease() != clientv3.NoLease {
		rctx, rcancel := context.WithTimeout(context.Background(), 2*time.Second)
		_ = e.Resign(rctx) // a lease already gone has nothing to resign
		rcancel()
	}
	return leadErr
}

// setLocal routes calls to this node's supervisor at socket.
func (n *Node) setLocal(socket string) {
	conn, err := grpc.NewClient("unix://"+socket, grpc.WithTransportCredentials(safesocket.PeerCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(8<<20), grpc.MaxCallSendMsgSize(8<<20)))
	if err != nil {
		n.log.Error().Err(err).Msg("dialing this node's supervisor")
		return
	}
	n.mu.Lock()
	n.localConn, n.leading = conn, true
	n.mu.Unlock()
	n.log.Info().Msg("leading: local and relayed followers are served here")
}

func (n *Node) clearLocal() {
	n.mu.Lock()
	conn := n.localConn
	n.localConn, n.leading = nil, false
	n.mu.Unlock()
	if conn != nil {
		conn.Close()
	}
}

// observe follows the election: the leader is the key with the lowest
// create revision under the election prefix. Each change re-dials the
// relay target.
func (n *Node) observe(ctx context.Context) {
	pfx := n.cfg.electionKey() + "/"
	for ctx.Err() == nil {
		resp, err := n.cli.Get(ctx, pfx, clientv3.WithFirstCreate()...)
		if err != nil {
			if ctx.Err() == nil {
				n.log.Warn().Err(err).Msg("observing the election")
				time.Sleep(200 * time.Millisecond)
			}
			continue
		}
		var l Leader
		if len(resp.Kvs) > 0 {
			if err := json.Unmarshal(resp.Kvs[0].Value, &l); err != nil {
				n.log.Warn().Err(err).Msg("leader value")
			}
			l.Key, l.Rev = string(resp.Kvs[0].Key), resp.Kvs[0].CreateRevision
		}
		n.setObserved(l)
		wctx, cancel := context.WithCancel(ctx)
		wch := n.cli.Watch(wctx, pfx, clientv3.WithPrefix(), clientv3.WithRev(resp.Header.Revision+1))
		select {
		case <-ctx.Done():
		case <-wch:
		}
		cancel()
	}
}

func (n *Node) setObserved(l Leader) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if l.Node != n.observed.Node || l.Addr != n.observed.Addr {
		n.log.Info().Str("leader", l.Node).Str("addr", l.Addr).Msg("leader of " + n.cfg.Provider + " changed")
	}
	n.observed = l
	if l.Node == "" || l.Node == n.cfg.Node || l.Addr == n.remoteAddr {
		return
	}
	conn, err := n.client.dial(l.Addr)
	if err != nil {
		n.log.Error().Err(err).Str("addr", l.Addr).Msg("dialing the leader")
		return
	}
	if n.remoteConn != nil {
		old := n.remoteConn
		// Calls still relayed on it end by themselves (the old leader
		// is gone); a grace before closing lets answers in flight out.
		time.AfterFunc(time.Second, func() { old.Close() })
	}
	n.remoteConn, n.remoteAddr = conn, l.Addr
}

// Status is what a node knows of its cluster.
type Status struct {
	Cluster, Node, Provider string
	Leader                  Leader
	Leading                 bool
	Terms, Fenced           int
}

// Status reports the node's view.
func (n *Node) Status() Status {
	n.mu.Lock()
	defer n.mu.Unlock()
	return Status{Cluster: n.cfg.Cluster, Node: n.cfg.Node, Provider: n.cfg.Provider, Leader: n.observed,
		Leading: n.leading, Terms: n.terms, Fenced: n.fenced}
}

type tlsDialer struct{ tls *tls.Config }

func (d *tlsDialer) dial(addr string) (*grpc.ClientConn, error) {
	return grpc.NewClient(addr, grpc.WithTransportCredentials(credentials.NewTLS(d.tls)),
		grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(8<<20), grpc.MaxCallSendMsgSize(8<<20)),
		grpc.WithKeepaliveParams(keepalive.ClientParameters{Time: 10 * time.Second, Timeout: 5 * time.Second, PermitWithoutStream: true}))
}
