package control

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rs/zerolog"

	"github.com/chatbus/chatbus/server/events"
	"github.com/chatbus/chatbus/server/store"
)

// The dispatch rule (which updates are commands) and the at-most-once rule:
//
// An update is a command when it is of kind COMMAND (a platform's command
// addressed to chatbus, as its provider recognises it: a slash command, an
// application command, a bot command in the chat's control place, a
// message in a room of commands), or a button pressed
// in a chat's control place (thread empty) whose data is a command, or a
// message there that reads as one of the commands ("/sessions": a provider
// that does not recognise its platform's commands). The hub journals it,
// like every update, before the platform's cursor moves past it (so it is
// never lost) and hands it to Take once durable; an update from a sender
// the provider does not allow is neither journalled nor handed here: it
// is counted, and NotAllowed is told (an event), and nothing is answered.
//
// Before a command runs, a record keyed by the update is written (a call
// record of the pseudo-binding RecordBinding, provider "control/<name>",
// state sending); it is set done, with the answer, once the command has
// run, and the answer is then sent with an idempotency key derived from
// the update. When the supervisor starts, Replay takes the commands the
// journal still holds (received within ReplayWindow) through the same
// path: one with no record runs (the supervisor stopped before it began);
// one whose record is still sending was cut off mid-way and does not run
// again (its outcome is not known, and the person is told so); one whose
// record is done has its answer sent again under the same key, which the
// call records send at most once. So a command takes effect at most once,
// and is answered once.

// RecordBinding is the pseudo-binding under which command records and
// their answers' call records are kept.
const RecordBinding = "chatbus:control"

// recordProvider is the provider name of a command's record: never a
// configured provider's (those are lower-case letters, digits and '-'),
// so the provider's outbox never takes a record for a call to make.
func recordProvider(provider string) string { return "control/" + provider }

// ReplayWindow is how old a command found in the journal at start may be
// and still be taken up: older ones are left (the person no longer waits
// for them, and their records may have been pruned).
const ReplayWindow = 10 * time.Minute

// maxRunning bounds the commands run at once.
const maxRunning = 8

// commandTimeout bounds one command (a restart, a launch) with its answer.
const commandTimeout = 3 * time.Minute

// Supervisor is what the commands read and do in the supervisor
// (server.Server implements it).
type Supervisor interface {
	// Sessions lists every live and parked session.
	Sessions() []Session
	// Status is the supervisor's state now.
	Status() Status
	// CommandPrefix is how a person writes a command on the provider's
	// platform, before its name ("/", "/chatbus ", "").
	CommandPrefix(provider string) string
	// Restart runs the doctor's restart of provider; step is called at
	// each of its steps. ok says whether the provider was restarted;
	// summary says how it ended. An error: it could not begin (unknown
	// provider, a restart under way).
	Restart(ctx context.Context, provider string, step func(string)) (summary string, ok bool, err error)
	// RequestStop asks the live follower in slot (of the provider's chat;
	// chat "" any) to stop: it is told on its update stream. ErrNoSession
	// if none holds that slot.
	RequestStop(provider, chat, slot string, by Requester) (Session, error)
}

// ErrNoSession: no live session holds the slot named.
var ErrNoSession = errors.New("control: no live session in that slot")

// Session is one session as sessions shows it.
type Session struct {
	Slot       string
	Provider   string
	Chat       string
	Thread     string
	ThreadName string
	// Link opens its thread, where the platform has links ("" none).
	Link string
	Dir  string
	Host string
	// Agent is what it is: "claude-code", "pi", or "" (a follower).
	Agent string
	// Live: a follower holds it; else it is parked (its thread kept for
	// the next session of its profile).
	Live bool
	// Status is its binding's status (active, offline, suspended, …).
	Status string
	// Working: it showed activity lately (typing, a message, an edit).
	Working bool
	// Queued is its outbound calls waiting their turn.
	Queued int
	// LastMessage is when its thread last had a message (zero: not
	// known).
	LastMessage time.Time
}

// Status is the supervisor as status shows it.
type Status struct {
	Version   string
	Started   time.Time
	Host      string
	PID       int
	Followers int
	// Leader is the cluster's leader node, "" when not clustered.
	Leader    string
	Providers []ProviderStatus
}

// ProviderStatus is one provider as status shows it.
type ProviderStatus struct {
	Name     string
	Platform string
	// State is its child's state (running, starting, backoff, fatal,
	// stopped) and Serving whether its updates flow; Detail says why not.
	State    string
	Serving  bool
	Detail   string
	Attached int
	// Queued: outbound calls waiting their turn; Held: recorded calls
	// held (a provider not admitting).
	Queued, Held int
}

// Message is an answer: Markdown, rendered per platform by its provider.
type Message struct {
	Text    string   `json:"text"`
	ReplyTo string   `json:"reply_to,omitempty"`
	Buttons []Button `json:"buttons,omitempty"`
	// EditOf, on a command's answer, is a message sent while the command
	// ran (restart's steps) that the answer replaces; "" a new message.
	EditOf string `json:"edit_of,omitempty"`
}

// Button is a button under an answer: its press is a command (Data).
type Button struct {
	Label string `json:"label"`
	Data  string `json:"data"`
}

// Messenger sends answers through the supervisor's outbound path (paced
// and queued like any other call, recorded at most once per key).
type Messenger interface {
	// Send sends m to t and returns the id of its (first) message.
	Send(ctx context.Context, t store.Target, m Message, key string) (string, error)
	// Edit replaces the text and buttons of a message sent to t.
	Edit(ctx context.Context, t store.Target, messageID string, m Message, key string) error
	// Answer acknowledges a pressed button (interactionID) with a short
	// notice.
	Answer(ctx context.Context, t store.Target, interactionID, text string) error
}

// Config configures a Controller.
type Config struct {
	// Store keeps the commands' records. Required.
	Store store.Store
	// Supervisor is what the commands read and do. Required.
	Supervisor Supervisor
	// Messenger sends the answers. Required.
	Messenger Messenger
	// Launcher starts and stops sessions from launch templates; nil:
	// none are configured, and new says so.
	Launcher Launcher
	// Events receives one event per command. Required.
	Events *events.Hub
	Logger zerolog.Logger
	// Now is the clock. If nil, time.Now.
	Now func() time.Time
}

// Controller runs the commands people send from the chat.
type Controller struct {
	cfg Config
	log zerolog.Logger
	sem chan struct{}

	mu      sync.Mutex
	running map[string]bool // by record key: the commands under way
	ctx     context.Context // set by Start; nil before
	wg      sync.WaitGroup
}

// New returns a Controller; Start begins its work.
func New(cfg Config) *Controller {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Controller{cfg: cfg, log: cfg.Logger.With().Str("component", "control").Logger(),
		sem: make(chan struct{}, maxRunning), running: map[string]bool{}}
}

// Start lets commands run until ctx ends (those handed over before it
// are left to the next start's Replay). Call it before Replay.
func (c *Controller) Start(ctx context.Context) {
	c.mu.Lock()
	c.ctx = ctx
	c.mu.Unlock()
}

// Wait waits for the commands under way to end.
func (c *Controller) Wait() { c.wg.Wait() }

// IsCommand reports whether u, journalled, is a command to take (see the
// dispatch rule above).
func IsCommand(u *store.Update) bool {
	switch {
	case u.Kind == store.UpdateCommand:
		return true
	case u.Thread != "":
		return false
	case u.Kind == store.UpdateCallbackQuery, u.Kind == store.UpdateMessage:
		// A provider that recognises its platform's commands made those
		// addressed to chatbus COMMAND updates: "/status@otherbot" is
		// another bot's.
		text := strings.TrimSpace(u.Text)
		first, _, _ := strings.Cut(text, " ")
		if !strings.HasPrefix(text, "/") || strings.Contains(first, "@") {
			return false
		}
		var pe *ParseError
		_, err := Parse(u.Text)
		return !errors.As(err, &pe) || !pe.Unknown
	}
	return false
}

// Take hands the controller updates the hub made durable: those that are
// commands run (each at most once). It does not block.
func (c *Controller) Take(ups []store.Update) {
	for i := range ups {
		if IsCommand(&ups[i]) {
			c.dispatch(ups[i], false)
		}
	}
}

// NotAllowed is told of an update that would have been a command, from a
// sender the provider does not allow: nothing runs, nothing is answered;
// it is an event.
func (c *Controller) NotAllowed(provider string, u store.Update) {
	if !IsCommand(&u) {
		return
	}
	c.cfg.Events.Publish(events.Event{Kind: events.ControlNotAllowed,
		Message: "a command from a sender not allowed was ignored",
		Attrs:   map[string]string{"provider": provider, "sender": u.Sender, "sender_name": u.SenderName}})
}

// Replay takes up the commands the journal holds that were received within
// ReplayWindow (see the at-most-once rule above). Call it once, at start,
// before the providers' updates flow.
func (c *Controller) Replay() error {
	ups, err := c.cfg.Store.ListUnrouted(0)
	if err != nil {
		return err
	}
	since := c.cfg.Now().Add(-ReplayWindow)
	n := 0
	for i := range ups {
		if IsCommand(&ups[i]) && ups[i].ReceivedAt.After(since) {
			c.dispatch(ups[i], true)
			n++
		}
	}
	if n > 0 {
		c.log.Info().Int("commands", n).Msg("commands of the previous run taken up")
	}
	return nil
}

// recordKey names u's record: its provider and the platform's id of it.
func recordKey(u *store.Update) string {
	id := u.DedupID
	if id == "" && u.PlatformUpdateID != 0 {
		id = strconv.FormatInt(u.PlatformUpdateID, 10)
	}
	if id == "" {
		id = "seq-" + strconv.FormatUint(u.Seq, 10)
	}
	return u.Provider + "/" + id
}

// dispatch runs u's command on a goroutine of its own, unless it runs
// already.
func (c *Controller) dispatch(u store.Update, replayed bool) {
	key := recordKey(&u)
	c.mu.Lock()
	if c.running[key] {
		c.mu.Unlock()
		return
	}
	c.running[key] = true
	c.wg.Add(1)
	c.mu.Unlock()
	go func() {
		defer c.wg.Done()
		defer func() {
			c.mu.Lock()
			delete(c.running, key)
			c.mu.Unlock()
		}()
		ctx := c.waitStart()
		if ctx == nil {
			return
		}
		select {
		case c.sem <- struct{}{}:
		case <-ctx.Done():
			return
		}
		defer func() { <-c.sem }()
		ctx, cancel := context.WithTimeout(ctx, commandTimeout)
		defer cancel()
		c.handle(ctx, u, key, replayed)
	}()
}

// waitStart returns the context Start gave, nil if none is given yet
// (then the command is left to Replay at the next start).
func (c *Controller) waitStart() context.Context {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ctx
}

// requester is who sent u.
func requester(u *store.Update) Requester {
	return Requester{Provider: u.Provider, Sender: u.Sender, Name: u.SenderName}
}

// interaction is the interaction u carries (a pressed button, an
// application command to answer), "" none.
func interaction(u *store.Update) string {
	for _, r := range u.Refs {
		if r.Kind == store.RefInteraction {
			return r.ID
		}
	}
	return ""
}

// handle runs u's command at most once and answers it.
func (c *Controller) handle(ctx context.Context, u store.Update, key string, replayed bool) {
	t := store.Target{Provider: u.Provider, Chat: u.Chat}
	by := requester(&u)
	ans := "answer/" + key
	pressed := u.Kind == store.UpdateCallbackQuery
	replyTo := ""
	if u.Kind == store.UpdateCommand {
		replyTo = interaction(&u) // an application command's: the answer names it
	}
	if pressed {
		if id := interaction(&u); id != "" {
			// The press is acknowledged at once (a spinner stops);
			// the answer follows as a message.
			if err := c.cfg.Messenger.Answer(ctx, t, id, ""); err != nil {
				c.log.Debug().Err(err).Msg("acknowledging a pressed button")
			}
		}
	}
	rec, created, err := c.cfg.Store.BeginCall(store.CallRecord{
		BindingKey: RecordBinding, Key: key, Provider: recordProvider(u.Provider), Chat: u.Chat,
		Method: "command", Params: []byte(u.Text), State: store.CallSending,
	})
	if err != nil {
		// Not recorded: not run (it may have run before).
		c.log.Error().Err(err).Str("command", u.Text).Msg("recording a command; it does not run")
		return
	}
	if !created {
		c.again(ctx, u, rec, t, ans, replyTo)
		return
	}
	cmd, perr := Parse(u.Text)
	var m Message
	outcome, detail := "ok", ""
	if perr != nil {
		m.Text = perr.Error() + "\n\n" + c.helpText(u.Provider)
		outcome, detail = "refused", perr.Error()
	} else {
		m, outcome, detail = c.run(ctx, cmd, u, by, answerTo{t: t, key: ans, replyTo: replyTo})
	}
	m.ReplyTo = replyTo
	if m.Text == "" {
		m.Text = "done"
	}
	result, _ := json.Marshal(m)
	rec.State, rec.Result = store.CallDone, result
	if err := c.cfg.Store.SetCall(rec); err != nil {
		c.log.Error().Err(err).Str("command", u.Text).Msg("recording a command's outcome")
	}
	attrs := map[string]string{"provider": u.Provider, "sender": u.Sender, "sender_name": u.SenderName,
		"command": cmd.String(), "outcome": outcome}
	if perr != nil {
		attrs["command"] = firstLine(u.Text)
	}
	if detail != "" {
		attrs["detail"] = detail
	}
	if replayed {
		attrs["replayed"] = "true"
	}
	who := u.SenderName
	if who == "" {
		who = u.Sender
	}
	c.cfg.Events.Publish(events.Event{Kind: events.ControlCommand,
		Message: fmt.Sprintf("command %q from %s on %s: %s", attrs["command"], who, u.Provider, outcome), Attrs: attrs})
	if err := c.answer(ctx, t, m, ans); err != nil {
		c.log.Warn().Err(err).Str("command", attrs["command"]).Msg("answering a command")
	}
}

// answerTo is where a command's answer goes: the chat's control place, its
// idempotency key, the interaction it names.
type answerTo struct {
	t       store.Target
	key     string
	replyTo string
}

// answer sends m under key, or edits the message m replaces (EditOf); an
// edit the platform refuses there is sent as a message of its own.
func (c *Controller) answer(ctx context.Context, t store.Target, m Message, key string) error {
	if m.EditOf != "" {
		err := c.cfg.Messenger.Edit(ctx, t, m.EditOf, m, key)
		if err == nil || ctx.Err() != nil {
			return err
		}
		c.log.Debug().Err(err).Msg("the answer could not replace its first message; sending it")
		m.EditOf, key = "", key+"/sent"
	}
	_, err := c.cfg.Messenger.Send(ctx, t, m, key)
	return err
}

// again handles a command whose record exists: the journal gave it again
// (a start after a stop).
func (c *Controller) again(ctx context.Context, u store.Update, rec store.CallRecord, t store.Target, ans, replyTo string) {
	switch rec.State {
	case store.CallDone:
		// Run; its answer may not have gone: sent again under its key
		// (at most once).
		var m Message
		if err := json.Unmarshal(rec.Result, &m); err != nil || m.Text == "" {
			return
		}
		if err := c.answer(ctx, t, m, ans); err != nil {
			c.log.Warn().Err(err).Msg("answering a command of the previous run")
		}
	case store.CallQueued, store.CallSending:
		// Cut off mid-way by a stop: not run again.
		rec.State, rec.Failure = store.CallUnknown, []byte(`"cut off by a supervisor stop"`)
		if err := c.cfg.Store.SetCall(rec); err != nil {
			c.log.Error().Err(err).Msg("recording a cut-off command")
		}
		text := firstLine(u.Text)
		c.cfg.Events.Publish(events.Event{Kind: events.ControlInterrupted,
			Message: fmt.Sprintf("command %q was under way when the supervisor stopped; it is not run again", text),
			Attrs:   map[string]string{"provider": u.Provider, "sender": u.Sender, "command": text}})
		m := Message{ReplyTo: replyTo, Text: fmt.Sprintf("The supervisor stopped while it ran `%s`: it may or may not have taken effect, "+
			"and it is not run again. `sessions` and `status` show where things are.", text)}
		if _, err := c.cfg.Messenger.Send(ctx, t, m, ans); err != nil {
			c.log.Warn().Err(err).Msg("answering a cut-off command")
		}
	}
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return s
}
