package provider

import (
	"context"
	"fmt"
	"runtime/debug"

	"google.golang.org/protobuf/types/known/timestamppb"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
)

// Poison updates. A platform update the provider cannot convert (its
// decoding fails, or the conversion panics) must not end the Updates
// stream: the stream would start again at the same cursor, meet the same
// update and end again, forever, and every update after it would wait at
// the platform. Instead the provider delivers it as a dead letter
// (Update.conversion_error set, the platform's update as received in
// payload, update_id, dedup_id and cursor as for any update); the
// supervisor keeps it aside, durably, which is what lets the cursor move
// past it, and an operator retries it (ConvertUpdate, once the provider
// can) or drops it.

// Converter is an optional interface of a [Platform]: one that implements
// it converts a platform update apart from its receive loop, so that an
// operator can retry a dead letter (a provider upgraded since may convert
// it now). payload, kind and dedupID are the dead letter's. It returns
// the update (with no update id or cursor: the supervisor journals it
// beside the stream), nil and no error if the platform would not route it
// at all, or why it still cannot be converted.
type Converter interface {
	ConvertUpdate(ctx context.Context, payload []byte, kind providerv1.UpdateKind, dedupID string) (*providerv1.Update, error)
}

// Convert runs convert, the conversion of one platform update (raw, as
// the platform sent it), and contains its failure: an error or a panic
// makes the result [DeadLetter](raw, the error). The caller then sets the
// dead letter's UpdateId, DedupId and Cursor as it would have for the
// update, and Kind if it knows it. convert may return nil and no error
// (nothing to deliver); Convert then returns nil.
func Convert(raw []byte, convert func() (*providerv1.Update, error)) (u *providerv1.Update) {
	defer func() {
		if r := recover(); r != nil {
			u = DeadLetter(raw, PanicError(r))
		}
	}()
	up, err := convert()
	if err != nil {
		return DeadLetter(raw, err)
	}
	return up
}

// maxPanicStack bounds the stack a [PanicError] carries.
const maxPanicStack = 4 << 10

// PanicError is the error a recovered panic r is reported as: its value
// and the start of the stack that panicked.
func PanicError(r any) error {
	stack := debug.Stack()
	if len(stack) > maxPanicStack {
		stack = stack[:maxPanicStack]
	}
	return fmt.Errorf("panic: %v\n%s", r, stack)
}

// DeadLetter is the update that sets raw aside: conversion_error says
// why, payload holds raw. The caller sets UpdateId, DedupId and Cursor.
func DeadLetter(raw []byte, err error) *providerv1.Update {
	return &providerv1.Update{Payload: raw, ConversionError: err.Error(), ReceivedAt: timestamppb.Now()}
}
