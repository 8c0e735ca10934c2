package child_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/provider"
	"github.com/chatbus/chatbus/provider/providertest"
)

// TestToldToStopCallsNoPlatform: a child told to stop (SIGTERM ends
// Serve's context: a supervisor stopping; a deposed leader's supervisor
// kills its child at once instead) ends its platform receive loop at once
// and makes no platform call it had not admitted: a call and a
// provisioning made from then on are refused UNAVAILABLE and never reach
// the platform, while the call it had admitted before is still being
// made (the drain).
func TestToldToStopCallsNoPlatform(t *testing.T) {
	ctx := providertest.Context(t)
	p := newRunProbe()
	b := newBlocker()
	var calls, provisions atomic.Int64
	h := start(t, &providertest.Fake{RunFunc: p.run,
		CallFunc: func(ctx context.Context, _ provider.Target, _ string, _ json.RawMessage, _ string) (provider.Result, error) {
			calls.Add(1)
			if err := b.block(ctx); err != nil {
				return provider.Result{}, err
			}
			return provider.Result{JSON: []byte(`{}`)}, nil
		},
		ProvisionFunc: func(context.Context, provider.ProvisionRequest) (provider.Provisioned, error) {
			provisions.Add(1)
			return provider.Provisioned{}, nil
		}})
	openUpdates(t, ctx, h, 0)
	run := p.next(t)
	first := make(chan error, 1)
	go func() {
		_, err := h.Client.Call(ctx, &providerv1.CallRequest{Method: "sendMessage", ParamsJson: []byte(`{}`), Target: testTarget})
		first <- err
	}()
	b.waitEntered(t)

	stopped := make(chan error, 1)
	go func() { stopped <- h.Stop() }()
	select {
	case <-run.ctx.Done():
	case <-time.After(wait):
		t.Fatal("the platform's receive loop goes on after the child was told to stop")
	}
	_, err := h.Client.Call(ctx, &providerv1.CallRequest{Method: "sendMessage", ParamsJson: []byte(`{}`), Target: testTarget})
	if status.Code(err) != codes.Unavailable {
		t.Errorf("a call after the stop: %v, want UNAVAILABLE", err)
	}
	_, err = h.Client.ProvisionTarget(ctx, &providerv1.ProvisionTargetRequest{Name: "A · x", Chat: "-5"})
	if status.Code(err) != codes.Unavailable {
		t.Errorf("a provisioning after the stop: %v, want UNAVAILABLE", err)
	}
	if n, m := calls.Load(), provisions.Load(); n != 1 || m != 0 {
		t.Errorf("the platform was called %d times and provisioned %d after the stop; want only the call admitted before", n-1, m)
	}
	close(b.release)
	if err := <-first; err != nil {
		t.Errorf("the call admitted before the stop: %v", err)
	}
	if err := <-stopped; err != nil {
		t.Errorf("Serve: %v", err)
	}
}
