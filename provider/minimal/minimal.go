// Package minimal is the smallest complete chatbus provider, the one
// docs/writing-a-provider.md walks through: an echo chat held in memory.
// Threads are made by Provision; whatever the bot sends into a thread, the
// chat's one person ("echo") says back, prefixed, as an inbound update. It
// implements the kit (package provider) and nothing else; its command,
// cmd/provider-minimal, runs it with provider/child.
//
// The chat lives in the process: a restart of the child forgets it. Its
// cursor is the next update id in decimal, as the contract asks of a
// platform that numbers its updates itself.
package minimal

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"google.golang.org/protobuf/types/known/timestamppb"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/provider"
)

// Settings are the provider's own settings (providers.minimal in the
// supervisor's config), from the child's stdin.
type Settings struct {
	// Prefix starts every echo. If empty, "echo: ".
	Prefix string `json:"prefix"`
	// MaxTextChars is the longest text a message may carry. If zero, 4096.
	MaxTextChars int `json:"max_text_chars"`
	// Limits changes the rate limit sends are paced to (DefaultLimits):
	// "send": "<count>/<window>" or "off".
	Limits provider.LimitSettings `json:"limits"`
}

// DefaultLimits: five sends a second in a thread.
var DefaultLimits = []provider.RateLimit{
	{Name: "send", Scope: provider.ScopeThread, Count: 5, Per: time.Second, Methods: []string{provider.VerbSend, "note"}},
}

// ParseSettings decodes the settings and checks every one of them; a
// problem is a *provider.SettingError naming the key ("<key>: <why>").
// The echo chat reads nothing from the environment (getenv may be nil).
func ParseSettings(b json.RawMessage, getenv func(string) string) (Settings, error) {
	var s Settings
	if err := provider.DecodeSettings(b, &s); err != nil {
		return s, err
	}
	if s.Prefix == "" {
		s.Prefix = "echo: "
	}
	switch {
	case s.MaxTextChars == 0:
		s.MaxTextChars = 4096
	case s.MaxTextChars < 16 || s.MaxTextChars > 1<<20:
		return s, provider.Settingf("max_text_chars", "%d is out of range (16 to 1048576)", s.MaxTextChars)
	}
	_, err := s.Limits.Apply(DefaultLimits)
	return s, err
}

// The chat's one chat, and its person.
const (
	Chat   = "echo"
	Person = "echo"
)

// methods: one platform method beside the verbs, "note" (params {"text"}),
// which posts text in the caller's thread without an echo.
var methods = provider.Methods{{Name: "note", InThread: true}}

// verbs: send and edit (Messenger); sends are idempotent by key.
var verbs = []provider.Verb{{Name: provider.VerbSend, Idempotent: true}, {Name: provider.VerbEdit}}

// Platform is the echo chat.
type Platform struct {
	s      Settings
	limits []provider.RateLimit

	mu      sync.Mutex
	threads map[string]bool            // thread id → open (closed: false)
	sent    map[string]string          // message id → text
	files   map[string][]byte          // file id → its bytes
	posts   map[string]int             // thread id → messages the bot posted
	byKey   map[string]provider.Result // idempotency key → the send's result
	log     []*providerv1.Update       // every update, update id i+1 at i
	wake    chan struct{}              // closed and replaced when log grows
	nextID  int                        // last thread or message id given
}

// New returns the echo chat for checked settings.
func New(s Settings) (*Platform, error) {
	limits, err := s.Limits.Apply(DefaultLimits)
	if err != nil {
		return nil, err
	}
	return &Platform{s: s, limits: limits, threads: map[string]bool{}, sent: map[string]string{}, posts: map[string]int{}, files: map[string][]byte{},
		byKey: map[string]provider.Result{}, wake: make(chan struct{})}, nil
}

// Identify implements provider.Platform.
func (p *Platform) Identify(context.Context) (provider.Identity, error) {
	return provider.Identity{OwnerID: "minimal", Account: "echo chat"}, nil
}

// Describe implements provider.Platform: what followers may do, declared
// once.
func (p *Platform) Describe() provider.Description {
	return provider.Description{Platform: "minimal", Methods: methods, Verbs: verbs, MaxTextChars: p.s.MaxTextChars, Limits: p.limits}
}

// Run implements provider.Platform: it hands the log to sink from cursor
// on, and waits for more. The cursor moves only past what the supervisor
// acknowledged: a later Run resumes from what Start names.
func (p *Platform) Run(ctx context.Context, cursor []byte, sink provider.Sink) error {
	next := int64(1)
	if len(cursor) > 0 {
		n, err := strconv.ParseInt(string(cursor), 10, 64)
		if err != nil || n < 1 {
			return fmt.Errorf("%w: cursor %q is not an update id", provider.ErrInvalid, cursor)
		}
		next = n
	}
	for {
		p.mu.Lock()
		batch, wake := p.log[min(next-1, int64(len(p.log))):], p.wake
		p.mu.Unlock()
		if len(batch) == 0 {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-wake:
				continue
			}
		}
		acked, err := sink.Deliver(ctx, batch)
		if acked >= next {
			next = acked + 1
		}
		switch {
		case errors.Is(err, provider.ErrNotAdmitting):
			// A doctor closed admission: leave the updates here, look again.
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(time.Second):
			}
		case err != nil:
			return err
		}
	}
}

// say appends what the person says in thread t; p.mu is held.
func (p *Platform) say(t provider.Target, text string) {
	id := int64(len(p.log) + 1)
	p.nextID++
	msg := strconv.Itoa(p.nextID)
	p.log = append(p.log, &providerv1.Update{
		UpdateId: id, Kind: providerv1.UpdateKind_UPDATE_KIND_MESSAGE, Text: text, Allowed: true,
		Chat: t.Chat, Thread: t.Thread, Sender: Person, SenderName: Person,
		DedupId: "m" + msg, Cursor: []byte(strconv.FormatInt(id+1, 10)), ReceivedAt: timestamppb.Now(),
		References: provider.RefsProto([]provider.Ref{{Kind: provider.RefMessage, ID: msg}}),
	})
	close(p.wake)
	p.wake = make(chan struct{})
}

// post records the bot's text in thread t and returns the message's id;
// p.mu is held. A thread not open is gone.
func (p *Platform) post(t provider.Target, text string) (string, error) {
	if _, ok := p.threads[t.Thread]; t.Chat != Chat || !ok {
		return "", fmt.Errorf("%w: thread %q", provider.ErrTargetGone, t.Thread)
	}
	if n := len([]rune(text)); n > p.s.MaxTextChars {
		return "", fmt.Errorf("%w: text of %d characters; at most %d", provider.ErrInvalid, n, p.s.MaxTextChars)
	}
	p.nextID++
	id := strconv.Itoa(p.nextID)
	p.sent[id] = text
	p.posts[t.Thread]++
	return id, nil
}

// Send implements provider.Messenger: the text is posted, in parts of
// MaxTextChars, and echoed. A repeated key is answered with the first
// send's result, sent once.
func (p *Platform) Send(_ context.Context, t provider.Target, m provider.Message, key string) (provider.Result, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if r, ok := p.byKey[key]; ok && key != "" {
		return r, nil
	}
	var r provider.Result
	for text := []rune(m.Text); len(text) > 0 || len(r.Refs) == 0; text = text[min(len(text), p.s.MaxTextChars):] {
		id, err := p.post(t, string(text[:min(len(text), p.s.MaxTextChars)]))
		if err != nil {
			return provider.Result{}, err
		}
		r.Refs = append(r.Refs, provider.Ref{Kind: provider.RefMessage, ID: id})
	}
	p.say(t, p.s.Prefix+m.Text)
	if key != "" {
		p.byKey[key] = r
	}
	return r, nil
}

// Edit implements provider.Messenger.
func (p *Platform) Edit(_ context.Context, t provider.Target, id string, m provider.Message) (provider.Result, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.sent[id]; !ok {
		return provider.Result{}, fmt.Errorf("%w: message %q", provider.ErrNotFound, id)
	}
	if n := len([]rune(m.Text)); n > p.s.MaxTextChars {
		return provider.Result{}, fmt.Errorf("%w: text of %d characters; at most %d", provider.ErrInvalid, n, p.s.MaxTextChars)
	}
	p.sent[id] = m.Text
	return provider.Result{Refs: []provider.Ref{{Kind: provider.RefMessage, ID: id}}}, nil
}

// Call implements provider.Platform: "note", scoped to the caller's
// thread with the kit's helper.
func (p *Platform) Call(_ context.Context, t provider.Target, method string, raw json.RawMessage, _ string) (provider.Result, error) {
	m, err := provider.ParseParams(method, raw)
	if err != nil {
		return provider.Result{}, err
	}
	if err := m.Pin("thread", t.Thread, "thread"); err != nil {
		return provider.Result{}, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	id, err := p.post(t, m.Text("text"))
	if err != nil {
		return provider.Result{}, err
	}
	return provider.Result{JSON: json.RawMessage(`{"id":"` + id + `"}`), Refs: []provider.Ref{{Kind: provider.RefMessage, ID: id}}}, nil
}

// Upload implements provider.Platform: the file (1 MiB at most) becomes a
// message of its own, its caption the text.
func (p *Platform) Upload(_ context.Context, h provider.UploadHeader, r io.Reader) (provider.Result, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxFile+1))
	if err != nil {
		return provider.Result{}, fmt.Errorf("%w: %v", provider.ErrUnavailable, err)
	}
	if len(b) > maxFile {
		return provider.Result{}, fmt.Errorf("%w: a file of more than %d bytes", provider.ErrInvalid, maxFile)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	id, err := p.post(h.Target, h.Caption)
	if err != nil {
		return provider.Result{}, err
	}
	p.files["f"+id] = b
	return provider.Result{Refs: []provider.Ref{{Kind: provider.RefMessage, ID: id}, {Kind: provider.RefFile, ID: "f" + id}}}, nil
}

// maxFile bounds an uploaded file.
const maxFile = 1 << 20

// Download implements provider.Platform.
func (p *Platform) Download(_ context.Context, id string) (io.ReadCloser, int64, string, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	b, ok := p.files[id]
	if !ok {
		return nil, 0, "", fmt.Errorf("%w: file %q", provider.ErrNotFound, id)
	}
	return io.NopCloser(bytes.NewReader(b)), int64(len(b)), "", nil
}

// Provision implements provider.Platform: a new thread, or the one to
// reuse, reopened.
func (p *Platform) Provision(_ context.Context, req provider.ProvisionRequest) (provider.Provisioned, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if r := req.Reuse; r != nil && r.Chat == Chat {
		if _, ok := p.threads[r.Thread]; ok {
			p.threads[r.Thread] = true
			return provider.Provisioned{Target: provider.Target{Chat: Chat, Thread: r.Thread, Name: req.Name}, Reused: true}, nil
		}
	}
	p.nextID++
	t := strconv.Itoa(p.nextID)
	p.threads[t] = true
	return provider.Provisioned{Target: provider.Target{Chat: Chat, Thread: t, Name: req.Name}}, nil
}

// CloseTarget implements provider.Platform.
func (p *Platform) CloseTarget(_ context.Context, t provider.Target) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if _, ok := p.threads[t.Thread]; !ok {
		return fmt.Errorf("%w: thread %q", provider.ErrTargetGone, t.Thread)
	}
	p.threads[t.Thread] = false
	return nil
}
