//go:build linux

package main

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/chatbus/chatbus/bench"
	"github.com/chatbus/chatbus/client"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
	"github.com/chatbus/chatbus/server/outbound"
)

// The outbound phase: followers' calls through the supervisor to a
// provider, closed loop, each follower one call in flight on its own
// thread. It runs against a supervisor of its own with two provider-bench
// children: "paced" declares rate limits far above the load (the
// outbound scheduler counts every call against them and never holds one
// back), "unpaced" declares none. Three kinds of call, in alternating
// rounds:
//
//   - call:     BusService.Call "sendMessage" on the paced provider, keyed
//   - verb:     BusService.SendMessage on the paced provider, keyed
//   - unpaced:  BusService.Call "sendMessage" on the unpaced provider, keyed
//
// verb beside call is what the message verbs cost over a raw Call; call
// beside unpaced what counting calls against limits costs. The
// scheduler's own hop (a call handed to its goroutine and back) is the
// same in all three; the "scheduler hop" figure measures it alone,
// in-process: a job through outbound.Scheduler beside the same function
// called directly.

const (
	pacedProvider   = "paced"
	unpacedProvider = "unpaced"
)

// outboundKind is one kind of call of the phase.
type outboundKind struct {
	name string
	fls  []*follower
	call func(ctx context.Context, f *follower, key string) error
}

func (b *bencher) outboundPhase(ctx context.Context) error {
	o := &b.opts
	dir := filepath.Join(b.root, "outbound")
	spec := b.supSpec("outbound", []provSpec{
		{Name: pacedProvider, Binary: o.Provider, ForumChatID: benchChat, Settings: map[string]any{"paced": true}},
		{Name: unpacedProvider, Binary: o.Provider, ForumChatID: benchChat - 1, Settings: map[string]any{"paced": false}},
	})
	spec.Socket = filepath.Join(dir, "sup.sock")
	b.logf("outbound: supervisor with a paced and an unpaced provider-bench; %d followers on each, %d rounds of %s", o.OutFollowers, o.OutRounds, o.OutDuration)
	sup, err := b.startSupervisor(ctx, spec)
	if err != nil {
		return err
	}
	defer sup.stop()
	start := func(provider string) ([]*follower, func(), error) {
		return startFollowers(ctx, sup, o.OutFollowers, true, func(i int) followerOpts {
			return followerOpts{ProfileKey: fmt.Sprintf("bench:%s%d", provider, i), InstanceID: fmt.Sprintf("%s-%d", provider, i), Provider: provider}
		})
	}
	paced, closePaced, err := start(pacedProvider)
	defer closePaced()
	if err != nil {
		return err
	}
	unpaced, closeUnpaced, err := start(unpacedProvider)
	defer closeUnpaced()
	if err != nil {
		return err
	}
	rawCall := func(ctx context.Context, f *follower, key string) error {
		_, err := f.c.Bus.Call(ctx, &chatbusv1.CallRequest{Session: f.f.Session(), Method: "sendMessage", ParamsJson: []byte(`{"text":"bench"}`), IdempotencyKey: key})
		return err
	}
	kinds := []*outboundKind{
		{name: "call", fls: paced, call: rawCall},
		{name: "verb", fls: paced, call: func(ctx context.Context, f *follower, key string) error {
			_, err := f.c.Bus.SendMessage(ctx, &chatbusv1.SendMessageRequest{Session: f.f.Session(), Text: "bench", IdempotencyKey: key})
			return err
		}},
		{name: "unpaced", fls: unpaced, call: rawCall},
	}
	rates := map[string][]float64{}
	lats := map[string][]time.Duration{}
	var keys atomic.Uint64
	round := func(k *outboundKind, d time.Duration, record bool) error {
		rctx, cancel := context.WithCancel(ctx)
		defer cancel()
		stop := time.AfterFunc(d, cancel)
		defer stop.Stop()
		var n atomic.Int64
		var mu sync.Mutex
		var firstErr error
		var samples []time.Duration
		var wg sync.WaitGroup
		began := time.Now()
		for _, f := range k.fls {
			wg.Go(func() {
				var mine []time.Duration
				for rctx.Err() == nil {
					t := time.Now()
					err := k.call(rctx, f, fmt.Sprintf("b%d", keys.Add(1)))
					if err != nil {
						if rctx.Err() == nil {
							mu.Lock()
							if firstErr == nil {
								firstErr = client.Err(err)
							}
							mu.Unlock()
						}
						continue
					}
					mine = append(mine, time.Since(t))
					n.Add(1)
				}
				mu.Lock()
				samples = append(samples, mine...)
				mu.Unlock()
			})
		}
		wg.Wait()
		if firstErr != nil {
			return fmt.Errorf("%s: %w", k.name, firstErr)
		}
		if record {
			rates[k.name] = append(rates[k.name], float64(n.Load())/time.Since(began).Seconds())
			lats[k.name] = append(lats[k.name], samples...)
		}
		return nil
	}
	for _, k := range kinds { // warm up every path
		if err := round(k, 500*time.Millisecond, false); err != nil {
			return err
		}
	}
	for range o.OutRounds {
		for _, k := range kinds {
			if k.name == "verb" {
				sup.profile("outbound")
			}
			err := round(k, o.OutDuration, true)
			sup.profile("")
			if err != nil {
				return err
			}
		}
	}
	sum := map[string]bench.Summary{}
	for _, k := range kinds {
		sum[k.name] = bench.Summarize(lats[k.name])
	}
	details := map[string]any{"calls_per_s": rates, "latency": sum, "followers_per_provider": o.OutFollowers}
	note := fmt.Sprintf("%d followers, one keyed call in flight each, %d alternating rounds of %s", o.OutFollowers, o.OutRounds, o.OutDuration)
	b.addFigure(figure{ID: "outbound_verb_rate", Name: "outbound: SendMessage (verb) calls/s", Unit: unitRate,
		Chatbus: fp(mean(rates["verb"])), Baseline: fp(mean(rates["call"])), BaselineName: "raw Call, same provider",
		Samples: sum["verb"].N, BaselineSamples: sum["call"].N, Note: note}, target{RatioMin: 0.9})
	b.addFigure(figure{ID: "outbound_verb_p50", Name: "outbound: SendMessage (verb) p50", Unit: unitDuration,
		Chatbus: fp(float64(sum["verb"].P50)), Baseline: fp(float64(sum["call"].P50)), BaselineName: "raw Call p50",
		Samples: sum["verb"].N, BaselineSamples: sum["call"].N, Note: note}, target{RatioMax: 1.1})
	b.addFigure(figure{ID: "outbound_paced_rate", Name: "outbound: Call calls/s, paced (limits far above the load)", Unit: unitRate,
		Chatbus: fp(mean(rates["call"])), Baseline: fp(mean(rates["unpaced"])), BaselineName: "Call, no limits declared",
		Samples: sum["call"].N, BaselineSamples: sum["unpaced"].N, Note: note}, target{RatioMin: 0.9})
	b.addFigure(figure{ID: "outbound_paced_p50", Name: "outbound: Call p50, paced", Unit: unitDuration,
		Chatbus: fp(float64(sum["call"].P50)), Baseline: fp(float64(sum["unpaced"].P50)), BaselineName: "Call p50, no limits",
		Samples: sum["call"].N, BaselineSamples: sum["unpaced"].N, Note: note + fmt.Sprintf("; p99 %s paced, %s unpaced", sum["call"].P99, sum["unpaced"].P99)},
		target{Max: float64(sum["unpaced"].P50 + 50*time.Microsecond)})

	hop, err := b.schedulerHop(ctx)
	if err != nil {
		return err
	}
	details["scheduler_hop"] = hop
	b.results.Details["outbound"] = details
	return nil
}

// schedulerHop measures what the scheduler adds to one call, in-process:
// jobs handed to an outbound.Scheduler (with limits far above the load,
// as the paced provider's) by 8 goroutines, one job in flight each, beside
// the same 8 calling the job's function directly; the function does what
// a call's own goroutine does (a channel send it waits on).
func (b *bencher) schedulerHop(ctx context.Context) (map[string]any, error) {
	const callers = 8
	d := pick(b.opts.Quick, 500*time.Millisecond, 3*time.Second)
	sched, err := outbound.New(outbound.Config{Limits: []outbound.Limit{
		{Name: "bot", Scope: outbound.ScopeBot, Count: 10000, Per: 10 * time.Millisecond},
		{Name: "chat", Scope: outbound.ScopeChat, Count: 10000, Per: 10 * time.Millisecond},
	}})
	if err != nil {
		return nil, err
	}
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go sched.Run(sctx)
	sched.SetOpen(true)
	measure := func(via func(thread int, fn func()) error) (float64, bench.Summary, error) {
		rctx, rcancel := context.WithTimeout(ctx, d)
		defer rcancel()
		var mu sync.Mutex
		var all []time.Duration
		var firstErr error
		var wg sync.WaitGroup
		began := time.Now()
		for i := range callers {
			wg.Go(func() {
				var mine []time.Duration
				for rctx.Err() == nil {
					done := make(chan struct{})
					t := time.Now()
					if err := via(i, func() { close(done) }); err != nil {
						mu.Lock()
						firstErr = err
						mu.Unlock()
						return
					}
					<-done
					mine = append(mine, time.Since(t))
				}
				mu.Lock()
				all = append(all, mine...)
				mu.Unlock()
			})
		}
		wg.Wait()
		return float64(len(all)) / time.Since(began).Seconds(), bench.Summarize(all), firstErr
	}
	direct := func(_ int, fn func()) error { go fn(); return nil }
	through := func(thread int, fn func()) error {
		_, err := sched.Submit(&outbound.Job{Thread: outbound.Thread{Chat: "c", Thread: fmt.Sprint(thread)}, Method: "send",
			Run: func() outbound.Outcome { fn(); return outbound.Outcome{} }})
		return err
	}
	directRate, directLat, err := measure(direct)
	if err != nil {
		return nil, err
	}
	schedRate, schedLat, err := measure(through)
	if err != nil {
		return nil, err
	}
	b.addFigure(figure{ID: "scheduler_hop_p50", Name: "outbound scheduler: one call's hop p50 (in-process)", Unit: unitDuration,
		Chatbus: fp(float64(schedLat.P50)), Baseline: fp(float64(directLat.P50)), BaselineName: "the same call on a goroutine of its own",
		Samples: schedLat.N, BaselineSamples: directLat.N,
		Note: fmt.Sprintf("%d callers, one job in flight each, %s; %.0f jobs/s through the scheduler, %.0f direct", callers, d, schedRate, directRate)},
		target{Max: float64(directLat.P50 + 50*time.Microsecond)})
	return map[string]any{"direct_per_s": directRate, "scheduler_per_s": schedRate, "direct": directLat, "scheduler": schedLat}, nil
}
