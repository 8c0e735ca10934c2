//go:build linux

package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/chatbus/chatbus/bench"
	"github.com/chatbus/chatbus/client"
	"github.com/chatbus/chatbus/internal/etcdproc"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
	"github.com/chatbus/chatbus/server/cluster"
)

// ---------------------------------------------------------------------
// cluster: two supervisord nodes over a three-member etcd on loopback.
// A follower on the node that does not lead, so every update and ack
// crosses the relay (Unix socket → mutual TLS → the leader) and every
// journal write is a fenced etcd transaction. Beside it, in the same run:
// a raw fenced etcd transaction of the same size, one at a time. Then the
// leader is SIGKILLed while updates flow and the time until they flow
// again is measured.

func (b *bencher) clusterPhase(ctx context.Context) error {
	o := &b.opts
	dir := filepath.Join(b.root, "cluster")
	b.logf("cluster: a three-member etcd on loopback, two supervisord nodes, a follower on the one that does not lead")
	// etcd's default election timeout (1s), as a deployment has it.
	ec, err := etcdproc.Run(o.EtcdMember, filepath.Join(b.stateRoot, "cluster-etcd"), 3, time.Second)
	if err != nil {
		return err
	}
	defer ec.Close()
	cli, err := clientv3.New(clientv3.Config{Endpoints: ec.Endpoints, DialTimeout: 10 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		return err
	}
	defer cli.Close()

	// The raw baseline: one fenced put at a time, of an update's size.
	raw, rawRate, err := rawTxns(ctx, cli, o.ClusterTxns)
	if err != nil {
		return fmt.Errorf("raw etcd transactions: %w", err)
	}

	certs, err := cluster.MakeCerts(filepath.Join(dir, "certs"), []string{"n0", "n1"}, nil)
	if err != nil {
		return err
	}
	node := func(name string, leads bool) (supSpec, error) {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return supSpec{}, err
		}
		addr := ln.Addr().String()
		ln.Close()
		ctlPath := filepath.Join(dir, name+".ctl")
		spec := b.supSpec("cluster-"+name, []provSpec{{
			Name: benchProvider, Binary: o.Provider, ForumChatID: benchChat, Settings: map[string]any{"control": ctlPath},
		}})
		if leads {
			spec.Providers[0].Control = ctlPath // ready waits for its child
		}
		spec.Cluster = map[string]any{
			"name": "bench", "node": name, "listen": addr, "lease_ttl": "5s",
			"etcd": map[string]any{"endpoints": ec.Endpoints},
			"tls":  map[string]any{"ca": certs[name].CA, "cert": certs[name].Cert, "key": certs[name].Key},
		}
		return spec, nil
	}
	s0, err := node("n0", true)
	if err != nil {
		return err
	}
	s1, err := node("n1", false)
	if err != nil {
		return err
	}
	leader, err := b.startSupervisor(ctx, s0)
	if err != nil {
		return err
	}
	defer leader.stop()
	relay, err := b.startSupervisor(ctx, s1)
	if err != nil {
		return err
	}
	defer relay.stop()
	ctl0 := newControl(filepath.Join(dir, "n0.ctl"))

	// Latency and throughput through the relay.
	f, err := newFollower(ctx, s1.Socket, relay.secret, followerOpts{ProfileKey: "bench:cluster", InstanceID: "cluster-f",
		Subscribe: true, Ack: true, Latency: &b.lat})
	if err != nil {
		return err
	}
	closeF := sync.OnceFunc(func() { f.close(false) })
	defer closeF()
	b.logf("cluster latency: %.0f updates/s for %s through the relay", o.LatencyRate, o.ClusterDuration)
	st0, err := ctl0.stats(ctx)
	if err != nil {
		return err
	}
	base := f.received.Load()
	if err := ctl0.inject(ctx, bench.Injection{Rate: o.LatencyRate, Batch: 1, Threads: []int64{f.thread}}); err != nil {
		return err
	}
	sleep(ctx, time.Second)
	rec := &recorder{}
	b.lat.Store(rec)
	sleep(ctx, o.ClusterDuration)
	b.lat.Store(nil)
	if err := b.drain(ctx, ctl0, []*follower{f}, base, st0.Acked); err != nil {
		return err
	}
	lat := bench.Summarize(rec.samples())

	b.logf("cluster throughput: batches of %d for %s through the relay", o.SatBatch, o.ClusterDuration)
	st0, err = ctl0.stats(ctx)
	if err != nil {
		return err
	}
	base = f.received.Load()
	if err := ctl0.inject(ctx, bench.Injection{Rate: 0, Batch: o.SatBatch, Threads: []int64{f.thread}}); err != nil {
		return err
	}
	sleep(ctx, time.Second)
	r0, t0 := f.received.Load(), time.Now()
	sleep(ctx, o.ClusterDuration)
	r1, t1 := f.received.Load(), time.Now()
	if err := b.drain(ctx, ctl0, []*follower{f}, base, st0.Acked); err != nil {
		return err
	}
	rate := float64(r1-r0) / t1.Sub(t0).Seconds()
	if n := f.anomalies.Load(); n != 0 {
		b.check(false, "cluster: the follower saw %d seq gaps or repeats (want 0)", n)
	}
	// etcd's own raft leader dies while updates flow: the chatbus leader
	// keeps its lease (TTL 5s); a transaction caught by it is tried again
	// on another member. The stall is the longest an update sent around
	// it waited.
	b.logf("cluster etcd leader loss: %.0f updates/s flow; etcd's raft leader is stopped; the longest an update waits", o.LatencyRate)
	st0, err = ctl0.stats(ctx)
	if err != nil {
		return err
	}
	base = f.received.Load()
	if err := ctl0.inject(ctx, bench.Injection{Rate: o.LatencyRate, Batch: 1, Threads: []int64{f.thread}}); err != nil {
		return err
	}
	sleep(ctx, time.Second)
	stallRec := &recorder{}
	b.lat.Store(stallRec)
	sleep(ctx, time.Second)
	stopped, err := ec.StopLeader()
	if err != nil {
		return err
	}
	sleep(ctx, 8*time.Second)
	b.lat.Store(nil)
	if err := b.drain(ctx, ctl0, []*follower{f}, base, st0.Acked); err != nil {
		return fmt.Errorf("after etcd's leader (member %d) stopped: %w", stopped, err)
	}
	stall := bench.Summarize(stallRec.samples())

	// Everything received is acknowledged before the failover part (the
	// follower's acks are coalesced: the last ones may be pending).
	if err := f.f.Ack(ctx, f.latest.Load()); err != nil {
		return fmt.Errorf("ack: %w", err)
	}
	after := f.latest.Load()
	closeF()

	// Failover: updates flow at the latency rate to a follower on n1; n0
	// is SIGKILLed; n1 wins once n0's lease ends, starts its own child and
	// serves; the follower registers again and receives.
	b.logf("cluster failover: SIGKILL of the leader while %.0f updates/s flow; time until they flow again", o.LatencyRate)
	var got atomic.Int64 // unix ns of the first update received after the kill
	var killedAt atomic.Int64
	fctx, stopFollow := context.WithCancel(ctx)
	defer stopFollow()
	followDone := make(chan struct{})
	go func() {
		defer close(followDone)
		resume(fctx, s1.Socket, relay.secret, after, &killedAt, &got)
	}()
	// The first update reached it: the stream is up before the kill.
	if err := ctl0.inject(ctx, bench.Injection{Rate: o.LatencyRate, Batch: 1, Threads: []int64{f.thread}}); err != nil {
		return err
	}
	sleep(ctx, 2*time.Second)
	killedAt.Store(time.Now().UnixNano())
	leader.cmd.Process.Kill()
	<-leader.exited
	// n1's child comes up with its own control socket: inject there.
	ctl1 := newControl(filepath.Join(dir, "n1.ctl"))
	deadline := time.Now().Add(60 * time.Second)
	for {
		if st, err := ctl1.stats(ctx); err == nil && st.Running {
			break
		}
		if time.Now().After(deadline) {
			return errors.New("cluster failover: the second node's provider did not run within 60s")
		}
		time.Sleep(10 * time.Millisecond)
	}
	childUp := time.Now()
	if err := ctl1.inject(ctx, bench.Injection{Rate: o.LatencyRate, Batch: 1, Threads: []int64{f.thread}}); err != nil {
		return err
	}
	for got.Load() == 0 {
		if time.Now().After(deadline) {
			st, err := ctl1.stats(ctx)
			if lb, lerr := relay.admin.Admin.ListBindings(ctx, &chatbusv1.ListBindingsRequest{}); lerr == nil {
				for _, bi := range lb.GetBindings() {
					b.logf("binding %s live=%v journal=%v", bi.GetBinding().GetProfileKey(), bi.GetLive(), bi.GetJournal())
				}
			} else {
				b.logf("list bindings: %v", lerr)
			}
			fs, _ := relay.admin.Admin.ListFollowers(ctx, &chatbusv1.ListFollowersRequest{})
			b.logf("followers: %v", fs)
			return fmt.Errorf("cluster failover: no update reached the follower within 60s of the kill (the new provider: %+v, %v; follower got %d, last text %v, err %v, killed %d)", st, err, resumeN.Load(), resumeText.Load(), resumeErr.Load(), killedAt.Load())
		}
		time.Sleep(5 * time.Millisecond)
	}
	ctl1.pause(ctx)
	stopFollow()
	<-followDone
	killed := time.Unix(0, killedAt.Load())
	failover := time.Unix(0, got.Load()).Sub(killed)
	elected := childUp.Sub(killed)

	// The deposed leader goes quiet: n1 now leads alone; its supervisord
	// is paused past its lease (its child runs on), then woken: it knows
	// at once that it lost, and its provider child must be gone soon
	// after (the child's last platform call is no later).
	b.logf("cluster deposed leader: the leader paused past its lease, woken; time until its provider child is gone")
	lp, err := relay.admin.Admin.ListProviders(ctx, &chatbusv1.ListProvidersRequest{})
	if err != nil || len(lp.GetProviders()) != 1 || lp.GetProviders()[0].GetPid() == 0 {
		return fmt.Errorf("the new leader's provider: %v, %v", lp, err)
	}
	childPID := int(lp.GetProviders()[0].GetPid())
	if err := relay.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		return err
	}
	sleep(ctx, 7*time.Second) // past the 5s lease
	woken := time.Now()
	if err := relay.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		return err
	}
	for syscall.Kill(childPID, 0) == nil {
		if time.Since(woken) > 60*time.Second {
			return errors.New("cluster deposed leader: its provider child still runs 60s after it was woken")
		}
		time.Sleep(time.Millisecond)
	}
	quiet := time.Since(woken)

	b.results.Details["cluster"] = map[string]any{"etcd_leader_stall": stall, "deposed_child_gone_ns": quiet, "latency": lat, "raw_txn": raw, "raw_txn_per_s": rawRate,
		"forwarded_per_s": rate, "failover_ns": failover, "provider_up_ns": elected, "etcd_members": 3, "lease_ttl": "5s"}
	note := "2 supervisord nodes, 3-member etcd on loopback; the follower on the node that does not lead (Unix socket → mutual TLS relay → leader); each Append one fenced etcd transaction"
	b.addFigure(figure{ID: "cluster_forward_latency_p50", Name: "cluster: forwarded update latency through the relay, p50", Unit: unitDuration,
		Chatbus: fp(float64(lat.P50)), Baseline: fp(float64(raw.P50)), BaselineName: "raw fenced etcd txn",
		Samples: lat.N, BaselineSamples: raw.N, Note: note}, target{})
	b.addFigure(figure{ID: "cluster_forward_latency_p99", Name: "cluster: forwarded update latency through the relay, p99", Unit: unitDuration,
		Chatbus: fp(float64(lat.P99)), Baseline: fp(float64(raw.P99)), BaselineName: "raw fenced etcd txn",
		Samples: lat.N, BaselineSamples: raw.N}, target{})
	b.addFigure(figure{ID: "cluster_forward_throughput", Name: "cluster: forwarded updates/s through the relay, saturated, 1 follower", Unit: unitRate,
		Chatbus: fp(rate), Baseline: fp(rawRate), BaselineName: "raw fenced etcd txns/s, one at a time",
		Samples: int(r1 - r0), Note: fmt.Sprintf("provider batches of %d; one transaction per pump batch", o.SatBatch)}, target{})
	b.addFigure(figure{ID: "cluster_failover", Name: "cluster: failover, leader SIGKILLed → updates flowing again", Unit: unitDuration,
		Chatbus: fp(float64(failover)), Samples: 1,
		Note: fmt.Sprintf("lease TTL 5s; the successor's provider child ran after %s", elected.Round(time.Millisecond))}, target{})
	b.addFigure(figure{ID: "cluster_etcd_leader_stall", Name: "cluster: delivery stall when etcd's raft leader dies (longest wait of an update)", Unit: unitDuration,
		Chatbus: fp(float64(stall.Max)), Samples: stall.N,
		Note: fmt.Sprintf("etcd election timeout 1s; %.0f updates/s; p99 %s; the chatbus leader keeps its lease", o.LatencyRate, stall.P99.Round(time.Millisecond))}, target{Max: float64(2 * time.Second)})
	b.addFigure(figure{ID: "cluster_deposed_quiet", Name: "cluster: deposed leader woken past its lease → its provider child gone", Unit: unitDuration,
		Chatbus: fp(float64(quiet)), Samples: 1,
		Note: "supervisord SIGSTOPped past the 5s lease, then SIGCONT; the child's last platform call is no later"}, target{Max: float64(200 * time.Millisecond)})
	return nil
}

// rawTxns runs n fenced transactions one at a time (a put of 512 bytes
// if the fence key's create revision holds, as the store writes) and
// returns their latencies and rate.
func rawTxns(ctx context.Context, cli *clientv3.Client, n int) (bench.Summary, float64, error) {
	fence := "/bench/fence"
	put, err := cli.Put(ctx, fence, "x")
	if err != nil {
		return bench.Summary{}, 0, err
	}
	rev := put.Header.Revision
	cmp := clientv3.Compare(clientv3.CreateRevision(fence), "=", rev)
	payload := strings.Repeat("u", 512)
	var lat []time.Duration
	start := time.Now()
	for i := range n {
		t := time.Now()
		resp, err := cli.Txn(ctx).If(cmp).Then(clientv3.OpPut(fmt.Sprintf("/bench/raw/%08d", i), payload)).Commit()
		if err != nil {
			return bench.Summary{}, 0, err
		}
		if !resp.Succeeded {
			return bench.Summary{}, 0, errors.New("fence compare failed")
		}
		lat = append(lat, time.Since(t))
	}
	rate := float64(n) / time.Since(start).Seconds()
	cli.Delete(ctx, "/bench/", clientv3.WithPrefix())
	return bench.Summarize(lat), rate, nil
}

// resume is a follower that survives its supervisor's leader changing:
// it registers (REUSE) and subscribes after what it had (at first: after),
// again and again, acknowledging coalesced as the bench's followers do;
// the first update it receives after killedAt is set is stored in got.
func resume(ctx context.Context, socket, secret string, after uint64, killedAt, got *atomic.Int64) {
	last := after
	defer func() { resumeLast.Store(last) }()
	for ctx.Err() == nil {
		c, err := client.Dial(socket, client.WithSecret(secret), client.WithAckCoalescing(client.DefaultAckDelay, client.DefaultAckEvery))
		if err != nil {
			time.Sleep(20 * time.Millisecond)
			continue
		}
		f, err := c.Register(ctx, client.Registration{ProfileKey: "bench:cluster", InstanceID: "cluster-r", Cwd: "/bench/cluster"})
		if err != nil {
			c.Close()
			time.Sleep(20 * time.Millisecond)
			continue
		}
		err = f.Updates(ctx, last, func(u *chatbusv1.Update) error {
			last = u.GetSeq()
			resumeN.Add(1)
			resumeText.Store(u.GetText())
			if k := killedAt.Load(); k != 0 && got.Load() == 0 {
				if sent, ok := bench.SentAt(u.GetText()); ok && sent.UnixNano() > k {
					got.Store(time.Now().UnixNano())
				}
			}
			return f.Ack(ctx, last)
		})
		resumeErr.Store(fmt.Sprint(err))
		f.Close(context.Background())
		c.Close()
	}
}

var (
	resumeN    atomic.Int64
	resumeLast atomic.Uint64
	resumeErr  atomic.Value
	resumeText atomic.Value
)
