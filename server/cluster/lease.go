package cluster

import (
	"context"
	"errors"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// leaseClock keeps a node's own lease alive and knows, without asking
// etcd, the latest moment it may still hold: the send time of the last
// keepalive etcd answered, plus the TTL etcd granted, less a safety margin.
// etcd renewed the lease no earlier than the request was sent, so the
// lease cannot end at etcd before that moment (an etcd leader change only
// extends leases); the margin covers the difference in clock rates and the
// short stalls between a check and what it guards. A node past its
// deadline steps down without waiting for etcd: cut off from etcd, it is
// quiet before any other node could win (docs/cluster.md).
//
// Times are Go's monotonic clock: a pause of the whole process (SIGSTOP,
// a VM or laptop suspend) counts as time gone by, so a node woken past its
// deadline knows it at once.
type leaseClock struct {
	cli    *clientv3.Client
	id     clientv3.LeaseID
	margin time.Duration

	mu       sync.Mutex
	deadline time.Time     // guarded by mu
	moved    chan struct{} // closed and replaced when deadline moves; guarded by mu
	expired  chan struct{} // closed once the deadline passed (never reopened)
	once     sync.Once
	gone     bool // etcd said the lease is gone (before expired was closed)
}

// leaseMargin is the safety margin of a lease of ttl: a fifth of it, at
// least 200ms.
func leaseMargin(ttl time.Duration) time.Duration { return max(ttl/5, 200*time.Millisecond) }

// grantLease grants a lease of ttl and returns its clock, its deadline set
// from the grant.
func grantLease(ctx context.Context, cli *clientv3.Client, ttl time.Duration) (*leaseClock, error) {
	sent := time.Now()
	resp, err := cli.Grant(ctx, int64(ttl/time.Second))
	if err != nil {
		return nil, err
	}
	lc := &leaseClock{cli: cli, id: resp.ID, margin: leaseMargin(ttl), moved: make(chan struct{}), expired: make(chan struct{})}
	lc.renewed(sent, time.Duration(resp.TTL)*time.Second)
	return lc, nil
}

// renewed records a keepalive sent at sent that etcd answered with ttl.
func (lc *leaseClock) renewed(sent time.Time, ttl time.Duration) {
	lc.mu.Lock()
	defer lc.mu.Unlock()
	if d := sent.Add(ttl - lc.margin); d.After(lc.deadline) {
		lc.deadline = d
		close(lc.moved)
		lc.moved = make(chan struct{})
	}
}

// expire ends the lease now; gone: etcd said so.
func (lc *leaseClock) expire(gone bool) {
	lc.once.Do(func() {
		lc.gone = gone
		close(lc.expired)
	})
}

// Expired is closed once the deadline passed, or etcd said the lease is
// gone (Gone).
func (lc *leaseClock) Expired() <-chan struct{} { return lc.expired }

// Gone says, once Expired is closed, whether etcd said the lease is gone
// (rather than its deadline passing).
func (lc *leaseClock) Gone() bool {
	<-lc.expired
	return lc.gone
}

// Run renews the lease every third of its TTL, each try bounded by that
// third, and closes Expired when the deadline passes, until ctx ends.
func (lc *leaseClock) Run(ctx context.Context, ttl time.Duration) {
	every := max(ttl/3, 100*time.Millisecond)
	go lc.watch(ctx)
	for {
		sent := time.Now()
		kctx, cancel := context.WithTimeout(ctx, every)
		resp, err := lc.cli.KeepAliveOnce(kctx, lc.id)
		cancel()
		switch {
		case err == nil && resp.TTL > 0:
			lc.renewed(sent, time.Duration(resp.TTL)*time.Second)
		case errors.Is(err, rpctypes.ErrLeaseNotFound) || (err == nil && resp.TTL <= 0):
			lc.expire(true)
			return
		}
		t := time.NewTimer(time.Until(sent.Add(every)))
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-lc.expired:
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// watch closes Expired when the deadline passes.
func (lc *leaseClock) watch(ctx context.Context) {
	for {
		lc.mu.Lock()
		left, moved := time.Until(lc.deadline), lc.moved
		lc.mu.Unlock()
		if left <= 0 {
			lc.expire(false)
			return
		}
		t := time.NewTimer(left)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-moved:
			t.Stop()
		case <-t.C:
		}
	}
}
