package slack

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/chatbus/chatbus/internal/backoff"
	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/provider"
)

// Delivery rule: an envelope is acknowledged to Slack only after the
// supervisor has made its update durable (Sink.Deliver returned past
// it), or when it is deliberately not routed (the bot's own echo, a join,
// an event of no interest). The acknowledgement is Slack's cursor: what
// was not acknowledged, Slack sends again (after its retry timeout, on
// this or another connection), and the supervisor journals a redelivered
// event once by its dedup id. While a doctor holds admission closed,
// Deliver refuses: the batch is kept unacknowledged and offered again,
// and if the provider exits meanwhile Slack redelivers it to the
// successor.

const (
	// inboxSize bounds the envelopes read but not yet delivered; when it
	// is full the connection is not read (Slack then holds the rest).
	inboxSize = 1024
	// maxBatch bounds one Deliver.
	maxBatch = 256
	// durableSize bounds the dedup ids remembered as durable, so that a
	// redelivery of one is acknowledged without being sent again.
	durableSize = 8192
)

// receiver is one Run: its connection goroutine (connect) feeds in; the
// delivery loop (Run's goroutine) converts, delivers and acknowledges.
type receiver struct {
	p       *Platform
	id      identity
	sink    provider.Sink
	log     zerolog.Logger
	in      chan *envelope
	cur     atomic.Pointer[link] // the connection being read, nil between connections
	durable *recentSet           // only the delivery loop uses it
}

// Run implements provider.Platform. The cursor is not used: Slack has
// none (unacknowledged envelopes are redelivered), and the supervisor's
// de-duplication makes a redelivery harmless.
func (p *Platform) Run(ctx context.Context, _ []byte, sink provider.Sink) error {
	id, err := p.waitIdentity(ctx)
	if err != nil {
		return nil // ctx ended
	}
	r := &receiver{p: p, id: id, sink: sink, log: p.log.With().Str("component", "socket-mode").Logger(),
		in: make(chan *envelope, inboxSize), durable: newRecentSet(durableSize)}
	ctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { r.connect(ctx) })
	wg.Go(func() { p.watchBot(ctx) })
	wg.Go(func() { p.watchChannel(ctx) })
	err = r.deliverLoop(ctx)
	cancel()
	wg.Wait()
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// deliverLoop takes what has arrived, delivers it and acknowledges it,
// until ctx ends or the stream does.
func (r *receiver) deliverLoop(ctx context.Context) error {
	for {
		var batch []*envelope
		select {
		case env := <-r.in:
			batch = append(batch, env)
		case <-ctx.Done():
			return ctx.Err()
		}
	drain:
		for len(batch) < maxBatch {
			select {
			case env := <-r.in:
				batch = append(batch, env)
			default:
				break drain
			}
		}
		ups, envs := r.prepare(ctx, batch)
		if len(ups) == 0 {
			continue
		}
		if err := r.deliver(ctx, ups, envs); err != nil {
			return err
		}
	}
}

// prepare converts a batch: envelopes that are not routed, or whose event
// is already durable, are acknowledged at once; envelopes of one event
// (a redelivery that arrived while the first was held) become one update
// acknowledged with all of them. envs[i] are the envelopes of ups[i].
func (r *receiver) prepare(ctx context.Context, batch []*envelope) ([]*providerv1.Update, [][]*envelope) {
	var ups []*providerv1.Update
	var envs [][]*envelope
	index := map[string]int{}
	for _, env := range batch {
		if env.Retry > 0 {
			r.log.Debug().Str("envelope", env.ID).Int("retry_attempt", env.Retry).Str("retry_reason", env.RetryReason).Msg("Slack redelivered an envelope")
		}
		u, why := r.p.convertContained(ctx, r.id, env)
		switch {
		case u == nil:
			r.log.Debug().Str("envelope", env.ID).Str("type", env.Type).Str("why", why).Msg("acknowledged without routing")
			r.ack(env)
			continue
		case r.durable.has(u.DedupId):
			r.log.Debug().Str("envelope", env.ID).Str("dedup_id", u.DedupId).Msg("already durable: acknowledged again")
			r.ack(env)
			continue
		}
		if i, ok := index[u.DedupId]; ok {
			envs[i] = append(envs[i], env)
			continue
		}
		u.UpdateId = r.p.nextUpdateID()
		index[u.DedupId] = len(ups)
		ups = append(ups, u)
		envs = append(envs, []*envelope{env})
	}
	return ups, envs
}

// deliver hands ups to the supervisor and acknowledges each one's
// envelopes once it is durable. While admission is closed it keeps them,
// unacknowledged, and offers them again with a backoff; it returns nil
// once all are durable, or the error that ended the stream.
func (r *receiver) deliver(ctx context.Context, ups []*providerv1.Update, envs [][]*envelope) error {
	bo := backoff.Policy{Initial: 100 * time.Millisecond, Max: 2 * time.Second, Jitter: 0.2}.New()
	held := false
	for {
		through, err := r.sink.Deliver(ctx, ups)
		n := 0
		for n < len(ups) && ups[n].GetUpdateId() <= through {
			r.durable.add(ups[n].GetDedupId())
			for _, env := range envs[n] {
				r.ack(env)
			}
			n++
		}
		ups, envs = ups[n:], envs[n:]
		if err == nil || len(ups) == 0 {
			if held {
				r.log.Info().Msg("admission reopened: the held envelopes are delivered")
			}
			return nil
		}
		if !errors.Is(err, provider.ErrNotAdmitting) {
			return err
		}
		if !held {
			held = true
			r.log.Info().Int("envelopes", len(ups)).Err(err).Msg("admission closed: holding envelopes unacknowledged (Slack redelivers them if this provider exits)")
		}
		if backoff.Sleep(ctx, bo.NextBackOff()) != nil {
			return ctx.Err()
		}
	}
}

// ack acknowledges env on the connection it came in on, or, if that one
// is gone, on the current one. With neither, Slack redelivers it, which
// the supervisor's de-duplication makes harmless.
func (r *receiver) ack(env *envelope) {
	if env.acked {
		return // a slash command, acknowledged on arrival
	}
	l := env.link
	if l.closed() {
		if l = r.cur.Load(); l == nil {
			r.log.Debug().Str("envelope", env.ID).Msg("no connection to acknowledge on; Slack redelivers it")
			return
		}
	}
	if err := l.ack(env.ID, nil); err != nil {
		r.log.Debug().Err(err).Str("envelope", env.ID).Msg("acknowledgement not written; Slack redelivers it")
	}
}

// recentSet remembers the last n strings added. Not safe for concurrent
// use.
type recentSet struct {
	m    map[string]struct{}
	ring []string
	next int
}

func newRecentSet(n int) *recentSet {
	return &recentSet{m: make(map[string]struct{}, n), ring: make([]string, n)}
}

func (s *recentSet) has(k string) bool { _, ok := s.m[k]; return ok }

func (s *recentSet) add(k string) {
	if s.has(k) {
		return
	}
	if old := s.ring[s.next]; old != "" {
		delete(s.m, old)
	}
	s.ring[s.next] = k
	s.next = (s.next + 1) % len(s.ring)
	s.m[k] = struct{}{}
}
