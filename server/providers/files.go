package providers

import (
	"context"
	"errors"
	"io"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/server/hub"
	"github.com/chatbus/chatbus/server/store"
)

// uploadChunk is the size of the chunks streamed to the provider.
const uploadChunk = 256 << 10

// Upload implements hub.Files: it streams r to the provider's UploadFile.
// A failed upload is not retried (the platform may have the file).
func (m *Manager) Upload(ctx context.Context, t store.Target, u hub.Upload, r io.Reader) (hub.Result, error) {
	p, err := m.get(t.Provider)
	if err != nil {
		return hub.Result{}, err
	}
	cl, _, err := p.client(ctx)
	if err != nil {
		return hub.Result{}, err
	}
	var at attempt
	st, err := cl.UploadFile(ctx, at.opt())
	if err != nil {
		return hub.Result{}, p.classify(err, &at)
	}
	hdr := &providerv1.UploadFileRequest_Header{Target: targetProto(t), Filename: u.Filename, Caption: u.Caption, Kind: u.Kind}
	if err := st.Send(&providerv1.UploadFileRequest{Msg: &providerv1.UploadFileRequest_Header_{Header: hdr}}); err != nil {
		return hub.Result{}, p.classify(err, &at)
	}
	buf := make([]byte, uploadChunk)
	for {
		n, rerr := r.Read(buf)
		if n > 0 {
			if err := st.Send(&providerv1.UploadFileRequest{Msg: &providerv1.UploadFileRequest_Chunk{Chunk: buf[:n]}}); err != nil {
				break // the provider ended the stream: CloseAndRecv says why
			}
		}
		if errors.Is(rerr, io.EOF) {
			break
		}
		if rerr != nil {
			return hub.Result{}, rerr
		}
	}
	resp, err := st.CloseAndRecv()
	if err != nil {
		return hub.Result{}, p.classify(err, &at)
	}
	return hub.Result{JSON: resp.GetResultJson(), Refs: refsFrom(resp.GetReferences())}, nil
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
