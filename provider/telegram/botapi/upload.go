package botapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"
)

// errUploadAborted stops the multipart writer once the request is over.
var errUploadAborted = errors.New("botapi: upload aborted")

// SendDocument uploads the contents of r as a document named filename to
// a chat (threadID zero: the General topic or a chat without topics) and
// returns the sent message.
//
// The body is streamed: a goroutine writes the multipart form into an
// io.Pipe while net/http sends it, so the file is never held in memory.
// The request is bounded only by ctx (uploads may legitimately be slow).
// SendDocument returns only after it has stopped reading r; r is not
// closed. If r can block indefinitely, the caller must unblock it (e.g.
// close it) when ctx is done.
func (c *Client) SendDocument(ctx context.Context, chatID int64, threadID int, filename string, r io.Reader, caption string) (Message, error) {
	res, err := c.SendFile(ctx, "sendDocument", "document", chatID, threadID, filename, r, caption)
	if err != nil {
		return Message{}, err
	}
	var m Message
	if err := c.decodeResult("sendDocument", res, &m); err != nil {
		return Message{}, err
	}
	return m, nil
}

// SendFile is SendDocument for any upload method: method is e.g.
// "sendPhoto" and field the form field that carries the file ("photo").
// It returns the raw result.
func (c *Client) SendFile(ctx context.Context, method, field string, chatID int64, threadID int, filename string, r io.Reader, caption string) (json.RawMessage, error) {
	pr, pw := io.Pipe()
	mw := multipart.NewWriter(pw)
	done := make(chan struct{})
	go func() {
		defer close(done)
		pw.CloseWithError(writeFileForm(mw, field, chatID, threadID, filename, r, caption))
	}()

	res, err := c.post(ctx, method, pr, mw.FormDataContentType())
	// The transport may close the body asynchronously, after post
	// returns; close it now so the writer stops, then wait for it so r
	// is no longer in use.
	pr.CloseWithError(errUploadAborted)
	<-done
	return res, err
}

// writeDocumentForm writes the sendDocument form: the small fields first,
// so a server can validate them before the file arrives, then the file.
func writeFileForm(mw *multipart.Writer, field string, chatID int64, threadID int, filename string, r io.Reader, caption string) error {
	fields := [][2]string{{"chat_id", strconv.FormatInt(chatID, 10)}}
	if threadID != 0 {
		fields = append(fields, [2]string{"message_thread_id", strconv.Itoa(threadID)})
	}
	if caption != "" {
		fields = append(fields, [2]string{"caption", caption})
	}
	for _, f := range fields {
		if err := mw.WriteField(f[0], f[1]); err != nil {
			return err
		}
	}
	part, err := mw.CreateFormFile(field, filename)
	if err != nil {
		return err
	}
	if _, err := io.Copy(part, r); err != nil {
		return err
	}
	return mw.Close()
}

// GetFile prepares a file for download and returns its FilePath. Bots
// may download files of up to 20 MB.
func (c *Client) GetFile(ctx context.Context, fileID string) (File, error) {
	return callFor[File](ctx, c, "getFile", struct {
		FileID string `json:"file_id"`
	}{fileID})
}

// DownloadFile opens the file at filePath (from [Client.GetFile]) for
// reading. The download is bounded only by ctx, which must stay alive
// until the caller has finished reading; the caller must close the
// returned body. A non-200 answer is returned as an *APIError (or a
// *DecodeError if its body is not an envelope).
func (c *Client) DownloadFile(ctx context.Context, filePath string) (io.ReadCloser, error) {
	const method = "downloadFile" // not a Bot API method; names the operation in errors
	if filePath == "" || strings.HasPrefix(filePath, "/") || strings.Contains(filePath, "..") {
		return nil, fmt.Errorf("botapi: %s: invalid file path %q", method, filePath)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/file/bot"+c.token+"/"+filePath, nil)
	if err != nil {
		return nil, c.redact(err)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, c.redact(err)
	}
	if resp.StatusCode == http.StatusOK {
		return &redactingBody{ReadCloser: resp.Body, c: c}, nil
	}
	defer resp.Body.Close()
	if _, err := c.decodeEnvelope(method, resp); err != nil {
		return nil, err
	}
	return nil, &APIError{Method: method, Code: resp.StatusCode, Description: http.StatusText(resp.StatusCode)}
}

// redactingBody redacts transport errors (which may quote the URL) met
// while reading a download.
type redactingBody struct {
	io.ReadCloser
	c *Client
}

func (b *redactingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err != nil && err != io.EOF {
		err = b.c.redact(err)
	}
	return n, err
}
