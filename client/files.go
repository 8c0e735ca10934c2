package client

import (
	"context"
	"errors"
	"fmt"
	"io"

	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
)

// uploadChunk is the size of one UploadFile chunk (the proto allows 1 MiB).
const uploadChunk = 256 << 10

// Upload is one file to send into the follower's thread.
type Upload struct {
	// Filename is what the platform shows (no '/'); required.
	Filename string
	// Caption goes with the file; may be empty.
	Caption string
	// Kind is "document" (the default when empty) or "photo".
	Kind string
	// IdempotencyKey, if set, makes the upload at most once: a repeat of
	// the key answers the first upload's outcome without uploading again.
	IdempotencyKey string
}

// UploadFile streams r as a file into the follower's own thread and
// returns the platform's result (the message sent) and the ids it made
// available. Errors are the supervisor's, mapped as by Err.
func (f *Follower) UploadFile(ctx context.Context, u Upload, r io.Reader) (*chatbusv1.UploadFileResponse, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // ends the stream if a chunk cannot be sent
	stream, err := f.c.Bus.UploadFile(ctx)
	if err != nil {
		return nil, Err(err)
	}
	header := &chatbusv1.UploadHeader{Session: f.Session(), Filename: u.Filename, Caption: u.Caption, Kind: u.Kind, IdempotencyKey: u.IdempotencyKey}
	if err := stream.Send(&chatbusv1.UploadFileRequest{Msg: &chatbusv1.UploadFileRequest_Header{Header: header}}); err != nil {
		return nil, uploadErr(stream, err)
	}
	buf := make([]byte, uploadChunk)
	for {
		n, rerr := r.Read(buf)
		if n > 0 {
			chunk := append([]byte(nil), buf[:n]...)
			if err := stream.Send(&chatbusv1.UploadFileRequest{Msg: &chatbusv1.UploadFileRequest_Chunk{Chunk: chunk}}); err != nil {
				return nil, uploadErr(stream, err)
			}
		}
		if errors.Is(rerr, io.EOF) {
			break
		}
		if rerr != nil {
			return nil, fmt.Errorf("upload %s: read: %w", u.Filename, rerr)
		}
	}
	resp, err := stream.CloseAndRecv()
	return resp, Err(err)
}

// uploadErr: a Send that failed because the server ended the stream
// reports io.EOF; the server's reason comes with CloseAndRecv.
func uploadErr(stream chatbusv1.BusService_UploadFileClient, err error) error {
	if errors.Is(err, io.EOF) {
		_, err = stream.CloseAndRecv()
	}
	return Err(err)
}

// Downloaded describes a file DownloadFile wrote.
type Downloaded struct {
	// Size is the platform's size of the file, if it said; Written is what
	// was written to w.
	Size, Written int64
	// Path is the platform's path of the file (Telegram:
	// "documents/file_7.pdf"); its extension is usually the file's.
	Path string
}

// DownloadFile writes the file fileID, which arrived in the follower's
// thread, to w. A file id the thread never saw is ErrPermissionDenied.
func (f *Follower) DownloadFile(ctx context.Context, fileID string, w io.Writer) (Downloaded, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := f.c.Bus.DownloadFile(ctx, &chatbusv1.DownloadFileRequest{Session: f.Session(), FileId: fileID})
	if err != nil {
		return Downloaded{}, Err(err)
	}
	var d Downloaded
	first := true
	for {
		msg, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return d, nil
		}
		if err != nil {
			return d, Err(err)
		}
		if first {
			d.Size, d.Path, first = msg.GetSize(), msg.GetFilePath(), false
		}
		n, err := w.Write(msg.GetChunk())
		d.Written += int64(n)
		if err != nil {
			return d, fmt.Errorf("download %s: write: %w", fileID, err)
		}
	}
}
