package provider

import (
	"context"
	"encoding/json"
	"io"
	"time"

	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/chatbus/chatbus/internal/enumtab"
	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
)

// Identity is who a platform connection is.
type Identity struct {
	// OwnerID is the platform identity of the connection (Telegram: the
	// bot's user id). A doctor fence naming another owner id is refused.
	OwnerID string
	// Account is the human-readable account (Telegram: @botname).
	Account string
}

// Target is a thread on the platform, named by the platform's own ids as
// text (Telegram: chat "-1001234567890", thread "42"; Slack: channel
// "C0123ABCD", thread the root message's ts). Thread "" is the chat itself
// (Telegram: the General topic).
type Target struct {
	Chat   string
	Thread string
	// Name is the thread's name where one is reported (Provision).
	Name string
}

// RefKind says what a platform id names. A provider may store the
// numbers (the playground's inbox does): never renumber one. It crosses to
// the wire through a table (refKinds), not by number.
type RefKind int

const (
	// RefMessage: a message (Telegram message_id, Slack ts, Discord
	// message id).
	RefMessage RefKind = 1
	// RefFile: a file (Telegram file_id, Slack file id, Discord attachment).
	RefFile RefKind = 2
	// RefInteraction: an interaction to answer (Telegram callback query,
	// Slack block action, Discord interaction).
	RefInteraction RefKind = 3
)

// refKinds maps RefKind onto the contract's ReferenceKind; a kind outside
// it goes out as REFERENCE_KIND_UNSPECIFIED, which the supervisor drops.
var refKinds = enumtab.New(map[RefKind]providerv1.ReferenceKind{
	RefMessage:     providerv1.ReferenceKind_REFERENCE_KIND_MESSAGE,
	RefFile:        providerv1.ReferenceKind_REFERENCE_KIND_FILE,
	RefInteraction: providerv1.ReferenceKind_REFERENCE_KIND_INTERACTION,
})

func (k RefKind) String() string {
	switch k {
	case RefMessage:
		return "message"
	case RefFile:
		return "file"
	case RefInteraction:
		return "interaction"
	}
	return "unknown"
}

// Ref is one platform id a thread's follower may name in a later call.
type Ref struct {
	Kind RefKind
	ID   string
}

// Param is a call parameter that names an id of the thread: the
// supervisor refuses a value of that kind the thread never saw.
type Param struct {
	// Name is the top-level key in the call's JSON params.
	Name     string
	Kind     RefKind
	Required bool
}

// Method is one platform method followers may call.
type Method struct {
	Name   string
	Params []Param
	// Idempotent: the platform makes a call of it at most once per
	// idempotency key, so the supervisor may send a call whose outcome is
	// unknown again, with its key.
	Idempotent bool
	// Lane says which calls go first when calls wait for the limits.
	Lane Lane
	// Overwrites: a call of it overwrites the messages it names (its
	// Params of kind RefMessage): a queued call of the same method and
	// thread naming the same messages is replaced by a newer one, whose
	// outcome both callers get (an edit of a message's text).
	Overwrites bool
	// Lasts, if set, is how long a call's effect shows on the platform (a
	// typing indicator): a repeat in the same thread while it shows is
	// answered without a platform call.
	Lasts time.Duration
	// InThread: the call goes into the caller's thread by a param the
	// Platform fills in itself (Telegram's message_thread_id, Slack's
	// thread_ts). It is the Platform's own, for its scope (see [Params]);
	// the supervisor is not told.
	InThread bool
}

// Methods is a platform's method table, declared once as a package
// variable and returned in [Description.Methods].
type Methods []Method

// Find returns the method named name.
func (ms Methods) Find(name string) (Method, bool) {
	for _, m := range ms {
		if m.Name == name {
			return m, true
		}
	}
	return Method{}, false
}

// Description is what a platform declares about itself. The supervisor
// allows exactly the listed methods and checks their Params against the
// ids each thread has seen; everything else about a call (which chat,
// which thread) the Platform scopes itself in Call.
type Description struct {
	// Platform names it ("telegram", "slack", "discord", "playground").
	Platform string
	Methods  Methods
	// MaxTextChars is the longest text one message may carry; 0 unknown.
	MaxTextChars int
	// WebURL is a page people open to use the platform, if the provider
	// serves one (the playground's web chat), with its access token. The
	// supervisor shows it to its owner only (its log, busctl). "" if none.
	WebURL string
	// Verbs are the message verbs the Platform implements ([Messenger],
	// [Reactor], [Typist], [Answerer]). If empty, the SDK declares every
	// verb the Platform has an interface for, none idempotent. A method
	// must not be named as a verb.
	Verbs []Verb
	// Limits are the platform's rate limits, as the operator's settings
	// ([LimitSettings]) left them: the supervisor paces calls to stay
	// within them. Empty: nothing is paced.
	Limits []RateLimit
	// CommandPrefix is how a person writes a command to chatbus on the
	// platform, before its name ("/", "/chatbus ", "": see
	// DescribeResponse.command_prefix).
	CommandPrefix string
	// ThreadLink opens a thread, "{thread}" standing for its id; "" none.
	ThreadLink string
}

// Result is what a call or an upload produced: the platform's JSON answer
// and the ids it made available to the thread (the message sent, its
// files), which later calls of the thread may then name.
type Result struct {
	JSON json.RawMessage
	Refs []Ref
	// Pause, if set, says the platform has no room left in a scope for a
	// while (see [Pause]).
	Pause *Pause
}

// UploadHeader describes a file being uploaded into a target.
type UploadHeader struct {
	Target   Target
	Filename string
	Caption  string
	// Kind is "document" or "photo"; the Platform decides what it accepts.
	Kind string
}

// ProvisionRequest asks for a thread.
type ProvisionRequest struct {
	// Chat to create it in; "" means the platform's configured chat.
	Chat string
	// Name of the thread, e.g. "A · myproject".
	Name string
	// Reuse, if set, is a thread the slot had before (its binding went
	// offline): reuse it if it still exists, renamed to Name and reopened
	// if closed, instead of creating one. If it is gone, create a new one.
	Reuse *Target
}

// Provisioned is the thread Provision made or reused.
type Provisioned struct {
	Target
	// Reused: the thread in ProvisionRequest.Reuse was reused.
	Reused bool
}

// Platform is what one chat platform implements. The SDK calls its methods
// concurrently (Run at most once at a time); each must return when its ctx
// ends. Errors are mapped to gRPC codes by the SDK: return an [*Error] or
// wrap one of the sentinels in errors.go ([ErrNotFound], [ErrInvalid],
// [ErrRateLimited] via [RateLimited], [ErrAmbiguous], …). An error the SDK
// cannot classify is reported as codes.Unknown, which the supervisor treats
// like [ErrAmbiguous]: the platform may have done it.
type Platform interface {
	// Identify returns the connection's identity. The SDK caches the first
	// successful answer for the life of the process.
	Identify(ctx context.Context) (Identity, error)

	// Describe declares the platform's method set and limits. It must not
	// reach the platform; the SDK asks once.
	Describe() Description

	// Run is the platform's receive loop, started at cursor: the opaque
	// cursor the platform last reported (Update.Cursor) with an update the
	// supervisor made durable, nil if none (start wherever the platform
	// holds). It hands updates to sink and may advance the platform's
	// cursor only past the ackedThrough that Deliver returns. It returns
	// when ctx ends (the Updates stream ended or was superseded, or the
	// provider stops); the SDK never runs two Runs at once.
	Run(ctx context.Context, cursor []byte, sink Sink) error

	// Call makes one platform API call with JSON params in thread t and
	// returns the result. The supervisor has checked method against
	// Describe and the Params that name ids against the thread; the
	// Platform scopes the call to t (fills in the chat and thread) and
	// refuses params that name another chat or thread with an error
	// wrapping [ErrOutOfScope]. idempotencyKey is the supervisor's key for
	// the call (may be empty); a platform that can de-duplicate uses it.
	Call(ctx context.Context, t Target, method string, params json.RawMessage, idempotencyKey string) (Result, error)

	// Upload sends the file read from r into h.Target. r ends (io.EOF)
	// when the supervisor has sent the whole file.
	Upload(ctx context.Context, h UploadHeader, r io.Reader) (Result, error)

	// Download opens a platform file by id. size is -1 or 0 when the
	// platform does not say; path is the platform's file path, if any. The
	// SDK closes rc.
	Download(ctx context.Context, fileID string) (rc io.ReadCloser, size int64, path string, err error)

	// Provision creates (or reuses) a thread. It is not idempotent on the
	// platform: when the outcome is unknown (a timeout after the request
	// was sent) return an error wrapping [ErrAmbiguous] so nobody retries
	// it blindly.
	Provision(ctx context.Context, req ProvisionRequest) (Provisioned, error)

	// CloseTarget closes a thread. Closing a closed thread succeeds.
	CloseTarget(ctx context.Context, t Target) error
}

// AttachWatcher is an optional interface of a [Platform]: a Platform that
// implements it is told which followers are attached through it, for
// platforms that must know which threads are bound (Discord catches up on
// the bound threads by REST after a gateway session it could not resume).
// Attached is called after the fence admitted an Attach (for every admitted
// Attach, also a repeated one, which may name another target); Detached
// once for each Detach of an attached instance id (never for an unknown
// one). Both are called synchronously from the RPC and must not block or
// reach the platform.
type AttachWatcher interface {
	Attached(instanceID string, t Target)
	Detached(instanceID string)
}

// Sink is where Run hands updates. The SDK's Sink is bound to one Updates
// stream; once that stream ends every Deliver fails with [ErrStreamEnded].
type Sink interface {
	// Deliver sends updates (update ids positive and strictly increasing,
	// across calls too) on the Updates stream and blocks until the
	// supervisor has acknowledged all of them. It returns the highest
	// update id acknowledged on this stream so far (0 if none), also on
	// error: when ctx ends or the stream ends before every update is
	// acknowledged, the error says why and ackedThrough is the partial ack
	// point. The platform must not advance its cursor past ackedThrough.
	//
	// Each update names its thread by Chat and Thread (text), carries the
	// ids a follower may name later in References.Items, its platform id
	// for de-duplication in DedupId (empty: UpdateId is it) and, where the
	// platform has one, the cursor to resume from once it is durable in
	// Cursor.
	//
	// While admission is closed by a doctor Prepare (or the provider is
	// shutting down) Deliver sends nothing and returns an error matching
	// [ErrNotAdmitting] at once: leave those updates at the platform and
	// back off. Concurrent calls are serialized.
	Deliver(ctx context.Context, updates []*providerv1.Update) (ackedThrough int64, err error)
}

// RefsProto converts refs to their wire form.
func RefsProto(refs []Ref) *providerv1.References {
	out := &providerv1.References{Items: make([]*providerv1.Reference, 0, len(refs))}
	for _, r := range refs {
		out.Items = append(out.Items, &providerv1.Reference{Kind: refKinds.Proto(r.Kind), Id: r.ID})
	}
	return out
}

func (d Description) Proto() *providerv1.DescribeResponse {
	out := &providerv1.DescribeResponse{Platform: d.Platform, MaxTextChars: uint32(max(d.MaxTextChars, 0)), WebUrl: d.WebURL,
		CommandPrefix: d.CommandPrefix, ThreadLink: d.ThreadLink}
	for _, v := range d.Verbs {
		pv := &providerv1.Verb{Name: v.Name, Idempotent: v.Idempotent}
		if v.Lasts > 0 {
			pv.Lasts = durationpb.New(v.Lasts)
		}
		out.Verbs = append(out.Verbs, pv)
	}
	for _, l := range d.Limits {
		out.Limits = append(out.Limits, l.proto())
	}
	for _, m := range d.Methods {
		pm := &providerv1.Method{Name: m.Name, Idempotent: m.Idempotent, Lane: m.Lane.proto(), Overwrites: m.Overwrites}
		if m.Lasts > 0 {
			pm.Lasts = durationpb.New(m.Lasts)
		}
		for _, p := range m.Params {
			pm.Params = append(pm.Params, &providerv1.MethodParam{Name: p.Name, Kind: refKinds.Proto(p.Kind), Required: p.Required})
		}
		out.Methods = append(out.Methods, pm)
	}
	return out
}

func TargetFromProto(t *providerv1.Target) Target {
	return Target{Chat: t.GetChat(), Thread: t.GetThread(), Name: t.GetName()}
}

func TargetProto(t Target) *providerv1.Target {
	return &providerv1.Target{Chat: t.Chat, Thread: t.Thread, Name: t.Name}
}
