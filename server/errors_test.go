package server

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/chatbus/chatbus/client"
	"github.com/chatbus/chatbus/server/hub"
	"github.com/chatbus/chatbus/server/registry"
	"github.com/chatbus/chatbus/server/store"
)

// TestToStatus: a domain error, wrapped with context, becomes its code and
// ErrorInfo reason from the one table; the client maps the code back.
func TestToStatus(t *testing.T) {
	tests := []struct {
		name   string
		err    error
		code   codes.Code
		reason string
		client error
	}{
		{name: "fenced", err: fmt.Errorf("etcdstore: leadership /k@7 gone: %w", store.ErrFenced),
			code: codes.Unavailable, reason: "FENCED", client: client.ErrUnavailable},
		{name: "store closed", err: fmt.Errorf("etcdstore: %w", store.ErrClosed),
			code: codes.Unavailable, reason: "SHUTTING_DOWN", client: client.ErrUnavailable},
		{name: "session unknown", err: fmt.Errorf("heartbeat: %w", registry.ErrSessionUnknown),
			code: codes.NotFound, reason: "SESSION_UNKNOWN", client: client.ErrSessionUnknown},
		{name: "out of scope", err: fmt.Errorf("call: %w", hub.ErrOutOfScope),
			code: codes.PermissionDenied, reason: "OUT_OF_SCOPE", client: client.ErrPermissionDenied},
		{name: "no reason", err: fmt.Errorf("params: %w", hub.ErrBadParams),
			code: codes.InvalidArgument, client: client.ErrInvalidArgument},
		{name: "canceled", err: fmt.Errorf("stream: %w", context.Canceled), code: codes.Canceled},
		{name: "unknown", err: errors.New("something else"), code: codes.Internal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := toStatus(tt.err)
			st := status.Convert(err)
			if st.Code() != tt.code || st.Message() != tt.err.Error() {
				t.Errorf("status %v %q, want %v %q", st.Code(), st.Message(), tt.code, tt.err.Error())
			}
			var reason string
			for _, d := range st.Details() {
				if info, ok := d.(*errdetails.ErrorInfo); ok && info.GetDomain() == ErrorDomain {
					reason = info.GetReason()
				}
			}
			if reason != tt.reason {
				t.Errorf("reason %q, want %q", reason, tt.reason)
			}
			if tt.client != nil && !errors.Is(client.Err(err), tt.client) {
				t.Errorf("the client maps it to %v, want %v", client.Err(err), tt.client)
			}
		})
	}
}
