//go:build linux

package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/chatbus/chatbus/bench"
	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
)

// ---------------------------------------------------------------------
// doctor: DoctorService.Restart of the idle provider vs a bare start.

func (b *bencher) doctorPhase(ctx context.Context, sup *supervisor, ctl *control) error {
	n := b.opts.Restarts
	b.logf("doctor: %d bare starts of provider-bench, then %d doctor restarts", n, n)
	var bare []time.Duration
	for i := range n {
		d, err := b.bareStart(ctx, i)
		if err != nil {
			return fmt.Errorf("bare start: %w", err)
		}
		bare = append(bare, d)
	}
	bs := bench.Summarize(bare)

	sup.profile("doctor")
	var restarts, walls []time.Duration
	progress := map[string][]time.Duration{} // elapsed at each progress message, by phase
	na := ""
	dc := chatbusv1.NewDoctorServiceClient(sup.admin.Conn())
	for range n {
		before, _ := ctl.stats(ctx)
		d, wall, out, err := restartOnce(ctx, dc, progress)
		if status.Code(err) == codes.Unimplemented {
			na = "n/a (DoctorService not implemented)"
			break
		}
		if err != nil {
			na = "n/a (restart failed: " + err.Error() + ")"
			break
		}
		if out.GetKind() != chatbusv1.OutcomeKind_OUTCOME_KIND_RESTARTED {
			na = fmt.Sprintf("n/a (restart outcome %s %s: %s)", out.GetKind(), out.GetReason(), out.GetMessage())
			break
		}
		restarts, walls = append(restarts, d), append(walls, wall)
		// The successor runs its Updates stream (a new pid) before the next.
		deadline := time.Now().Add(30 * time.Second)
		for {
			st, err := ctl.stats(ctx)
			if err == nil && st.Running && st.PID != before.PID {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("no successor after the restart: %v %+v", err, st)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	sup.profile("")
	f := figure{
		ID: "doctor_restart_p50", Name: "doctor restart of an idle provider: prepare → successor healthy, p50", Unit: unitDuration,
		Baseline: fp(float64(bs.P50)), BaselineName: "bare start-to-healthy", BaselineSamples: bs.N,
		Note: "baseline: provider-bench started by hand (socket env, settings on stdin) until its handshake line, health SERVING and Identify",
	}
	details := map[string]any{"bare": bs}
	if na != "" {
		f.NA = na
	} else {
		rs := bench.Summarize(restarts)
		f.Chatbus, f.Samples = fp(float64(rs.P50)), rs.N
		details["prepare_to_ready"], details["wall"] = rs, bench.Summarize(walls)
		// Where the time goes: the median elapsed time at which each
		// phase's last progress message of a restart arrived.
		byPhase := map[string]bench.Summary{}
		for ph, d := range progress {
			byPhase[ph] = bench.Summarize(d)
		}
		details["progress_elapsed"] = byPhase
	}
	b.results.Details["doctor"] = details
	b.addFigure(f, target{RatioMax: 2})
	return nil
}

// restartOnce runs one Restart and returns prepare_to_ready (the wall time
// if the outcome has none), the wall time and the outcome.
// The elapsed time of each progress message is appended to phases by
// phase name.
func restartOnce(ctx context.Context, dc chatbusv1.DoctorServiceClient, phases map[string][]time.Duration) (time.Duration, time.Duration, *chatbusv1.RestartOutcome, error) {
	ctx, cancel := context.WithTimeout(ctx, 90*time.Second)
	defer cancel()
	start := time.Now()
	st, err := dc.Restart(ctx, &chatbusv1.RestartRequest{Provider: benchProvider, Deadline: durationpb.New(60 * time.Second)})
	if err != nil {
		return 0, 0, nil, err
	}
	for {
		msg, err := st.Recv()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = errors.New("stream ended without an outcome")
			}
			return 0, 0, nil, err
		}
		if pr := msg.GetProgress(); pr != nil && phases != nil {
			phases[pr.GetPhase().String()] = append(phases[pr.GetPhase().String()], pr.GetElapsed().AsDuration())
		}
		if out := msg.GetOutcome(); out != nil {
			wall := time.Since(start)
			d := wall
			if p := out.GetPrepareToReady(); p != nil && p.AsDuration() > 0 {
				d = p.AsDuration()
			}
			return d, wall, out, nil
		}
	}
}

// bareStart starts provider-bench by hand, as the supervisor does, and
// times it until its handshake line, health SERVING for "bench" and an
// answer to Identify ("healthy and identified"); then stops it.
func (b *bencher) bareStart(ctx context.Context, i int) (time.Duration, error) {
	dir := filepath.Join(b.root, "bare")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return 0, err
	}
	socket := filepath.Join(dir, fmt.Sprintf("bench-%d.sock", i))
	cmd := exec.Command(b.opts.Provider)
	cmd.Env = append(os.Environ(), "CHATBUS_PROVIDER_SOCKET="+socket, "CHATBUS_PROVIDER_NAME="+benchProvider)
	// As the supervisor does: a fresh secret the child requires on calls.
	const secret = "busbench-bare-start-secret-0123456789"
	cmd.Stdin = strings.NewReader(fmt.Sprintf(`{"name":%q,"forum_chat_id":%d,"secret":%q}`, benchProvider, benchChat, secret))
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	defer func() {
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	}()
	line := make(chan string, 1)
	go func() {
		l, _ := bufio.NewReader(out).ReadString('\n')
		line <- l
		io.Copy(io.Discard, out)
	}()
	select {
	case l := <-line:
		if want := "1|unix|" + socket + "|grpc\n"; l != want {
			return 0, fmt.Errorf("handshake %q, want %q", l, want)
		}
	case <-time.After(10 * time.Second):
		return 0, errors.New("no handshake line within 10s")
	}
	cc, err := dialRaw(socket, grpc.WithPerRPCCredentials(bearer(secret)))
	if err != nil {
		return 0, err
	}
	defer cc.Close()
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	hc := grpc_health_v1.NewHealthClient(cc)
	for {
		h, err := hc.Check(cctx, &grpc_health_v1.HealthCheckRequest{Service: benchProvider}, grpc.WaitForReady(true))
		if err == nil && h.GetStatus() == grpc_health_v1.HealthCheckResponse_SERVING {
			break
		}
		if cctx.Err() != nil {
			return 0, fmt.Errorf("health: %v", err)
		}
		time.Sleep(time.Millisecond)
	}
	if _, err := providerv1.NewProviderServiceClient(cc).Identify(cctx, &providerv1.IdentifyRequest{}); err != nil {
		return 0, fmt.Errorf("identify: %w", err)
	}
	return time.Since(start), nil
}

// ---------------------------------------------------------------------
// register: Register on the reuse path vs a health check, same socket.

func (b *bencher) registerPhase(ctx context.Context, sup *supervisor, ctl *control) error {
	n := b.opts.RegisterSamples
	b.logf("register: %d reuse registrations and %d health checks, interleaved in blocks of 50", n, n)
	bus := sup.admin.Bus
	hc := grpc_health_v1.NewHealthClient(sup.admin.Conn())
	seq := 0
	var last *chatbusv1.Session
	var notReuse int
	register := func() (time.Duration, error) {
		seq++
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		start := time.Now()
		// A new instance id each time: a session process reconnecting
		// with its profile key, as a reloaded agent does.
		resp, err := bus.Register(cctx, &chatbusv1.RegisterRequest{
			InstanceId: fmt.Sprintf("reg-%d", seq), ProfileKey: "bench:register", Cwd: "/bench/register", Pid: int32(os.Getpid()),
		})
		d := time.Since(start)
		if err != nil {
			return 0, err
		}
		if seq > 1 && resp.GetOrigin() != chatbusv1.Origin_ORIGIN_REUSE {
			notReuse++
		}
		last = resp.GetSession()
		return d, nil
	}
	check := func() (time.Duration, error) {
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		start := time.Now()
		_, err := hc.Check(cctx, &grpc_health_v1.HealthCheckRequest{})
		return time.Since(start), err
	}
	// The first registration provisions the thread (FRESH); then warm up.
	if _, err := register(); err != nil {
		return err
	}
	for range 100 {
		if _, err := register(); err != nil {
			return err
		}
		if _, err := check(); err != nil {
			return err
		}
	}
	notReuse = 0
	sup.profile("register")
	ctl.profile(ctx, "register")
	var regs, checks []time.Duration
	for len(regs) < n {
		for range min(50, n-len(checks)) {
			d, err := check()
			if err != nil {
				return err
			}
			checks = append(checks, d)
		}
		for range min(50, n-len(regs)) {
			d, err := register()
			if err != nil {
				return err
			}
			regs = append(regs, d)
		}
	}
	ctl.profile(ctx, "")
	sup.profile("")
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	bus.Unregister(cctx, &chatbusv1.UnregisterRequest{Session: last})
	cancel()
	b.check(notReuse == 0, "register: %d of %d measured registrations were not REUSE (want 0)", notReuse, n)
	rs, cs := bench.Summarize(regs), bench.Summarize(checks)
	b.results.Details["register"] = map[string]any{"chatbus": rs, "baseline": cs}
	b.addFigure(figure{ID: "register_p50", Name: "register (reuse path) p50", Unit: unitDuration,
		Chatbus: fp(float64(rs.P50)), Samples: rs.N, BaselineSamples: cs.N,
		Floor: floor{{Name: "health check p50, same socket", Times: 2, Value: float64(cs.P50)}},
		Note:  "one caller, sequential; each Register is a new instance id of the same profile key (a reloaded session); floor: two raw round trips (the Register and the provider's Attach it makes), each a health check on the same socket, interleaved"},
		target{RatioMax: 1.5})
	b.addFigure(figure{ID: "register_p99", Name: "register (reuse path) p99", Unit: unitDuration,
		Chatbus: fp(float64(rs.P99)), Baseline: fp(float64(cs.P99)), BaselineName: "health check, same socket",
		Samples: rs.N, BaselineSamples: cs.N}, target{})
	return nil
}

// ---------------------------------------------------------------------
// heartbeat: throughput of N concurrent followers vs health checks on the
// same connections.

func (b *bencher) heartbeatPhase(ctx context.Context, sup *supervisor, fls []*follower) error {
	o := &b.opts
	b.logf("heartbeat: %d followers, %d rounds of %s (health round, then heartbeat round)", len(fls), o.HBRounds, o.HBDuration)
	heartbeat := func(ctx context.Context, f *follower) error {
		_, err := f.c.Bus.Heartbeat(ctx, &chatbusv1.HeartbeatRequest{Session: f.f.Session()})
		return err
	}
	health := func(ctx context.Context, f *follower) error {
		_, err := grpc_health_v1.NewHealthClient(f.c.Conn()).Check(ctx, &grpc_health_v1.HealthCheckRequest{})
		return err
	}
	round := func(call func(context.Context, *follower) error, d time.Duration) (float64, int64, error) {
		// Cancelled by a timer, not a deadline: a deadline can fail a call
		// with DeadlineExceeded a moment before the context reports it.
		rctx, cancel := context.WithCancel(ctx)
		defer cancel()
		stop := time.AfterFunc(d, cancel)
		defer stop.Stop()
		var n, failed atomic.Int64
		var firstErr atomic.Pointer[error]
		var wg sync.WaitGroup
		start := time.Now()
		for _, f := range fls {
			wg.Go(func() {
				for rctx.Err() == nil {
					if err := call(rctx, f); err != nil {
						if rctx.Err() == nil {
							failed.Add(1)
							firstErr.CompareAndSwap(nil, &err)
						}
						continue
					}
					n.Add(1)
				}
			})
		}
		wg.Wait()
		if failed.Load() > 0 {
			return 0, 0, fmt.Errorf("%d calls failed, the first with: %w", failed.Load(), *firstErr.Load())
		}
		return float64(n.Load()) / time.Since(start).Seconds(), n.Load(), nil
	}
	// Warm up both paths.
	if _, _, err := round(health, 500*time.Millisecond); err != nil {
		return err
	}
	if _, _, err := round(heartbeat, 500*time.Millisecond); err != nil {
		return err
	}
	var hb, hs []float64
	var hbN, hsN int64
	for range o.HBRounds {
		r, n, err := round(health, o.HBDuration)
		if err != nil {
			return fmt.Errorf("health: %w", err)
		}
		hs, hsN = append(hs, r), hsN+n
		sup.profile("heartbeat")
		r, n, err = round(heartbeat, o.HBDuration)
		sup.profile("")
		if err != nil {
			return fmt.Errorf("heartbeat: %w", err)
		}
		hb, hbN = append(hb, r), hbN+n
	}
	b.results.Details["heartbeat"] = map[string]any{"chatbus_rounds_per_s": hb, "baseline_rounds_per_s": hs}
	b.addFigure(figure{ID: "heartbeat_throughput", Name: fmt.Sprintf("heartbeat throughput, %d concurrent followers", len(fls)), Unit: unitRate,
		Chatbus: fp(mean(hb)), Baseline: fp(mean(hs)), BaselineName: "health check, same conns",
		Samples: int(hbN), BaselineSamples: int(hsN),
		Note: fmt.Sprintf("mean of %d alternating rounds of %s; each follower its own connection, one call in flight each", o.HBRounds, o.HBDuration)},
		target{RatioMin: 0.8})
	return nil
}

func mean(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// ---------------------------------------------------------------------
// latency: provider→follower at a low rate, durable, vs a raw stream hop.

func (b *bencher) latencyPhase(ctx context.Context, sup *supervisor, ctl *control, bp *baselineProc, f *follower) error {
	o := &b.opts
	warm := time.Second
	b.logf("latency: %.0f updates/s for %s (after %s warm-up), then the raw hop at the same rate", o.LatencyRate, o.LatencyDuration, warm)
	base := f.received.Load()
	st0, err := ctl.stats(ctx)
	if err != nil {
		return err
	}
	// The floor's fdatasync where the journal lives, right before the
	// window and again right after the raw hop: the disk's pace moves
	// while other work shares it, and the floor takes the faster. Each
	// at the window's pace, one every 1/rate, as the journal syncs each
	// update: an fdatasync that follows an idle gap costs this disk two
	// to three times one that follows another at once (docs/performance.md).
	nSync := pick(o.Quick, 100, 500)
	syncGap := time.Duration(float64(time.Second) / o.LatencyRate)
	syncBefore, err := syncLatencies(b.stateRoot, nSync, syncGap, nil)
	if err != nil {
		return fmt.Errorf("fdatasync: %w", err)
	}
	if err := ctl.inject(ctx, bench.Injection{Rate: o.LatencyRate, Batch: 1, Threads: []int64{f.thread}}); err != nil {
		return err
	}
	sleep(ctx, warm)
	rec := &recorder{}
	b.lat.Store(rec)
	sup.profile("latency")
	ctl.profile(ctx, "latency")
	sleep(ctx, o.LatencyDuration)
	ctl.profile(ctx, "")
	sup.profile("")
	b.lat.Store(nil)
	if err := b.drain(ctx, ctl, []*follower{f}, base, st0.Acked); err != nil {
		return err
	}
	lat := bench.Summarize(rec.samples())

	// The raw hop: the bare server pushes the same messages at the same rate.
	raw, err := rawHops(ctx, bp.socket, o.LatencyRate, o.LatencyDuration, warm)
	if err != nil {
		return fmt.Errorf("raw hop: %w", err)
	}
	rs := bench.Summarize(raw)
	syncAfter, err := syncLatencies(b.stateRoot, nSync, syncGap, nil)
	if err != nil {
		return fmt.Errorf("fdatasync: %w", err)
	}
	sb, sa := bench.Summarize(syncBefore), bench.Summarize(syncAfter)
	ss := min(sb.P50, sa.P50)
	details := map[string]any{"chatbus": lat, "baseline": rs, "fdatasync_before": sb, "fdatasync_after": sa, "rate": o.LatencyRate}
	b.stageBreakdown(sup, "latency", rec, details)
	b.results.Details["latency"] = details
	note := fmt.Sprintf("%.0f updates/s, one per Deliver; provider send → follower receive (same clock), journalled and fsynced before forwarding; floor: two raw server-stream hops on a Unix socket (provider→supervisor, supervisor→follower) at the same rate and one fdatasync at the same pace (one every %s): the faster p50 of %d right before the window (%s) and %d right after the raw hop (%s)",
		o.LatencyRate, fmtDur(syncGap), sb.N, fmtDur(sb.P50), sa.N, fmtDur(sa.P50))
	b.addFigure(figure{ID: "forward_latency_p50", Name: "forwarded update latency provider→follower, durable, p50", Unit: unitDuration,
		Chatbus: fp(float64(lat.P50)), Samples: lat.N, BaselineSamples: rs.N, Note: note,
		Floor: floor{{Name: "raw stream hop p50", Times: 2, Value: float64(rs.P50)}, {Name: "4 KiB write + fdatasync p50, paced", Times: 1, Value: float64(ss)}}},
		target{RatioMax: 1.5})
	b.addFigure(figure{ID: "forward_latency_p99", Name: "forwarded update latency provider→follower, durable, p99", Unit: unitDuration,
		Chatbus: fp(float64(lat.P99)), Baseline: fp(float64(rs.P99)), BaselineName: "raw stream hop",
		Samples: lat.N, BaselineSamples: rs.N}, target{})
	return nil
}

// rawHops is the latency of one raw server-stream hop: the bare server on
// socket pushes rate updates a second for warm + d, each stamped with its
// send time; those of the last d count.
func rawHops(ctx context.Context, socket string, rate float64, d, warm time.Duration) ([]time.Duration, error) {
	cc, err := dialRaw(socket)
	if err != nil {
		return nil, err
	}
	defer cc.Close()
	interval := time.Duration(float64(time.Second) / rate)
	nWarm := int(warm / interval)
	count := nWarm + int(d/interval)
	var raw []time.Duration
	i := 0
	err = bench.Push(ctx, cc, bench.PushRequest{Count: count, Interval: interval}, func(u *chatbusv1.Update, at time.Time) error {
		if i++; i > nWarm {
			if sent, ok := bench.SentAt(u.GetText()); ok {
				raw = append(raw, at.Sub(sent))
			}
		}
		return nil
	})
	return raw, err
}

// drain pauses the injection and waits until the followers received
// everything the supervisor acknowledged to the provider since base/acked0
// (exact counts: nothing lost, nothing duplicated).
func (b *bencher) drain(ctx context.Context, ctl *control, fls []*follower, base, acked0 uint64) error {
	if err := ctl.pause(ctx); err != nil {
		return err
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		got := sumReceived(fls) - base // before the stats: never ahead of them
		st, err := ctl.stats(ctx)
		if err != nil {
			return err
		}
		acked := st.Acked - acked0
		settled := st.Seen == st.Version && !st.Delivering
		if settled && got >= acked {
			b.check(got == acked, "%d updates acknowledged to the provider, %d received by the followers", acked, got)
			return nil
		}
		if time.Now().After(deadline) {
			b.check(false, "%d updates acknowledged to the provider, %d received by the followers (not settled after 60s)", acked, got)
			return nil
		}
		sleep(ctx, 20*time.Millisecond)
	}
}

func sumReceived(fls []*follower) uint64 {
	var n uint64
	for _, f := range fls {
		n += f.received.Load()
	}
	return n
}

// ---------------------------------------------------------------------
// throughput: saturated, durable, k followers vs k raw streams.

func (b *bencher) throughputPhase(ctx context.Context, sup *supervisor, ctl *control, bp *baselineProc, fls []*follower) error {
	o := &b.opts
	k := len(fls)
	b.logf("throughput: %d follower(s), batches of %d, %s warm-up, %s measured; then %d raw stream(s)", k, o.SatBatch, o.SatWarmup, o.SatDuration, k)
	threads := make([]int64, k)
	for i, f := range fls {
		threads[i] = f.thread
	}
	base := sumReceived(fls)
	st0, err := ctl.stats(ctx)
	if err != nil {
		return err
	}
	if err := ctl.inject(ctx, bench.Injection{Rate: 0, Batch: o.SatBatch, Threads: threads}); err != nil {
		return err
	}
	sleep(ctx, o.SatWarmup)
	name := fmt.Sprintf("throughput-%d", k)
	var rec *recorder // the follower's stage of the breakdown (profiled runs)
	if sup.spec.ProfileDir != "" {
		rec = &recorder{}
		b.lat.Store(rec)
	}
	sup.profile(name)
	ctl.profile(ctx, name)
	s0, err := ctl.stats(ctx)
	if err != nil {
		return err
	}
	cpu := newCPUMeter(map[string]int{"supervisor": sup.pid(), "provider": s0.PID, "followers (busbench)": os.Getpid()})
	r0, t0 := sumReceived(fls), time.Now()
	sleep(ctx, o.SatDuration)
	r1, t1 := sumReceived(fls), time.Now()
	cpus := cpu.percent()
	s1, err := ctl.stats(ctx)
	if err != nil {
		return err
	}
	ctl.profile(ctx, "")
	sup.profile("")
	b.lat.Store(nil)
	if err := b.drain(ctx, ctl, fls, base, st0.Acked); err != nil {
		return err
	}
	details := map[string]any{}
	if rec != nil {
		b.stageBreakdown(sup, name, rec, details)
	}
	forwarded := float64(r1-r0) / t1.Sub(t0).Seconds()
	ingested := float64(s1.Acked-s0.Acked) / t1.Sub(t0).Seconds()

	raw, rawN, err := b.rawFanOut(ctx, bp, k)
	if err != nil {
		return err
	}
	for key, v := range map[string]any{"forwarded_per_s": forwarded, "ingested_per_s": ingested, "baseline_per_s": raw,
		"forwarded": r1 - r0, "baseline": rawN, "batch": o.SatBatch, "cpu_percent": cpus} {
		details[key] = v
	}
	b.results.Details[name] = details
	b.logf("   CPU %% of one core while saturated: %s", cpuString(cpus))
	b.addFigure(figure{ID: fmt.Sprintf("forward_throughput_%d", k),
		Name: fmt.Sprintf("forwarded updates/s, durable, saturated, %d follower%s", k, pick(k == 1, "", "s")), Unit: unitRate,
		Chatbus: fp(forwarded), Baseline: fp(raw), BaselineName: fmt.Sprintf("raw server-stream, %d stream%s", k, pick(k == 1, "", "s")),
		Samples: int(r1 - r0), BaselineSamples: int(rawN),
		Note: fmt.Sprintf("received by the followers (each its own connection, acking); the supervisor journalled %.1fk/s meanwhile; provider batches of %d; CPU %% of one core: %s", ingested/1e3, o.SatBatch, cpuString(cpus))},
		target{Min: 100_000, RatioMin: pick(k == 1, 0.5, 0)})
	if k == 1 {
		b.sat1, b.raw1 = forwarded, raw
	}
	return nil
}

// rawFanOut is the raw server-stream's rate to k streams of the bare
// server on socket, each on its own connection, as fast as they go: after
// the saturation's warm-up, over its measured window.
func (b *bencher) rawFanOut(ctx context.Context, bp *baselineProc, k int) (perS float64, n uint64, err error) {
	socket := bp.socket
	var got atomic.Uint64
	pctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait()
	}()
	for range k {
		cc, err := dialRaw(socket)
		if err != nil {
			return 0, 0, err
		}
		wg.Go(func() {
			defer cc.Close()
			bench.Push(pctx, cc, bench.PushRequest{Count: math.MaxInt32}, func(*chatbusv1.Update, time.Time) error {
				got.Add(1)
				return nil
			})
		})
	}
	sleep(ctx, b.opts.SatWarmup)
	pids := map[string]int{"receivers (busbench)": os.Getpid()}
	if bp.cmd != nil && bp.cmd.Process != nil {
		pids["bare server"] = bp.cmd.Process.Pid
	}
	cpu := newCPUMeter(pids)
	n0, t0 := got.Load(), time.Now()
	sleep(ctx, b.opts.SatDuration)
	n1, t1 := got.Load(), time.Now()
	b.logf("   raw fan-out to %d stream(s), CPU %% of one core: %s", k, cpuString(cpu.percent()))
	return float64(n1-n0) / t1.Sub(t0).Seconds(), n1 - n0, nil
}

// ---------------------------------------------------------------------
// open loop: updates scheduled at a fixed rate (half of the 1-follower
// saturation), stamped with their scheduled time, a backlog sent as fast
// as the supervisor takes it; every update scheduled in the window counts,
// however late it arrives.

func (b *bencher) openLoopPhase(ctx context.Context, sup *supervisor, ctl *control, bp *baselineProc, f *follower) error {
	o := &b.opts
	rate, how := o.OpenRate, "set by -open-rate"
	if rate <= 0 {
		rate, how = b.sat1/2, fmt.Sprintf("half of the 1-follower saturation (%.1fk/s)", b.sat1/1e3)
	}
	if rate <= 0 {
		rate, how = 10_000, "10k/s: the saturation was not measured in this run"
	}
	warm := time.Second
	b.logf("open loop: %.0f updates/s (%s) scheduled for %s after %s, stamped with their scheduled time", rate, how, o.OpenDuration, warm)
	base := f.received.Load()
	st0, err := ctl.stats(ctx)
	if err != nil {
		return err
	}
	start := time.Now()
	rec := &recorder{from: start.Add(warm), to: start.Add(warm + o.OpenDuration)}
	b.lat.Store(rec)
	defer b.lat.Store(nil)
	if err := ctl.inject(ctx, bench.Injection{Rate: rate, Batch: o.SatBatch, Threads: []int64{f.thread}, OpenLoop: true}); err != nil {
		return err
	}
	sup.profile("openloop")
	// The three processes' shares of the two cores over the window.
	var cpu *cpuMeter
	// What one fdatasync costs on this disk while the open loop writes to
	// it: each update waits for at least one, so the probe's tail is the
	// floor under the open loop's.
	sleep(ctx, warm)
	cpu = newCPUMeter(map[string]int{"supervisor": sup.pid(), "provider": st0.PID, "follower (busbench)": os.Getpid()})
	stopProbe := make(chan struct{})
	probed := make(chan []time.Duration, 1)
	var probeErr error
	go func() {
		d, err := syncLatencies(b.stateRoot, 0, 10*time.Millisecond, stopProbe)
		probeErr = err
		probed <- d
	}()
	// And what one raw hop costs meanwhile: the bare server pushes at the
	// latency phase's low rate for the window.
	hops, hopErr := rawHops(ctx, bp.socket, o.LatencyRate, o.OpenDuration, 0)
	cpus := cpu.percent()
	close(stopProbe)
	syncs := <-probed
	sup.profile("")
	if probeErr != nil {
		return fmt.Errorf("open loop: the fdatasync probe: %w", probeErr)
	}
	if hopErr != nil {
		return fmt.Errorf("open loop: the raw hop: %w", hopErr)
	}
	// Nothing scheduled in the window is dropped: the injection goes on
	// until the provider has sent past the window's end.
	deadline := time.Now().Add(2 * time.Minute)
	for {
		st, err := ctl.stats(ctx)
		if err != nil {
			return err
		}
		if st.Acked-st0.Acked >= uint64(rate*(warm+o.OpenDuration).Seconds()) || time.Now().After(deadline) {
			break
		}
		sleep(ctx, 20*time.Millisecond)
	}
	if err := b.drain(ctx, ctl, []*follower{f}, base, st0.Acked); err != nil {
		return err
	}
	lat := bench.Summarize(rec.samples())
	late := rec.lateCount()
	want := int(rate * o.OpenDuration.Seconds())
	b.check(lat.N >= want-2, "open loop: %d of the ~%d updates scheduled in the window received", lat.N, want)
	details := map[string]any{"latency": lat, "rate": rate, "rate_from": how, "late": late,
		"window": o.OpenDuration.String(), "scheduled_in_window": want, "cpu_percent": cpus}
	b.logf("   CPU %% of one core over the window: %s", cpuString(cpus))
	b.stageBreakdown(sup, "openloop", rec, details)
	b.results.Details["open_loop"] = details
	note := fmt.Sprintf("%.0f updates/s, %s; stamp = scheduled send time; a backlog is sent (up to %d per Deliver), never skipped; %d of %d arrived after the window ended (late: counted in the distribution, not dropped); CPU %% of one core over the window: %s",
		rate, how, o.SatBatch, late, lat.N, cpuString(cpus))
	ps, hs := bench.Summarize(syncs), bench.Summarize(hops)
	details["fdatasync_during"], details["raw_hop_during"] = ps, hs
	b.addFigure(figure{ID: "open_loop_latency_p99", Name: "forwarded update latency, open loop, durable, p99", Unit: unitDuration,
		Chatbus: fp(float64(lat.P99)), Samples: lat.N, BaselineSamples: hs.N, Note: note + fmt.Sprintf(
			"; floor: two raw hops' p99 (%.0f/s of a bare server's server-stream) and the fdatasync p99 (one every 10 ms), both measured meanwhile", o.LatencyRate),
		Floor: floor{{Name: "raw stream hop p99 meanwhile", Times: 2, Value: float64(hs.P99)}, {Name: "fdatasync p99 meanwhile", Times: 1, Value: float64(ps.P99)}}},
		target{RatioMax: 3})
	b.addFigure(figure{ID: "open_loop_latency_p50", Name: "forwarded update latency, open loop, durable, p50", Unit: unitDuration,
		Chatbus: fp(float64(lat.P50)), Samples: lat.N}, target{})
	b.addSyncFigures("open_loop_fdatasync", "during the open loop", ps,
		"not a chatbus figure: one fdatasync every 10 ms of a file beside the journal while the open loop ran; every update waits for at least one")
	return nil
}

// ---------------------------------------------------------------------
// memory: supervisor RSS per follower with an open stream vs a bare
// server's RSS per open stream.

// memProfileRate is the heap sampling rate of a profiled memory phase
// (both processes): fine enough to see a few KiB per follower.
const memProfileRate = 4096

func (b *bencher) memoryPhase(ctx context.Context) error {
	n := b.opts.MemFollowers
	// A forum chat has 702 slots (A…ZZ); spread the followers over
	// providers so that each gets a real thread.
	np := (n + 599) / 600
	var provs []provSpec
	for i := range np {
		provs = append(provs, provSpec{Name: fmt.Sprintf("bench-%d", i+1), Binary: b.opts.Provider, ForumChatID: benchChat - 100 - int64(i), Settings: map[string]any{}})
	}
	spec := b.supSpec("memory", provs)
	if b.opts.Pprof != "" {
		spec.MemProfileRate = memProfileRate
	}
	b.logf("memory: fresh supervisor with %d provider-bench child(ren); %d followers with open streams", np, n)
	sup, err := b.startSupervisor(ctx, spec)
	if err != nil {
		return err
	}
	defer sup.stop()
	settle := pick(b.opts.Quick, time.Second, 3*time.Second)
	sleep(ctx, settle)
	before, err := medianRSS(sup.pid(), 5)
	if err != nil {
		return err
	}
	sup.profile("memory")
	fls, closeFollowers, err := startFollowers(ctx, sup, n, false, func(i int) followerOpts {
		return followerOpts{ProfileKey: fmt.Sprintf("bench:m%d", i), InstanceID: fmt.Sprintf("m-%d", i), Provider: provs[i%np].Name, Subscribe: true}
	})
	defer closeFollowers()
	if err != nil {
		return err
	}
	sleep(ctx, settle)
	after, err := medianRSS(sup.pid(), 5)
	if err != nil {
		return err
	}
	sup.profile("")
	per := float64(after-before) / float64(n)
	// What the followers were told: a heartbeat after interval, then, with
	// their stream open, every subscribed interval. The bare connections
	// make a health check on the same schedule.
	reg := fls[0].f.Registered()
	hbFirst, hbEvery := reg.GetHeartbeatInterval().AsDuration(), reg.GetSubscribedHeartbeatInterval().AsDuration()
	if hbEvery < hbFirst {
		hbEvery = hbFirst
	}

	// The bare server: a fresh process, n connections with one open stream each.
	rate := 0
	if b.opts.Pprof != "" {
		rate = memProfileRate
	}
	bp, err := b.startBaselineRate(ctx, filepath.Join(b.root, "mem.sock"), rate)
	if err != nil {
		return err
	}
	defer bp.stop()
	sleep(ctx, settle)
	bBefore, err := medianRSS(bp.pid(), 5)
	if err != nil {
		return err
	}
	hctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ccs := make([]*grpc.ClientConn, n)
	defer func() {
		for _, cc := range ccs {
			if cc != nil {
				cc.Close()
			}
		}
	}()
	var ok, failed atomic.Int64
	var noRec atomic.Pointer[recorder]
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	err = parallel(n, 16, func(i int) error {
		cc, err := dialRaw(bp.socket)
		if err != nil {
			return err
		}
		ccs[i] = cc
		if err := bench.Hold(hctx, cc); err != nil {
			return err
		}
		// Health checks on the followers' heartbeat schedule.
		hc := grpc_health_v1.NewHealthClient(cc)
		c := &scaleConn{call: func(ctx context.Context) error {
			_, err := hc.Check(ctx, &grpc_health_v1.HealthCheckRequest{})
			return err
		}}
		wg.Go(func() {
			periodic(hctx, c, time.Now().Add(hbFirst), hbEvery, &ok, &failed, &noRec)
		})
		return nil
	})
	if err != nil {
		return fmt.Errorf("bare streams: %w", err)
	}
	sleep(ctx, settle)
	bAfter, err := medianRSS(bp.pid(), 5)
	if err != nil {
		return err
	}
	bper := float64(bAfter-bBefore) / float64(n)
	if b.opts.Pprof != "" { // the bare server's memory statistics, beside the supervisor's profiles
		bp.cmd.Process.Signal(syscall.SIGUSR1)
		time.Sleep(200 * time.Millisecond)
		for _, name := range []string{"memstats.json", "heap.pprof", "goroutine.pprof"} {
			if js, err := os.ReadFile(bp.socket + "." + name); err == nil {
				os.WriteFile(filepath.Join(b.opts.Pprof, "memory-bare."+name), js, 0o644)
			}
		}
	}
	b.results.Details["memory"] = map[string]any{"followers": n, "providers": np,
		"supervisor_rss_before": before, "supervisor_rss_after": after, "bare_rss_before": bBefore, "bare_rss_after": bAfter}
	b.addFigure(figure{ID: "rss_per_follower", Name: fmt.Sprintf("supervisor RSS per connected follower (%d with open streams)", n), Unit: unitBytes,
		Chatbus: fp(per), Samples: n, BaselineSamples: n,
		Note: fmt.Sprintf("(RSS with them − RSS before) ÷ %d, medians of 5 readings after %s; supervisor %s → %s, bare %s → %s; each follower registered (own thread) with its own connection and an open stream, so heartbeating after %s, then every %s (the subscribed interval); floor: a bare gRPC server with %d connections, each an open stream and a health check on the same schedule",
			n, settle, format(unitBytes, float64(before)), format(unitBytes, float64(after)), format(unitBytes, float64(bBefore)), format(unitBytes, float64(bAfter)), hbFirst, hbEvery, n),
		Floor: floor{{Name: "bare gRPC server RSS per connection", Times: 1, Value: bper}}},
		target{RatioMax: 1.2})
	return nil
}

// ---------------------------------------------------------------------
// disk: what one fdatasync costs where the journal lives (context for the
// durable figures: a bbolt commit makes two).

func (b *bencher) diskPhase() error {
	n := pick(b.opts.Quick, 200, 2000)
	b.logf("disk: %d × (4 KiB pwrite + fdatasync) in %s", n, b.stateRoot)
	d, err := syncLatencies(b.stateRoot, n, 0, nil)
	if err != nil {
		return err
	}
	s := bench.Summarize(d)
	b.results.Details["disk"] = map[string]any{"fdatasync_4k": s, "dir": b.stateRoot}
	b.addSyncFigures("fdatasync", "where the journal lives", s,
		"not a chatbus figure: the floor under every durable one (a bbolt commit is two fdatasyncs: pages, then meta)")
	return nil
}

// addSyncFigures adds the p50 and p99 of fdatasync latencies as context
// rows (no target): IDs id_p50 and id_p99, named "… write + fdatasync
// <where>".
func (b *bencher) addSyncFigures(id, where string, s bench.Summary, note string) {
	name := "context: 4 KiB write + fdatasync " + where
	b.addFigure(figure{ID: id + "_p50", Name: name + ", p50", Unit: unitDuration,
		Chatbus: fp(float64(s.P50)), Samples: s.N, Note: note}, target{})
	b.addFigure(figure{ID: id + "_p99", Name: name + ", p99", Unit: unitDuration,
		Chatbus: fp(float64(s.P99)), Samples: s.N}, target{})
}

// syncLatencies times 4 KiB pwrites, each followed by an fdatasync, in a
// file of its own in dir: n of them after 50 unmeasured (n > 0), or until
// stop is closed (n == 0); back to back, or, with every > 0, each after
// a pause of every. A write overwrites one of
// 64 blocks, so that no fdatasync carries a metadata change: the figure is
// the device's, as the journal's writes into its zeroed segments are.
func syncLatencies(dir string, n int, every time.Duration, stop <-chan struct{}) ([]time.Duration, error) {
	f, err := os.CreateTemp(dir, "fsync")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	defer f.Close()
	buf := make([]byte, 4096)
	var d []time.Duration
	const warm = 50
	for i := 0; n == 0 || i < n+warm; i++ {
		if every > 0 || n == 0 {
			select {
			case <-stop:
				return d, nil
			case <-time.After(every):
			}
		}
		start := time.Now()
		if _, err := f.WriteAt(buf, int64(i%64)*4096); err != nil {
			return d, err
		}
		if err := syscall.Fdatasync(int(f.Fd())); err != nil {
			return d, err
		}
		if n == 0 || i >= warm {
			d = append(d, time.Since(start))
		}
	}
	return d, nil
}

// sleep waits d or until ctx ends.
func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
