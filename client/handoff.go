package client

import (
	"context"
	"time"

	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
)

// Handoff is what a suspended follower hands to its successor.
type Handoff struct {
	// Token goes into the successor's Registration.HandoffToken.
	Token string
	// Expires is when the supervisor stops holding the binding for it.
	Expires time.Time
}

// Suspend ends the session for a successor (a reload): the supervisor
// holds the binding (its thread and every unacknowledged update; the acks
// noted are sent first) for the
// successor that registers with the returned token before it expires.
// The heartbeat stops and the registration is left; the binding stays
// suspended (leaving does not take it offline). After Suspend the
// Follower is closed: Close does nothing more.
//
// If Suspend fails the session is left as it was (still registered and
// heartbeating); the caller may retry or Close.
func (f *Follower) Suspend(ctx context.Context) (Handoff, error) {
	// What was handled is acknowledged first: the successor gets only
	// what this session did not handle.
	if err := f.FlushAcks(ctx); err != nil {
		return Handoff{}, err
	}
	resp, err := f.c.Bus.Suspend(ctx, &chatbusv1.SuspendRequest{
		Session: f.Session(),
		Reason:  chatbusv1.SuspendReason_SUSPEND_REASON_SESSION_REPLACEMENT,
	})
	if err != nil {
		return Handoff{}, Err(err)
	}
	h := Handoff{Token: resp.GetHandoffToken(), Expires: resp.GetExpiresAt().AsTime()}
	// A suspended binding is not taken offline when its session leaves.
	return h, f.Close(ctx)
}
