package e2e

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/chatbus/chatbus/client"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
)

// TestMinimalProviderUnderSupervisord: provider-minimal, the provider
// docs/writing-a-provider.md walks through, runs as a real child of
// supervisord: it starts, declares itself, makes a follower's thread, takes
// the send verb and its echo reaches the follower as an update.
func TestMinimalProviderUnderSupervisord(t *testing.T) {
	cfg := fmt.Sprintf("heartbeat_interval: 200ms\nstale_after: 3s\nreconcile_grace: 1s\nproviders:\n  minimal:\n    binary: %s\n    prefix: \"echo: \"\n", filepath.Join(binDir, "provider-minimal"))
	b := startBus(t, newProfile(t), cfg)
	b.waitProvider(t, func(pi *chatbusv1.ProviderInfo) bool {
		return pi.GetState() == chatbusv1.ProviderState_PROVIDER_STATE_RUNNING && pi.GetServing()
	}, "RUNNING and serving")
	fl := follow(t, b.c, "manual:1", "/w/minimal")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := fl.f.Send(ctx, client.Message{Text: "hello"}, ""); err != nil {
		t.Fatal(err)
	}
	callOK(t, fl, "note", `{"text":"a note, not echoed"}`)
	if _, err := fl.f.Call(ctx, "note", []byte(`{"thread":"999","text":"x"}`), ""); status.Code(err) != codes.PermissionDenied {
		t.Errorf("a note into another thread: %v, want PermissionDenied", err)
	}
	fl.waitTexts(t, "echo: hello")
}
