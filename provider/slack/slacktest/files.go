package slacktest

import (
	"bytes"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
)

// serveUpload takes a file's bytes at the URL files.getUploadURLExternal
// gave: the raw body, or the first file of a multipart form (what
// slack-go sends). It answers "OK - <length>" as Slack does. Counted as
// "upload".
func (s *Server) serveUpload(w http.ResponseWriter, r *http.Request) {
	if !s.applyFault(w, "upload") {
		return
	}
	id := strings.TrimPrefix(r.URL.Path, "/upload/v1/")
	s.mu.Lock()
	f := s.files[id]
	s.mu.Unlock()
	if f == nil || r.Method != http.MethodPost {
		http.Error(w, "no such upload", http.StatusNotFound)
		return
	}
	var data []byte
	var err error
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct == "multipart/form-data" {
		data, err = firstPart(r)
	} else {
		data, err = io.ReadAll(r.Body)
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	f.data, f.uploaded = data, true
	s.mu.Unlock()
	w.Header().Set("Content-Type", "text/plain")
	fmt.Fprintf(w, "OK - %d", len(data))
}

func firstPart(r *http.Request) ([]byte, error) {
	mr, err := r.MultipartReader()
	if err != nil {
		return nil, err
	}
	for {
		part, err := mr.NextPart()
		if err != nil {
			return nil, fmt.Errorf("no file in the form: %w", err)
		}
		if part.FileName() != "" {
			var buf bytes.Buffer
			_, err := io.Copy(&buf, part)
			return buf.Bytes(), err
		}
	}
}

// serveFile serves a file's url_private (and url_private_download) to a
// request with the bot token as a Bearer header. Without it Slack answers
// its sign-in page, HTML with status 200, and so does this. Counted as
// "download".
func (s *Server) serveFile(w http.ResponseWriter, r *http.Request) {
	if !s.applyFault(w, "download") {
		return
	}
	rest := strings.TrimPrefix(r.URL.Path, "/files-pri/"+TeamID+"-")
	id, _, _ := strings.Cut(rest, "/")
	s.mu.Lock()
	f := s.files[id]
	ok := r.Header.Get("Authorization") == "Bearer "+BotToken && !s.revoked
	var data []byte
	var mimetype string
	if f != nil {
		data, mimetype = f.data, f.mimetype
	}
	s.mu.Unlock()
	if !ok {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, "<!DOCTYPE html><html><head><title>Slack</title></head><body>Sign in to slacktest</body></html>")
		return
	}
	if f == nil {
		http.Error(w, "file not found", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", mimetype)
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	w.Write(data)
}
