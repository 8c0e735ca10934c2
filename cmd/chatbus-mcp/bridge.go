package main

import (
	"context"
	"errors"
	"fmt"
	stdlog "log"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
	"github.com/rs/zerolog"

	"github.com/chatbus/chatbus/client"
	"github.com/chatbus/chatbus/internal/backoff"
	"github.com/chatbus/chatbus/internal/version"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
)

// bridge is one agent session's follower: it owns the registration, the
// update loop that turns the thread's updates into channel notifications,
// and what the tools and the permission relay need of the session.
//
// Goroutines: the SDK's stdio loop (which calls the tool handlers and the
// notification handlers), the update loop (follow), and short background
// calls (typing, permission prompts) counted by bg. Lock order: mu before
// perms.mu; neither is held across a call to the supervisor.
type bridge struct {
	cfg  config
	log  zerolog.Logger
	dirs stateDirs
	out  *notifier
	c    *client.Client

	mu   sync.Mutex // guards sess and ended
	sess session
	// ended says why the session is over for good (another session took
	// the thread); tools then fail with it.
	ended error

	perms      *permissions
	presence   *presence   // the typing indicator while the session works
	gate       *clientGate // when Claude Code can take channel notifications
	bg         sync.WaitGroup
	keys       atomic.Uint64 // idempotency key counter
	refreshing atomic.Bool   // a background register is learning the platform

	// delivered is the highest seq whose notification was written, by
	// this process or (deliveredFile) an earlier one of the profile key:
	// a stream starts after it and skips what was written already (its
	// ack, coalesced, may not have got through). Only follow touches it
	// after connect set it.
	delivered     uint64
	deliveredFile *deliveredFile // nil if it could not be opened

	ways *ways
	// way is the way in the update loop delivers by (wayin.go); only
	// follow, and deliver which it calls, touch it.
	way wayIn
	// inbox posts on the inbox path and hears Claude Code's reports
	// (inbox.go, reports.go).
	inbox *inboxPoster
	// inboxRetry paces posting again what Claude Code did not deliver;
	// refused, until refusedUntil, stands for the inbox while it refuses
	// (follow only).
	inboxRetry   *backoff.ExponentialBackOff
	refused      wayIn
	refusedUntil time.Time
	// told are the reports the thread was told of (mu guards it): once
	// per status and reason in a process.
	told map[string]bool
	// reported is the way in the supervisor was told of; mu guards it.
	reported wayIn
	// logged is the way in the log last told of (follow only).
	logged wayIn
}

// session is the current registration and what its binding offers.
type session struct {
	f *client.Follower
	// verbs are the message verbs of the thread's platform; nil while
	// detached or the platform is unknown.
	verbs map[string]bool
	// why is set when verbs is nil: what the tools say.
	why string
	// undescribed: the provider had not said its platform yet.
	undescribed bool
}

// has reports whether the thread's platform has a message verb.
func (s session) has(verb string) bool { return s.verbs[verb] }

// errStdout marks a failed write to Claude Code: the session is gone.
var errStdout = errors.New("writing to Claude Code")

// newBridge makes the bridge of one session; nothing is started.
func newBridge(cfg config, log zerolog.Logger) *bridge {
	b := &bridge{
		cfg:  cfg,
		log:  log,
		dirs: newStateDirs(cfg.paths.StateDir, cfg.profileKey),
		out:  &notifier{w: cfg.stdout},
		gate: newClientGate(),
		ways: cfg.ways,
	}
	if b.ways == nil {
		b.ways = &ways{} // a client that is not Claude Code: the channel
	}
	b.perms = newPermissions(b)
	b.presence = newPresence(b.typingOnce)
	b.inbox = newInboxPoster(log, b.onLateReport)
	b.inboxRetry = inboxRetry.New()
	b.told = map[string]bool{}
	return b
}

// serve runs chatbus-mcp until stdin closes or ctx ends. The MCP
// handshake is answered at once while the supervisor is reached (and
// started) alongside: Claude Code bounds its first request at 3 s, and a
// supervisor that starts, or a provider that has not described itself
// yet, can take longer. Tools called before the session is registered
// say so.
func serve(ctx context.Context, cfg config, log zerolog.Logger) error {
	b := newBridge(cfg, log)
	defer func() {
		if b.c != nil {
			b.c.Close()
		}
		if b.deliveredFile != nil {
			b.deliveredFile.close()
		}
		b.inbox.close()
	}()
	listenCtx, stopListen := context.WithCancel(ctx)
	defer stopListen()
	listened := make(chan error, 1)
	go func() { listened <- b.stdioServer().Listen(listenCtx, cfg.stdin, b.out) }()
	connectCtx, stopConnect := context.WithCancel(ctx)
	connected := make(chan error, 1)
	go func() { connected <- b.connect(connectCtx) }()
	select {
	case err := <-connected:
		stopConnect()
		if err != nil {
			stopListen()
			<-listened
			return err
		}
	case err := <-listened:
		// Claude Code went away before the session was registered.
		stopConnect()
		if cerr := <-connected; cerr == nil {
			b.handOver()
		}
		if err != nil && ctx.Err() == nil {
			log.Warn().Err(err).Msg("stdio ended")
		}
		return nil
	}

	followCtx, stopFollow := context.WithCancel(ctx)
	followed := make(chan error, 1)
	go func() { followed <- b.follow(followCtx) }()

	var runErr error
	select {
	case err := <-listened:
		if err != nil && ctx.Err() == nil {
			log.Warn().Err(err).Msg("stdio ended")
		}
		stopFollow()
		if err := <-followed; err != nil {
			log.Warn().Err(err).Msg("update loop")
		}
	case err := <-followed:
		// Only a failed write to stdout ends the loop by itself: Claude
		// Code is gone. Hand over what is left.
		runErr = err
		stopListen()
		<-listened
	}
	stopFollow()
	b.presence.close()
	b.bg.Wait()
	b.handOver()
	return runErr
}

// connect starts the supervisor if it must, dials it and registers the
// session (taking the predecessor's handoff token, if any).
func (b *bridge) connect(ctx context.Context) error {
	cfg := b.cfg
	if cfg.ensure {
		st, err := client.Ensure(ctx, client.EnsureOptions{
			Socket: cfg.paths.Socket, StateDir: cfg.paths.StateDir, Profile: cfg.paths.Profile,
			SecretFile: cfg.paths.Secret, Binary: cfg.binary,
		})
		if err != nil {
			return fmt.Errorf("start supervisord (profile %q): %w", cfg.paths.Profile, err)
		}
		b.log.Info().Int("pid", st.PID).Bool("started", st.Started).Msg("supervisor serving")
	}
	// Acks are coalesced: what was written and not yet acked when this
	// process dies is not delivered again, because the delivered file
	// says it was written.
	c, err := client.Dial(cfg.paths.Socket, client.WithSecretFile(cfg.paths.Secret), client.WithAckCoalescing(client.DefaultAckDelay, client.DefaultAckEvery))
	if err != nil {
		return err
	}
	b.c = c
	if df, seq, err := b.dirs.openDelivered(); err != nil {
		b.log.Warn().Err(err).Msg("no delivered file: after a kill, what was written and not yet acked comes again")
	} else {
		b.delivered, b.deliveredFile = seq, df
	}
	h, ok, err := b.dirs.takeHandoff(cfg.profileKey, time.Now())
	if err != nil {
		b.log.Warn().Err(err).Msg("ignoring the handoff file")
	}
	token := ""
	if ok {
		token = h.Token
	}
	b.mu.Lock()
	b.reported = b.ways.detect()
	b.mu.Unlock()
	return b.register(ctx, token)
}

// stdioServer builds the MCP server Claude Code talks to over stdio.
// tools.listChanged is declared for the gate: a list_changed
// notification is how chatbus-mcp learns that Claude Code's channel
// handler is in place (see clientGate).
func (b *bridge) stdioServer() *server.StdioServer {
	hooks := &server.Hooks{}
	hooks.AddBeforeListTools(func(context.Context, any, *mcp.ListToolsRequest) { b.gate.toolsListed() })
	s := server.NewMCPServer(serverName, version.Get().Version,
		server.WithToolCapabilities(true),
		server.WithExperimental(map[string]any{capChannel: map[string]any{}, capPermission: map[string]any{}}),
		server.WithInstructions(instructions),
		server.WithHooks(hooks),
	)
	s.AddNotificationHandler(methodPermissionReq, b.perms.onRequest)
	b.addTools(s)
	stdio := server.NewStdioServer(s)
	stdio.SetErrorLogger(stdlog.New(zerologWriter{b.log}, "", 0))
	// The one place the protocol revision is chosen. Claude Code (2.1.328)
	// probes with server/discover and takes the 2026-07-28 era if the
	// answer offers it; on such a stdio connection it skips channel
	// notifications ("connection negotiated a modern protocol revision
	// with no unsolicited notification path"), and that era has no
	// initialize either. Offering only the revisions of the initialize
	// handshake sends it to initialize, where channels work. Lift this
	// when Claude Code takes channel notifications in the modern era.
	stdio.SetContextFunc(func(ctx context.Context) context.Context {
		return server.WithSupportedProtocolVersions(ctx, mcp.LegacyProtocolVersions())
	})
	return stdio
}

// clientReady is closed once Claude Code can take channel notifications.
func (b *bridge) clientReady() <-chan struct{} { return b.gate.ready }

// healthyStream is how long an update stream must have lived for its end
// to count as a new failure rather than one more in a row.
const healthyStream = 10 * time.Second

// describeWait bounds how long register waits for a provider that has
// not described its platform yet (it is starting: a supervisor restart).
const describeWait = 10 * time.Second

// register registers the session (with the predecessor's handoff token,
// if any) and learns its platform. A provider that is still starting
// has no platform to tell yet: register asks again for a while, and if
// it is still unknown, the tools say so and the next tool call asks
// again (see current).
func (b *bridge) register(ctx context.Context, token string) error {
	b.mu.Lock()
	way := b.reported
	b.mu.Unlock()
	reg := client.Registration{
		ProfileKey: b.cfg.profileKey, ThreadName: b.cfg.threadName, Cwd: b.cfg.cwd,
		Provider: b.cfg.provider, HandoffToken: token, WayIn: way.kind, WayInDetail: way.detail, Agent: "claude-code",
		LaunchID: b.cfg.launchID,
	}
	deadline := time.Now().Add(describeWait)
	for {
		f, err := b.c.Register(ctx, reg)
		if err != nil && reg.HandoffToken != "" && errors.Is(err, client.ErrFailedPrecondition) {
			// The token expired or was used: the profile key still finds
			// the thread (REUSE).
			b.log.Info().Err(err).Msg("handoff token refused; registering by profile key")
			reg.HandoffToken = ""
			f, err = b.c.Register(ctx, reg)
		}
		if err != nil {
			return fmt.Errorf("register %q: %w", b.cfg.profileKey, err)
		}
		reg.HandoffToken = "" // used: asking again goes by the key
		known := b.adopt(f)
		if known || time.Now().After(deadline) || backoff.Sleep(ctx, 200*time.Millisecond) != nil {
			return nil
		}
	}
}

// adopt makes f the session and reports whether its platform is known
// (or it is detached, where there is none to know).
func (b *bridge) adopt(f *client.Follower) bool {
	r := f.Registered()
	s := session{f: f}
	name := r.GetCapabilities().GetPlatform()
	if name == "" {
		name = r.GetBinding().GetPlatform()
	}
	known := true
	switch {
	case r.GetOrigin() == chatbusv1.Origin_ORIGIN_DETACHED:
		s.why = "the supervisor has no chat provider configured: no thread to talk in (see `busctl providers`)"
	case name == "":
		s.why, s.undescribed, known = "the chat provider is starting (it has not described its platform yet): try again shortly", true, false
	default:
		s.verbs = map[string]bool{}
		for _, v := range r.GetCapabilities().GetVerbs() {
			s.verbs[v] = true
		}
		if !s.has("send") {
			s.verbs, s.why = nil, fmt.Sprintf("the %s provider cannot send messages (it declares no send verb)", name)
		}
	}
	t := r.GetBinding().GetTarget()
	b.log.Info().Str("profile_key", b.cfg.profileKey).Str("origin", r.GetOrigin().String()).
		Str("platform", name).Str("chat", t.GetChat()).Str("thread", t.GetThread()).
		Str("thread_name", r.GetBinding().GetThreadName()).Msg("registered")
	b.mu.Lock()
	old := b.sess.f
	b.sess = s
	b.mu.Unlock()
	if old != nil {
		// Registering the same instance id again replaced it: this only
		// stops its heartbeat (its token is dead).
		go old.Close(context.Background())
	}
	return known
}

// current returns the session for a tool, or why there is none. A
// session whose provider had not described itself asks again in the
// background.
func (b *bridge) current() (session, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.ended != nil:
		return session{}, b.ended
	case b.sess.f == nil:
		return session{}, errors.New("chatbus-mcp is still connecting to the supervisor: try again shortly")
	case b.sess.verbs == nil:
		if b.sess.undescribed && b.refreshing.CompareAndSwap(false, true) {
			b.background(func(ctx context.Context) {
				defer b.refreshing.Store(false)
				if err := b.register(ctx, ""); err != nil {
					b.log.Warn().Err(err).Msg("registering again to learn the platform")
				}
			})
		}
		return session{}, errors.New(b.sess.why)
	}
	return b.sess, nil
}

// replacedHere says whether f was replaced by this process's own newer
// registration.
func (b *bridge) replacedHere(f *client.Follower) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.sess.f != f
}

// follow is the update loop: it waits for a way in to the session
// (awaitWay), then delivers the thread's updates in order by it, acking
// each only once it was handed over. A broken stream (supervisor
// restart, prune) is resumed after the last ack, re-registering as
// needed; a way in that went away is looked for again. It returns nil
// when ctx ends and errStdout when Claude Code cannot be written to.
func (b *bridge) follow(ctx context.Context) error {
	retry := backoff.Policy{Initial: 100 * time.Millisecond, Max: 5 * time.Second}.New()
	for {
		if err := b.awaitWay(ctx); err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("%w: %v", errStdout, err)
		}
		b.mu.Lock()
		f := b.sess.f
		b.mu.Unlock()
		started := time.Now()
		// A person who asked from the chat that this session stop (the
		// stop command; chatbus did not start Claude Code, so it can only
		// ask) ends the stream: see askedToStop.
		sctx, endStream := context.WithCancel(ctx)
		watched := make(chan struct{})
		go func() {
			defer close(watched)
			asked, _ := f.StopRequested()
			select {
			case <-asked:
				b.askedToStop(f)
				endStream()
			case <-sctx.Done():
			}
		}()
		err := f.Updates(sctx, b.delivered, func(u *chatbusv1.Update) error { return b.handle(sctx, f, u) })
		endStream()
		<-watched
		b.mu.Lock()
		stopped := b.ended != nil
		b.mu.Unlock()
		switch {
		case ctx.Err() != nil:
			return nil
		case stopped:
			// The MCP server stays: its tools say why the chat is gone.
			<-ctx.Done()
			return nil
		case errors.Is(err, errStdout):
			return err
		case errors.Is(err, client.ErrReplaced) && b.replacedHere(f):
			// This process registered again (to learn the platform): go
			// on with the new registration.
			continue
		case errors.Is(err, client.ErrReplaced):
			// Another session registered the same profile key (a reload
			// that started the new chatbus-mcp before stopping this one):
			// it has the thread now.
			b.log.Info().Err(err).Msg("another session took the thread; no more updates here")
			b.mu.Lock()
			b.ended = fmt.Errorf("this session's thread was taken over by a newer session (%w)", err)
			b.mu.Unlock()
			return nil
		}
		if time.Since(started) > healthyStream {
			retry.Reset() // a failure after a healthy stream starts over
		}
		var nd *notDeliveredError
		if errors.As(err, &nd) {
			// Not delivered, not acked: post it again after a while
			// (awaitWay waits while the inbox refuses).
			wait := b.inboxRetry.NextBackOff()
			if nd.r.status == statusRefused {
				wait = max(wait, refusedRetry)
			}
			b.notDelivered(nd.seq, nd.r, nd.text)
			if nd.r.status == statusRefused {
				b.refused = wayIn{kind: chatbusv1.WayIn_WAY_IN_NONE, told: true,
					detail: fmt.Sprintf("Claude Code refuses the messages chatbus posts to its inbox socket %s (%s); chatbus posts again from time to time", b.way.socket, nd.r.reason)}
				b.refusedUntil = time.Now().Add(wait)
				continue
			}
			b.log.Warn().Uint64("seq", nd.seq).Str("status", nd.r.status).Str("drop_reason", nd.r.dropReason).Dur("retry_in", wait).Msg("Claude Code did not deliver the message; posting it again")
			if backoff.Sleep(ctx, wait) != nil {
				return nil
			}
			continue
		}
		wait := retry.NextBackOff()
		if errors.Is(err, errNoWayIn) {
			// The update was not handed over and stays unacked: look for
			// a way in again (the same one, if it is back).
			b.log.Warn().Err(err).Dur("retry_in", wait).Msg("handing an update to the session failed; looking for a way in again")
			if backoff.Sleep(ctx, wait) != nil {
				return nil
			}
			continue
		}
		b.log.Warn().Err(err).Dur("retry_in", wait).Msg("update stream ended; resuming")
		if backoff.Sleep(ctx, wait) != nil {
			return nil
		}
		if err := b.resume(ctx); err != nil {
			b.log.Warn().Err(err).Msg("re-registering")
		}
	}
}

// awaitWay finds the way in to deliver by and sets b.way: the channel
// once Claude Code can take its notifications (clientGate), the inbox at
// once. With none it holds the updates (no stream is open, so nothing is
// acked), says so once in the log and the thread, and looks again every
// waysPoll. It fails on a failed write to Claude Code or the end of ctx.
func (b *bridge) awaitWay(ctx context.Context) error {
	for {
		w := b.ways.detect()
		poll := waysPoll
		if w.kind == chatbusv1.WayIn_WAY_IN_INBOX {
			if left := time.Until(b.refusedUntil); left > 0 {
				w, poll = b.refused, min(left, poll)
			}
		}
		b.report(w)
		switch w.kind {
		case chatbusv1.WayIn_WAY_IN_CHANNEL:
			if err := b.gate.await(ctx, b.out, b.log); err != nil {
				return err
			}
			b.way = w
			return nil
		case chatbusv1.WayIn_WAY_IN_INBOX:
			b.way = w
			return nil
		}
		if err := backoff.Sleep(ctx, poll); err != nil {
			return err
		}
	}
}

// report tells the log of a new way in (and the thread, when there is
// none), and the supervisor if it does not have it yet.
func (b *bridge) report(w wayIn) {
	b.mu.Lock()
	told := w == b.reported // by the registration, or a heartbeat
	b.reported = w
	f := b.sess.f
	b.mu.Unlock()
	if !told && f != nil {
		f.SetWayIn(w.kind, w.detail)
	}
	if w == b.logged {
		return
	}
	b.logged = w
	if w.kind == chatbusv1.WayIn_WAY_IN_NONE {
		b.log.Warn().Str("why", w.detail).Msg("no way in to the session: the thread's messages are held until one appears")
		if !w.told {
			b.noticeNoWayIn(w)
		}
		return
	}
	b.log.Info().Str("way_in", w.String()).Str("detail", w.detail).Msg("way in to the session")
}

// noticeNoWayIn says in the thread, once per reason and profile key
// (across reloads), that messages are held and what the person can do.
func (b *bridge) noticeNoWayIn(w wayIn) {
	if b.dirs.noticed(w.detail) {
		return // an earlier chatbus-mcp of the profile key said it
	}
	text := fmt.Sprintf("⚠️ This session cannot receive what you write here yet: %s.\n\n"+
		"Nothing is lost: your messages wait here and arrive once it can. To let them in, restart the session (claude --continue keeps this thread) "+
		"with Claude Code 2.1.224 or later on Anthropic's API (messages come through its inbox socket), "+
		"or with --dangerously-load-development-channels server:%s on a claude.ai login (messages come as a channel).", w.detail, b.ways.name)
	b.notice(text, func() {
		if err := b.dirs.markNoticed(w.detail); err != nil {
			b.log.Warn().Err(err).Msg("notice file")
		}
	})
}

// notice posts text in the thread, in the background; posted, if set,
// runs once it is sent.
func (b *bridge) notice(text string, posted func()) {
	b.background(func(ctx context.Context) {
		s, err := b.current()
		if err != nil {
			b.log.Warn().Err(err).Msg("cannot post a notice in the thread")
			return
		}
		if _, err := s.f.Send(ctx, client.Message{Text: text}, b.key(s.f)); err != nil {
			b.log.Warn().Err(err).Msg("posting a notice in the thread")
			return
		}
		if posted != nil {
			posted()
		}
	})
}

// resume registers again after a broken stream: the supervisor may have
// restarted (or pruned the session), and the profile key finds the same
// thread. If the supervisor is gone for good it is started again.
func (b *bridge) resume(ctx context.Context) error {
	if b.cfg.ensure {
		if _, err := client.Ensure(ctx, client.EnsureOptions{
			Socket: b.cfg.paths.Socket, StateDir: b.cfg.paths.StateDir, Profile: b.cfg.paths.Profile,
			SecretFile: b.cfg.paths.Secret, Binary: b.cfg.binary,
		}); err != nil {
			return err
		}
	}
	return b.register(ctx, "")
}

// handle delivers one update and acks it. The ack outlives a cancelled
// ctx (a shutdown) for a moment: what was written is acked if it can be.
func (b *bridge) handle(ctx context.Context, f *client.Follower, u *chatbusv1.Update) error {
	if u == nil {
		return nil // a binding change on the stream: nothing to deliver
	}
	notified := false
	if u.GetSeq() > b.delivered {
		var err error
		if notified, err = b.deliver(ctx, u); err != nil {
			return err
		}
		// Delivered (or done with): the inbox takes messages again.
		b.inboxRetry.Reset()
		b.refusedUntil = time.Time{}
		b.delivered = u.GetSeq()
		if df := b.deliveredFile; df != nil {
			if err := df.store(b.delivered); err != nil {
				b.log.Warn().Err(err).Msg("delivered file")
			}
		}
	}
	actx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := f.Ack(actx, u.GetSeq()); err != nil {
		return err
	}
	if notified {
		b.acknowledge(u)
	}
	return nil
}

// askedToStop is the answer to a person's request, from the chat, that
// this session stop: chatbus-mcp suspends the session as for a reload
// (handOver: the thread and what arrives in it are kept for the next
// chatbus-mcp of the profile key) and takes no more of the thread's
// updates; its tools say why. Claude Code itself goes on, without its
// chat, until the person ends it at the desk.
func (b *bridge) askedToStop(f *client.Follower) {
	_, r := f.StopRequested()
	b.log.Info().Str("by", r.GetRequestedBy()).Str("provider", r.GetProvider()).
		Msg("a person asked from the chat that this session stop; suspending its thread")
	b.handOver()
	b.mu.Lock()
	if b.ended == nil {
		b.ended = fmt.Errorf("%s asked from the chat that this session stop: its thread is suspended "+
			"(kept for the next session of this profile); restart the session to use the chat again", r.GetRequestedBy())
	}
	b.mu.Unlock()
}

// handOver suspends the session for the next chatbus-mcp of the profile
// key and leaves it the token.
func (b *bridge) handOver() {
	b.mu.Lock()
	f, ended := b.sess.f, b.ended
	b.mu.Unlock()
	if f == nil || ended != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	h, err := f.Suspend(ctx)
	if err != nil {
		b.log.Warn().Err(err).Msg("suspend for a handoff; the next session finds the thread by its profile key")
		f.Close(ctx)
		return
	}
	err = b.dirs.writeHandoff(handoffFile{
		ProfileKey: b.cfg.profileKey, Token: h.Token, Expires: h.Expires,
		Binding: f.Registered().GetBinding().GetThreadName(),
	})
	if err != nil {
		b.log.Warn().Err(err).Msg("writing the handoff file")
		return
	}
	b.log.Info().Time("expires", h.Expires).Str("file", b.dirs.handoffPath()).Msg("suspended for a handoff")
}

// key returns a new idempotency key for one message verb of the session:
// the verb is made once however often the client retries it.
func (b *bridge) key(f *client.Follower) string {
	return fmt.Sprintf("%s-%d", f.Session().GetInstanceId(), b.keys.Add(1))
}

// background runs fn on its own goroutine, counted for the shutdown.
func (b *bridge) background(fn func(ctx context.Context)) {
	b.bg.Add(1)
	go func() {
		defer b.bg.Done()
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		fn(ctx)
	}()
}

func firstRef(refs []*chatbusv1.Reference, kind chatbusv1.ReferenceKind) string {
	for _, r := range refs {
		if r.GetKind() == kind {
			return r.GetId()
		}
	}
	return ""
}

// zerologWriter carries the SDK's log lines into the log.
type zerologWriter struct{ log zerolog.Logger }

func (w zerologWriter) Write(p []byte) (int, error) {
	w.log.Warn().Str("from", "mcp-go").Msg(string(trimNewline(p)))
	return len(p), nil
}

func trimNewline(p []byte) []byte {
	for len(p) > 0 && (p[len(p)-1] == '\n' || p[len(p)-1] == '\r') {
		p = p[:len(p)-1]
	}
	return p
}
