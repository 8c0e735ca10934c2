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
// provider), the observer of the election, its member record and the
// watch of the others' (events.go), and the metrics endpoint if it has
// one; the supervisor itself is the embedder's (Config.Lead), started on
// winning and stopped (its provider child with it) on losing: the lease
// ended (the process was paused or cut off from etcd for the TTL), a
// write was fenced, or the node stops.
//
// Events: a node publishes what happens to itself (it won, its term
// ended and why, a write of it was fenced, its relay follows a new
// leader) into its event feed (Config.Events), which the supervisor of
// each of its terms shares; and what the member records of the others
// say happened to them (members joining and leaving among them). Since a
// node that does not lead relays busctl's calls to the leader, the
// leader's feed is what WatchEvents shows on every node: the whole
// cluster's story as the leader saw it.
package cluster

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
	"go.uber.org/zap"
	"google.golang.org/grpc"
	grpcbackoff "google.golang.org/grpc/backoff"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/chatbus/chatbus/internal/backoff"
	serverauth "github.com/chatbus/chatbus/server/auth"
	"github.com/chatbus/chatbus/server/events"
	"github.com/chatbus/chatbus/server/metrics"
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
	// StoreOptions are the etcd store's options (Prefix, Fence, OnFenced,
	// OnCommit and OnRetry are the node's).
	StoreOptions etcdstore.Options
	// Events is the node's event feed: its own events are published
	// there (and so logged); the supervisor of each term should publish
	// into it too (server.Config.Events), so that the feed it serves
	// carries both. If nil, a feed of its own, logged to Logger.
	Events *events.Hub
	// Metrics, if set, records the node's series (made with
	// metrics.Config.Cluster); the supervisor of each term should record
	// into it too (server.MetricsConfig.Recorder). If MetricsAddr names a
	// network, the node serves it there from start to stop.
	Metrics     *metrics.Metrics
	MetricsAddr metrics.Addr
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
	cfg     Config
	log     zerolog.Logger
	cli     *clientv3.Client
	client  *tlsDialer
	evs     *events.Hub
	metrics *metrics.Metrics
	// kick asks the member loop to write the record now (it changed).
	kick chan struct{}

	// mu guards the routing state below; frontTarget and relayTarget
	// derive the relay's targets from it, record() the member record.
	mu         sync.Mutex
	observed   Leader // the election's current leader ("" Node: none)
	localConn  *grpc.ClientConn
	remoteConn *grpc.ClientConn
	remoteAddr string
	leading    bool   // this node's supervisor serves (localConn is usable)
	terms      int    // how many times this node won
	fenced     int    // how many of its terms ended fenced
	fence      int64  // the fence revision of its last term
	ended      string // why its last term ended (a leadership-lost reason)
	following  string // the leader its relay follows ("" while it leads or none is known)
	streams    int    // update streams open on the front (followers)
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
	cfg.Etcd.DialOptions = append(etcdDialOptions(cfg.LeaseTTL), cfg.Etcd.DialOptions...)
	if cfg.Etcd.DialKeepAliveTime == 0 {
		// A connection that stopped answering (a frozen link, a member
		// gone without closing it) is found out and dialled again,
		// rather than waited on by a watch for ever.
		cfg.Etcd.DialKeepAliveTime, cfg.Etcd.DialKeepAliveTimeout = 10*time.Second, 5*time.Second
	}
	log := cfg.Logger.With().Str("component", "cluster").Str("node", cfg.Node).Logger()
	evs := cfg.Events
	if evs == nil {
		evs = events.NewHub(log)
	}
	return &Node{cfg: cfg, started: time.Now(), log: log, client: &tlsDialer{tls: ctls}, evs: evs, metrics: cfg.Metrics,
		kick: make(chan struct{}, 1)}, nil
}

// etcdDialOptions bound how the etcd client (re)connects: each attempt
// to open a connection gives up after half the lease TTL (1s to 3s), and
// a failed one is made again within that. gRPC's defaults (an attempt
// waits up to 20s, the pauses between attempts grow to two minutes) kept a
// node that was cut off from etcd away from it long after the link healed
// (an attempt made into the cut, whose connection was taken and never
// answered, waited out its 20s first): its followers unserved all that
// time, their bindings retired by the new leader's reconciliation
// (reconcile_grace, 5s) and their threads free for fresh registrations.
// An attempt on a working link takes milliseconds; one that cannot be
// made within half a TTL is no use to a leader anyway.
func etcdDialOptions(ttl time.Duration) []grpc.DialOption {
	connect := min(max(ttl/2, time.Second), 3*time.Second)
	return []grpc.DialOption{grpc.WithConnectParams(grpc.ConnectParams{
		Backoff:           grpcbackoff.Config{BaseDelay: 100 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: connect},
		MinConnectTimeout: connect,
	})}
}

// Events is the node's event feed.
func (n *Node) Events() *events.Hub { return n.evs }

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
	stopMetrics, err := n.serveMetrics()
	if err != nil {
		return err
	}
	defer stopMetrics()

	fs := grpc.NewServer(grpc.Creds(safesocket.PeerCredentials()), grpc.ForceServerCodec(rawCodec{}),
		grpc.UnknownServiceHandler(relay{gate: n.checkLocal, pick: n.frontTarget, track: n.track, count: n.metrics.RelayCall,
			local: map[string]localHandler{getClusterMethod: n.getCluster}}.handler()),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: 5 * time.Second, PermitWithoutStream: true}),
		grpc.MaxRecvMsgSize(8<<20), grpc.MaxSendMsgSize(8<<20))
	rs := grpc.NewServer(grpc.Creds(credentials.NewTLS(stls)), grpc.ForceServerCodec(rawCodec{}),
		grpc.UnknownServiceHandler(relay{pick: n.relayTarget, count: n.metrics.RelayCall}.handler()),
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: 5 * time.Second, PermitWithoutStream: true}),
		grpc.MaxRecvMsgSize(8<<20), grpc.MaxSendMsgSize(8<<20))

	var wg sync.WaitGroup
	wg.Go(func() { _ = fs.Serve(front) })
	wg.Go(func() { _ = rs.Serve(rl) })
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	wg.Go(func() { n.observe(runCtx) })
	wg.Go(func() { n.member(runCtx) })
	wg.Go(func() { n.watchMembers(runCtx) })
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
func (n *Node) frontTarget(context.Context) (*grpc.ClientConn, metadata.MD, string, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	switch {
	case n.leading:
		return n.localConn, metadata.Pairs("authorization", "Bearer "+n.cfg.Secret), metrics.RouteLocal, nil
	case n.remoteConn != nil:
		return n.remoteConn, nil, metrics.RouteLeader, nil
	}
	return nil, nil, metrics.RouteLeader, status.Errorf(codes.Unavailable, "cluster %s: no leader of %s is known yet", n.cfg.Cluster, n.cfg.Provider)
}

// checkLocal is the front's gate: the caller is of our uid and presents
// the secret (health checks need no secret, as on one host).
func (n *Node) checkLocal(ctx context.Context, method string) error {
	info, ok := safesocket.PeerFromContext(ctx)
	if !ok || info.Cred == nil || int(info.Cred.UID) != n.cfg.AllowUID {
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
func (n *Node) relayTarget(context.Context) (*grpc.ClientConn, metadata.MD, string, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.leading {
		return nil, nil, metrics.RoutePeer, status.Errorf(codes.Unavailable, "node %s does not lead %s (now: %q)", n.cfg.Node, n.cfg.Provider, n.observed.Node)
	}
	return n.localConn, metadata.Pairs("authorization", "Bearer "+n.cfg.Secret), metrics.RoutePeer, nil
}

// campaign wins the election, leads until the term ends, and campaigns
// again, until ctx ends.
func (n *Node) campaign(ctx context.Context) {
	retry := backoff.Policy{Initial: 100 * time.Millisecond, Max: 2 * time.Second}.New()
	for ctx.Err() == nil {
		err := n.term(ctx)
		if ctx.Err() != nil {
			return
		}
		if err != nil {
			n.log.Warn().Err(err).Msg("leadership term ended")
		}
		if backoff.Sleep(ctx, retry.NextBackOff()) != nil {
			return
		}
	}
}

// Why a term ends (the reason of its ClusterLeadershipLost event).
const (
	endLeaseLost        = "lease_lost"        // its lease ended: the process was paused or cut off from etcd
	endLeaseDeadline    = "lease_deadline"    // its local lease deadline passed: cut off from etcd (or paused) for about the TTL
	endFenced           = "fenced"            // a write was refused by the fence
	endSupervisorExited = "supervisor_exited" // Lead returned on its own
	endStopped          = "stopped"           // the node stops
)

// deposed says whether a term that ended for why ended because the node
// lost the leadership (rather than gave it up): its supervisor is deposed
// (its context's cause wraps store.ErrFenced) and the loss is published
// at once.
func deposed(why string) bool {
	return why == endLeaseLost || why == endLeaseDeadline || why == endFenced
}

// errSessionExpired: a campaign won on a session that had already ended.
var errSessionExpired = errors.New("the session expired while campaigning: not leading on it")

// term is one campaign: a session (lease), the wait to win, the
// supervisor run while the lease holds and no write was fenced.
func (n *Node) term(ctx context.Context) error {
	ttl := max(n.cfg.LeaseTTL.Round(time.Second), time.Second)
	lc, err := grantLease(ctx, n.cli, ttl)
	if err != nil {
		return fmt.Errorf("lease: %w", err)
	}
	sess, err := concurrency.NewSession(n.cli, concurrency.WithLease(lc.id), concurrency.WithContext(ctx))
	if err != nil {
		return fmt.Errorf("session: %w", err)
	}
	defer sess.Close()
	clockCtx, stopClock := context.WithCancel(ctx)
	defer stopClock()
	go lc.Run(clockCtx, ttl)

	// A campaign on a session that ends meanwhile (etcd lost its quorum
	// past the TTL, the node was cut off) is given up: winning on it
	// would lead for a moment on a lease already gone.
	campCtx, stopCamp := context.WithCancel(ctx)
	defer stopCamp()
	go func() {
		select {
		case <-sess.Done():
		case <-lc.Expired():
		case <-campCtx.Done():
		}
		stopCamp()
	}()
	e := concurrency.NewElection(sess, n.cfg.electionKey())
	val, _ := json.Marshal(Leader{Node: n.cfg.Node, Addr: n.cfg.Advertise, Since: time.Now()})
	err = e.Campaign(campCtx, string(val))
	if err == nil {
		// Won: on a session that is still alive? Its key is there (with
		// the lease) only if so; etcd may say it before the session
		// notices.
		err = n.ownKeyAlive(campCtx, e)
	}
	if err != nil {
		if ctx.Err() == nil && campCtx.Err() != nil {
			err = errSessionExpired
		}
		return fmt.Errorf("campaign: %w", err)
	}
	fence := etcdstore.Fence{Key: e.Key(), Rev: e.Rev()}
	n.mu.Lock()
	n.terms++
	term := n.terms
	n.fence, n.ended = fence.Rev, ""
	n.mu.Unlock()
	n.kickMember()
	n.metrics.ElectionWon()
	n.publish(events.ClusterLeaderElected, n.cfg.Node, "elected leader of "+n.cfg.Provider+"; starting the supervisor",
		"fence_revision", strconv.FormatInt(fence.Rev, 10), "term", strconv.Itoa(term))

	// The supervisor runs under leadCtx. Losing the leadership ends it
	// with a cause that wraps store.ErrFenced: the supervisor then goes
	// quiet at once (its calls answered FENCED, its provider child killed)
	// before it stops; the node stopping ends it plainly (a graceful
	// stop).
	leadCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	// current is the store of this term's supervisor, once opened.
	var current atomic.Pointer[etcdstore.Store]
	// end records why the term ends (the first cause wins) and ends it.
	var endMu sync.Mutex
	var reason string
	end := func(why string) (first bool) {
		endMu.Lock()
		first = reason == ""
		if first {
			reason = why
		}
		endMu.Unlock()
		if !first {
			return false
		}
		if !deposed(why) {
			cancel(nil)
			return true
		}
		cancel(fmt.Errorf("cluster %s: %s no longer leads %s (%s): %w", n.cfg.Cluster, n.cfg.Node, n.cfg.Provider, why, store.ErrFenced))
		// Its writes waiting for etcd give up now, and calls go to the
		// new leader (once this node follows it), not to a supervisor
		// that can only refuse them.
		if s := current.Load(); s != nil {
			s.Depose()
		}
		n.stopLeading()
		// Known now: said now, not once the supervisor has stopped.
		n.mu.Lock()
		n.ended = why
		n.mu.Unlock()
		n.kickMember()
		n.publish(events.ClusterLeadershipLost, n.cfg.Node, lostMessage(n.cfg.Provider, why),
			events.ReasonAttr, why, "fence_revision", strconv.FormatInt(fence.Rev, 10))
		return true
	}
	var fencedOnce sync.Once
	opts := n.cfg.StoreOptions
	opts.Prefix, opts.Fence = n.cfg.prefix()+"state/", fence
	opts.OnFenced = func() {
		fencedOnce.Do(func() {
			n.mu.Lock()
			n.fenced++
			n.mu.Unlock()
			n.kickMember()
			n.metrics.TermFenced()
			n.publish(events.ClusterFenced, n.cfg.Node,
				"a write was refused by the fence: this node no longer leads "+n.cfg.Provider+"; stopping its supervisor and provider",
				"fence_revision", strconv.FormatInt(fence.Rev, 10))
		})
		end(endFenced)
	}
	opts.OnCommit, opts.OnRetry = n.metrics.EtcdTxn, n.metrics.EtcdRetry
	open := func(so store.Options) (store.Store, error) {
		o := opts
		o.Limits, o.OnDrop, o.Now = so.Limits, so.OnDrop, so.Now
		o.SeenMaxCount, o.SeenMaxAge, o.MaxSlots, o.MaxSent = so.SeenMaxCount, so.SeenMaxAge, so.MaxSlots, so.MaxSent
		s, err := etcdstore.Open(leadCtx, n.cli, o)
		if err != nil {
			return nil, err
		}
		current.Store(s)
		if leadCtx.Err() != nil { // the term ended while it opened
			s.Depose()
		}
		return s, nil
	}
	defer func() {
		if s := current.Load(); s != nil {
			s.Close()
		}
	}()
	go func() {
		select {
		case <-sess.Done():
			if leadCtx.Err() == nil && end(endLeaseLost) {
				n.metrics.LeaseLost(metrics.LeaseLeader)
			}
		case <-lc.Expired():
			why := endLeaseDeadline
			if lc.Gone() {
				why = endLeaseLost
			}
			if leadCtx.Err() == nil && end(why) {
				n.metrics.LeaseLost(metrics.LeaseLeader)
			}
		case <-leadCtx.Done():
		}
	}()
	inner := n.cfg.innerSocket()
	leadErr := n.cfg.Lead(leadCtx, open, inner, func() {
		if leadCtx.Err() == nil {
			n.setLocal(inner)
		}
	})
	if ctx.Err() != nil {
		end(endStopped)
	} else {
		end(endSupervisorExited)
	}
	n.clearLocal()
	endMu.Lock()
	why := reason
	endMu.Unlock()
	if !deposed(why) {
		n.mu.Lock()
		n.ended = why
		n.mu.Unlock()
		n.kickMember()
		attrs := []string{events.ReasonAttr, why, "fence_revision", strconv.FormatInt(fence.Rev, 10)}
		if leadErr != nil {
			attrs = append(attrs, "error", leadErr.Error())
		}
		n.publish(events.ClusterLeadershipLost, n.cfg.Node, lostMessage(n.cfg.Provider, why), attrs...)
	} else if leadErr != nil {
		n.log.Warn().Err(leadErr).Msg("the deposed supervisor stopped")
	}
	if sess.Lease() != clientv3.NoLease {
		rctx, rcancel := context.WithTimeout(context.Background(), 2*time.Second)
		_ = e.Resign(rctx) // a lease already gone has nothing to resign
		rcancel()
	}
	return leadErr
}

// ownKeyAlive checks that e's key, just won, still exists as created:
// else its session ended while it waited (errSessionExpired).
func (n *Node) ownKeyAlive(ctx context.Context, e *concurrency.Election) error {
	if ctx.Err() != nil {
		return errSessionExpired
	}
	resp, err := n.cli.Get(ctx, e.Key())
	switch {
	case err != nil:
		return err
	case len(resp.Kvs) == 0 || resp.Kvs[0].CreateRevision != e.Rev():
		return errSessionExpired
	}
	return nil
}

// lostMessage says why a term of provider ended, for its event.
func lostMessage(provider, why string) string {
	switch why {
	case endLeaseLost:
		return "leader lease lost: no longer the leader of " + provider + "; stopping its supervisor and provider at once"
	case endLeaseDeadline:
		return "leader lease deadline passed without etcd renewing it: no longer the leader of " + provider + "; stopping its supervisor and provider at once"
	case endFenced:
		return "refused by the fence: no longer the leader of " + provider + "; stopping its supervisor and provider at once"
	case endSupervisorExited:
		return "the supervisor exited: leadership of " + provider + " given up"
	}
	return "stopping: leadership of " + provider + " given up"
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
	n.localConn, n.leading, n.following = conn, true, ""
	n.mu.Unlock()
	n.kickMember()
	n.metrics.Leading(true)
	n.log.Info().Msg("leading: local and relayed followers are served here")
}

// stopLeading routes calls away from this node's supervisor (to the
// leader it follows, if any) while it stops; clearLocal closes the way.
func (n *Node) stopLeading() {
	n.mu.Lock()
	n.leading = false
	n.mu.Unlock()
	n.metrics.Leading(false)
}

func (n *Node) clearLocal() {
	n.mu.Lock()
	conn := n.localConn
	n.localConn, n.leading = nil, false
	n.mu.Unlock()
	n.metrics.Leading(false)
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
	changed := l.Node != n.observed.Node || l.Addr != n.observed.Addr
	prev := n.observed.Node
	n.observed = l
	if changed {
		if l.Node == n.cfg.Node {
			n.following = ""
		} else {
			n.following = l.Node
		}
	}
	n.dialLeaderLocked(l)
	n.mu.Unlock()
	switch {
	case !changed || l.Node == n.cfg.Node: // its own election is its own event
	case l.Node == "":
		n.log.Info().Str("previous", prev).Msg("leader of " + n.cfg.Provider + " changed: none now")
	default:
		n.kickMember()
		n.publish(events.ClusterRelayFollowed, n.cfg.Node,
			fmt.Sprintf("leader of %s changed to %s (%s): this node's relay follows it", n.cfg.Provider, l.Node, l.Addr),
			"leader", l.Node, "address", l.Addr, "previous", prev, "fence_revision", strconv.FormatInt(l.Rev, 10))
	}
}

// dialLeaderLocked points the relay at l, if it is another node at a new
// address. n.mu is held.
func (n *Node) dialLeaderLocked(l Leader) {
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

// serveMetrics serves the node's metrics at MetricsAddr, if it names a
// network, until the returned stop is called.
func (n *Node) serveMetrics() (stop func(), err error) {
	if n.metrics == nil || n.cfg.MetricsAddr.Network == "" {
		return func() {}, nil
	}
	ep, stopEP, err := n.metrics.ServeAt(n.cfg.MetricsAddr, func(err error) { n.log.Error().Err(err).Msg("metrics endpoint stopped") })
	if err != nil {
		return nil, err
	}
	n.log.Info().Str("url", ep.URL()).Msg("metrics: serving on " + ep.URL())
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := stopEP(ctx); err != nil {
			n.log.Warn().Err(err).Msg("metrics endpoint close")
		}
	}, nil
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
