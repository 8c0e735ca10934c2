package botapi_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chatbus/chatbus/provider/telegram/botapi"
	"github.com/chatbus/chatbus/provider/telegram/tgtest"
)

// gatedReader yields size bytes in chunk-sized reads. After the first
// chunk it refuses to go on until gate is closed, failing after a bound:
// a client that buffered the whole body before sending would never let
// the server see the first chunk, and so never open the gate.
type gatedReader struct {
	size, chunk, read int
	gate              <-chan struct{}
}

var errBuffered = errors.New("the server saw no byte of the file before the client had read more than one chunk: the upload is buffered, not streamed")

func (r *gatedReader) Read(p []byte) (int, error) {
	if r.read >= r.size {
		return 0, io.EOF
	}
	if r.read >= r.chunk {
		select {
		case <-r.gate:
		case <-time.After(10 * time.Second):
			return 0, errBuffered
		}
	}
	n := min(len(p), r.chunk, r.size-r.read)
	for i := range n {
		p[i] = byte(r.read + i)
	}
	r.read += n
	return n, nil
}

func TestSendDocumentStreams(t *testing.T) {
	const size, chunk = 4 << 20, 64 << 10
	gate := make(chan struct{})
	var (
		fields   = make(map[string]string)
		fileName string
		received atomic.Int64
		sumOK    atomic.Bool
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mr, err := r.MultipartReader()
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		ok := true
		for {
			part, err := mr.NextPart()
			if err == io.EOF {
				break
			}
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			if part.FileName() == "" {
				b, _ := io.ReadAll(part)
				fields[part.FormName()] = string(b)
				continue
			}
			fileName = part.FileName()
			buf := make([]byte, 32<<10)
			var off int
			for {
				n, err := part.Read(buf)
				for i := range n {
					ok = ok && buf[i] == byte(off+i)
				}
				if n > 0 && off == 0 {
					close(gate) // the first bytes arrived while the client is still reading
				}
				off += n
				if err != nil {
					break
				}
			}
			received.Store(int64(off))
		}
		sumOK.Store(ok)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"ok":true,"result":{"message_id":9,"message_thread_id":5,"is_topic_message":true,"chat":{"id":-100,"type":"supergroup","is_forum":true},"date":1,"caption":%q,"document":{"file_id":"F","file_unique_id":"U","file_name":%q,"file_size":%d}}}`,
			fields["caption"], fileName, received.Load())
	}))
	t.Cleanup(srv.Close)
	c := newClient(t, botapi.Config{BaseURL: srv.URL, Token: "1:x"})

	r := &gatedReader{size: size, chunk: chunk, gate: gate}
	m, err := c.SendDocument(context.Background(), -100, 5, `report "q".txt`, r, "the report")
	if err != nil {
		t.Fatalf("SendDocument: %v", err)
	}
	if received.Load() != size || !sumOK.Load() {
		t.Errorf("server received %d bytes (intact: %v), want %d", received.Load(), sumOK.Load(), size)
	}
	if fields["chat_id"] != "-100" || fields["message_thread_id"] != "5" || fields["caption"] != "the report" || fileName != `report "q".txt` {
		t.Errorf("fields %v, file name %q", fields, fileName)
	}
	if m.Document == nil || m.Document.FileSize != size || m.Caption != "the report" || m.MessageThreadID != 5 {
		t.Errorf("message %+v", m)
	}
}

func TestSendDocumentRoundTrip(t *testing.T) {
	const forum = -100300
	ctx := context.Background()
	s, c := forumServer(t, forum)
	topic := newTopic(t, c, forum, "files", 0)
	data := make([]byte, 1<<20+17)
	for i := range data {
		data[i] = byte(rand.Uint32())
	}
	m, err := c.SendDocument(ctx, forum, topic.MessageThreadID, "dump.bin", bytes.NewReader(data), "a dump")
	if err != nil {
		t.Fatal(err)
	}
	if m.Document == nil || m.Document.FileName != "dump.bin" || m.Document.FileSize != int64(len(data)) || m.Caption != "a dump" {
		t.Fatalf("message %+v", m)
	}
	if sent := s.Sent(forum, topic.MessageThreadID); len(sent) != 1 || sent[0].Document == nil {
		t.Fatalf("Sent = %+v", sent)
	}
	f, err := c.GetFile(ctx, m.Document.FileID)
	if err != nil {
		t.Fatal(err)
	}
	body, err := c.DownloadFile(ctx, f.FilePath)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(body)
	body.Close()
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("downloaded %d bytes (%v), want the %d uploaded", len(got), err, len(data))
	}

	_, err = c.DownloadFile(ctx, "documents/missing.bin")
	wantAPIError(t, err, 404, "Not Found")
	_, err = c.DownloadFile(ctx, "../etc/passwd")
	if err == nil {
		t.Error("DownloadFile accepted a path with ..")
	}
}

// endless is an io.Reader of zeros that never ends.
type endless struct{}

func (endless) Read(p []byte) (int, error) { clear(p); return len(p), nil }

func TestSendDocumentRejectedEarly(t *testing.T) {
	tests := []struct {
		name  string
		setup func(*tgtest.Server) botapi.Config
		want  func(error) bool
	}{
		{name: "wrong token", want: botapi.IsUnauthorized, setup: func(s *tgtest.Server) botapi.Config {
			cfg := s.Config()
			cfg.Token = "1:wrong"
			return cfg
		}},
		{name: "server error", want: botapi.IsServerError, setup: func(s *tgtest.Server) botapi.Config {
			s.Fail("sendDocument", tgtest.Fault{HTML5xx: true})
			return s.Config()
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tgtest.New(t)
			c := newClient(t, tt.setup(s))
			// The server answers without reading the (endless) body:
			// SendDocument must return, and its writer goroutine end.
			_, err := c.SendDocument(context.Background(), 1, 0, "big.bin", endless{}, "")
			if !tt.want(err) {
				t.Fatalf("err = %v", err)
			}
		})
	}
}
