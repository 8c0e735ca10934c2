package discordtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// MaxContent is the longest message content Discord accepts.
const MaxContent = 2000

// routes are the REST routes the stand-in serves. Placeholders name the
// path segments; {id} is a channel id, the major parameter of its bucket.
var routes = []struct {
	method, path string
	auth         bool // needs Authorization: Bot <token>
	handler      func(s *Server, r *request) (int, any)
}{
	{"GET", "/users/@me", true, (*Server).getMe},
	{"GET", "/oauth2/applications/@me", true, (*Server).getApplication},
	{"GET", "/gateway/bot", true, (*Server).getGatewayBot},
	{"GET", "/gateway", false, (*Server).getGateway},
	{"GET", "/channels/{id}", true, (*Server).getChannel},
	{"PATCH", "/channels/{id}", true, (*Server).patchChannel},
	{"POST", "/channels/{id}/threads", true, (*Server).createThread},
	{"GET", "/channels/{id}/messages", true, (*Server).getMessages},
	{"POST", "/channels/{id}/messages", true, (*Server).createMessage},
	{"GET", "/channels/{id}/messages/{mid}", true, (*Server).getMessage},
	{"PATCH", "/channels/{id}/messages/{mid}", true, (*Server).editMessage},
	{"DELETE", "/channels/{id}/messages/{mid}", true, (*Server).deleteMessage},
	{"PUT", "/channels/{id}/messages/{mid}/reactions/{emoji}/@me", true, (*Server).addReaction},
	{"POST", "/channels/{id}/typing", true, (*Server).typing},
	{"POST", "/interactions/{iid}/{token}/callback", false, (*Server).interactionCallback},
	{"POST", "/webhooks/{app}/{token}", false, (*Server).followup},
	{"PATCH", "/webhooks/{app}/{token}/messages/@original", false, (*Server).editOriginal},
	{"GET", "/applications/{app}/guilds/{guild}/commands", true, (*Server).getCommands},
	{"PUT", "/applications/{app}/guilds/{guild}/commands", true, (*Server).putCommands},
}

// request is one matched REST request.
type request struct {
	*http.Request
	route  string
	params map[string]string
	body   []byte
	// channel is the channel {id} names, message the message {mid}
	// names in it: a handler of a route with them is only called once
	// they are found.
	channel *Channel
	message *Message
}

// noBody is a handler result that writes 204 No Content.
type noBody struct{}

func (s *Server) serveHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == "/gateway" || r.URL.Path == "/resume":
		s.serveGateway(w, r)
		return
	case strings.HasPrefix(r.URL.Path, "/attachments/"):
		s.serveAttachment(w, r)
		return
	case !strings.HasPrefix(r.URL.Path, "/api/v10/"):
		apiError(w, http.StatusNotFound, 0, "404: Not Found")
		return
	}
	path := strings.TrimPrefix(r.URL.EscapedPath(), "/api/v10")
	for _, rt := range routes {
		params, ok := match(rt.path, path)
		if !ok || rt.method != r.Method {
			continue
		}
		s.serveRoute(w, r, rt.method+" "+rt.path, rt.auth, params, rt.handler)
		return
	}
	s.mu.Lock()
	s.calls[r.Method+" "+path]++
	s.mu.Unlock()
	apiError(w, http.StatusNotFound, 0, "404: Not Found")
}

func (s *Server) serveRoute(w http.ResponseWriter, r *http.Request, route string, auth bool, params map[string]string, h func(*Server, *request) (int, any)) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 32<<20))
	if err != nil {
		return
	}
	s.mu.Lock()
	s.calls[route]++
	var fault *Fault
	if q := s.faults[route]; len(q) > 0 {
		f := q[0]
		s.faults[route] = q[1:]
		fault = &f
	}
	s.mu.Unlock()
	if fault != nil {
		switch {
		case fault.Hang:
			select {
			case <-r.Context().Done():
			case <-s.hs.Done:
			}
			panic(http.ErrAbortHandler)
		case fault.Delay > 0:
			select {
			case <-time.After(fault.Delay):
			case <-s.hs.Done:
				panic(http.ErrAbortHandler)
			}
		case fault.Status == http.StatusTooManyRequests:
			s.mu.Lock()
			if fault.Global {
				s.global.until = time.Now().Add(fault.RetryAfter)
			}
			scope := "user"
			if fault.Global {
				scope = "global"
			}
			s.write429Locked(w, fault.RetryAfter, fault.Global, scope)
			s.mu.Unlock()
			return
		default:
			status := fault.Status
			if status == 0 {
				status = http.StatusInternalServerError
			}
			msg := fault.Message
			if msg == "" {
				msg = http.StatusText(status)
			}
			w.Header().Set("Via", "1.1 google")
			apiError(w, status, fault.Code, msg)
			return
		}
	}
	s.mu.Lock()
	if auth && r.Header.Get("Authorization") != "Bot "+s.token {
		s.mu.Unlock()
		w.Header().Set("Via", "1.1 google")
		apiError(w, http.StatusUnauthorized, 0, "401: Unauthorized")
		return
	}
	major := params["id"] + params["token"]
	if s.rateLimitLocked(w, route, major) {
		s.mu.Unlock()
		return
	}
	status, out := s.callLocked(h, &request{Request: r, route: route, params: params, body: body})
	s.mu.Unlock()
	if _, ok := out.(noBody); ok {
		w.WriteHeader(status)
		return
	}
	writeJSON(w, status, out)
}

// callLocked finds the channel {id} and the message {mid} a route names
// and calls h; one not there is 404 Unknown Channel or Unknown Message.
func (s *Server) callLocked(h func(*Server, *request) (int, any), r *request) (int, any) {
	if id, ok := r.params["id"]; ok {
		if r.channel = s.channels[id]; r.channel == nil {
			return http.StatusNotFound, unknownChannel
		}
	}
	if mid, ok := r.params["mid"]; ok {
		if r.message = s.findLocked(r.channel.ID, mid); r.message == nil {
			return http.StatusNotFound, unknownMessage
		}
	}
	return h(s, r)
}

// match matches an escaped request path against a route template and
// returns the placeholders, unescaped.
func match(tmpl, path string) (map[string]string, bool) {
	ts, ps := strings.Split(tmpl, "/"), strings.Split(strings.TrimSuffix(path, "/"), "/")
	if len(ts) != len(ps) {
		return nil, false
	}
	params := map[string]string{}
	for i, t := range ts {
		if strings.HasPrefix(t, "{") {
			v, err := url.PathUnescape(ps[i])
			if err != nil || v == "" {
				return nil, false
			}
			params[strings.Trim(t, "{}")] = v
			continue
		}
		if t != ps[i] {
			return nil, false
		}
	}
	return params, true
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("discordtest: encode answer: %v", err))
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}

// errBody is a handler's error answer.
func errBody(code int, msg string) map[string]any {
	return map[string]any{"message": msg, "code": code}
}

func formError(field, code, msg string) map[string]any {
	return formErrorAt([]string{field}, code, msg)
}

// formErrorAt is Discord's Invalid Form Body with the error nested at
// path, e.g. components.0.components.1.custom_id.
func formErrorAt(path []string, code, msg string) map[string]any {
	var errs any = map[string]any{"_errors": []any{map[string]string{"code": code, "message": msg}}}
	for i := len(path) - 1; i >= 0; i-- {
		errs = map[string]any{path[i]: errs}
	}
	return map[string]any{"message": "Invalid Form Body", "code": 50035, "errors": errs}
}

var (
	unknownChannel = errBody(10003, "Unknown Channel")
	unknownMessage = errBody(10008, "Unknown Message")
	invalidJSON    = errBody(50109, "The request body contains invalid JSON.")
)

func (s *Server) getMe(*request) (int, any) { return http.StatusOK, s.bot }

func (s *Server) getApplication(*request) (int, any) {
	return http.StatusOK, map[string]any{"id": s.appID, "name": "chatbus test", "bot_public": false, "flags": 0,
		"bot": s.bot}
}

func (s *Server) getGatewayBot(*request) (int, any) {
	remaining, total := s.sessionLimit, 1000
	if remaining < 0 {
		remaining = 1000 - len(s.identifyAt)
	}
	return http.StatusOK, map[string]any{"url": s.GatewayURL(), "shards": 1, "session_start_limit": map[string]int{
		"total": total, "remaining": max(remaining, 0), "reset_after": 86400000, "max_concurrency": 1}}
}

func (s *Server) getGateway(*request) (int, any) {
	return http.StatusOK, map[string]string{"url": s.GatewayURL()}
}

func (s *Server) getChannel(r *request) (int, any) { return http.StatusOK, r.channel }

// patchChannel edits a thread: name, archived, locked. A rename posts a
// CHANNEL_NAME_CHANGE system message in the thread, as Discord does.
func (s *Server) patchChannel(r *request) (int, any) {
	c := r.channel
	var p struct {
		Name                *string `json:"name"`
		Archived            *bool   `json:"archived"`
		Locked              *bool   `json:"locked"`
		AutoArchiveDuration *int    `json:"auto_archive_duration"`
	}
	if err := json.Unmarshal(r.body, &p); err != nil {
		return http.StatusBadRequest, invalidJSON
	}
	if p.Name != nil {
		if n := utf8.RuneCountInString(*p.Name); n < 1 || n > 100 {
			return http.StatusBadRequest, formError("name", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length.")
		}
	}
	if md := c.ThreadMetadata; md != nil {
		if md.Archived && (p.Archived == nil || *p.Archived) && (p.Name != nil || p.Locked != nil) {
			return http.StatusBadRequest, errBody(50083, "Thread is archived")
		}
		if p.Archived != nil {
			if md.Archived != *p.Archived {
				md.ArchiveTimestamp = stamp(time.Now())
			}
			md.Archived = *p.Archived
		}
		if p.Locked != nil {
			md.Locked = *p.Locked
		}
		if p.AutoArchiveDuration != nil {
			md.AutoArchiveDuration = *p.AutoArchiveDuration
		}
	} else if p.Archived != nil || p.Locked != nil {
		return http.StatusBadRequest, errBody(50024, "Cannot execute action on this channel type")
	}
	if p.Name != nil && *p.Name != c.Name {
		c.Name = *p.Name
		if c.ThreadMetadata != nil {
			s.addMessageLocked(c, &Message{Author: s.bot, Content: *p.Name, Type: 4})
		}
	}
	s.dispatchLocked("THREAD_UPDATE", IntentGuilds, c)
	return http.StatusOK, c
}

// createThread starts a thread without a message in a text channel (type
// 11 or 12 required, as in API v10), or a forum post (with a starter
// message, whose id is the thread's).
func (s *Server) createThread(r *request) (int, any) {
	parent := r.channel
	var p struct {
		Name                string          `json:"name"`
		Type                *int            `json:"type"`
		AutoArchiveDuration int             `json:"auto_archive_duration"`
		Message             json.RawMessage `json:"message"`
	}
	if err := json.Unmarshal(r.body, &p); err != nil {
		return http.StatusBadRequest, invalidJSON
	}
	if n := utf8.RuneCountInString(p.Name); n < 1 || n > 100 {
		return http.StatusBadRequest, formError("name", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length.")
	}
	switch parent.Type {
	case ChannelText:
		if p.Type == nil || (*p.Type != 11 && *p.Type != 12) {
			return http.StatusBadRequest, formError("type", "BASE_TYPE_REQUIRED", "This field is required")
		}
	case ChannelForum:
		if len(p.Message) == 0 {
			return http.StatusBadRequest, formError("message", "BASE_TYPE_REQUIRED", "This field is required")
		}
	default:
		return http.StatusBadRequest, errBody(50024, "Cannot execute action on this channel type")
	}
	th := s.newThreadLocked(parent.ID, p.Name, s.bot.ID)
	if p.AutoArchiveDuration > 0 {
		th.ThreadMetadata.AutoArchiveDuration = p.AutoArchiveDuration
	}
	if parent.Type == ChannelForum {
		var m struct {
			Content string `json:"content"`
		}
		json.Unmarshal(p.Message, &m)
		// The starter message of a forum post has the thread's id.
		msg := &Message{ID: th.ID, Author: s.bot, Content: m.Content}
		s.addMessageLocked(th, msg)
	}
	return http.StatusCreated, th
}

// getMessages pages a channel's messages, newest first, as Discord does
// also for after= (the oldest limit messages after the id, sorted newest
// first).
func (s *Server) getMessages(r *request) (int, any) {
	c := r.channel
	q := r.URL.Query()
	limit := 50
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > 100 {
			return http.StatusBadRequest, formError("limit", "NUMBER_TYPE_MAX", "int value should be less than or equal to 100.")
		}
		limit = n
	}
	all := s.messages[c.ID]
	var sel []*Message
	switch after, before := q.Get("after"), q.Get("before"); {
	case after != "":
		a, err := strconv.ParseUint(after, 10, 64)
		if err != nil {
			return http.StatusBadRequest, formError("after", "NUMBER_TYPE_COERCE", "Value is not snowflake.")
		}
		for _, m := range all {
			if id, _ := strconv.ParseUint(m.ID, 10, 64); id > a {
				sel = append(sel, m)
				if len(sel) == limit {
					break
				}
			}
		}
	case before != "":
		b, err := strconv.ParseUint(before, 10, 64)
		if err != nil {
			return http.StatusBadRequest, formError("before", "NUMBER_TYPE_COERCE", "Value is not snowflake.")
		}
		for i := len(all) - 1; i >= 0 && len(sel) < limit; i-- {
			if id, _ := strconv.ParseUint(all[i].ID, 10, 64); id < b {
				sel = append(sel, all[i])
			}
		}
		reverse(sel)
	default:
		sel = all[max(0, len(all)-limit):]
	}
	out := make([]Message, len(sel))
	for i, m := range sel {
		out[len(sel)-1-i] = *m // newest first
	}
	return http.StatusOK, out
}

func reverse(ms []*Message) {
	for i, j := 0, len(ms)-1; i < j; i, j = i+1, j-1 {
		ms[i], ms[j] = ms[j], ms[i]
	}
}

func (s *Server) getMessage(r *request) (int, any) { return http.StatusOK, r.message }

// messageBody is what create and edit take (the fields modelled).
type messageBody struct {
	Content          *string           `json:"content"`
	Components       []json.RawMessage `json:"components"`
	Embeds           []json.RawMessage `json:"embeds"`
	MessageReference *messageRefBody   `json:"message_reference"`
	AllowedMentions  *allowedMentions  `json:"allowed_mentions"`
	Nonce            json.RawMessage   `json:"nonce"`
	EnforceNonce     bool              `json:"enforce_nonce"`
	TTS              bool              `json:"tts"`
	Flags            int               `json:"flags"`
}

// messageRefBody is a message_reference as sent.
type messageRefBody struct {
	MessageReference
	// FailIfNotExists: refuse a reply to a message that does not exist
	// (the default) rather than send it as a plain message.
	FailIfNotExists *bool `json:"fail_if_not_exists"`
}

// allowedMentions says which mentions in the content notify.
type allowedMentions struct {
	Parse       []string `json:"parse"`
	RepliedUser bool     `json:"replied_user"`
}

// mentionsEveryone reports whether content notifies everyone: it says
// @everyone or @here and allowed_mentions (if given) parses "everyone".
func mentionsEveryone(content string, am *allowedMentions) bool {
	if !strings.Contains(content, "@everyone") && !strings.Contains(content, "@here") {
		return false
	}
	return am == nil || slices.Contains(am.Parse, "everyone")
}

// createMessage posts a message (JSON, or multipart with payload_json and
// files[n]). Content over 2000 characters, an empty message or a reply to
// an unknown message is 400; an archived thread is unarchived by the
// message, a locked one refuses it. enforce_nonce de-duplicates by nonce.
func (s *Server) createMessage(r *request) (int, any) {
	c := r.channel
	body, files, status, e := s.readMessage(r)
	if e != nil {
		return status, e
	}
	if md := c.ThreadMetadata; md != nil && md.Locked {
		return http.StatusForbidden, errBody(50013, "Missing Permissions")
	}
	var ref *MessageReference
	if r := body.MessageReference; r != nil {
		ref = &r.MessageReference
		if ref.ChannelID != "" && ref.ChannelID != c.ID {
			// Approximate: Discord allows cross-channel forwards (type 1).
			return http.StatusBadRequest, formError("message_reference", "MESSAGE_REFERENCE_UNKNOWN_MESSAGE", "Unknown message")
		}
		if s.findLocked(c.ID, ref.MessageID) == nil {
			if r.FailIfNotExists == nil || *r.FailIfNotExists {
				return http.StatusBadRequest, formError("message_reference", "MESSAGE_REFERENCE_UNKNOWN_MESSAGE", "Unknown message")
			}
			ref = nil // sent as a plain message
		}
	}
	nonce := strings.Trim(string(body.Nonce), `"`)
	if len(nonce) > 25 {
		return http.StatusBadRequest, formError("nonce", "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
	}
	if body.EnforceNonce && nonce != "" {
		// Discord looks back "the past few minutes".
		if sent, ok := s.nonces[s.bot.ID+"|"+nonce]; ok && time.Since(sent.at) <= s.nonceWindow {
			s.counts["nonce_dedup"]++
			return http.StatusOK, sent.m
		}
	}
	m := &Message{Author: s.bot, Components: body.Components, Embeds: body.Embeds, MessageReference: ref, Nonce: nonce, TTS: body.TTS}
	if body.Content != nil {
		m.Content = *body.Content
	}
	m.MentionEveryone = mentionsEveryone(m.Content, body.AllowedMentions)
	if m.MessageReference != nil {
		m.Type = 19
		m.MessageReference.ChannelID, m.MessageReference.GuildID = c.ID, s.guildID
	}
	m.ID = s.newIDLocked()
	s.attachLocked(m, c.ID, files)
	if md := c.ThreadMetadata; md != nil && md.Archived {
		md.Archived = false
		s.dispatchLocked("THREAD_UPDATE", IntentGuilds, c)
	}
	s.addMessageLocked(c, m)
	if nonce != "" {
		s.nonces[s.bot.ID+"|"+nonce] = sentNonce{m: m, at: time.Now()}
	}
	return http.StatusOK, m
}

func checkBody(body messageBody, hasFiles bool) (int, any) {
	content := ""
	if body.Content != nil {
		content = *body.Content
	}
	if utf8.RuneCountInString(content) > MaxContent {
		return http.StatusBadRequest, formError("content", "BASE_TYPE_MAX_LENGTH", "Must be 2000 or fewer in length.")
	}
	if content == "" && len(body.Components) == 0 && len(body.Embeds) == 0 && !hasFiles {
		return http.StatusBadRequest, errBody(50006, "Cannot send an empty message")
	}
	return checkComponents(body.Components)
}

// checkComponents checks message components as Discord does for the
// ones modelled: at most 5 action rows (type 1) of 1 to 5 buttons (type
// 2); a button has a style 1–5, a label of at most 80 characters, and
// (styles 1–4) a custom_id of 1 to 100 characters unique in the message,
// or (style 5, a link) a url and no custom_id.
func checkComponents(rows []json.RawMessage) (int, any) {
	bad := func(path []string, code, msg string) (int, any) {
		return http.StatusBadRequest, formErrorAt(append([]string{"components"}, path...), code, msg)
	}
	if len(rows) > 5 {
		return bad(nil, "BASE_TYPE_MAX_LENGTH", "Must be 5 or fewer in length.")
	}
	ids := map[string]bool{}
	for i, raw := range rows {
		var row struct {
			Type       int               `json:"type"`
			Components []json.RawMessage `json:"components"`
		}
		ri := strconv.Itoa(i)
		if json.Unmarshal(raw, &row) != nil || row.Type != 1 {
			return bad([]string{ri, "type"}, "UNION_TYPE_CHOICES", "Value of field \"type\" must be one of (1,).")
		}
		if len(row.Components) == 0 || len(row.Components) > 5 {
			return bad([]string{ri, "components"}, "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 5 in length.")
		}
		for j, braw := range row.Components {
			var b struct {
				Type     int     `json:"type"`
				Style    int     `json:"style"`
				Label    *string `json:"label"`
				CustomID *string `json:"custom_id"`
				URL      *string `json:"url"`
				Emoji    any     `json:"emoji"`
			}
			at := func(field string) []string { return []string{ri, "components", strconv.Itoa(j), field} }
			switch {
			case json.Unmarshal(braw, &b) != nil || b.Type != 2:
				return bad(at("type"), "UNION_TYPE_CHOICES", "Value of field \"type\" must be one of (2, 3, 4, 5, 6, 7, 8).")
			case b.Style < 1 || b.Style > 5:
				return bad(at("style"), "BASE_TYPE_CHOICES", "Value must be one of (1, 2, 3, 4, 5, 6).")
			case b.Label != nil && utf8.RuneCountInString(*b.Label) > 80:
				return bad(at("label"), "BASE_TYPE_MAX_LENGTH", "Must be 80 or fewer in length.")
			case (b.Label == nil || *b.Label == "") && b.Emoji == nil:
				return bad(at("label"), "BUTTON_COMPONENT_INVALID_LABEL", "Button requires a label or an emoji.")
			case b.Style == 5 && (b.URL == nil || b.CustomID != nil):
				return bad(at("url"), "BUTTON_COMPONENT_URL_REQUIRED", "A link button needs a url and no custom_id.")
			case b.Style == 5:
			case b.CustomID == nil || *b.CustomID == "":
				return bad(at("custom_id"), "BASE_TYPE_REQUIRED", "This field is required")
			case utf8.RuneCountInString(*b.CustomID) > 100:
				return bad(at("custom_id"), "BASE_TYPE_MAX_LENGTH", "Must be 100 or fewer in length.")
			case ids[*b.CustomID]:
				return bad(at("custom_id"), "COMPONENT_CUSTOM_ID_DUPLICATED", "Component custom id cannot be duplicated")
			default:
				ids[*b.CustomID] = true
			}
		}
	}
	return 0, nil
}

// readMessage reads and checks a message body; a refusal is the status
// and body to answer.
func (s *Server) readMessage(r *request) (messageBody, []upload, int, any) {
	body, files, err := s.parseMessageBody(r)
	if err != nil {
		return body, nil, http.StatusBadRequest, errBody(50109, err.Error())
	}
	if status, e := checkBody(body, len(files) > 0); e != nil {
		return body, nil, status, e
	}
	return body, files, 0, nil
}

// attachLocked stores uploaded files as m's attachments.
func (s *Server) attachLocked(m *Message, channel string, files []upload) {
	for _, f := range files {
		m.Attachments = append(m.Attachments, s.storeFileLocked(channel, f.name, f.data))
	}
}

type upload struct {
	name string
	data []byte
}

// parseMessageBody reads a JSON body, or a multipart one (payload_json
// and files[n]).
func (s *Server) parseMessageBody(r *request) (messageBody, []upload, error) {
	var body messageBody
	mt, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if mt != "multipart/form-data" {
		if err := json.Unmarshal(r.body, &body); err != nil {
			//lint:ignore ST1005 Discord's own message (code 50109), answered as the API words it
			return body, nil, fmt.Errorf("The request body contains invalid JSON.")
		}
		return body, nil, nil
	}
	mr := multipart.NewReader(bytes.NewReader(r.body), params["boundary"])
	var files []upload
	for {
		p, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			return body, nil, fmt.Errorf("malformed multipart body: %v", err)
		}
		data, err := io.ReadAll(p)
		if err != nil {
			return body, nil, err
		}
		switch name := p.FormName(); {
		case name == "payload_json":
			if err := json.Unmarshal(data, &body); err != nil {
				//lint:ignore ST1005 Discord's own message (code 50109), answered as the API words it
				return body, nil, fmt.Errorf("The request body contains invalid JSON.")
			}
		case strings.HasPrefix(name, "files["):
			files = append(files, upload{name: p.FileName(), data: data})
		}
	}
	return body, files, nil
}

func (s *Server) storeFileLocked(channel, name string, data []byte) Attachment {
	id := s.newIDLocked()
	path := channel + "/" + id + "/" + url.PathEscape(name)
	a := Attachment{ID: id, Filename: name, Size: len(data),
		URL:      s.hs.URL + "/attachments/" + path + "?ex=" + strconv.FormatInt(time.Now().Add(24*time.Hour).Unix(), 16),
		ProxyURL: s.hs.URL + "/attachments/" + path}
	if strings.HasSuffix(name, ".png") {
		a.ContentType = "image/png"
	} else {
		a.ContentType = "application/octet-stream"
	}
	s.files[path] = &file{att: a, data: data}
	return a
}

// serveAttachment serves a file like the CDN, without authorization.
func (s *Server) serveAttachment(w http.ResponseWriter, r *http.Request) {
	path := strings.TrimPrefix(r.URL.EscapedPath(), "/attachments/")
	s.mu.Lock()
	s.calls["GET /attachments"]++
	f, ok := s.files[path]
	var fault *Fault
	if q := s.faults["GET /attachments"]; len(q) > 0 {
		fault = &q[0]
		s.faults["GET /attachments"] = q[1:]
	}
	s.mu.Unlock()
	if fault != nil {
		http.Error(w, http.StatusText(max(fault.Status, 500)), max(fault.Status, 500))
		return
	}
	if !ok {
		http.Error(w, "Not Found", http.StatusNotFound)
		return
	}
	w.Header().Set("Content-Type", f.att.ContentType)
	w.Header().Set("Content-Length", strconv.Itoa(len(f.data)))
	w.Write(f.data)
}

// addMessageLocked stores m in c and dispatches MESSAGE_CREATE.
func (s *Server) addMessageLocked(c *Channel, m *Message) {
	if m.ID == "" {
		m.ID = s.newIDLocked()
	}
	m.ChannelID = c.ID
	m.Timestamp = stamp(time.Now())
	if m.Attachments == nil {
		m.Attachments = []Attachment{}
	}
	if m.Embeds == nil {
		m.Embeds = []json.RawMessage{}
	}
	if m.Components == nil {
		m.Components = []json.RawMessage{}
	}
	s.messages[c.ID] = append(s.messages[c.ID], m)
	id := m.ID
	c.LastMessageID = &id
	if c.ThreadMetadata != nil {
		c.MessageCount++
	}
	s.dispatchMessageLocked("MESSAGE_CREATE", m)
}

// editMessage edits the bot's own message; another author's is 403
// 50005.
func (s *Server) editMessage(r *request) (int, any) {
	m := r.message
	if m.Author.ID != s.bot.ID {
		return http.StatusForbidden, errBody(50005, "Cannot edit a message authored by another user")
	}
	return s.applyEditLocked(m, r.body)
}

// applyEditLocked applies an edit's JSON body to m, checked as Discord
// checks it, and dispatches MESSAGE_UPDATE unless m is ephemeral.
func (s *Server) applyEditLocked(m *Message, raw []byte) (int, any) {
	var body messageBody
	if err := json.Unmarshal(raw, &body); err != nil {
		return http.StatusBadRequest, invalidJSON
	}
	if body.Content != nil && utf8.RuneCountInString(*body.Content) > MaxContent {
		return http.StatusBadRequest, formError("content", "BASE_TYPE_MAX_LENGTH", "Must be 2000 or fewer in length.")
	}
	if status, e := checkComponents(body.Components); e != nil {
		return status, e
	}
	if body.Content != nil {
		m.Content = *body.Content
		m.MentionEveryone = mentionsEveryone(m.Content, body.AllowedMentions)
	}
	if body.Components != nil {
		m.Components = body.Components
	}
	if body.Embeds != nil {
		m.Embeds = body.Embeds
	}
	m.Flags &^= flagLoading
	now := stamp(time.Now())
	m.EditedTimestamp = &now
	if m.Flags&flagEphemeral == 0 {
		s.dispatchMessageLocked("MESSAGE_UPDATE", m)
	}
	return http.StatusOK, *m
}

// deleteMessage deletes the bot's own message; another author's needs
// Manage Messages, which the bot is not given (403 50013).
func (s *Server) deleteMessage(r *request) (int, any) {
	c, m := r.channel, r.message
	if m.Author.ID != s.bot.ID {
		return http.StatusForbidden, errBody(50013, "Missing Permissions")
	}
	ms := s.messages[c.ID]
	i := slices.Index(ms, m)
	s.messages[c.ID] = append(ms[:i:i], ms[i+1:]...)
	s.dispatchLocked("MESSAGE_DELETE", IntentGuildMessages, map[string]string{"id": m.ID, "channel_id": c.ID, "guild_id": s.guildID})
	return http.StatusNoContent, noBody{}
}

// addReaction adds the bot's reaction; emoji is a unicode emoji or
// name:id.
func (s *Server) addReaction(r *request) (int, any) {
	c, m := r.channel, r.message
	emoji := parseEmoji(r.params["emoji"])
	if emoji == nil {
		return http.StatusBadRequest, errBody(10014, "Unknown Emoji")
	}
	if s.addReactionLocked(m, s.bot.ID, *emoji) {
		s.dispatchLocked("MESSAGE_REACTION_ADD", IntentGuildMessageReactions, s.reactionLocked(c.ID, m, s.bot.ID, *emoji))
	}
	return http.StatusNoContent, noBody{}
}

// addReactionLocked adds user's reaction to m; false if it was there
// already (Discord answers 204 and dispatches nothing).
func (s *Server) addReactionLocked(m *Message, user string, e Emoji) bool {
	for i := range m.Reactions {
		r := &m.Reactions[i]
		if emojiKey(r.Emoji) != emojiKey(e) {
			continue
		}
		if r.users[user] {
			return false
		}
		r.users[user] = true
		r.Count++
		r.Me = r.Me || user == s.bot.ID
		return true
	}
	m.Reactions = append(m.Reactions, Reaction{Count: 1, Me: user == s.bot.ID, Emoji: e, users: map[string]bool{user: true}})
	return true
}

// emojiKey names an emoji as a reaction's path does: the unicode emoji,
// or name:id.
func emojiKey(e Emoji) string {
	if e.ID != nil {
		return e.Name + ":" + *e.ID
	}
	return e.Name
}

func parseEmoji(e string) *Emoji {
	if e == "" || strings.ContainsAny(e, " /") {
		return nil
	}
	if name, id, ok := strings.Cut(e, ":"); ok {
		if _, err := strconv.ParseUint(id, 10, 64); err != nil || name == "" {
			return nil
		}
		return &Emoji{ID: &id, Name: name}
	}
	if utf8.RuneCountInString(e) > 8 || e[0] < 0x80 {
		return nil // not a unicode emoji (approximate: any short non-ASCII string passes)
	}
	return &Emoji{Name: e}
}

func (s *Server) reactionLocked(channel string, m *Message, user string, emoji Emoji) map[string]any {
	return map[string]any{"user_id": user, "channel_id": channel, "message_id": m.ID, "guild_id": s.guildID,
		"message_author_id": m.Author.ID, "emoji": emoji, "burst": false, "type": 0,
		"member": map[string]any{"user": s.users[user], "roles": []string{}, "joined_at": stamp(time.Now())}}
}

// typing shows the bot typing in a channel for 10 seconds (or until it
// sends). Sessions with the GUILD_MESSAGE_TYPING intent would get
// TYPING_START; the provider does not ask for it, so none is modelled.
func (s *Server) typing(r *request) (int, any) {
	s.typings[r.channel.ID]++
	return http.StatusNoContent, noBody{}
}

// interactionWindow is how long an interaction waits for its callback.
const interactionWindow = 3 * time.Second

// interactionCallback answers an interaction: within 3s, once. Types 4
// (message) and 7 (update the component's message) change the message;
// 5 and 6 only acknowledge.
func (s *Server) interactionCallback(r *request) (int, any) {
	in, ok := s.interactions[r.params["iid"]]
	if !ok || in.token != r.params["token"] {
		return http.StatusNotFound, errBody(10062, "Unknown interaction")
	}
	in.callbacks++
	if in.callback != 0 {
		return http.StatusBadRequest, errBody(40060, "Interaction has already been acknowledged.")
	}
	if time.Since(in.created) > interactionWindow {
		return http.StatusNotFound, errBody(10062, "Unknown interaction")
	}
	var p struct {
		Type int         `json:"type"`
		Data messageBody `json:"data"`
	}
	if err := json.Unmarshal(r.body, &p); err != nil {
		return http.StatusBadRequest, invalidJSON
	}
	c := s.channels[in.channel]
	switch p.Type {
	case 5:
		if in.command {
			// A deferred response is a loading message ("… is
			// thinking"), edited later through @original.
			m := &Message{ID: s.newIDLocked(), ChannelID: in.channel, Author: s.bot, Content: "", WebhookID: s.appID, ApplicationID: s.appID,
				Type: 20, Flags: flagLoading | p.Data.Flags&flagEphemeral, Timestamp: stamp(time.Now()), Attachments: []Attachment{}, Embeds: []json.RawMessage{}}
			if c != nil && m.Flags&flagEphemeral == 0 {
				s.addMessageLocked(c, m)
			}
			in.original = m
		}
	case 6:
	case 4:
		if status, e := checkBody(p.Data, false); e != nil {
			return status, e
		}
		m := &Message{ID: s.newIDLocked(), ChannelID: in.channel, Author: s.bot, Content: deref(p.Data.Content), Components: p.Data.Components,
			WebhookID: s.appID, ApplicationID: s.appID, Type: 20, Flags: p.Data.Flags & flagEphemeral, Timestamp: stamp(time.Now())}
		if c != nil && m.Flags&flagEphemeral == 0 {
			s.addMessageLocked(c, m)
		}
		in.answers = append(in.answers, *m)
		if in.command {
			in.original = m
		}
	case 7:
		if m := s.findLocked(in.channel, in.message); m != nil {
			if p.Data.Content != nil {
				m.Content = *p.Data.Content
			}
			if p.Data.Components != nil {
				m.Components = p.Data.Components
			}
			s.dispatchMessageLocked("MESSAGE_UPDATE", m)
		}
	default:
		return http.StatusBadRequest, formError("type", "BASE_TYPE_CHOICES", "Value must be one of (1, 4, 5, 6, 7, 8, 9, 10, 12).")
	}
	in.callback = p.Type
	return http.StatusNoContent, noBody{}
}

func deref(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

// followup sends a follow-up message for an answered interaction, within
// 15 minutes; an unknown token, or one whose interaction was never
// answered, is 404 Unknown Webhook.
func (s *Server) followup(r *request) (int, any) {
	in, ok := s.tokens[r.params["token"]]
	if !ok || r.params["app"] != s.appID || in.callback == 0 || time.Since(in.created) > 15*time.Minute {
		return http.StatusNotFound, errBody(10015, "Unknown Webhook")
	}
	c, ok := s.channels[in.channel]
	if !ok {
		return http.StatusNotFound, unknownChannel
	}
	body, files, status, e := s.readMessage(r)
	if e != nil {
		return status, e
	}
	m := &Message{ID: s.newIDLocked(), ChannelID: c.ID, Author: s.bot, Content: deref(body.Content), Components: body.Components,
		WebhookID: s.appID, ApplicationID: s.appID, Flags: body.Flags & flagEphemeral, Timestamp: stamp(time.Now()),
		Attachments: []Attachment{}, Embeds: []json.RawMessage{}}
	s.attachLocked(m, c.ID, files)
	if m.Flags&flagEphemeral == 0 {
		s.addMessageLocked(c, m)
	}
	in.answers = append(in.answers, *m)
	return http.StatusOK, m
}

// flagEphemeral marks a message only the person who pressed sees: it is
// in no channel's history and dispatches nothing.
const flagEphemeral = 1 << 6
