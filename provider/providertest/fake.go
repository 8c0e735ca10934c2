package providertest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"time"

	"google.golang.org/protobuf/proto"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/provider"
)

// Fake is a [provider.Platform] without a network. Each method calls its
// …Func hook when set; otherwise it behaves like a small well-behaved
// platform (see each default). Set the hooks before serving; the rest of
// the Fake is safe for concurrent use.
type Fake struct {
	// Identity is what the default Identify returns. If zero,
	// {OwnerID: "fake-owner", Account: "@fake"}.
	Identity provider.Identity
	// Files are what the default Download serves, by file id.
	Files map[string][]byte
	// Backoff is how long the default Run waits after ErrNotAdmitting. If
	// zero, 20ms.
	Backoff time.Duration
	// Description is what Describe returns. If its Platform is empty,
	// DefaultDescription.
	Description provider.Description

	IdentifyFunc    func(ctx context.Context) (provider.Identity, error)
	RunFunc         func(ctx context.Context, cursor []byte, sink provider.Sink) error
	CallFunc        func(ctx context.Context, t provider.Target, method string, params json.RawMessage, key string) (provider.Result, error)
	UploadFunc      func(ctx context.Context, h provider.UploadHeader, r io.Reader) (provider.Result, error)
	DownloadFunc    func(ctx context.Context, fileID string) (io.ReadCloser, int64, string, error)
	ProvisionFunc   func(ctx context.Context, req provider.ProvisionRequest) (provider.Provisioned, error)
	CloseTargetFunc func(ctx context.Context, t provider.Target) error
	// The message verbs' hooks; see each default.
	SendFunc   func(ctx context.Context, t provider.Target, m provider.Message, key string) (provider.Result, error)
	EditFunc   func(ctx context.Context, t provider.Target, id string, m provider.Message) (provider.Result, error)
	ReactFunc  func(ctx context.Context, t provider.Target, id, emoji string) error
	TypingFunc func(ctx context.Context, t provider.Target) error
	AnswerFunc func(ctx context.Context, t provider.Target, id, text string) error

	mu         sync.Mutex
	verbs      []VerbRecord
	nextMsg    int64
	queue      []*providerv1.Update // pushed and not yet confirmed by an ack
	pushed     chan struct{}        // closed and replaced on every Push
	calls      []CallRecord
	runs       []int64 // cursor of each Run
	nextThread int64
}

// DefaultDescription is the Fake's method set: sendMessage,
// editMessageText (naming a message) and answerCallbackQuery (naming an
// interaction).
var DefaultDescription = provider.Description{
	Platform: "fake",
	Methods: []provider.Method{
		{Name: "sendMessage"},
		{Name: "editMessageText", Params: []provider.Param{{Name: "message_id", Kind: provider.RefMessage, Required: true}}},
		{Name: "answerCallbackQuery", Params: []provider.Param{{Name: "callback_query_id", Kind: provider.RefInteraction, Required: true}}},
	},
	MaxTextChars: 4096,
}

// CallRecord is one Call the Fake received.
type CallRecord struct {
	Target         provider.Target
	Method         string
	Params         json.RawMessage
	IdempotencyKey string
}

// VerbRecord is one message verb the Fake received.
type VerbRecord struct {
	Target provider.Target
	Verb   string
	// Message is what Send posted or Edit wrote.
	Message provider.Message
	// ID is the message (Edit, React) or interaction (Answer) named.
	ID string
	// Emoji (React) and Text (Answer).
	Emoji, Text    string
	IdempotencyKey string
}

var (
	_ provider.Platform  = (*Fake)(nil)
	_ provider.Messenger = (*Fake)(nil)
	_ provider.Reactor   = (*Fake)(nil)
	_ provider.Typist    = (*Fake)(nil)
	_ provider.Answerer  = (*Fake)(nil)
)

// Push queues platform updates for the default Run (ids ascending).
func (f *Fake) Push(us ...*providerv1.Update) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.queue = append(f.queue, us...)
	if f.pushed != nil {
		close(f.pushed)
	}
	f.pushed = make(chan struct{})
}

// Pending returns the pushed updates the platform still holds: those not
// yet acknowledged through the Sink.
func (f *Fake) Pending() []*providerv1.Update {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*providerv1.Update(nil), f.queue...)
}

// Calls returns the Calls received so far.
func (f *Fake) Calls() []CallRecord {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]CallRecord(nil), f.calls...)
}

// Verbs returns the message verbs received so far.
func (f *Fake) Verbs() []VerbRecord {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]VerbRecord(nil), f.verbs...)
}

func (f *Fake) record(v VerbRecord) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.verbs = append(f.verbs, v)
}

// Send records the verb; by default it sends one message per "\f"-separated
// part of the text, with ids "5001", "5002", … (as a platform that splits
// long texts would).
func (f *Fake) Send(ctx context.Context, t provider.Target, m provider.Message, key string) (provider.Result, error) {
	f.record(VerbRecord{Target: t, Verb: provider.VerbSend, Message: m, IdempotencyKey: key})
	if f.SendFunc != nil {
		return f.SendFunc(ctx, t, m, key)
	}
	var res provider.Result
	f.mu.Lock()
	for range strings.Split(m.Text, "\f") {
		f.nextMsg++
		res.Refs = append(res.Refs, provider.Ref{Kind: provider.RefMessage, ID: strconv.FormatInt(5000+f.nextMsg, 10)})
	}
	f.mu.Unlock()
	return res, nil
}

// Edit records the verb; by default it succeeds, naming the message.
func (f *Fake) Edit(ctx context.Context, t provider.Target, id string, m provider.Message) (provider.Result, error) {
	f.record(VerbRecord{Target: t, Verb: provider.VerbEdit, Message: m, ID: id})
	if f.EditFunc != nil {
		return f.EditFunc(ctx, t, id, m)
	}
	return provider.Result{Refs: []provider.Ref{{Kind: provider.RefMessage, ID: id}}}, nil
}

// React records the verb; by default it succeeds.
func (f *Fake) React(ctx context.Context, t provider.Target, id, emoji string) error {
	f.record(VerbRecord{Target: t, Verb: provider.VerbReact, ID: id, Emoji: emoji})
	if f.ReactFunc != nil {
		return f.ReactFunc(ctx, t, id, emoji)
	}
	return nil
}

// Typing records the verb; by default it succeeds.
func (f *Fake) Typing(ctx context.Context, t provider.Target) error {
	f.record(VerbRecord{Target: t, Verb: provider.VerbTyping})
	if f.TypingFunc != nil {
		return f.TypingFunc(ctx, t)
	}
	return nil
}

// Answer records the verb; by default it succeeds.
func (f *Fake) Answer(ctx context.Context, t provider.Target, id, text string) error {
	f.record(VerbRecord{Target: t, Verb: provider.VerbAnswer, ID: id, Text: text})
	if f.AnswerFunc != nil {
		return f.AnswerFunc(ctx, t, id, text)
	}
	return nil
}

// Runs returns the cursor of each Run so far.
func (f *Fake) Runs() []int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]int64(nil), f.runs...)
}

// Identify returns Identity (default: OwnerID "fake-owner").
func (f *Fake) Identify(ctx context.Context) (provider.Identity, error) {
	if f.IdentifyFunc != nil {
		return f.IdentifyFunc(ctx)
	}
	if f.Identity == (provider.Identity{}) {
		return provider.Identity{OwnerID: "fake-owner", Account: "@fake"}, nil
	}
	return f.Identity, nil
}

// Describe returns Description, or DefaultDescription.
func (f *Fake) Describe() provider.Description {
	if f.Description.Platform == "" {
		return DefaultDescription
	}
	return f.Description
}

// Run by default behaves like Telegram's getUpdates loop over the pushed
// updates: it delivers those at or after the cursor (a decimal offset),
// forgets them once acknowledged, and backs off while the sink is not
// admitting. Runs records each cursor.
func (f *Fake) Run(ctx context.Context, cursor []byte, sink provider.Sink) error {
	offset, _ := strconv.ParseInt(string(cursor), 10, 64)
	f.mu.Lock()
	f.runs = append(f.runs, offset)
	f.mu.Unlock()
	if f.RunFunc != nil {
		return f.RunFunc(ctx, cursor, sink)
	}
	backoff := f.Backoff
	if backoff <= 0 {
		backoff = 20 * time.Millisecond
	}
	for {
		batch, wait := f.batch(offset)
		if len(batch) == 0 {
			select {
			case <-wait:
				continue
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		acked, err := sink.Deliver(ctx, batch)
		if acked > 0 {
			offset = acked + 1
			f.confirm(acked)
		}
		switch {
		case err == nil:
		case errors.Is(err, provider.ErrNotAdmitting):
			select {
			case <-time.After(backoff):
			case <-ctx.Done():
				return ctx.Err()
			}
		case ctx.Err() != nil:
			return ctx.Err()
		default:
			return err
		}
	}
}

// batch returns copies of the queued updates with id >= offset (all if
// offset is 0), or a channel closed at the next Push.
func (f *Fake) batch(offset int64) ([]*providerv1.Update, <-chan struct{}) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []*providerv1.Update
	for _, u := range f.queue {
		if u.GetUpdateId() >= offset {
			out = append(out, proto.CloneOf(u))
		}
	}
	if f.pushed == nil {
		f.pushed = make(chan struct{})
	}
	return out, f.pushed
}

func (f *Fake) confirm(acked int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	kept := f.queue[:0]
	for _, u := range f.queue {
		if u.GetUpdateId() > acked {
			kept = append(kept, u)
		}
	}
	f.queue = kept
}

// Call records the call; by default it answers {"ok":true,"method":…}.
func (f *Fake) Call(ctx context.Context, t provider.Target, method string, params json.RawMessage, key string) (provider.Result, error) {
	f.mu.Lock()
	f.calls = append(f.calls, CallRecord{Target: t, Method: method, Params: append(json.RawMessage(nil), params...), IdempotencyKey: key})
	f.mu.Unlock()
	if f.CallFunc != nil {
		return f.CallFunc(ctx, t, method, params, key)
	}
	res, err := json.Marshal(map[string]any{"ok": true, "method": method})
	return provider.Result{JSON: res}, err
}

// Upload by default reads the whole file and answers
// {"filename":…,"size":…,"chat":…,"thread":…}.
func (f *Fake) Upload(ctx context.Context, h provider.UploadHeader, r io.Reader) (provider.Result, error) {
	if f.UploadFunc != nil {
		return f.UploadFunc(ctx, h, r)
	}
	b, err := io.ReadAll(r)
	if err != nil {
		return provider.Result{}, err
	}
	res, err := json.Marshal(map[string]any{"filename": h.Filename, "size": len(b), "chat": h.Target.Chat, "thread": h.Target.Thread})
	return provider.Result{JSON: res}, err
}

// Download by default serves Files.
func (f *Fake) Download(ctx context.Context, fileID string) (io.ReadCloser, int64, string, error) {
	if f.DownloadFunc != nil {
		return f.DownloadFunc(ctx, fileID)
	}
	b, ok := f.Files[fileID]
	if !ok {
		return nil, 0, "", fmt.Errorf("file %q: %w", fileID, provider.ErrNotFound)
	}
	return io.NopCloser(bytes.NewReader(b)), int64(len(b)), "files/" + fileID, nil
}

// Provision by default creates threads "1001", "1002", … in the chat (""
// means "-100"), and reuses the thread it is asked to reuse.
func (f *Fake) Provision(ctx context.Context, req provider.ProvisionRequest) (provider.Provisioned, error) {
	if f.ProvisionFunc != nil {
		return f.ProvisionFunc(ctx, req)
	}
	if req.Reuse != nil {
		return provider.Provisioned{Target: provider.Target{Chat: req.Reuse.Chat, Thread: req.Reuse.Thread, Name: req.Name}, Reused: true}, nil
	}
	chat := req.Chat
	if chat == "" {
		chat = "-100"
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.nextThread++
	return provider.Provisioned{Target: provider.Target{Chat: chat, Thread: strconv.FormatInt(1000+f.nextThread, 10), Name: req.Name}}, nil
}

// CloseTarget by default succeeds.
func (f *Fake) CloseTarget(ctx context.Context, t provider.Target) error {
	if f.CloseTargetFunc != nil {
		return f.CloseTargetFunc(ctx, t)
	}
	return nil
}
