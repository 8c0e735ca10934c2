package provider

import (
	"context"
	"encoding/json"
	"io"

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

// UploadHeader describes a file being uploaded into a target.
type UploadHeader struct {
	ChatID   int64
	ThreadID int64
	Filename string
	Caption  string
	// Kind is "document" or "photo"; the Platform decides what it accepts.
	Kind string
}

// Target is a thread on the platform (Telegram: a forum topic).
type Target struct {
	ChatID   int64
	ThreadID int64
	Name     string
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

	// Run is the platform's receive loop, started at cursor (Telegram: the
	// getUpdates offset; 0 = wherever the platform holds). It hands updates
	// to sink and may advance the platform's cursor only past the
	// ackedThrough that Deliver returns. It returns when ctx ends (the
	// Updates stream ended or was superseded, or the provider stops); the
	// SDK never runs two Runs at once.
	Run(ctx context.Context, cursor int64, sink Sink) error

	// Call makes one platform API call with JSON params and returns the
	// JSON result. idempotencyKey is the supervisor's key for the call
	// (may be empty); a platform that can de-duplicate uses it.
	Call(ctx context.Context, method string, params json.RawMessage, idempotencyKey string) (json.RawMessage, error)

	// Upload sends the file read from r into the target in h and returns
	// the platform's JSON result. r ends (io.EOF) when the supervisor has
	// sent the whole file.
	Upload(ctx context.Context, h UploadHeader, r io.Reader) (json.RawMessage, error)

	// Download opens a platform file by id. size is -1 or 0 when the
	// platform does not say; path is the platform's file path, if any. The
	// SDK closes rc.
	Download(ctx context.Context, fileID string) (rc io.ReadCloser, size int64, path string, err error)

	// Provision creates a thread named name in chatID (0: the platform's
	// configured chat). It is not idempotent on the platform: when the
	// outcome is unknown (a timeout after the request was sent) return an
	// error wrapping [ErrAmbiguous] so nobody retries it blindly.
	Provision(ctx context.Context, chatID int64, name string) (Target, error)

	// CloseTarget closes a thread.
	CloseTarget(ctx context.Context, chatID, threadID int64) error
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
	// While admission is closed by a doctor Prepare (or the provider is
	// shutting down) Deliver sends nothing and returns an error matching
	// [ErrNotAdmitting] at once: leave those updates at the platform and
	// back off. Concurrent calls are serialized.
	Deliver(ctx context.Context, updates []*providerv1.Update) (ackedThrough int64, err error)
}
