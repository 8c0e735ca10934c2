package child_test

import (
	"context"
	"io"
	"sync/atomic"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/provider"
	"github.com/chatbus/chatbus/provider/providertest"
)

// firstGeneration encodes a message as a supervisor of the contract's
// first generation sent it: the thread as numbers only, in fields this
// generation reserves (chat_id 1, thread_id 2), plus the given fields.
func firstGeneration(t *testing.T, m proto.Message, chatID, threadID int64, rest ...func([]byte) []byte) {
	t.Helper()
	var b []byte
	b = protowire.AppendTag(b, 1, protowire.VarintType)
	b = protowire.AppendVarint(b, uint64(chatID))
	b = protowire.AppendTag(b, 2, protowire.VarintType)
	b = protowire.AppendVarint(b, uint64(threadID))
	for _, f := range rest {
		b = f(b)
	}
	if err := proto.Unmarshal(b, m); err != nil {
		t.Fatal(err)
	}
}

// TestFirstGenerationThreadRefused: a close or an upload naming its
// thread only by generation 1's numbers names no thread now; it is
// refused as such, and the platform is never asked to act on an empty
// target.
func TestFirstGenerationThreadRefused(t *testing.T) {
	ctx := providertest.Context(t)
	var platformCalls atomic.Int32
	f := &providertest.Fake{
		CloseTargetFunc: func(context.Context, provider.Target) error { platformCalls.Add(1); return nil },
		UploadFunc: func(context.Context, provider.UploadHeader, io.Reader) (provider.Result, error) {
			platformCalls.Add(1)
			return provider.Result{}, nil
		},
	}
	h := start(t, f)

	tests := []struct {
		name string
		rpc  func() error
	}{
		{"CloseTarget", func() error {
			req := &providerv1.CloseTargetRequest{}
			firstGeneration(t, req, -5, 7)
			_, err := h.Client.CloseTarget(ctx, req)
			return err
		}},
		{"UploadFile", func() error {
			hdr := &providerv1.UploadFileRequest_Header{}
			firstGeneration(t, hdr, -5, 7, func(b []byte) []byte {
				b = protowire.AppendTag(b, 3, protowire.BytesType)
				return protowire.AppendString(b, "a.txt")
			})
			if hdr.GetFilename() != "a.txt" {
				t.Fatalf("header %v", hdr)
			}
			up, err := h.Client.UploadFile(ctx)
			if err != nil {
				return err
			}
			if err := up.Send(&providerv1.UploadFileRequest{Msg: &providerv1.UploadFileRequest_Header_{Header: hdr}}); err != nil {
				return err
			}
			_ = up.Send(&providerv1.UploadFileRequest{Msg: &providerv1.UploadFileRequest_Chunk{Chunk: []byte("hello")}})
			_, err = up.CloseAndRecv()
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantCode(t, tt.rpc(), codes.InvalidArgument, "names no target thread")
		})
	}
	if n := platformCalls.Load(); n != 0 {
		t.Errorf("the platform was called %d times", n)
	}
}
