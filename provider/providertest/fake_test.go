package providertest_test

import (
	"context"
	"encoding/json"
	"io"
	"strconv"
	"testing"
	"time"

	"go.uber.org/goleak"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/provider"
	"github.com/chatbus/chatbus/provider/child"
	"github.com/chatbus/chatbus/provider/providertest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestFakeDefaults(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	f := &providertest.Fake{}
	h := providertest.Start(t, child.Config{Platform: f})

	for _, want := range []int64{1001, 1002} {
		res, err := h.Client.ProvisionTarget(ctx, &providerv1.ProvisionTargetRequest{Name: "A · x"})
		if err != nil || res.GetTarget().GetChat() != "-100" || res.GetTarget().GetThread() != strconv.FormatInt(want, 10) || res.GetName() != "A · x" {
			t.Fatalf("ProvisionTarget = %v, %v", res, err)
		}
	}

	res, err := h.Client.Call(ctx, &providerv1.CallRequest{Method: "sendMessage", ParamsJson: []byte(`{"text":"hi"}`), IdempotencyKey: "k1", Target: &providerv1.Target{Chat: "-100", Thread: "1001"}})
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(res.GetResultJson(), &out); err != nil || out["method"] != "sendMessage" {
		t.Fatalf("Call result %s, %v", res.GetResultJson(), err)
	}
	calls := f.Calls()
	if len(calls) != 1 || calls[0].Method != "sendMessage" || string(calls[0].Params) != `{"text":"hi"}` || calls[0].IdempotencyKey != "k1" {
		t.Fatalf("Calls = %+v", calls)
	}

	up, err := h.Client.UploadFile(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_ = up.Send(&providerv1.UploadFileRequest{Msg: &providerv1.UploadFileRequest_Header_{Header: &providerv1.UploadFileRequest_Header{Target: &providerv1.Target{Chat: "-100", Thread: "1001"}, Filename: "a.txt"}}})
	_ = up.Send(&providerv1.UploadFileRequest{Msg: &providerv1.UploadFileRequest_Chunk{Chunk: []byte("hello")}})
	ur, err := up.CloseAndRecv()
	if err != nil || string(ur.GetResultJson()) != `{"chat":"-100","filename":"a.txt","size":5,"thread":"1001"}` {
		t.Fatalf("UploadFile = %s, %v", ur.GetResultJson(), err)
	}

	if err := h.Stop(); err != nil {
		t.Fatal(err)
	}
}

// A Run that ignores its ctx cannot hold the shutdown past ShutdownTimeout.
func TestShutdownIsBounded(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	release := make(chan struct{})
	started := make(chan struct{})
	f := &providertest.Fake{RunFunc: func(context.Context, []byte, provider.Sink) error {
		close(started)
		<-release // deliberately deaf to ctx
		return nil
	}}
	h := providertest.Start(t, child.Config{Platform: f, ShutdownTimeout: 200 * time.Millisecond})
	s, err := h.Client.Updates(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Send(&providerv1.UpdatesRequest{Msg: &providerv1.UpdatesRequest_Start_{Start: &providerv1.UpdatesRequest_Start{}}}); err != nil {
		t.Fatal(err)
	}
	<-started
	t0 := time.Now()
	if err := h.Stop(); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(t0); d > 10*time.Second {
		t.Fatalf("Serve took %v to stop", d)
	}
	close(release)
	if _, err := s.Recv(); err == nil || err == io.EOF {
		t.Fatalf("stream after shutdown: %v", err)
	}
}
