// Package etcdtest starts a real etcd cluster (go.etcd.io/etcd/server/v3's
// embed) on loopback inside a test process: one or three members, each
// with its data in the test's temporary directory, stopped by t.Cleanup.
// Tests only; nothing of the product imports it.
package etcdtest

import (
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
)

// Cluster is a running etcd cluster.
type Cluster struct {
	// Endpoints are the members' client URLs (http://127.0.0.1:port).
	Endpoints []string
	members   []*embed.Etcd
}

// Start starts an etcd cluster of n members on loopback and waits until
// it has a leader. It is stopped when the test ends.
func Start(t testing.TB, n int) *Cluster {
	t.Helper()
	dir := t.TempDir()
	type ports struct{ peer, client url.URL }
	ps := make([]ports, n)
	var initial []string
	for i := range ps {
		ps[i] = ports{peer: freeURL(t), client: freeURL(t)}
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
		// Slow disks of a shared test machine: a longer election timeout
		// keeps a loaded run from electing again and again.
		cfg.TickMs, cfg.ElectionMs = 100, 2000
		e, err := embed.StartEtcd(cfg)
		if err != nil {
			c.stop()
			t.Fatalf("etcd member %d: %v", i, err)
		}
		c.members = append(c.members, e)
		c.Endpoints = append(c.Endpoints, ps[i].client.String())
	}
	t.Cleanup(c.stop)
	for i, e := range c.members {
		select {
		case <-e.Server.ReadyNotify():
		case err := <-e.Err():
			t.Fatalf("etcd member %d: %v", i, err)
		case <-time.After(60 * time.Second):
			t.Fatalf("etcd member %d not ready within a minute", i)
		}
	}
	return c
}

func (c *Cluster) stop() {
	for _, e := range c.members {
		e.Close()
	}
	c.members = nil
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

func freeURL(t testing.TB) url.URL {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return url.URL{Scheme: "http", Host: ln.Addr().String()}
}
