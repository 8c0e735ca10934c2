//go:build linux

package main

import (
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc/health/grpc_health_v1"

	"github.com/chatbus/chatbus/bench"
	"github.com/chatbus/chatbus/client"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
)

// The scale phase drives its followers' heartbeats itself instead of the
// client's background heartbeat: it counts every heartbeat and times it,
// spreads them evenly over the interval, and never gives up. The baseline
// does the same with health checks against the bare server: as many
// connections, each with an open stream, one unary call per connection per
// interval.

// scaleConn is one connection of the scale phase: call is its periodic
// unary call (Heartbeat, or the baseline's health check).
type scaleConn struct {
	call  func(ctx context.Context) error
	close func()
}

// scaleResult is what one side of the scale phase measured.
type scaleResult struct {
	N         int
	Connected time.Duration
	CPU       float64 // percent of one core
	Rate      float64 // calls per second served
	PerCall   time.Duration
	Latency   bench.Summary
	RSS       int64
	Failed    int64
	BenchCPU  float64 // this process, for context
	// Offered is the call rate asked for (n per interval); Projected is
	// PerCall × Offered in percent of one core: the CPU at the offered
	// rate when the machine served less.
	Offered   float64
	Projected float64
}

// runScale connects n conns (connect(i)), calls each every interval
// (conn i at offset i/n), waits settle, then measures the server process
// pid over window.
func (b *bencher) runScale(ctx context.Context, pid, n int, interval time.Duration, connect func(ctx context.Context, i int) (*scaleConn, error)) (scaleResult, error) {
	o := &b.opts
	var ok, failed atomic.Int64
	var rec atomic.Pointer[recorder]
	callCtx, stop := context.WithCancel(ctx)
	conns := make([]*scaleConn, n)
	var mu sync.Mutex
	var wg sync.WaitGroup
	defer func() {
		stop()
		wg.Wait()
		for _, c := range conns {
			if c != nil {
				c.close()
			}
		}
	}()
	var made atomic.Int64
	stopProgress := make(chan struct{})
	go func() {
		t := time.NewTicker(5 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-stopProgress:
				return
			case <-t.C:
				b.logf("   … %d connected; calls %d ok, %d failed", made.Load(), ok.Load(), failed.Load())
			}
		}
	}()
	// Connect everything first, then start the calls: connecting under
	// the full call load would take minutes on a small machine.
	t0 := time.Now()
	err := parallel(n, 32, func(i int) error {
		c, err := connect(callCtx, i)
		if err != nil {
			return err
		}
		mu.Lock()
		conns[i] = c
		mu.Unlock()
		made.Add(1)
		return nil
	})
	close(stopProgress)
	if err != nil {
		return scaleResult{}, err
	}
	res := scaleResult{N: n, Connected: time.Since(t0)}
	t1 := time.Now()
	for i, c := range conns {
		wg.Go(func() {
			periodic(callCtx, c, t1.Add(time.Duration(i)*interval/time.Duration(n)), interval, &ok, &failed, &rec)
		})
	}
	b.logf("   %d connected in %s; calling, settling %s, then measuring %s", n, res.Connected.Round(time.Millisecond), o.ScaleSettle, o.ScaleWindow)
	sleep(ctx, o.ScaleSettle)
	r := &recorder{}
	rec.Store(r)
	ok0, failed0 := ok.Load(), failed.Load()
	s0, err := bench.ReadProc(pid)
	if err != nil {
		return res, err
	}
	me0, _ := bench.ReadProc(os.Getpid())
	sleep(ctx, o.ScaleWindow)
	s1, err := bench.ReadProc(pid)
	if err != nil {
		return res, err
	}
	me1, _ := bench.ReadProc(os.Getpid())
	ok1, failed1 := ok.Load(), failed.Load()
	rec.Store(nil)
	wall := s1.At.Sub(s0.At)
	res.CPU = bench.CPUPercent(s0, s1)
	res.Rate = float64(ok1-ok0) / wall.Seconds()
	if ok1 > ok0 {
		res.PerCall = (s1.CPU - s0.CPU) / time.Duration(ok1-ok0)
	}
	res.Latency = bench.Summarize(r.samples())
	res.RSS = s1.RSS
	res.Failed = failed1 - failed0
	res.BenchCPU = bench.CPUPercent(me0, me1)
	res.Offered = float64(n) / interval.Seconds()
	res.Projected = 100 * res.PerCall.Seconds() * res.Offered
	b.logf("   %.0f calls/s, CPU %.1f%% (%s each), latency p50 %s p99 %s, RSS %s, %d failed",
		res.Rate, res.CPU, res.PerCall, res.Latency.P50, res.Latency.P99, format(unitBytes, float64(res.RSS)), res.Failed)
	return res, nil
}

// periodic calls c.call at first, first+interval, … until ctx ends; a
// call that overruns its slot skips the slots it missed.
func periodic(ctx context.Context, c *scaleConn, first time.Time, interval time.Duration, ok, failed *atomic.Int64, rec *atomic.Pointer[recorder]) {
	next := first
	for next.Before(time.Now()) {
		next = next.Add(interval)
	}
	t := time.NewTimer(time.Until(next))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		start := time.Now()
		cctx, cancel := context.WithTimeout(ctx, 5*interval)
		err := c.call(cctx)
		cancel()
		switch {
		case err == nil:
			ok.Add(1)
			if r := rec.Load(); r != nil {
				r.add(time.Since(start))
			}
		case ctx.Err() == nil:
			failed.Add(1)
		}
		for next = next.Add(interval); next.Before(time.Now()); next = next.Add(interval) {
		}
		t.Reset(time.Until(next))
	}
}

// scalePhase: many idle followers with open streams, heartbeating at the
// interval Register tells such followers (subscribed_heartbeat_interval,
// 60s; -scale-interval sets another): supervisor CPU and RSS, beside a
// bare server serving as many connections with one open stream and one
// health check per interval each.
func (b *bencher) scalePhase(ctx context.Context) error {
	o := &b.opts
	n := o.ScaleFollowers
	spec := b.supSpec("scale", nil)
	// Followers connect before any heartbeats (see runScale): they must
	// not be pruned meanwhile. Pruning still scans every interval.
	spec.StaleAfter = 10 * time.Minute
	interval := o.ScaleInterval
	if interval <= 0 {
		interval = 60 * time.Second
	}
	spec.SubscribedHeartbeatInterval = max(interval, spec.HeartbeatInterval)
	spec.HeartbeatInterval = min(interval, spec.HeartbeatInterval)
	b.logf("scale: fresh supervisor without providers; %d followers (own connection, open stream, heartbeat every %s)", n, interval)
	sup, err := b.startSupervisor(ctx, spec)
	if err != nil {
		return err
	}
	stopped := false
	stopSup := func() {
		if !stopped {
			stopped = true
			sup.stop()
		}
	}
	defer stopSup()
	sup.profile("scale")
	res, err := b.runScale(ctx, sup.pid(), n, interval, func(ctx context.Context, i int) (*scaleConn, error) {
		c, err := client.Dial(spec.Socket, client.WithSecret(sup.secret))
		if err != nil {
			return nil, err
		}
		rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		resp, err := c.Bus.Register(rctx, &chatbusv1.RegisterRequest{
			InstanceId: fmt.Sprintf("s-%d", i), ProfileKey: fmt.Sprintf("bench:s%d", i), Cwd: "/bench/scale", Pid: int32(os.Getpid()),
		})
		if err != nil {
			c.Close()
			return nil, fmt.Errorf("register: %w", err)
		}
		if err := openStream(ctx, c, resp.GetSession()); err != nil {
			c.Close()
			return nil, err
		}
		req := &chatbusv1.HeartbeatRequest{Session: resp.GetSession()}
		return &scaleConn{
			call:  func(ctx context.Context) error { _, err := c.Bus.Heartbeat(ctx, req); return err },
			close: func() { c.Close() },
		}, nil
	})
	sup.profile("")
	if err != nil {
		return err
	}
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	info, err := sup.admin.Info(cctx)
	cancel()
	if err != nil {
		return err
	}
	b.check(int(info.GetFollowerCount()) == n, "scale: %d of %d followers still registered after the window (none pruned)", info.GetFollowerCount(), n)
	b.check(res.Failed == 0, "scale: %d heartbeats failed during the window (want 0)", res.Failed)
	stopSup()

	b.logf("scale baseline: bare server, %d connections with an open stream, a health check every %s each", n, interval)
	bp, err := b.startBaseline(ctx, b.root+"/scale.sock")
	if err != nil {
		return err
	}
	defer bp.stop()
	base, err := b.runScale(ctx, bp.pid(), n, interval, func(ctx context.Context, i int) (*scaleConn, error) {
		cc, err := dialRaw(bp.socket)
		if err != nil {
			return nil, err
		}
		if err := bench.Hold(ctx, cc); err != nil {
			cc.Close()
			return nil, err
		}
		hc := grpc_health_v1.NewHealthClient(cc)
		req := &grpc_health_v1.HealthCheckRequest{}
		return &scaleConn{
			call:  func(ctx context.Context) error { _, err := hc.Check(ctx, req); return err },
			close: func() { cc.Close() },
		}, nil
	})
	if err != nil {
		return fmt.Errorf("baseline: %w", err)
	}
	b.results.Details["scale"] = map[string]any{"chatbus": res, "baseline": base, "window": o.ScaleWindow.String()}
	// When the machine could not serve the offered rate (the bench's own
	// clients share its cores), the CPU at the offered rate is projected
	// from the CPU per call; the note says so.
	value, baseValue, how := res.CPU, base.CPU, "measured"
	if res.Rate < 0.95*res.Offered || base.Rate < 0.95*base.Offered {
		value, baseValue, how = res.Projected, base.Projected, fmt.Sprintf("PROJECTED to %.0f calls/s from the CPU per call (measured %.1f%% and %.1f%% while the machine served only %.0f and %.0f calls/s)",
			res.Offered, res.CPU, base.CPU, res.Rate, base.Rate)
	}
	every := fmt.Sprintf("open streams, heartbeat every %s", interval)
	b.addFigure(figure{ID: "scale_cpu", Name: fmt.Sprintf("%d idle followers (%s): supervisor CPU", n, every), Unit: unitPercent,
		Chatbus: fp(value), Baseline: fp(baseValue), BaselineName: "bare server, health checks at the same rate",
		Samples: int(res.Rate * o.ScaleWindow.Seconds()), BaselineSamples: int(base.Rate * o.ScaleWindow.Seconds()),
		Note: fmt.Sprintf("percent of one core (utime+stime over %s), %s; %s of supervisor CPU per heartbeat (bare: %s per health check; both serve keepalive pings of idle connections too); heartbeat latency p50 %s p99 %s; followers DETACHED (no provider: a forum has 702 slots), each its own connection with an open stream",
			o.ScaleWindow, how, res.PerCall.Round(100*time.Nanosecond), base.PerCall.Round(100*time.Nanosecond),
			res.Latency.P50.Round(time.Microsecond), res.Latency.P99.Round(time.Microsecond))},
		target{Max: 25})
	b.addFigure(figure{ID: "scale_rss", Name: fmt.Sprintf("%d idle followers (%s): supervisor RSS", n, every), Unit: unitBytes,
		Chatbus: fp(float64(res.RSS)), Baseline: fp(float64(base.RSS)), BaselineName: "bare server, same connections",
		Samples: n, BaselineSamples: n,
		Note: fmt.Sprintf("%s per follower (bare: %s per connection)", format(unitBytes, float64(res.RSS)/float64(n)), format(unitBytes, float64(base.RSS)/float64(n)))}, target{})
	return nil
}

// openStream opens a follower's update stream and waits for its headers
// (the supervisor sends them once the stream is in place). The stream
// stays open until ctx ends.
func openStream(ctx context.Context, c *client.Client, s *chatbusv1.Session) error {
	st, err := c.Bus.Subscribe(ctx, &chatbusv1.SubscribeRequest{Session: s})
	if err != nil {
		return fmt.Errorf("subscribe: %w", err)
	}
	if _, err := st.Header(); err != nil {
		return fmt.Errorf("subscribe: %w", err)
	}
	go func() {
		for {
			if _, err := st.Recv(); err != nil {
				return
			}
		}
	}()
	return nil
}
