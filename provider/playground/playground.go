// Package playground is the playground provider: a chat platform of its
// own, served as a small web page on loopback, so that chatbus runs end to
// end on a machine with no chat account. It owns the playground's chat (a
// room per thread), its durable store (rooms, history, files, and the
// inbox of what people did that the supervisor has not acknowledged yet),
// and the web page through which a person picks a room, writes, sends
// files, presses buttons and watches the follower's replies, edits,
// reactions and typing live.
//
// Followers speak the message verbs (verbs.go): send and edit take
// Markdown, which the page shows rendered (render.HTML, sanitized), with
// the message's buttons under it; a press is a CALLBACK_QUERY update that
// answer answers; react and typing show on the page. The playground has
// no platform methods of its own. Its update payloads are its own small
// JSON (view.go); files go both ways through Upload and Download.
//
// The platform cursor works like Telegram's getUpdates offset: updates wait
// in a durable inbox, are delivered from the cursor the supervisor stored,
// and are forgotten only once acknowledged. A restart of the provider (a
// doctor restart, a kill -9) loses nothing and delivers nothing twice.
//
// Goroutines: the web server's (one per request; the event streams end when
// the Platform closes), and Run's receive loop (at most one, the SDK's).
// The store serializes writes; live events are published after the write
// that caused them is durable.
package playground

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"
	bolt "go.etcd.io/bbolt"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/chatbus/chatbus/internal/webauth"
	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/provider"
)

// The playground's chat and its two users: the person at the page and the
// bot the followers speak as. The ids are the playground's own (they look
// like a Telegram forum's, as they did when the playground imitated
// Telegram: bindings stored then name them).
const (
	// ChatID is the playground's one chat: its rooms are its threads.
	ChatID = int64(-1001000000001)
	// ControlRoom is the room of commands to chatbus itself (sessions,
	// status, …: docs/control.md): the chat's control place, thread ""
	// at the provider's boundary, where every message is a command.
	ControlRoom = int64(1)
	// PersonID is the person at the page.
	PersonID = int64(1001)
	// BotUsername is the name of the bot the followers speak as.
	BotUsername = "chatbus_playground_bot"

	// DefaultMaxFileBytes bounds an uploaded file.
	DefaultMaxFileBytes = 20 << 20
	// PortBase and PortSpan: the default port is derived from the state
	// directory into [PortBase, PortBase+PortSpan), so two profiles do not
	// collide; when it is taken, the next few, then any free port.
	PortBase = 27600
	PortSpan = 400
)

var chatText = strconv.FormatInt(ChatID, 10)

// Settings are the provider's own settings (the providers.playground
// section of the supervisor's config), from the child's stdin.
type Settings struct {
	Name string `json:"name"`
	// Port on 127.0.0.1. If zero: the port served on last time, else one
	// derived from the state dir, else the next few, else any free one. A
	// port named here must be free: it is the only one tried.
	Port int `json:"port"`
	// MaxFileBytes bounds a file uploaded either way. If zero,
	// DefaultMaxFileBytes.
	MaxFileBytes int64 `json:"max_file_bytes"`
	// Title of the chat. If empty, "chatbus playground".
	Title string `json:"title"`
}

// ParseSettings decodes the settings (JSON) and checks every one of them;
// a problem is a *provider.SettingError naming the key. The playground
// reads nothing from the environment (getenv may be nil).
func ParseSettings(b json.RawMessage, getenv func(string) string) (Settings, error) {
	var s Settings
	if err := provider.DecodeSettings(b, &s); err != nil {
		return s, err
	}
	if s.Port < 0 || s.Port > 65535 {
		return s, provider.Settingf("port", "%d is not a TCP port (1 to 65535; 0 picks one)", s.Port)
	}
	if s.MaxFileBytes < 0 {
		return s, provider.Settingf("max_file_bytes", "%d is negative", s.MaxFileBytes)
	}
	return s, nil
}

// Config configures a Platform.
type Config struct {
	Settings Settings
	// StateDir holds the store and the files (the child's state_dir).
	// Required.
	StateDir string
	// Logger receives the platform's log. The zero Logger discards.
	Logger zerolog.Logger
}

// Platform is the playground: a provider.Platform and the web page.
type Platform struct {
	cfg   Config
	log   zerolog.Logger
	st    *store
	files string // directory of the files' bytes
	live  *live

	ln    net.Listener
	web   *http.Server
	guard *webauth.Guard
	url   string
	done  chan struct{} // closed by Close: the event streams end

	kick chan struct{} // cap 1: something was added to the inbox

	closeOnce sync.Once
	served    chan struct{} // closed when the web server has returned
}

var _ provider.Platform = (*Platform)(nil)

// New opens the store in cfg.StateDir, binds the web page on loopback and
// serves it until Close.
func New(cfg Config) (*Platform, error) {
	if cfg.StateDir == "" || !filepath.IsAbs(cfg.StateDir) {
		return nil, fmt.Errorf("playground: needs an absolute state dir (the supervisor names one in the settings as state_dir), got %q", cfg.StateDir)
	}
	if cfg.Settings.MaxFileBytes == 0 {
		cfg.Settings.MaxFileBytes = DefaultMaxFileBytes
	}
	if cfg.Settings.Title == "" {
		cfg.Settings.Title = "chatbus playground"
	}
	files := filepath.Join(cfg.StateDir, "files")
	if err := os.MkdirAll(files, 0o700); err != nil {
		return nil, fmt.Errorf("playground: %w", err)
	}
	st, err := openStore(cfg.StateDir)
	if err != nil {
		return nil, err
	}
	p := &Platform{
		cfg:    cfg,
		log:    cfg.Logger,
		st:     st,
		files:  files,
		live:   newLive(),
		done:   make(chan struct{}),
		kick:   make(chan struct{}, 1),
		served: make(chan struct{}),
	}
	if err := p.listen(); err != nil {
		st.close()
		return nil, err
	}
	go func() {
		defer close(p.served)
		if err := p.web.Serve(p.ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			p.log.Error().Err(err).Msg("web page stopped")
		}
	}()
	p.log.Info().Str("addr", p.ln.Addr().String()).Msg("playground chat page serving on loopback")
	return p, nil
}

// listen binds the port (see Settings.Port) and builds the web server.
func (p *Platform) listen() error {
	var ports []int
	if p.cfg.Settings.Port != 0 {
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p.cfg.Settings.Port)))
		if err != nil {
			return fmt.Errorf("playground: port %d (settings): %w", p.cfg.Settings.Port, err)
		}
		p.ln = ln
	} else {
		derived := webauth.DerivedPort(p.cfg.StateDir, PortBase, PortSpan)
		ports = append(ports, p.st.port(), derived)
		for i := 1; i <= 4; i++ {
			ports = append(ports, PortBase+(derived-PortBase+i)%PortSpan)
		}
		ln, err := webauth.Listen(ports...)
		if err != nil {
			return fmt.Errorf("playground: %w", err)
		}
		p.ln = ln
	}
	port := p.ln.Addr().(*net.TCPAddr).Port
	if err := p.st.setPort(port); err != nil {
		p.ln.Close()
		return fmt.Errorf("playground: %w", err)
	}
	h := fnv.New32a()
	h.Write([]byte(p.cfg.StateDir))
	guard, err := webauth.New(webauth.Config{
		Addr:     p.ln.Addr(),
		Cookie:   fmt.Sprintf("chatbus_chat_%08x", h.Sum32()),
		Sessions: p.st,
	})
	if err != nil {
		p.ln.Close()
		return err
	}
	p.guard = guard
	p.url = guard.URL("/")
	p.web = &http.Server{Handler: p.routes(), ReadHeaderTimeout: 10 * time.Second}
	return nil
}

// URL is the page's address with this start's access token.
func (p *Platform) URL() string { return p.url }

// Close stops the web page (open event streams end) and closes the store.
func (p *Platform) Close() error {
	var err error
	p.closeOnce.Do(func() {
		close(p.done)
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		if p.web.Shutdown(ctx) != nil {
			p.web.Close()
		}
		cancel()
		<-p.served
		err = p.st.close()
	})
	return err
}

// Identify implements provider.Platform.
func (p *Platform) Identify(context.Context) (provider.Identity, error) {
	return provider.Identity{OwnerID: "playground:" + p.st.install, Account: "@" + BotUsername}, nil
}

// Describe implements provider.Platform: the message verbs, no methods.
func (p *Platform) Describe() provider.Description {
	return provider.Description{Platform: "playground", MaxTextChars: maxTextChars, WebURL: p.url, Verbs: verbs,
		CommandPrefix: ""} // the control room: every message there is a command
}

// cursorPrefix starts a cursor: the store it belongs to and the next
// update id to deliver ("pg1:<install>:<next>").
const cursorPrefix = "pg1:"

func (p *Platform) cursor(next int64) []byte {
	return fmt.Appendf(nil, "%s%s:%d", cursorPrefix, p.st.install, next)
}

// startOffset is where Run resumes: the cursor's next update id; a cursor
// of another store (the state dir was wiped) or none starts with
// everything held.
func (p *Platform) startOffset(cursor []byte) int64 {
	if len(cursor) == 0 {
		return 1
	}
	rest, ok := strings.CutPrefix(string(cursor), cursorPrefix)
	install, n, ok2 := strings.Cut(rest, ":")
	next, err := strconv.ParseInt(n, 10, 64)
	if !ok || !ok2 || err != nil || next < 1 {
		p.log.Warn().Str("cursor", string(cursor)).Msg("stored cursor is not a playground cursor; delivering everything held")
		return 1
	}
	if install != p.st.install {
		p.log.Warn().Str("cursor", string(cursor)).Msg("stored cursor belongs to another playground store; delivering everything held")
		return 1
	}
	return next
}

// notAdmittingBackoff is how long Run waits while admission is closed.
const notAdmittingBackoff = 100 * time.Millisecond

// Run implements provider.Platform: it delivers the inbox from the cursor
// on and forgets an update only once the supervisor acknowledged it.
func (p *Platform) Run(ctx context.Context, cursor []byte, sink provider.Sink) error {
	offset := p.startOffset(cursor)
	if offset > 1 {
		// Durable at the supervisor already: like getUpdates(offset).
		if err := p.st.confirm(offset - 1); err != nil {
			return err
		}
	}
	for {
		hs, err := p.st.pendingFrom(offset, 256)
		if err != nil {
			return err
		}
		if len(hs) == 0 {
			select {
			case <-p.kick:
				continue
			case <-ctx.Done():
				return nil
			}
		}
		batch := make([]*providerv1.Update, 0, len(hs))
		for _, h := range hs {
			batch = append(batch, p.convert(h))
		}
		acked, err := sink.Deliver(ctx, batch)
		if acked >= offset {
			if cerr := p.st.confirm(acked); cerr != nil {
				return cerr
			}
			offset = acked + 1
		}
		switch {
		case err == nil:
		case ctx.Err() != nil:
			return nil
		case errors.Is(err, provider.ErrNotAdmitting):
			// A doctor closed admission: leave them here, ask gently.
			select {
			case <-time.After(notAdmittingBackoff):
			case <-ctx.Done():
				return nil
			}
		default:
			return err
		}
	}
}

// wake tells Run that the inbox grew.
func (p *Platform) wake() {
	select {
	case p.kick <- struct{}{}:
	default:
	}
}

func (p *Platform) convert(h held) *providerv1.Update {
	kind, thread := updateKinds[h.Kind], strconv.FormatInt(h.Thread, 10)
	if h.Thread == ControlRoom {
		thread = "" // the chat's control place
		if kind == providerv1.UpdateKind_UPDATE_KIND_MESSAGE {
			kind = providerv1.UpdateKind_UPDATE_KIND_COMMAND
		}
	}
	return &providerv1.Update{
		UpdateId:   h.ID,
		Kind:       kind,
		Text:       h.Text,
		Payload:    h.Payload,
		ReceivedAt: timestamppb.New(time.UnixMilli(h.At)),
		Allowed:    true, // only the owner reaches the page (webauth)
		References: provider.RefsProto(refsFrom(h.Refs)),
		Chat:       chatText,
		Thread:     thread,
		Sender:     strconv.FormatInt(PersonID, 10),
		SenderName: "@you",
		DedupId:    p.st.install + ":" + strconv.FormatInt(h.ID, 10),
		Cursor:     p.cursor(h.ID + 1),
		Audio:      audioOf(h.pending),
	}
}

// threadOf parses t as a room of the playground's chat (thread "": the
// control room).
func threadOf(t provider.Target) (int64, error) {
	if t.Chat != chatText {
		return 0, invalid("chat %q is not the playground's (%s)", t.Chat, chatText)
	}
	if t.Thread == "" {
		return ControlRoom, nil
	}
	id, err := strconv.ParseInt(t.Thread, 10, 64)
	if err != nil || id <= 0 {
		return 0, invalid("thread %q is not a playground room", t.Thread)
	}
	return id, nil
}

// Provision implements provider.Platform: a new room, or the room asked
// for, renamed and reopened.
func (p *Platform) Provision(_ context.Context, req provider.ProvisionRequest) (provider.Provisioned, error) {
	if req.Chat != "" && req.Chat != chatText {
		return provider.Provisioned{}, invalid("chat %q is not the playground's (%s)", req.Chat, chatText)
	}
	var out provider.Provisioned
	err := p.st.db.Update(func(tx *bolt.Tx) error {
		now := time.Now().UnixMilli()
		if req.Reuse != nil && req.Reuse.Chat == chatText {
			if id, err := strconv.ParseInt(req.Reuse.Thread, 10, 64); err == nil && id != ControlRoom {
				r, ok, err := p.st.room(tx, id)
				if err != nil {
					return err
				}
				if ok {
					r.Name, r.Closed, r.Active = req.Name, false, now
					out = provider.Provisioned{Target: provider.Target{Chat: chatText, Thread: req.Reuse.Thread, Name: r.Name}, Reused: true}
					return p.st.putRoom(tx, r)
				}
			}
		}
		id, err := next(tx, kNextMsg, firstMessageID)
		if err != nil {
			return err
		}
		out = provider.Provisioned{Target: provider.Target{Chat: chatText, Thread: strconv.FormatInt(id, 10), Name: req.Name}}
		return p.st.putRoom(tx, room{ID: id, Name: req.Name, Created: now, Active: now})
	})
	if err != nil {
		return provider.Provisioned{}, fmt.Errorf("%w: provision: %v", provider.ErrUnavailable, err)
	}
	p.publishRooms()
	return out, nil
}

// CloseTarget implements provider.Platform.
func (p *Platform) CloseTarget(_ context.Context, t provider.Target) error {
	id, err := threadOf(t)
	if err != nil {
		return err
	}
	if id == ControlRoom {
		return invalid("the control room is not a session's thread")
	}
	err = p.st.db.Update(func(tx *bolt.Tx) error {
		if err := p.st.mustRoom(tx, id, provider.ErrNotFound); err != nil {
			return err
		}
		r, _, _ := p.st.room(tx, id)
		r.Closed = true
		return p.st.putRoom(tx, r)
	})
	if err != nil {
		return err
	}
	p.publishRooms()
	return nil
}

func (p *Platform) publishRooms() {
	rs, err := p.st.rooms()
	if err != nil {
		p.log.Warn().Err(err).Msg("list rooms")
		return
	}
	p.live.publish(liveEvent{Type: "rooms", Rooms: rs})
}
