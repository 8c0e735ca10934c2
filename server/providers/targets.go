package providers

import (
	"context"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/server/store"
)

// CloseTarget implements hub.Providers: the provider's CloseTarget on its
// running child. Closing is idempotent on the platform, so the hub simply
// tries again later when it fails; a deleted thread is ErrTargetGone.
func (m *Manager) CloseTarget(ctx context.Context, t store.Target) error {
	p, err := m.get(t.Provider)
	if err != nil {
		return err
	}
	cl, _, err := p.client(ctx)
	if err != nil {
		return err
	}
	var at attempt
	if _, err := cl.CloseTarget(ctx, &providerv1.CloseTargetRequest{Target: targetProto(t)}, at.opt()); err != nil {
		return classify(err, &at)
	}
	return nil
}
