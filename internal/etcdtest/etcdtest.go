// Package etcdtest starts a real etcd cluster on loopback for a test: one
// or three members, each an etcd-member child process (internal/etcdproc)
// with its data in the test's temporary directory, stopped when the test
// ends. The etcd-member binary is built from the e2e module once and
// kept in the user's cache directory (Binary), so that the product's
// module does not require the etcd server.
package etcdtest

import (
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/goleak"
	"go.uber.org/zap"

	"github.com/chatbus/chatbus/internal/etcdproc"
)

// LeakOptions are the goroutines an etcd client leaves behind for a
// moment after it closes: a test package that starts a cluster passes
// them to goleak.VerifyTestMain.
func LeakOptions() []goleak.Option {
	return []goleak.Option{
		goleak.IgnoreAnyFunction("go.etcd.io/etcd/client/pkg/v3/logutil.(*MergeLogger).outputLoop"),
		goleak.IgnoreTopFunction("go.opencensus.io/stats/view.(*worker).start"),
		goleak.IgnoreTopFunction("github.com/golang/glog.(*fileSink).flushDaemon"),
		goleak.IgnoreTopFunction("google.golang.org/grpc/internal/grpcsync.(*CallbackSerializer).run"),
	}
}

// Cluster is a running etcd cluster: its Endpoints, StopLeader and Close,
// and Client for a test.
type Cluster struct{ *etcdproc.Cluster }

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
	bin, err := Binary()
	if err != nil {
		return nil, err
	}
	c, err := etcdproc.Run(bin, dir, n, election)
	if err != nil {
		return nil, err
	}
	return &Cluster{c}, nil
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
