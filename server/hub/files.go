package hub

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/chatbus/chatbus/server/registry"
	"github.com/chatbus/chatbus/server/store"
)

// Upload describes a file a follower sends into its thread.
type Upload struct {
	Filename string
	Caption  string
	Kind     string // "document" or "photo"; "" = document
	// Key is the follower's idempotency key ("": none): an upload with one
	// is made at most once, recorded under BindingKey (the hub sets it).
	Key        string
	BindingKey string
}

// Files is what the hub needs from providers for file transfer.
type Files interface {
	// Upload sends r into thread t; the result names the message sent.
	Upload(ctx context.Context, t store.Target, u Upload, r io.Reader) (Result, error)
	Download(ctx context.Context, provider, fileID string, fn func(chunk []byte, size int64, path string) error) error
}

// Upload sends r into the follower's own thread. An upload that finds the
// thread deleted gives the binding a new thread (topics.go) but is not
// made again (the file was read): it fails, and the follower sends it
// again into its new thread.
func (h *Hub) Upload(ctx context.Context, f *registry.Follower, u Upload, r io.Reader) (Result, error) {
	b, err := h.activeBinding(f, "upload")
	if err != nil {
		return Result{}, err
	}
	u.BindingKey = b.Key
	res, err := h.cfg.Providers.Upload(ctx, b.Target, u, r)
	if errors.Is(err, ErrTargetGone) {
		if _, rerr := h.replaceThread(ctx, b.Key, b.Target); rerr != nil {
			h.log.Warn().Err(rerr).Str("binding", b.Key).Msg("an upload found its thread deleted; it could not be replaced")
		}
	}
	if err != nil {
		return Result{}, err
	}
	h.learnSent(b.Target, res.Refs)
	return res, nil
}

// Download streams a file that arrived in the follower's thread; a file id
// the thread has not seen is out of scope.
func (h *Hub) Download(ctx context.Context, f *registry.Follower, fileID string, fn func(chunk []byte, size int64, path string) error) error {
	b, err := h.activeBinding(f, "download")
	if err != nil {
		return err
	}
	if !h.scopeOf(b.Target).has(store.RefFile, fileID) {
		return fmt.Errorf("%w: file %q did not arrive in your thread", ErrOutOfScope, fileID)
	}
	return h.cfg.Providers.Download(ctx, b.Target.Provider, fileID, fn)
}

func (h *Hub) activeBinding(f *registry.Follower, what string) (store.Binding, error) {
	key := h.Binding(f)
	if key == "" {
		return store.Binding{}, fmt.Errorf("%s: %w", what, ErrDetached)
	}
	b, err := h.store.GetBinding(key)
	if err != nil {
		return store.Binding{}, err
	}
	if b.Status != store.StatusActive || b.Target.IsZero() {
		return store.Binding{}, fmt.Errorf("%s: %w (status %s)", what, ErrNotActive, b.Status)
	}
	return b, nil
}
