// Package etcdtest starts a real etcd cluster (go.etcd.io/etcd/server/v3's
// embed) on loopback inside a test or benchmark process: one or three
// members, each with its data in a directory of the caller's. For tests
// (Start: stopped by t.Cleanup) and busbench (Run); nothing a user runs
// imports it.
package etcdtest

import (
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/goleak"
	"go.uber.org/zap"
)

// LeakOptions are the goroutines an embedded etcd and its clients leave
// behind for a moment after they close: a test package that starts one
// passes them to goleak.VerifyTestMain.
func LeakOptions() []goleak.Option {
	return []goleak.Option{
		goleak.IgnoreAnyFunction("go.etcd.io/etcd/client/pkg/v3/logutil.(*MergeLogger).outputLoop"),
		goleak.IgnoreTopFunction("go.opencensus.io/stats/view.(*worker).start"),
		goleak.IgnoreTopFunction("github.com/golang/glog.(*fileSink).flushDaemon"),
		goleak.IgnoreTopFunction("google.golang.org/grpc/internal/grpcsync.(*CallbackSerializer).run"),
	}
}

// Cluster is a running etcd cluster.
type Cluster struct {
	// Endpoints are the members' client URLs (http://127.0.0.1:port).
	Endpoints []string
	members   []*embed.Etcd
	// closing are the members StopLeader stopped, closing their servers.
	closing sync.WaitGroup
}

// Start starts an etcd cluster of n members on loopback in the test's
// temporary directory and waits until it has a leader. It is stopped when
// the test ends.
func Start(t testing.TB, n int) *Cluster {
	t.Helper()
	c, err := Run(t.TempDir(), n)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c
}

// Run starts an etcd cluster of n members on loopback with their data
// under dir and waits until every member is ready. Close stops it. Its
// election timeout is 2s (a loaded test machine elects again and again
// with less); RunElection sets it.
func Run(dir string, n int) (*Cluster, error) { return RunElection(dir, n, 2*time.Second) }

// RunElection is Run with an election timeout of election (etcd's
// default is 1s; the heartbeat stays 100ms).
func RunElection(dir string, n int, election time.Duration) (*Cluster, error) {
	type ports struct{ peer, client url.URL }
	ps := make([]ports, n)
	var initial []string
	for i := range ps {
		peer, err := freeURL()
		if err != nil {
			return nil, err
		}
		cl, err := freeURL()
		if err != nil {
			return nil, err
		}
		ps[i] = ports{peer: peer, client: cl}
		initial = append(initial, fmt.Sprintf("m%d=%s", i, ps[i].peer.String()))
	}
	c := &Cluster{}
	for i := range ps {
		cfg := embed.NewConfig()
		cfg.Name = fmt.Sprintf("m%d", i)
		cfg.Dir = filepath.Join(dir, cfg.Name)
		cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{ps[i].peer}, []url.URL{ps[i].peer}
		cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{ps[i].client}, []url.URL{ps[i].client}
		cfg.InitialCluster = strings.Join(initial, ",")
		cfg.InitialClusterToken = "chatbus-test"
		cfg.LogLevel = "error"
		cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
		cfg.TickMs, cfg.ElectionMs = 100, uint(election/time.Millisecond)
		e, err := embed.StartEtcd(cfg)
		if err != nil {
			c.Close()
			return nil, fmt.Errorf("etcd member %d: %w", i, err)
		}
		c.members = append(c.members, e)
		c.Endpoints = append(c.Endpoints, ps[i].client.String())
	}
	for i, e := range c.members {
		select {
		case <-e.Server.ReadyNotify():
		case err := <-e.Err():
			c.Close()
			return nil, fmt.Errorf("etcd member %d: %w", i, err)
		case <-time.After(60 * time.Second):
			c.Close()
			return nil, fmt.Errorf("etcd member %d not ready within a minute", i)
		}
	}
	return c, nil
}

// StopLeader stops the member that is etcd's raft leader at once, as if
// it died (no leadership transfer), and returns its index.
func (c *Cluster) StopLeader() (int, error) {
	for i, e := range c.members {
		if e == nil || e.Server.Leader() != e.Server.MemberID() {
			continue
		}
		e.Server.HardStop()
		// Its client and peer ports refuse connections at once, as a
		// dead process's do; closing its servers (which waits up to
		// etcd's request timeout for the requests they hold, ~9s) goes
		// on meanwhile, and Close waits for it.
		for _, l := range e.Clients {
			l.Close()
		}
		for _, p := range e.Peers {
			p.Listener.Close()
		}
		c.closing.Go(e.Close)
		c.members[i] = nil
		return i, nil
	}
	return -1, fmt.Errorf("no member leads")
}

// Close stops every member.
func (c *Cluster) Close() {
	for _, e := range c.members {
		if e != nil {
			e.Close()
		}
	}
	c.members = nil
	c.closing.Wait()
}

// Client returns a client of the cluster, closed when the test ends.
func (c *Cluster) Client(t testing.TB) *clientv3.Client {
	t.Helper()
	cli, err := clientv3.New(clientv3.Config{Endpoints: c.Endpoints, DialTimeout: 10 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cli.Close() })
	return cli
}

func freeURL() (url.URL, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return url.URL{}, err
	}
	defer ln.Close()
	return url.URL{Scheme: "http", Host: ln.Addr().String()}, nil
}
