package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/chatbus/chatbus/bench"
	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/provider"
	"github.com/chatbus/chatbus/provider/child"
)

// platform injects synthetic updates. Safe for concurrent use; the SDK
// never runs two Runs at once.
type platform struct {
	chat       int64
	nextThread atomic.Int64

	mu      sync.Mutex // guards inj, version, changed
	inj     bench.Injection
	version uint64
	changed chan struct{} // closed and replaced when inj changes

	running     atomic.Bool
	delivering  atomic.Bool
	seen        atomic.Uint64 // the injection version the receive loop acts on
	runs        atomic.Int64
	acked       atomic.Uint64
	lastID      atomic.Int64
	calls       atomic.Int64
	paced       bool   // set before serving
	stopControl func() // stops the control API; nil: none
}

var _ provider.Platform = (*platform)(nil)

func newPlatform(chat, threadBase int64, inj bench.Injection) *platform {
	p := &platform{chat: chat, inj: inj, changed: make(chan struct{})}
	p.nextThread.Store(threadBase)
	return p
}

// setInjection switches what Run injects; a Deliver in flight finishes
// first.
func (p *platform) setInjection(inj bench.Injection) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.inj = inj
	p.version++
	close(p.changed)
	p.changed = make(chan struct{})
}

func (p *platform) injection() (bench.Injection, uint64, <-chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.inj, p.version, p.changed
}

func (p *platform) stats() bench.ProviderStats {
	// Seen and Delivering before the injection: a loop that acted on the
	// current version is seen as such only once it did.
	seen, delivering := p.seen.Load(), p.delivering.Load()
	inj, version, _ := p.injection()
	return bench.ProviderStats{
		PID: os.Getpid(), Running: p.running.Load(), Runs: int(p.runs.Load()), Acked: p.acked.Load(),
		Delivering: delivering, LastID: p.lastID.Load(), Injection: inj, Version: version, Seen: seen,
	}
}

// Identify implements provider.Platform.
func (p *platform) Identify(context.Context) (provider.Identity, error) {
	return provider.Identity{OwnerID: "bench", Account: "@chatbus_bench"}, nil
}

// Run implements provider.Platform: it injects what the Injection says,
// ids from cursor on. Updates not acknowledged when a Deliver fails are
// made again (same ids, new send time) on the next stream: like a
// platform, this one keeps what its cursor has not passed.
func (p *platform) Run(ctx context.Context, cursor []byte, sink provider.Sink) error {
	p.running.Store(true)
	defer p.running.Store(false)
	p.runs.Add(1)
	start, _ := strconv.ParseInt(string(cursor), 10, 64)
	next := max(start, 1)
	chat := strconv.FormatInt(p.chat, 10)
	rr := 0
	var pc pacer
	// With the SDK's Pipeline, up to child.PipelineDepth batches are in
	// flight: Send returns once a batch is on the stream. ackedMark is the
	// highest id counted as acknowledged, sentID the highest id on the stream.
	pl, pipelined := sink.(child.Pipeline)
	ackedMark, sentID := next-1, next-1
	count := func(acked int64) {
		if acked > ackedMark {
			p.acked.Add(uint64(acked - ackedMark))
			p.lastID.Store(acked)
			ackedMark = acked
		}
	}
	// failed handles a Send, Deliver or Flush error: whether Run returns.
	failed := func(err error) (stop bool, runErr error) {
		switch {
		case err == nil:
		case errors.Is(err, provider.ErrNotAdmitting):
			// A doctor closed admission: leave the updates "at the
			// platform" and poll gently. What is in flight stays there.
			select {
			case <-time.After(20 * time.Millisecond):
			case <-ctx.Done():
				return true, nil
			}
		case ctx.Err() != nil:
			return true, nil
		default:
			return true, err
		}
		return false, nil
	}
	for {
		inj, version, changed := p.injection()
		if inj.Paused() {
			if pipelined && sentID > ackedMark {
				// Settle what is in flight before saying the pause was seen.
				acked, err := pl.Flush(ctx)
				count(acked)
				if err != nil {
					next, sentID = ackedMark+1, ackedMark
				}
				p.delivering.Store(sentID > ackedMark)
				if stop, err := failed(err); stop {
					return err
				}
				continue
			}
			p.seen.Store(version)
			select {
			case <-changed:
				continue
			case <-ctx.Done():
				return nil
			}
		}
		batch := max(inj.Batch, 1)
		n := batch
		first := int64(0) // open loop: the schedule index of the first update
		if inj.Rate > 0 {
			if first, n = pc.due(ctx, inj.Rate, batch, version, changed, inj.OpenLoop); n == 0 {
				if ctx.Err() != nil {
					return nil
				}
				continue // the injection changed
			}
		}
		now := time.Now()
		sent := timestamppb.New(now)
		ups := make([]*providerv1.Update, n)
		for i := range ups {
			thread := inj.Threads[rr%len(inj.Threads)]
			rr++
			id := next + int64(i)
			stamp := now
			if inj.OpenLoop && inj.Rate > 0 {
				stamp = pc.at(first+int64(i), inj.Rate)
			}
			text, payload := bench.TelegramUpdate(nil, id, p.chat, thread, stamp)
			ups[i] = &providerv1.Update{
				UpdateId: id,
				Kind:     providerv1.UpdateKind_UPDATE_KIND_MESSAGE, Text: text, Payload: payload,
				ReceivedAt: sent, Allowed: true,
				// As provider-telegram reports them: the message's id, the
				// ids as text, the update id as de-duplication key and the
				// next offset as cursor.
				References: &providerv1.References{Items: []*providerv1.Reference{
					{Kind: providerv1.ReferenceKind_REFERENCE_KIND_MESSAGE, Id: strconv.FormatInt(id, 10)}}},
				Chat: chat, Thread: strconv.FormatInt(thread, 10), Sender: strconv.FormatInt(bench.UserID, 10),
				DedupId: strconv.FormatInt(id, 10), Cursor: strconv.AppendInt(nil, id+1, 10),
			}
		}
		p.delivering.Store(true)
		p.seen.Store(version)
		var acked int64
		var err error
		if pipelined {
			acked, err = pl.Send(ctx, ups)
		} else {
			acked, err = sink.Deliver(ctx, ups)
		}
		count(acked)
		switch {
		case err == nil:
			sentID = ups[n-1].UpdateId
			next = sentID + 1
		case errors.Is(err, provider.ErrNotAdmitting):
			// Not sent; what was in flight before stays on the stream.
			next = sentID + 1
		default:
			// The stream ended: everything after the ack point is made
			// again on the next one, as a platform keeps it.
			next, sentID = ackedMark+1, ackedMark
		}
		// After the count: stats never see it done and uncounted.
		p.delivering.Store(sentID > ackedMark)
		if stop, err := failed(err); stop {
			return err
		}
	}
}

// pacer spaces paced updates: the n-th since the injection changed is due
// at start + n/rate.
type pacer struct {
	version uint64
	start   time.Time
	sent    int64
	timer   *time.Timer
}

// at is when the n-th update since the injection changed is due.
func (pc *pacer) at(n int64, rate float64) time.Time {
	return pc.start.Add(time.Duration(float64(n) / rate * float64(time.Second)))
}

// due waits for the next update's time and returns its index in the
// schedule and how many are due (at most batch: a Deliver that took long
// is caught up with). Closed loop (openLoop false), a schedule far behind
// restarts from now; open loop it never does. It returns n 0 if the
// injection changed or ctx ended meanwhile.
func (pc *pacer) due(ctx context.Context, rate float64, batch int, version uint64, changed <-chan struct{}, openLoop bool) (first int64, n int) {
	if pc.start.IsZero() || pc.version != version {
		pc.version, pc.start, pc.sent = version, time.Now(), 0
	}
	at := pc.at(pc.sent, rate)
	if d := time.Until(at); d > 0 {
		if pc.timer == nil {
			pc.timer = time.NewTimer(d)
		} else {
			pc.timer.Reset(d)
		}
		select {
		case <-pc.timer.C:
		case <-changed:
			pc.timer.Stop()
			return 0, 0
		case <-ctx.Done():
			pc.timer.Stop()
			return 0, 0
		}
	}
	due := int64(time.Since(pc.start).Seconds()*rate) + 1 - pc.sent
	if !openLoop && due > int64(batch)*4 {
		// Far behind (the supervisor stalled): do not burst; restart the
		// schedule from now.
		pc.start, pc.sent = time.Now(), 0
		due = 1
	}
	n = int(min(max(due, 1), int64(batch)))
	first = pc.sent
	pc.sent += int64(n)
	return first, n
}

// farLimits are limits no benchmark load reaches: the supervisor counts
// every call against them and never holds one back.
var farLimits = []provider.RateLimit{
	{Name: "bot", Scope: provider.ScopeBot, Count: 10000, Per: 10 * time.Millisecond},
	{Name: "chat", Scope: provider.ScopeChat, Count: 10000, Per: 10 * time.Millisecond, Methods: []string{provider.VerbSend, "sendMessage"}},
}

// Describe implements provider.Platform: Telegram's sendMessage and
// editMessageText, enough for the benchmark's followers, and the send and
// edit verbs; limits far above any load if paced.
func (p *platform) Describe() provider.Description {
	d := provider.Description{Platform: "bench", MaxTextChars: 4096, Methods: []provider.Method{
		{Name: "sendMessage"},
		{Name: "editMessageText", Params: []provider.Param{{Name: "message_id", Kind: provider.RefMessage, Required: true}}, Lane: provider.LaneEdit},
	}}
	if p.paced {
		d.Limits = farLimits
	}
	return d
}

// Send implements provider.Messenger: as Call's sendMessage, the text
// taken as it is (the benchmark measures the supervisor, not rendering).
func (p *platform) Send(_ context.Context, _ provider.Target, m provider.Message, _ string) (provider.Result, error) {
	id := p.calls.Add(1)
	return provider.Result{Refs: []provider.Ref{{Kind: provider.RefMessage, ID: strconv.FormatInt(id, 10)}}}, nil
}

// Edit implements provider.Messenger.
func (p *platform) Edit(_ context.Context, _ provider.Target, id string, _ provider.Message) (provider.Result, error) {
	return provider.Result{Refs: []provider.Ref{{Kind: provider.RefMessage, ID: id}}}, nil
}

// Call implements provider.Platform: it echoes the call, with a fresh
// message id as Telegram's sendMessage answers.
func (p *platform) Call(_ context.Context, _ provider.Target, method string, params json.RawMessage, _ string) (provider.Result, error) {
	if len(params) == 0 {
		params = json.RawMessage("{}")
	}
	id := p.calls.Add(1)
	res, err := json.Marshal(struct {
		MessageID int64           `json:"message_id"`
		Method    string          `json:"method"`
		Echo      json.RawMessage `json:"echo"`
	}{id, method, params})
	return provider.Result{JSON: res, Refs: []provider.Ref{{Kind: provider.RefMessage, ID: strconv.FormatInt(id, 10)}}}, err
}

// Upload implements provider.Platform: it reads the file and forgets it.
func (p *platform) Upload(_ context.Context, h provider.UploadHeader, r io.Reader) (provider.Result, error) {
	n, err := io.Copy(io.Discard, r)
	if err != nil {
		return provider.Result{}, err
	}
	res, err := json.Marshal(map[string]any{"message_id": p.calls.Add(1), "size": n, "file_name": h.Filename})
	return provider.Result{JSON: res}, err
}

// Download implements provider.Platform: the bench platform holds no files.
func (p *platform) Download(_ context.Context, fileID string) (io.ReadCloser, int64, string, error) {
	return nil, 0, "", fmt.Errorf("file %q: %w", fileID, provider.ErrNotFound)
}

// Provision implements provider.Platform: sequential thread ids.
func (p *platform) Provision(_ context.Context, req provider.ProvisionRequest) (provider.Provisioned, error) {
	chat := req.Chat
	if chat == "" {
		chat = strconv.FormatInt(p.chat, 10)
	}
	return provider.Provisioned{Target: provider.Target{Chat: chat, Thread: strconv.FormatInt(p.nextThread.Add(1), 10), Name: req.Name}}, nil
}

// Close stops the control API: the runtime calls it once serving ended.
func (p *platform) Close() {
	if p.stopControl != nil {
		p.stopControl()
	}
}

// CloseTarget implements provider.Platform.
func (p *platform) CloseTarget(context.Context, provider.Target) error { return nil }
