package tgtest

import (
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
)

const (
	// maxUpload is Telegram's limit for files uploaded by bots (50 MB).
	maxUpload = 50 << 20
	// maxFieldBytes bounds a non-file parameter and a JSON body.
	maxFieldBytes = 1 << 20
)

// params are a call's parameters, whatever the encoding. Values are kept
// as Telegram sees them in form encodings: strings, with arrays and
// objects as JSON text.
type params struct {
	vals  map[string]string
	files map[string]upload // multipart file parts, by field name
}

// upload is a file part of a multipart request.
type upload struct {
	name        string
	contentType string
	data        []byte
}

// parseParams reads the query string and the body: JSON,
// application/x-www-form-urlencoded or multipart/form-data. Multipart
// bodies are read part by part as they arrive, never parsed as a whole.
func parseParams(w http.ResponseWriter, r *http.Request) (params, *apiError) {
	p := params{vals: make(map[string]string), files: make(map[string]upload)}
	for k, v := range r.URL.Query() {
		if len(v) > 0 {
			p.vals[k] = v[0]
		}
	}
	mediaType, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	switch mediaType {
	case "application/json":
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxFieldBytes))
		if err != nil {
			return p, readError(err)
		}
		if len(strings.TrimSpace(string(body))) == 0 {
			return p, nil
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(body, &m); err != nil {
			// Approximate: the real text for an unparsable JSON body
			// was not verified.
			return p, badRequest("can't parse JSON object")
		}
		for k, raw := range m {
			var s string
			switch {
			case string(raw) == "null":
				continue
			case json.Unmarshal(raw, &s) == nil:
				p.vals[k] = s
			default:
				p.vals[k] = string(raw)
			}
		}
	case "application/x-www-form-urlencoded":
		r.Body = http.MaxBytesReader(w, r.Body, maxFieldBytes)
		if err := r.ParseForm(); err != nil {
			return p, readError(err)
		}
		for k, v := range r.PostForm {
			if len(v) > 0 {
				p.vals[k] = v[0]
			}
		}
	case "multipart/form-data":
		mr, err := r.MultipartReader()
		if err != nil {
			return p, badRequest("invalid multipart/form-data body")
		}
		for {
			part, err := mr.NextPart()
			if err == io.EOF {
				break
			}
			if err != nil {
				return p, readError(err)
			}
			limit := int64(maxFieldBytes)
			if part.FileName() != "" {
				limit = maxUpload
			}
			data, err := io.ReadAll(io.LimitReader(part, limit+1))
			part.Close()
			if err != nil {
				return p, readError(err)
			}
			if int64(len(data)) > limit {
				return p, &apiError{code: http.StatusRequestEntityTooLarge, desc: "Request Entity Too Large"}
			}
			if part.FileName() != "" {
				p.files[part.FormName()] = upload{name: part.FileName(), contentType: part.Header.Get("Content-Type"), data: data}
			} else {
				p.vals[part.FormName()] = string(data)
			}
		}
	}
	return p, nil
}

// readError maps a failure to read the request body. A client that went
// away gets no answer.
func readError(err error) *apiError {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return &apiError{code: http.StatusRequestEntityTooLarge, desc: "Request Entity Too Large"}
	}
	return errAbort
}

func (p params) str(name string) string { return p.vals[name] }

// int64 returns an integer parameter; ok is false if it is absent, and err
// is set if it is present but not an integer.
func (p params) int64(name string) (v int64, ok bool, err *apiError) {
	s, ok := p.vals[name]
	if !ok || s == "" {
		return 0, false, nil
	}
	v, perr := strconv.ParseInt(s, 10, 64)
	if perr != nil {
		// Approximate: Telegram's wording for a non-numeric integer
		// parameter varies by parameter.
		return 0, true, badRequest("invalid " + name + " specified")
	}
	return v, true, nil
}

// int returns an int parameter, 0 if absent.
func (p params) int(name string) (int, *apiError) {
	v, _, err := p.int64(name)
	return int(v), err
}
