// Package providers runs the supervisor's provider children and is the
// hub's way to them: it keeps each child alive (server/supervise), pumps
// its inbound updates into the hub and acknowledges them once durable, and
// forwards provisioning, attach/detach and platform calls, waiting out a
// restart where that is safe.
package providers

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"
	"google.golang.org/grpc"

	"github.com/chatbus/chatbus/internal/contract"
	"github.com/chatbus/chatbus/paths"
	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/server/events"
	"github.com/chatbus/chatbus/server/hub"
	"github.com/chatbus/chatbus/server/liveness"
	"github.com/chatbus/chatbus/server/metrics"
	"github.com/chatbus/chatbus/server/outbound"
	"github.com/chatbus/chatbus/server/store"
	"github.com/chatbus/chatbus/server/supervise"
)

// Spec configures one provider.
type Spec struct {
	// Name, as configured. The child is the binary provider-<Name>.
	Name string
	// Binary overrides the child's path. If empty, provider-<Name> beside
	// the supervisord executable, else on PATH.
	Binary string
	// Default makes fresh followers bind on this provider.
	Default bool
	// Settings is passed to the child on stdin as JSON (with "name" and,
	// per incarnation, "secret" added).
	Settings map[string]any
	// StartLimit, BackoffMax, StartTimeout tune supervision (zero: the
	// supervise defaults).
	StartLimit   int
	BackoffMax   time.Duration
	StartTimeout time.Duration
}

// Config configures a Manager.
type Config struct {
	Specs []Spec
	// SocketDir holds the children's sockets (0700). Required if Specs.
	SocketDir string
	// StateDir, if set, holds one private state directory per provider,
	// <StateDir>/<name> (0700, created here and kept across restarts),
	// named to each child in its settings as "state_dir". If empty, the
	// children get none.
	StateDir string
	Store    store.Store
	Events   *events.Hub
	Logger   zerolog.Logger
	// IngestBatch bounds how many updates go into one journal write.
	// If zero, 4096: what the SDK's pipeline keeps in flight (two
	// batches of 2048), so that a fast provider's whole window is one
	// commit, and a follower's stream is woken once per commit with
	// everything of its thread in it. The pump never waits for a batch to
	// fill: it takes what has arrived.
	IngestBatch int
	// CallKeep is how long settled call records answer repeats of their
	// idempotency key. If zero, DefaultCallKeep (24h).
	CallKeep time.Duration
	// CallsPerBinding bounds the settled call records kept per binding.
	// If zero, DefaultCallsPerBinding.
	CallsPerBinding int
	// Liveness, if set, gets each provider's pump probe ("pump/<name>")
	// for the watchdog while the provider runs.
	Liveness *liveness.Registry
	// Metrics records rate limits and idempotent repeats. If nil, nothing
	// is recorded.
	Metrics *metrics.Metrics
}

// Manager owns the provider children. Safe for concurrent use.
type Manager struct {
	cfg Config
	log zerolog.Logger

	mu    sync.RWMutex // guards provs, def and rt; never held across a call to a child
	provs map[string]*provider
	def   string
	// rt is set by Run while it runs: what a provider added by a config
	// reload is started with (reload.go). nil before and after Run.
	rt *runtime

	// pumpFull, if set (by tests), is called when a pump's receiver must
	// wait for room (pumpBytes) before it reads on.
	pumpFull func()
}

// runtime is what Run started its providers with.
type runtime struct {
	ctx  context.Context
	sink Ingester
	wg   *sync.WaitGroup
}

// Ingester journals and routes a provider's updates (the hub does).
type Ingester interface {
	// Ingest journals batch with the provider's cursor and returns the
	// update id the provider may acknowledge through; see hub.Hub.Ingest.
	Ingest(ctx context.Context, provider string, batch []hub.Inbound, cursor []byte) (ackedThrough int64, err error)
}

// provider is one configured provider and its child.
type provider struct {
	spec Spec
	sup  *supervise.Supervisor
	log  zerolog.Logger

	mu       sync.Mutex        // guards attached and the detach queue
	attached map[string]attach // by instance id, re-sent to each new child

	// Detaches are sent to the child in order by one goroutine (detacher),
	// so that a slow or hung child never holds up the registry: a
	// follower's end (prune, unregister, a successor taking its thread)
	// returns at once. An Attach of the same instance id waits for its
	// queued Detach first.
	detachQueue   []string
	detachPending map[string]int // queued Detaches by instance id
	detachKick    chan struct{}  // cap 1: the queue grew
	detachSent    chan struct{}  // closed and replaced after each batch sent

	ingested     atomic.Uint64
	notAllowed   atomic.Uint64
	deadLettered atomic.Uint64 // dead letters set aside since the supervisor started
	pumpHeld     atomic.Int64  // bytes of updates the pump read and has not journalled
	// journalFails is how many journal writes of the pump failed in a
	// row (the pump's goroutine only; pump.go's journalAttempts).
	journalFails int
	lastErr      atomic.Pointer[string]
	// desc is what the last child declared (Describe), nil until one did.
	desc atomic.Pointer[hub.Description]
	// health is whether the provider does its job, as the supervisor sees it.
	health *health
	// webURL is the page the last child declared for people (Describe).
	webURL atomic.Pointer[string]

	// adm says whether calls may go to the child now (a child runs, its
	// fence admits, no doctor restart holds it).
	adm *admission
	// calls is the at-most-once call path of recorded calls.
	calls *calls
	// sched paces every call to the platform's limits (pacing.go); pacing
	// is what the last child declared of its lanes, nil until one did.
	sched  *outbound.Scheduler
	pacing atomic.Pointer[pacing]
	// paceStore keeps sched's windows across a restart (nil: the store
	// does not). Saves are coalesced (savePacing); savingMu guards saving
	// (a save is under way), saveAgain (a call was made since it took the
	// windows) and savedEmpty (the last save wrote no windows).
	paceStore  pacingStore
	savingMu   sync.Mutex
	saving     bool
	saveAgain  bool
	savedEmpty bool

	// stop ends this provider's goroutines (supervision, pump, calls,
	// detacher) and done is closed once they have returned; both set when
	// Run (or a reload's Add) starts it.
	stop context.CancelFunc
	done chan struct{}
	// pumping marks the pump's bounded steps (journal write, ack) for
	// the watchdog's liveness probe.
	pumping liveness.Step
	// metrics records what the provider's calls meet (nil: nothing).
	metrics *metrics.Metrics
}

type attach struct{ target store.Target }

// New builds the Manager; Run starts the children.
func New(cfg Config) (*Manager, error) {
	if cfg.IngestBatch <= 0 {
		cfg.IngestBatch = 4096
	}
	m := &Manager{cfg: cfg, log: cfg.Logger.With().Str("component", "providers").Logger(), provs: map[string]*provider{}}
	for _, spec := range cfg.Specs {
		if _, dup := m.provs[spec.Name]; dup {
			return nil, fmt.Errorf("provider %q configured twice", spec.Name)
		}
		p, err := m.newProvider(spec)
		if err != nil {
			return nil, err
		}
		m.provs[spec.Name] = p
	}
	m.def = DefaultOf(cfg.Specs)
	return m, nil
}

// DefaultOf names the provider fresh followers bind on among specs: the
// one marked Default (the last so marked), else the first; "" if none.
func DefaultOf(specs []Spec) string {
	def := ""
	for _, spec := range specs {
		if spec.Default || def == "" {
			def = spec.Name
		}
	}
	return def
}

// newProvider builds one provider and its supervisor; nothing starts.
func (m *Manager) newProvider(spec Spec) (*provider, error) {
	l, err := m.launch(spec)
	if err != nil {
		return nil, err
	}
	p := &provider{spec: spec, attached: map[string]attach{}, log: m.log.With().Str("provider", spec.Name).Logger(), metrics: m.cfg.Metrics,
		adm: newAdmission(), health: newHealth(), detachPending: map[string]int{}, detachKick: make(chan struct{}, 1), detachSent: make(chan struct{})}
	p.calls = newCalls(p, m.cfg.Store)
	p.paceStore, _ = m.cfg.Store.(pacingStore)
	p.sched, err = outbound.New(outbound.Config{OnStart: func(j *outbound.Job, waited time.Duration) {
		p.metrics.CallWaited(spec.Name, j.Lane.String(), waited)
	}, OnMade: p.savePacing})
	if err != nil {
		return nil, err
	}
	p.sup = supervise.New(supervise.Spec{
		Name:         spec.Name,
		Path:         l.Path,
		Config:       l.Config,
		SocketDir:    m.cfg.SocketDir,
		StartLimit:   l.StartLimit,
		BackoffMax:   l.BackoffMax,
		StartTimeout: l.StartTimeout,
		Accept:       p.accept,
		Logger:       m.cfg.Logger,
		OnEvent:      m.onEvent,
	})
	return p, nil
}

// launch is what a child of spec is started from: its binary and the
// settings it is given on stdin (spec.Settings with "name" and
// "state_dir"; the supervisor adds the secret per start).
func (m *Manager) launch(spec Spec) (supervise.Launch, error) {
	settings := map[string]any{}
	for k, v := range spec.Settings {
		settings[k] = v
	}
	settings["name"] = spec.Name
	if m.cfg.StateDir != "" {
		dir := filepath.Join(m.cfg.StateDir, spec.Name)
		if err := paths.PrivateDir(dir); err != nil {
			return supervise.Launch{}, fmt.Errorf("provider %q state dir: %w", spec.Name, err)
		}
		settings["state_dir"] = dir
	}
	conf, err := json.Marshal(settings)
	if err != nil {
		return supervise.Launch{}, fmt.Errorf("provider %q settings: %w", spec.Name, err)
	}
	return supervise.Launch{Path: binaryPath(spec), Config: conf, StartLimit: spec.StartLimit,
		StartTimeout: spec.StartTimeout, BackoffMax: spec.BackoffMax}, nil
}

func binaryPath(spec Spec) string {
	if spec.Binary != "" {
		return spec.Binary
	}
	name := "provider-" + spec.Name
	if exe, err := os.Executable(); err == nil {
		beside := filepath.Join(filepath.Dir(exe), name)
		if fi, err := os.Stat(beside); err == nil && !fi.IsDir() {
			return beside
		}
	}
	return "" // supervise looks provider-<name> up in PATH
}

// LoadCalls takes up the calls the previous run left open (held ones are
// sent again, ones cut off mid-send become outcome unknown), and the
// previous run's pacing windows (the calls it made lately count against
// the platform's limits). Call it once, before the bus serves: a repeat of
// a key must find its record.
func (m *Manager) LoadCalls() error {
	m.mu.RLock()
	defer m.mu.RUnlock()
	for _, p := range m.provs {
		if err := p.restorePacing(); err != nil {
			return fmt.Errorf("provider %s: the previous run's pacing: %w", p.spec.Name, err)
		}
		if err := p.calls.load(); err != nil {
			return fmt.Errorf("provider %s: calls left open by the previous run: %w", p.spec.Name, err)
		}
	}
	return nil
}

// Run supervises every child and pumps its updates into sink until ctx
// ends, then stops the children. Providers added meanwhile (Add) run
// under it too.
func (m *Manager) Run(ctx context.Context, sink Ingester) {
	var wg sync.WaitGroup
	m.mu.Lock()
	m.rt = &runtime{ctx: ctx, sink: sink, wg: &wg}
	for _, p := range m.provs {
		m.startLocked(p)
	}
	m.mu.Unlock()
	wg.Go(func() { m.pruneCalls(ctx) })
	<-ctx.Done()
	m.mu.Lock()
	m.rt = nil // no more Adds
	m.mu.Unlock()
	wg.Wait()
}

// startLocked starts p's goroutines under m.rt. m.mu held.
func (m *Manager) startLocked(p *provider) {
	ctx, stop := context.WithCancel(m.rt.ctx)
	sink := m.rt.sink
	p.stop, p.done = stop, make(chan struct{})
	unregister := func() {}
	if m.cfg.Liveness != nil {
		unregister = m.cfg.Liveness.Register("pump/"+p.spec.Name, p.pumping.Probe)
	}
	var pwg sync.WaitGroup
	pwg.Go(func() {
		if err := p.sup.Run(ctx); err != nil && ctx.Err() == nil {
			p.log.Error().Err(err).Msg("supervision ended")
		}
	})
	pwg.Go(func() { m.pump(ctx, p, sink) })
	pwg.Go(func() { p.sched.Run(ctx) })
	pwg.Go(func() { p.syncAdmission(ctx) })
	pwg.Go(func() { p.detacher(ctx) })
	pwg.Go(func() { m.watchWhy(ctx, p) })
	m.rt.wg.Go(func() {
		pwg.Wait()
		unregister()
		stop()
		close(p.done)
	})
}

func (m *Manager) onEvent(e supervise.Event) {
	kind := map[string]events.Kind{
		supervise.EventStarted: events.ProviderStarted,
		supervise.EventExited:  events.ProviderExited,
		supervise.EventFatal:   events.ProviderFatal,
		supervise.EventHealth:  events.ProviderHealth,
	}[e.Kind]
	if kind == 0 {
		return
	}
	attrs := map[string]string{"provider": e.Name}
	if e.Child.PID != 0 {
		attrs["pid"] = fmt.Sprint(e.Child.PID)
	}
	if e.ExitStatus != "" {
		attrs["exit"] = e.ExitStatus
	}
	if e.Planned {
		attrs[events.PlannedAttr] = "true"
	}
	if kind == events.ProviderExited {
		if p, ok := m.lookup(e.Name); ok {
			p.health.childGone()
		}
	}
	if kind == events.ProviderHealth {
		if p, ok := m.lookup(e.Name); ok {
			go m.childHealth(p, e, attrs) // asks the child why: off the supervision path
		}
		return
	}
	m.cfg.Events.Publish(events.Event{Kind: kind, Message: e.Message, Attrs: attrs})
}

// lookup returns the named provider, if configured.
func (m *Manager) lookup(name string) (*provider, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	p, ok := m.provs[name]
	return p, ok
}

func (m *Manager) get(name string) (*provider, error) {
	p, ok := m.lookup(name)
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknown, name)
	}
	return p, nil
}

// Default implements hub.Providers.
func (m *Manager) Default() string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.def
}

// Configured implements hub.Providers.
func (m *Manager) Configured(name string) bool {
	_, ok := m.lookup(name)
	return ok
}

// Description implements hub.Providers: what the provider's last child
// declared.
func (m *Manager) Description(name string) (hub.Description, bool) {
	p, ok := m.lookup(name)
	if !ok {
		return hub.Description{}, false
	}
	d := p.desc.Load()
	if d == nil {
		return hub.Description{}, false
	}
	return *d, true
}

// accept is the supervisor's question to a new child before it runs
// (supervise.Spec.Accept): what it offers (Describe, which does not reach
// the platform), kept for calls. A child of another contract generation
// is refused (supervise.ErrRefused): their Updates streams do not match,
// so none of its updates would be read. A child that does not describe
// itself runs, but calls are refused until a child declares its methods
// (the previous child's stay meanwhile).
func (p *provider) accept(ctx context.Context, conn *grpc.ClientConn) error {
	resp, err := providerv1.NewProviderServiceClient(conn).Describe(ctx, &providerv1.DescribeRequest{})
	if err != nil {
		if ctx.Err() == nil {
			p.log.Warn().Err(err).Msg("the provider did not describe its platform")
		}
		return nil
	}
	if err := generationRefusal(resp.GetGeneration()); err != nil {
		p.log.Error().Err(err).Msg("provider refused")
		return err
	}
	p.describe(resp)
	return nil
}

// generationRefusal is nil for a child of this supervisor's contract
// generation, else the refusal (wrapping supervise.ErrRefused) that says
// both generations and what to do. A child of generation 2 or earlier
// reports none in Describe (0).
func generationRefusal(g uint32) error {
	switch {
	case g == contract.Generation:
		return nil
	case g == 0:
		return fmt.Errorf("%w: the provider binary speaks generation %d of the provider contract or an earlier one, this supervisor generation %d: upgrade the provider binary to this supervisor's release",
			supervise.ErrRefused, contract.Generation-1, contract.Generation)
	case g < contract.Generation:
		return fmt.Errorf("%w: the provider binary speaks generation %d of the provider contract, this supervisor generation %d: upgrade the provider binary to this supervisor's release",
			supervise.ErrRefused, g, contract.Generation)
	}
	return fmt.Errorf("%w: the provider binary speaks generation %d of the provider contract, this supervisor generation %d: upgrade supervisord to the provider's release, or install the provider binary of this one",
		supervise.ErrRefused, g, contract.Generation)
}

// describe keeps what a new child offers.
func (p *provider) describe(resp *providerv1.DescribeResponse) {
	d := hub.Description{Platform: resp.GetPlatform(), MaxTextChars: int(resp.GetMaxTextChars()),
		CommandPrefix: resp.GetCommandPrefix(), ThreadLink: resp.GetThreadLink()}
	for _, m := range resp.GetMethods() {
		if hub.IsVerb(m.GetName()) {
			p.log.Warn().Str("method", m.GetName()).Msg("the provider declared a method named as a message verb; ignored")
			continue
		}
		hm := hub.Method{Name: m.GetName(), Idempotent: m.GetIdempotent()}
		for _, pm := range m.GetParams() {
			// A kind this build does not know is 0, which no thread
			// holds: a call that names one is refused as out of scope.
			k, _ := refKinds.Domain(pm.GetKind())
			hm.Params = append(hm.Params, hub.Param{Name: pm.GetName(), Kind: k, Required: pm.GetRequired()})
		}
		d.Methods = append(d.Methods, hm)
	}
	for _, v := range resp.GetVerbs() {
		hm, ok := hub.VerbMethod(v.GetName(), v.GetIdempotent())
		if !ok {
			p.log.Warn().Str("verb", v.GetName()).Msg("the provider declared a message verb this supervisor does not know; ignored")
			continue
		}
		d.Methods = append(d.Methods, hm)
	}
	pc, limits, err := pacingFrom(resp)
	if err == nil {
		err = p.sched.SetLimits(limits)
	}
	if err != nil {
		// Calls go unpaced rather than not at all; the operator is told.
		p.log.Error().Err(err).Msg("the provider declared rate limits the supervisor cannot keep; its calls are not paced")
		p.sched.SetLimits(nil)
	}
	p.pacing.Store(pc)
	p.desc.Store(&d)
	url := resp.GetWebUrl()
	if old := p.webURL.Swap(&url); url != "" && (old == nil || *old != url) {
		// The one line that tells the owner where to open it.
		p.log.Info().Str("url", url).Msg(d.Platform + " chat page: open " + url)
	}
}

// client waits for the provider's running child.
func (p *provider) client(ctx context.Context) (providerv1.ProviderServiceClient, supervise.Child, error) {
	c, err := p.sup.WaitRunning(ctx)
	if err != nil {
		return nil, c, fmt.Errorf("%w: %s: %v", ErrUnavailable, p.spec.Name, err)
	}
	return providerv1.NewProviderServiceClient(c.Conn), c, nil
}

// Provision implements hub.Providers. It is never retried: a failure after
// the request may have reached the platform is ErrAmbiguous.
func (m *Manager) Provision(ctx context.Context, name, title string, reuse *store.Target) (store.Target, error) {
	p, err := m.get(name)
	if err != nil {
		return store.Target{}, err
	}
	if err := p.notServing(); err != nil {
		return store.Target{}, err // fail fast: a thread cannot be made now
	}
	if err := p.waitSettled(ctx); err != nil {
		return store.Target{}, err
	}
	cl, _, err := p.client(ctx)
	if err != nil {
		return store.Target{}, err
	}
	req := &providerv1.ProvisionTargetRequest{Name: title}
	if reuse != nil {
		req.Reuse = targetProto(*reuse)
	}
	var at attempt
	resp, err := cl.ProvisionTarget(ctx, req, at.opt())
	if err != nil {
		return store.Target{}, p.classify(err, &at)
	}
	t := targetFrom(name, resp.GetTarget())
	if t.Chat == "" {
		return store.Target{}, ambiguous("provider %s provisioned a thread without a chat id", name)
	}
	return t, nil
}

// Attach implements hub.Providers. The attachment is remembered and given
// to every later child too.
func (m *Manager) Attach(ctx context.Context, name, instanceID string, t store.Target) error {
	p, err := m.get(name)
	if err != nil {
		return err
	}
	if err := p.waitDetached(ctx, instanceID); err != nil {
		return err
	}
	p.mu.Lock()
	p.attached[instanceID] = attach{target: t}
	p.mu.Unlock()
	if p.adm.holdingCalls() {
		return nil // the successor is given it when it starts
	}
	if _, running := p.sup.Current(); !running {
		return nil // starting, backing off or FATAL: the next child is given it
	}
	forget := func() {
		p.mu.Lock()
		delete(p.attached, instanceID)
		p.mu.Unlock()
	}
	cl, _, err := p.client(ctx)
	if err != nil {
		forget()
		return err
	}
	var at attempt
	_, err = cl.Attach(ctx, attachRequest(instanceID, t), at.opt())
	if err != nil && !notAdmitting(err) { // closing for a restart: the successor gets it
		forget()
		return p.classify(err, &at)
	}
	return nil
}

// Detach implements hub.Providers. It forgets the attachment at once (the
// next child is only given the attachments still held) and queues telling
// the running child; it never waits for the child.
func (m *Manager) Detach(name, instanceID string) {
	p, err := m.get(name)
	if err != nil {
		return
	}
	p.mu.Lock()
	delete(p.attached, instanceID)
	p.detachQueue = append(p.detachQueue, instanceID)
	p.detachPending[instanceID]++
	p.mu.Unlock()
	select {
	case p.detachKick <- struct{}{}:
	default:
	}
}

// detacher sends the queued Detaches to the running child, in order, until
// ctx ends.
func (p *provider) detacher(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-p.detachKick:
		}
		p.mu.Lock()
		batch := p.detachQueue
		p.detachQueue = nil
		p.mu.Unlock()
		for _, id := range batch {
			if c, ok := p.sup.Current(); ok {
				dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
				_, err := providerv1.NewProviderServiceClient(c.Conn).Detach(dctx, &providerv1.DetachRequest{InstanceId: id})
				cancel()
				if err != nil && ctx.Err() == nil {
					p.log.Warn().Err(err).Str("instance_id", id).Msg("detach")
				}
			}
		}
		p.mu.Lock()
		for _, id := range batch {
			if p.detachPending[id]--; p.detachPending[id] <= 0 {
				delete(p.detachPending, id)
			}
		}
		close(p.detachSent)
		p.detachSent = make(chan struct{})
		p.mu.Unlock()
	}
}

// waitDetached waits until no Detach of instanceID is queued, so that the
// child sees Detach and Attach of one instance in the order they were made.
func (p *provider) waitDetached(ctx context.Context, instanceID string) error {
	for {
		p.mu.Lock()
		pending, sent := p.detachPending[instanceID], p.detachSent
		p.mu.Unlock()
		if pending == 0 {
			return nil
		}
		select {
		case <-sent:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// waitSettled waits until admission is open: a child runs, admits, and no
// doctor restart is under way.
func (p *provider) waitSettled(ctx context.Context) error {
	for {
		open, changed := p.adm.state()
		if open {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w: %s does not admit now (restarting or not running): %v", ErrUnavailable, p.spec.Name, ctx.Err())
		case <-changed:
		}
	}
}

// Status is one provider's state for busctl.
type Status struct {
	supervise.Status
	Default    bool
	Platform   string // as its last child declared it; "" until one did
	Attached   int
	Ingested   uint64
	NotAllowed uint64
	LastError  string
	// Serving (in supervise.Status) is the supervisor's view here: the
	// child serves and its updates can be journalled. HealthDetail says
	// why not; HealthSince when Serving last changed.
	HealthDetail string
	HealthSince  time.Time
	// WebURL is the page its last child declared for people, if any.
	WebURL string
	// HealthFlips counts the changes of Serving since the supervisor
	// started.
	HealthFlips uint64
	// CallsHeld is how many recorded calls wait their turn (the
	// platform's limits, a provider that does not admit); CallsOpen how
	// many call records wait or are being made.
	CallsHeld, CallsOpen int
	// Outbound is the outbound queue and its counters, with the limits in
	// force.
	Outbound outbound.Stats
	Limits   []outbound.Limit
}

// Statuses returns every provider's status, by name.
func (m *Manager) Statuses() []Status {
	m.mu.RLock()
	provs, def := make([]*provider, 0, len(m.provs)), m.def
	for _, p := range m.provs {
		provs = append(provs, p)
	}
	m.mu.RUnlock()
	out := make([]Status, 0, len(provs))
	for _, p := range provs {
		p.mu.Lock()
		n := len(p.attached)
		p.mu.Unlock()
		st := Status{Status: p.sup.Status(), Default: p.spec.Name == def,
			Attached: n, Ingested: p.ingested.Load(), NotAllowed: p.notAllowed.Load()}
		if d := p.desc.Load(); d != nil {
			st.Platform = d.Platform
		}
		if e := p.lastErr.Load(); e != nil {
			st.LastError = *e
		}
		st.Serving, st.HealthDetail, st.HealthSince = p.health.state()
		st.HealthFlips = p.health.flipCount()
		st.CallsHeld, st.CallsOpen = p.calls.counts()
		st.Outbound, st.Limits = p.sched.Stats(), p.sched.Limits()
		if st.State != supervise.StateRunning {
			st.Serving = false
		}
		if u := p.webURL.Load(); u != nil {
			st.WebURL = *u
		}
		out = append(out, st)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Thread returns how many of t's outbound calls wait their turn or are
// under way, and whether a lasting effect of its calls (a typing
// indicator) shows now.
func (m *Manager) Thread(t store.Target) (queued int, lasting bool) {
	p, ok := m.lookup(t.Provider)
	if !ok {
		return 0, false
	}
	n, until := p.sched.Thread(outbound.Thread{Chat: t.Chat, Thread: t.Thread})
	return n, !until.IsZero()
}

// Supervisor returns the named provider's supervisor (for the doctor).
func (m *Manager) Supervisor(name string) (*supervise.Supervisor, error) {
	p, err := m.get(name)
	if err != nil {
		return nil, err
	}
	return p.sup, nil
}

// Attached returns the instance ids bound through the provider.
func (m *Manager) Attached(name string) []string {
	p, err := m.get(name)
	if err != nil {
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]string, 0, len(p.attached))
	for id := range p.attached {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// Names returns the configured providers, sorted.
func (m *Manager) Names() []string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	out := make([]string, 0, len(m.provs))
	for n := range m.provs {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
