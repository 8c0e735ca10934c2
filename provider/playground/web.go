package playground

import (
	"crypto/rand"
	"embed"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	bolt "go.etcd.io/bbolt"

	"github.com/chatbus/chatbus/internal/webauth"
)

//go:embed assets
var assets embed.FS

// Bounds of what the page may send.
const (
	maxJSONBody  = 64 << 10
	historyLimit = 500
	streamPing   = 15 * time.Second
)

// errClosed: a person writes into a closed room.
var errClosed = errors.New("this thread is closed")

// routes is the page and its API; every route is behind the guard (see
// internal/webauth): a session, and for POSTs the page's own Origin.
func (p *Platform) routes() http.Handler {
	static, _ := fs.Sub(assets, "assets")
	g := p.guard
	mux := http.NewServeMux()
	mux.Handle("GET /{$}", g.Page(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", "default-src 'self'; img-src 'self' blob:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'")
		http.ServeFileFS(w, r, static, "index.html")
	})))
	mux.Handle("GET /static/", g.Page(http.StripPrefix("/static/", http.FileServerFS(static))))
	mux.Handle("GET /api/state", g.Page(http.HandlerFunc(p.handleState)))
	mux.Handle("GET /api/rooms/{room}/messages", g.Page(http.HandlerFunc(p.handleHistory)))
	mux.Handle("GET /api/files/{file}", g.Page(http.HandlerFunc(p.handleFile)))
	mux.Handle("GET /api/events", g.Stream(http.HandlerFunc(p.handleEvents)))
	mux.Handle("/api/rooms/{room}/messages", g.Action(http.HandlerFunc(p.handleSend)))
	mux.Handle("/api/rooms/{room}/press", g.Action(http.HandlerFunc(p.handlePress)))
	mux.Handle("/api/rooms/{room}/react", g.Action(http.HandlerFunc(p.handleReact)))
	mux.Handle("/api/rooms/{room}/files", g.Action(http.HandlerFunc(p.handleUpload)))
	return mux
}

var writeJSON = webauth.WriteJSON

func writeErr(w http.ResponseWriter, code int, err error) {
	writeJSON(w, code, map[string]string{"error": err.Error()})
}

// answer writes v, or err with the status errCode gives it: the answer to
// a person's request.
func answer(w http.ResponseWriter, v any, err error) {
	if err != nil {
		writeErr(w, errCode(err), err)
		return
	}
	writeJSON(w, http.StatusOK, v)
}

// errCode is the HTTP status for a failure of a person's request.
func errCode(err error) int {
	switch {
	case errors.Is(err, errClosed):
		return http.StatusConflict
	case errors.Is(err, errInboxFull):
		return http.StatusServiceUnavailable
	case errors.Is(err, errFileTooBig):
		return http.StatusRequestEntityTooLarge
	case errors.Is(err, errNoRoom), errors.Is(err, errNoMessage):
		return http.StatusNotFound
	case errors.Is(err, errBadRequest):
		return http.StatusBadRequest
	}
	return http.StatusInternalServerError
}

var (
	errNoRoom     = errors.New("no such thread")
	errNoMessage  = errors.New("no such message in this thread")
	errBadRequest = errors.New("bad request")
)

func roomID(r *http.Request) (int64, error) {
	id, err := strconv.ParseInt(r.PathValue("room"), 10, 64)
	if err != nil || id <= 0 {
		return 0, fmt.Errorf("%w: thread %q", errNoRoom, r.PathValue("room"))
	}
	return id, nil
}

// roomRequest reads a person's request about a room: the room in the path
// and v, a JSON body (bounded, no unknown fields).
func roomRequest(w http.ResponseWriter, r *http.Request, v any) (int64, error) {
	room, err := roomID(r)
	if err != nil {
		return 0, err
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxJSONBody))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return 0, fmt.Errorf("%w: %v", errBadRequest, err)
	}
	return room, nil
}

func (p *Platform) handleState(w http.ResponseWriter, _ *http.Request) {
	rs, err := p.st.rooms()
	if err != nil {
		writeErr(w, http.StatusInternalServerError, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"title": p.cfg.Settings.Title, "rooms": rs, "max_file_bytes": p.cfg.Settings.MaxFileBytes,
		"bot": "@" + BotUsername, "held": p.st.inboxLen(),
	})
}

func (p *Platform) handleHistory(w http.ResponseWriter, r *http.Request) {
	id, err := roomID(r)
	if err != nil {
		writeErr(w, http.StatusNotFound, err)
		return
	}
	before, limit, err := historyPage(r.URL.Query())
	if err != nil {
		writeErr(w, http.StatusBadRequest, err)
		return
	}
	// One more than asked says whether there are older ones.
	ms, err := p.st.history(id, before, limit+1)
	if err != nil {
		writeErr(w, http.StatusInternalServerError, err)
		return
	}
	more := len(ms) > limit
	if more {
		ms = ms[1:]
	}
	out := make([]*messageView, 0, len(ms))
	for _, m := range ms {
		out = append(out, view(m))
	}
	writeJSON(w, http.StatusOK, map[string]any{"room": id, "messages": out, "more": more})
}

// historyPage reads a history request's page: the newest messages (at
// most limit, historyLimit if unset) older than the message before (0:
// the newest of all). A room's whole history is read page by page, each
// page's before being the id of the oldest message of the one after it.
func historyPage(q url.Values) (before int64, limit int, err error) {
	limit = historyLimit
	if s := q.Get("before"); s != "" {
		if before, err = strconv.ParseInt(s, 10, 64); err != nil || before <= 0 {
			return 0, 0, fmt.Errorf("before=%q: want a message id (a positive integer)", s)
		}
	}
	if s := q.Get("limit"); s != "" {
		if limit, err = strconv.Atoi(s); err != nil || limit < 1 || limit > historyLimit {
			return 0, 0, fmt.Errorf("limit=%q: want 1 to %d", s, historyLimit)
		}
	}
	return before, limit, nil
}

// handleEvents streams live events (Server-Sent Events) until the page
// goes away, falls behind, or the playground stops.
func (p *Platform) handleEvents(w http.ResponseWriter, r *http.Request) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		writeErr(w, http.StatusInternalServerError, errors.New("streaming unsupported"))
		return
	}
	ch := p.live.subscribe()
	defer p.live.unsubscribe(ch)
	rs, err := p.st.rooms()
	if err != nil {
		writeErr(w, http.StatusInternalServerError, err)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	// Reconnect fast: a restart of the provider is a short gap.
	fmt.Fprintf(w, "retry: 500\n\n")
	hello, _ := json.Marshal(liveEvent{Type: "rooms", Rooms: rs})
	fmt.Fprintf(w, "data: %s\n\n", hello)
	flusher.Flush()
	ping := time.NewTicker(streamPing)
	defer ping.Stop()
	for {
		select {
		case b, ok := <-ch:
			if !ok {
				return // fell behind: the page reconnects and reloads
			}
			fmt.Fprintf(w, "data: %s\n\n", b)
		case <-ping.C:
			fmt.Fprint(w, ": ping\n\n")
		case <-r.Context().Done():
			return
		case <-p.done:
			return
		}
		flusher.Flush()
	}
}

func (p *Platform) handleFile(w http.ResponseWriter, r *http.Request) {
	f, ok, err := p.file(r.PathValue("file"))
	switch {
	case err != nil:
		writeErr(w, http.StatusInternalServerError, err)
		return
	case !ok:
		writeErr(w, http.StatusNotFound, errors.New("no such file"))
		return
	}
	fh, err := os.Open(p.blob(f.ID))
	if err != nil {
		writeErr(w, http.StatusNotFound, err)
		return
	}
	defer fh.Close()
	// Uploaded bytes are never run as this page: no sniffing, a sandbox,
	// and anything but an image is a download.
	w.Header().Set("Content-Security-Policy", "sandbox; default-src 'none'")
	w.Header().Set("Content-Type", f.Mime)
	disp := "attachment"
	if strings.HasPrefix(f.Mime, "image/") && f.Mime != "image/svg+xml" {
		disp = "inline"
	}
	w.Header().Set("Content-Disposition", mime.FormatMediaType(disp, map[string]string{"filename": f.Name}))
	http.ServeContent(w, r, "", time.Time{}, fh)
}

type sendRequest struct {
	ClientID string `json:"client_id"`
	Text     string `json:"text"`
	ReplyTo  int64  `json:"reply_to,omitempty"`
}

func (p *Platform) handleSend(w http.ResponseWriter, r *http.Request) {
	var req sendRequest
	id, err := roomRequest(w, r, &req)
	var v *messageView
	if err == nil {
		v, err = p.personSend(id, req)
	}
	answer(w, v, err)
}

// personTx runs fn in one store transaction for a person's action in
// room: the room must exist and be open; a clientID seen before returns
// the message it made (dup) without running fn. The events fn queues are
// published, and Run woken, once it is durable.
func (p *Platform) personTx(room int64, clientID string, fn func(c *roomTx) (int64, error)) (msgID int64, dup bool, err error) {
	if len(clientID) > 128 {
		return 0, false, fmt.Errorf("%w: client_id too long", errBadRequest)
	}
	var events []liveEvent
	err = p.st.db.Update(func(tx *bolt.Tx) error {
		if id, ok := p.st.clientMessage(tx, clientID); ok {
			msgID, dup = id, true
			return nil
		}
		r, ok, err := p.st.room(tx, room)
		switch {
		case err != nil:
			return err
		case !ok:
			return errNoRoom
		case r.Closed:
			return errClosed
		}
		c := &roomTx{p: p, tx: tx, room: room}
		if msgID, err = fn(c); err != nil {
			return err
		}
		events = c.events
		return p.st.rememberClient(tx, clientID, msgID)
	})
	if err != nil {
		return 0, false, err
	}
	for _, e := range events {
		p.live.publish(e)
	}
	if !dup {
		p.wake()
	}
	return msgID, dup, nil
}

// onMessage runs fn on the message of room req names, in one
// transaction, for a person's action on it (see personTx).
func (p *Platform) onMessage(room int64, req messageRequest, fn func(c *roomTx, m message) error) error {
	_, _, err := p.personTx(room, req.ClientID, func(c *roomTx) (int64, error) {
		m, err := c.ownMessage(req.MessageID)
		if err != nil {
			return 0, err
		}
		return m.ID, fn(c, m)
	})
	return err
}

// ownMessage is message id of c's room, for a person's request.
func (c *roomTx) ownMessage(id int64) (message, error) {
	m, err := c.own(id)
	if err != nil {
		return m, fmt.Errorf("%w: %v", errNoMessage, err)
	}
	return m, nil
}

func (p *Platform) personSend(room int64, req sendRequest) (*messageView, error) {
	if strings.TrimSpace(req.Text) == "" || !utf8.ValidString(req.Text) {
		return nil, fmt.Errorf("%w: the message is empty", errBadRequest)
	}
	if utf8.RuneCountInString(req.Text) > maxTextChars {
		return nil, fmt.Errorf("%w: the message is longer than %d characters", errBadRequest, maxTextChars)
	}
	return p.personPost(room, req.ClientID, func(c *roomTx, m *message) error {
		m.Text = req.Text
		if req.ReplyTo != 0 {
			r, err := c.ownMessage(req.ReplyTo)
			if err != nil {
				return err
			}
			m.ReplyTo, m.ReplyText = r.ID, r.Text
		}
		return nil
	})
}

// personPost makes a message from the person in room (fill completes
// it), stores it in the room's history and the inbox in one transaction,
// and returns its view; a clientID seen before returns the message it made.
func (p *Platform) personPost(room int64, clientID string, fill func(c *roomTx, m *message) error) (*messageView, error) {
	var v *messageView
	id, dup, err := p.personTx(room, clientID, func(c *roomTx) (int64, error) {
		m, err := c.newMessage(false)
		if err != nil {
			return 0, err
		}
		if err := fill(c, &m); err != nil {
			return 0, err
		}
		if err := c.store(&m); err != nil {
			return 0, err
		}
		v = view(m)
		_, err = c.p.st.enqueue(c.tx, messagePending(m))
		return m.ID, err
	})
	if err != nil {
		return nil, err
	}
	if dup {
		return p.loadView(room, id)
	}
	return v, nil
}

// loadView reads a message's view.
func (p *Platform) loadView(room, id int64) (*messageView, error) {
	var v *messageView
	err := p.st.db.View(func(tx *bolt.Tx) error {
		m, ok, _, err := p.st.message(tx, room, id)
		if err != nil || !ok {
			return errors.Join(err, errNoMessage)
		}
		v = view(m)
		return nil
	})
	return v, err
}

// messageRequest is a person's request about one message of a room.
type messageRequest struct {
	ClientID  string `json:"client_id"`
	MessageID int64  `json:"message_id"`
}

type pressRequest struct {
	messageRequest
	Data string `json:"data"`
}

// handlePress is a person pressing a button under a follower's message:
// a press update, with an interaction to answer.
func (p *Platform) handlePress(w http.ResponseWriter, r *http.Request) {
	var req pressRequest
	room, err := roomRequest(w, r, &req)
	var qid string
	if err == nil {
		err = p.onMessage(room, req.messageRequest, func(c *roomTx, m message) error {
			if !m.ByBot || !hasButton(m.Buttons, req.Data) {
				return fmt.Errorf("%w: message %d has no button with that data", errBadRequest, req.MessageID)
			}
			qid = newInteractionID()
			if err := putJSON(c.tx.Bucket(bCallbacks), []byte(qid), callback{Thread: room, Message: m.ID, Data: req.Data}); err != nil {
				return err
			}
			_, err := c.p.st.enqueue(c.tx, pressPending(m, qid, req.Data))
			return err
		})
	}
	answer(w, map[string]string{"interaction": qid}, err)
}

func hasButton(bs []button, data string) bool {
	for _, b := range bs {
		if data != "" && b.Data == data {
			return true
		}
	}
	return false
}

// newInteractionID is the id of a press: a random number as text.
func newInteractionID() string {
	b := make([]byte, 8)
	rand.Read(b)
	return strconv.FormatUint(binary.BigEndian.Uint64(b)>>1, 10)
}

type reactRequest struct {
	messageRequest
	Emoji string `json:"emoji"`
}

// handleReact toggles the person's reaction on a message: a reaction
// update.
func (p *Platform) handleReact(w http.ResponseWriter, r *http.Request) {
	var req reactRequest
	room, err := roomRequest(w, r, &req)
	if err == nil && (req.Emoji == "" || utf8.RuneCountInString(req.Emoji) > 8) {
		err = fmt.Errorf("%w: one emoji", errBadRequest)
	}
	if err == nil {
		err = p.onMessage(room, req.messageRequest, func(c *roomTx, m message) error {
			mine := m.Reaction["you"]
			removed := len(mine) == 1 && mine[0] == req.Emoji // pressed again: taken back
			if m.Reaction == nil {
				m.Reaction = map[string][]string{}
			}
			m.Reaction["you"] = []string{req.Emoji}
			if removed {
				m.Reaction["you"] = nil
			}
			if err := c.store(&m); err != nil {
				return err
			}
			_, err := c.p.st.enqueue(c.tx, reactionPending(m, req.Emoji, removed))
			return err
		})
	}
	answer(w, map[string]bool{"ok": true}, err)
}

// handleUpload is a person sending a file (multipart: client_id, caption,
// voice and seconds for a recording made on the page, then file), bounded
// by MaxFileBytes.
func (p *Platform) handleUpload(w http.ResponseWriter, r *http.Request) {
	room, err := roomID(r)
	if err != nil {
		writeErr(w, http.StatusNotFound, err)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, p.cfg.Settings.MaxFileBytes+1<<20)
	mr, err := r.MultipartReader()
	if err != nil {
		writeErr(w, http.StatusBadRequest, err)
		return
	}
	var clientID, caption, voice, seconds string
	var f *fileRec
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			code := http.StatusBadRequest
			var mbe *http.MaxBytesError
			if errors.As(err, &mbe) {
				code = http.StatusRequestEntityTooLarge
			}
			writeErr(w, code, err)
			return
		}
		switch part.FormName() {
		case "client_id", "caption", "voice", "seconds":
			b, _ := io.ReadAll(io.LimitReader(part, 4<<10))
			switch part.FormName() {
			case "client_id":
				clientID = string(b)
			case "caption":
				caption = string(b)
			case "voice":
				voice = string(b)
			default:
				seconds = string(b)
			}
		case "file":
			if f != nil {
				writeErr(w, http.StatusBadRequest, errors.New("one file per message"))
				return
			}
			rec, err := p.saveFile(room, part.FileName(), part.Header.Get("Content-Type"), part)
			if err != nil {
				code := errCode(err)
				var mbe *http.MaxBytesError
				if errors.As(err, &mbe) {
					code = http.StatusRequestEntityTooLarge
				}
				writeErr(w, code, err)
				return
			}
			f = &rec
		}
		part.Close()
	}
	if f == nil {
		writeErr(w, http.StatusBadRequest, errors.New("no file"))
		return
	}
	if utf8.RuneCountInString(caption) > maxTextChars {
		os.Remove(p.blob(f.ID))
		writeErr(w, http.StatusBadRequest, fmt.Errorf("the caption is longer than %d characters", maxTextChars))
		return
	}
	var stored bool
	v, err := p.personPost(room, clientID, func(c *roomTx, m *message) error {
		m.Text = caption
		m.File = p.attachment(*f, strings.HasPrefix(f.Mime, "image/"))
		if voice == "1" || voice == "true" {
			m.File.Voice = true
			if s, err := strconv.ParseFloat(seconds, 64); err == nil && s > 0 && s < 1e6 {
				m.File.Seconds = s
			}
		}
		stored = true
		return putJSON(c.tx.Bucket(bFiles), []byte(f.ID), f)
	})
	if err != nil || !stored {
		os.Remove(p.blob(f.ID)) // failed, or a retry of a file stored before
	}
	answer(w, v, err)
}
