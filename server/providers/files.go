package providers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/server/hub"
	"github.com/chatbus/chatbus/server/store"
)

// uploadChunk is the size of the chunks streamed to the provider.
const uploadChunk = 256 << 10

// methodUpload names uploads to the scheduler (the limits that count
// "upload" count them) and in call records.
const methodUpload = "upload"

// uploadTimeout bounds one attempt at an upload (a large file on a slow
// link), whatever its caller's deadline.
const uploadTimeout = 10 * time.Minute

// Upload implements hub.Files. The file is spooled first (a temporary
// file), so that the upload can wait its turn in the provider's outbound
// scheduler like any call (paced by the limits that count "upload", held
// while the provider does not admit: a doctor restart) and be sent again
// when the child refused it as not admitting or rate limited. One with an
// idempotency key is recorded before it waits and made at most once (a
// repeat's file is read and dropped); one without waits with its caller,
// and is taken back, not sent, if its caller stops waiting first. A failed
// upload that may have reached the platform is not sent again.
func (m *Manager) Upload(ctx context.Context, t store.Target, u hub.Upload, r io.Reader) (hub.Result, error) {
	p, err := m.get(t.Provider)
	if err != nil {
		return hub.Result{}, err
	}
	sp, err := newSpool(r)
	if err != nil {
		return hub.Result{}, err
	}
	hdr, _ := json.Marshal(map[string]string{"filename": u.Filename, "caption": u.Caption, "kind": u.Kind})
	c := hub.Call{BindingKey: u.BindingKey, Key: u.Key, Target: t, Method: methodUpload, Params: hdr}
	if u.Key == "" {
		defer sp.remove()
		return p.callUnkeyed(ctx, c, func(ctx context.Context) (hub.Result, *providerv1.Pause, error) {
			return p.uploadOnce(ctx, t, u, sp)
		})
	}
	return p.calls.do(ctx, c, sp)
}

// spool is an upload's file, read once from its caller and sent from
// here as often as it must be.
type spool struct{ f *os.File }

func newSpool(r io.Reader) (*spool, error) {
	f, err := os.CreateTemp("", "chatbus-upload-*")
	if err != nil {
		return nil, fmt.Errorf("spooling an upload: %w", err)
	}
	sp := &spool{f: f}
	if _, err := io.Copy(f, r); err != nil {
		sp.remove()
		return nil, fmt.Errorf("reading an upload: %w", err)
	}
	return sp, nil
}

// remove deletes the spooled file; nil: nothing.
func (sp *spool) remove() {
	if sp == nil {
		return
	}
	sp.f.Close()
	os.Remove(sp.f.Name())
}

// uploadOnce streams the spooled file to the child's UploadFile.
func (p *provider) uploadOnce(ctx context.Context, t store.Target, u hub.Upload, sp *spool) (hub.Result, *providerv1.Pause, error) {
	cl, _, err := p.client(ctx)
	if err != nil {
		return hub.Result{}, nil, err
	}
	if _, err := sp.f.Seek(0, io.SeekStart); err != nil {
		return hub.Result{}, nil, err
	}
	var at attempt
	st, err := cl.UploadFile(ctx, at.opt())
	if err != nil {
		return hub.Result{}, nil, p.classifyHeld(err, &at)
	}
	hdr := &providerv1.UploadFileRequest_Header{Target: targetProto(t), Filename: u.Filename, Caption: u.Caption, Kind: u.Kind}
	if err := st.Send(&providerv1.UploadFileRequest{Msg: &providerv1.UploadFileRequest_Header_{Header: hdr}}); err != nil {
		_, err = st.CloseAndRecv()
		return hub.Result{}, nil, p.classifyHeld(err, &at)
	}
	buf := make([]byte, uploadChunk)
	for {
		n, rerr := sp.f.Read(buf)
		if n > 0 {
			if err := st.Send(&providerv1.UploadFileRequest{Msg: &providerv1.UploadFileRequest_Chunk{Chunk: buf[:n]}}); err != nil {
				break // the provider ended the stream: CloseAndRecv says why
			}
		}
		if errors.Is(rerr, io.EOF) {
			break
		}
		if rerr != nil {
			st.CloseSend()
			return hub.Result{}, nil, rerr
		}
	}
	resp, err := st.CloseAndRecv()
	if err != nil {
		return hub.Result{}, nil, p.classifyHeld(err, &at)
	}
	return hub.Result{JSON: resp.GetResultJson(), Refs: refsFrom(resp.GetReferences())}, nil, nil
}

// Download implements hub.Files.
func (m *Manager) Download(ctx context.Context, name, fileID string, fn func(chunk []byte, size int64, path string) error) error {
	p, err := m.get(name)
	if err != nil {
		return err
	}
	cl, _, err := p.client(ctx)
	if err != nil {
		return err
	}
	var at attempt
	st, err := cl.DownloadFile(ctx, &providerv1.DownloadFileRequest{FileId: fileID}, at.opt())
	if err != nil {
		return p.classify(err, &at)
	}
	for {
		msg, err := st.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return p.classify(err, &at)
		}
		if err := fn(msg.GetChunk(), msg.GetSize(), msg.GetFilePath()); err != nil {
			return err
		}
	}
}
