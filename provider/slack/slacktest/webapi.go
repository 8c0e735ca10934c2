package slacktest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/chatbus/chatbus/provider"
)

// maxTextChars is the longest text chat.postMessage takes.
const maxTextChars = 40000

// obj is a JSON object of an answer.
type obj = map[string]any

// apiMethod is one Web API method: whether it takes the app-level token
// (else the bot token), and its handler, called with s.mu held. A
// handler returns the answer's fields, or the error code of an
// {"ok": false} answer.
type apiMethod struct {
	app bool
	fn  func(s *Server, p params) (obj, string)
}

var apiMethods = map[string]apiMethod{
	"auth.test":                    {fn: (*Server).authTest},
	"apps.connections.open":        {app: true, fn: (*Server).connectionsOpen},
	"conversations.info":           {fn: (*Server).conversationsInfo},
	"chat.postMessage":             {fn: (*Server).postMessage},
	"chat.update":                  {fn: (*Server).update},
	"chat.delete":                  {fn: (*Server).delete},
	"chat.postEphemeral":           {fn: (*Server).postEphemeral},
	"reactions.add":                {fn: (*Server).reactionsAdd},
	"reactions.remove":             {fn: (*Server).reactionsRemove},
	"reactions.get":                {fn: (*Server).reactionsGet},
	"files.getUploadURLExternal":   {fn: (*Server).getUploadURL},
	"files.completeUploadExternal": {fn: (*Server).completeUpload},
	"files.info":                   {fn: (*Server).filesInfo},
}

// serveAPI answers POST (or GET) /api/<method>.
func (s *Server) serveAPI(w http.ResponseWriter, r *http.Request) {
	method := strings.TrimPrefix(r.URL.Path, "/api/")
	p, perr := readParams(r)
	if !s.applyFault(w, method) {
		return
	}
	if perr != "" {
		writeAnswer(w, nil, perr)
		return
	}
	m, ok := apiMethods[method]
	if !ok {
		writeAnswer(w, nil, "unknown_method")
		return
	}
	token := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	if token == "" {
		token = p.str("token")
	}
	s.mu.Lock()
	var res obj
	code := s.authorizeLocked(token, m.app)
	if code == "" && s.limits != nil {
		if wait := s.limits.admitLocked(method, p.str("channel"), time.Now()); wait > 0 {
			s.mu.Unlock()
			writeRateLimited(w, wait)
			return
		}
	}
	if code == "" {
		res, code = m.fn(s, p)
	}
	s.mu.Unlock()
	writeAnswer(w, res, code)
}

// authorizeLocked checks the token of a call: the error code, "" if it
// may go on.
func (s *Server) authorizeLocked(token string, app bool) string {
	switch {
	case token == "":
		return "not_authed"
	case token != AppToken && token != BotToken:
		return "invalid_auth"
	case s.revoked:
		return "token_revoked"
	case app != (token == AppToken):
		return "not_allowed_token_type"
	}
	return ""
}

// applyFault counts the call and applies an injected fault; false when
// the fault answered.
func (s *Server) applyFault(w http.ResponseWriter, method string) bool {
	s.mu.Lock()
	s.calls[method]++
	f, ok := s.always[method]
	if q := s.faults[method]; !ok && len(q) > 0 {
		f, ok = q[0], true
		s.faults[method] = q[1:]
	}
	s.mu.Unlock()
	if !ok {
		return true
	}
	if f.Delay > 0 {
		select {
		case <-time.After(f.Delay):
		case <-s.hs.Done:
			return false
		}
	}
	switch {
	case f.Status == http.StatusTooManyRequests:
		writeRateLimited(w, time.Duration(max(f.RetryAfter, 1))*time.Second)
		return false
	case f.Status != 0:
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(f.Status)
		fmt.Fprintf(w, "<html><body><h1>%d %s</h1></body></html>", f.Status, http.StatusText(f.Status))
		return false
	case f.Error != "":
		writeAnswer(w, nil, f.Error)
		return false
	}
	return true
}

func writeAnswer(w http.ResponseWriter, res obj, code string) {
	if res == nil {
		res = obj{}
	}
	if code != "" {
		res = obj{"ok": false, "error": code}
	} else {
		res["ok"] = true
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	json.NewEncoder(w).Encode(res)
}

// params are a call's arguments, from the query, a form or a JSON body,
// each as JSON (form values as JSON strings).
type params map[string]json.RawMessage

// readParams reads a call's arguments; the error code of a body Slack
// would not take.
func readParams(r *http.Request) (params, string) {
	p := params{}
	for k, v := range r.URL.Query() {
		p[k], _ = json.Marshal(v[0])
	}
	if r.Method != http.MethodPost {
		return p, ""
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, 8<<20))
	if err != nil {
		return p, "invalid_form_data"
	}
	ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if ct == "application/json" {
		if len(bytes.TrimSpace(body)) == 0 {
			return p, "" // apps.connections.open is called with no arguments
		}
		var m map[string]json.RawMessage
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.UseNumber()
		if err := dec.Decode(&m); err != nil || m == nil {
			return p, "invalid_json"
		}
		for k, v := range m {
			p[k] = v
		}
		return p, ""
	}
	vals, err := url.ParseQuery(string(body))
	if err != nil {
		return p, "invalid_form_data"
	}
	for k, v := range vals {
		p[k], _ = json.Marshal(v[0])
	}
	return p, ""
}

// str returns an argument as text (a JSON string or number); "" if absent.
func (p params) str(k string) string { return provider.IDText(p[k]) }

// json returns an argument that holds JSON (blocks, files): inline in a
// JSON body, or as a string of JSON in a form. nil if absent.
func (p params) json(k string) json.RawMessage {
	v, ok := p[k]
	if !ok {
		return nil
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		if s == "" {
			return nil
		}
		return json.RawMessage(s)
	}
	return v
}

func (p params) bool(k string) bool {
	switch p.str(k) {
	case "true", "1":
		return true
	}
	return string(p[k]) == "true"
}

func (s *Server) authTest(params) (obj, string) {
	return obj{"url": "https://" + TeamName + ".slack.com/", "team": TeamName, "user": BotName, "team_id": TeamID,
		"user_id": BotUserID, "bot_id": BotID, "is_enterprise_install": false}, ""
}

func (s *Server) connectionsOpen(params) (obj, string) {
	ticket := s.newIDLocked("ticket-")
	s.tickets[ticket] = true
	return obj{"url": "ws://" + s.hs.Listener.Addr().String() + "/link/?ticket=" + ticket + "&app_id=" + AppID}, ""
}

// conversationsInfo answers what the bot may see of a channel: a public
// one whether it is a member or not (is_member), with channels:read.
func (s *Server) conversationsInfo(p params) (obj, string) {
	c := s.channels[p.str("channel")]
	if c == nil {
		return nil, "channel_not_found"
	}
	return obj{"channel": obj{"id": c.id, "name": c.name, "is_channel": true, "is_private": false,
		"is_archived": false, "is_member": c.member, "created": 1700000000}}, ""
}

// postableLocked returns the channel a message may be posted into.
func (s *Server) postableLocked(id string) (*channel, string) {
	c := s.channels[id]
	switch {
	case c == nil:
		return nil, "channel_not_found"
	case !c.member:
		return nil, "not_in_channel"
	}
	return c, ""
}

// threadLocked resolves a thread_ts argument to the thread a message
// posted with it lands in: "" is the channel's top level; a reply's ts
// names its thread (Slack asks for the root's ts; the stand-in accepts a
// reply's as the thread it is in); a root deleted after someone replied
// stays a thread (Slack keeps a "This message was deleted." tombstone that
// can still be replied to). A thread_ts naming no message, or a root
// deleted before anyone replied, is no thread at all: Slack still answers
// ok and posts the message at the channel's top level, and the only sign
// is that the message in the answer has no thread_ts (slack-go issue
// #1571). chat.postMessage has no error for it: thread_not_found is an
// error of conversations.replies only.
func threadLocked(c *channel, ts string) string {
	if ts == "" {
		return ""
	}
	root := c.byTS[ts]
	if root == nil {
		return ""
	}
	if t := threadOf(root); t != "" {
		if root = c.byTS[t]; root == nil {
			return ""
		}
	}
	if root.Deleted && root.Replies == 0 {
		return ""
	}
	return root.TS
}

// messageContent reads text and blocks and checks them as
// chat.postMessage, chat.postEphemeral and chat.update do.
func messageContent(p params) (text string, blocks []byte, code string) {
	text, blocks = p.str("text"), p.json("blocks")
	switch {
	case text == "" && blocks == nil && p.json("attachments") == nil:
		code = "no_text"
	case utf8.RuneCountInString(text) > maxTextChars:
		code = "msg_too_long"
	default:
		code = checkBlocks(blocks)
	}
	return text, blocks, code
}

func (s *Server) postMessage(p params) (obj, string) {
	c, code := s.postableLocked(p.str("channel"))
	if code != "" {
		return nil, code
	}
	text, blocks, code := messageContent(p)
	if code != "" {
		return nil, code
	}
	thread := threadLocked(c, p.str("thread_ts"))
	m := &Message{User: BotUserID, BotID: BotID, Text: text, Blocks: blocks, ThreadTS: thread}
	if thread != "" && p.bool("reply_broadcast") {
		m.Subtype = "thread_broadcast"
	}
	s.addMessageLocked(c, m)
	s.messageEventLocked(c, m)
	return obj{"channel": c.id, "ts": m.TS, "message": s.messageJSON(m)}, ""
}

// ownMessageLocked finds a message the bot may change.
func (s *Server) ownMessageLocked(p params, key, notOwn string) (*channel, *Message, string) {
	c := s.channels[p.str("channel")]
	if c == nil {
		return nil, nil, "channel_not_found"
	}
	m := c.byTS[p.str(key)]
	switch {
	case m == nil || m.Deleted:
		return nil, nil, "message_not_found"
	case m.BotID != BotID:
		return nil, nil, notOwn
	}
	return c, m, ""
}

func (s *Server) update(p params) (obj, string) {
	c, m, code := s.ownMessageLocked(p, "ts", "cant_update_message")
	if code != "" {
		return nil, code
	}
	text, blocks, code := messageContent(p)
	if code != "" {
		return nil, code
	}
	prev := *m
	// Slack keeps a message's blocks when chat.update names none, and
	// removes them when it names an empty list.
	switch {
	case blocks == nil:
		blocks = m.Blocks
	case isEmptyArray(blocks):
		blocks = nil
	}
	m.Text, m.Blocks, m.EditedTS = text, blocks, s.newTSLocked()
	s.changedEventLocked(c, m, &prev)
	return obj{"channel": c.id, "ts": m.TS, "text": m.Text, "message": s.messageJSON(m)}, ""
}

func (s *Server) delete(p params) (obj, string) {
	c, m, code := s.ownMessageLocked(p, "ts", "cant_delete_message")
	if code != "" {
		return nil, code
	}
	s.deleteLocked(c, m)
	return obj{"channel": c.id, "ts": m.TS}, ""
}

func (s *Server) postEphemeral(p params) (obj, string) {
	c, code := s.postableLocked(p.str("channel"))
	if code != "" {
		return nil, code
	}
	if !c.members[p.str("user")] {
		return nil, "user_not_in_channel"
	}
	text, blocks, code := messageContent(p)
	if code != "" {
		return nil, code
	}
	// Ephemeral messages are shown to one person and are not in the
	// channel's history.
	ts := s.newTSLocked()
	c.ephemeral = append(c.ephemeral, Message{Channel: c.id, TS: ts, User: p.str("user"), Text: text, Blocks: blocks,
		ThreadTS: threadLocked(c, p.str("thread_ts"))})
	return obj{"message_ts": ts}, ""
}

// reactedLocked finds the message a reactions.* call names.
func (s *Server) reactedLocked(p params) (*channel, *Message, string) {
	c := s.channels[p.str("channel")]
	if c == nil {
		return nil, nil, "channel_not_found"
	}
	m := c.byTS[p.str("timestamp")]
	if m == nil || m.Deleted {
		return nil, nil, "message_not_found"
	}
	return c, m, ""
}

func (s *Server) reactionsAdd(p params) (obj, string) {
	c, m, code := s.reactedLocked(p)
	if code != "" {
		return nil, code
	}
	name := strings.Trim(p.str("name"), ":")
	if !emojiName.MatchString(name) {
		return nil, "invalid_name"
	}
	if !s.reactLocked(c, m, BotUserID, name) {
		return nil, "already_reacted"
	}
	return obj{}, ""
}

func (s *Server) reactionsRemove(p params) (obj, string) {
	c, m, code := s.reactedLocked(p)
	if code != "" {
		return nil, code
	}
	name := strings.Trim(p.str("name"), ":")
	users := m.Reactions[name]
	for i, u := range users {
		if u == BotUserID {
			m.Reactions[name] = append(users[:i:i], users[i+1:]...)
			if len(m.Reactions[name]) == 0 {
				delete(m.Reactions, name)
			}
			s.reactionEventLocked(c, m, BotUserID, name, false)
			return obj{}, ""
		}
	}
	return nil, "no_reaction"
}

func (s *Server) reactionsGet(p params) (obj, string) {
	c, m, code := s.reactedLocked(p)
	if code != "" {
		return nil, code
	}
	return obj{"type": "message", "channel": c.id, "message": s.messageJSON(m)}, ""
}

func (s *Server) getUploadURL(p params) (obj, string) {
	n, err := strconv.Atoi(p.str("length"))
	name := p.str("filename")
	if err != nil || n <= 0 || name == "" {
		return nil, "invalid_arguments"
	}
	f := &file{id: s.newIDLocked("F"), name: name, title: name, length: n, mimetype: mimeOf(name)}
	s.files[f.id] = f
	return obj{"upload_url": s.hs.URL + "/upload/v1/" + f.id, "file_id": f.id}, ""
}

// completeUpload shares uploaded files. (Slack shares asynchronously: the
// message with the files appears shortly after the answer; here it is
// there when the answer is.)
func (s *Server) completeUpload(p params) (obj, string) {
	var list []struct {
		ID    string `json:"id"`
		Title string `json:"title"`
	}
	if json.Unmarshal(p.json("files"), &list) != nil || len(list) == 0 {
		return nil, "invalid_arguments"
	}
	for _, it := range list {
		if f := s.files[it.ID]; f == nil || !f.uploaded {
			return nil, "file_not_found"
		}
	}
	var c *channel
	var thread string
	if ch := p.str("channel_id"); ch != "" {
		var code string
		if c, code = s.postableLocked(ch); code != "" {
			return nil, code
		}
		thread = threadLocked(c, p.str("thread_ts"))
	}
	out := make([]obj, 0, len(list))
	ids := make([]string, 0, len(list))
	for _, it := range list {
		f := s.files[it.ID]
		if it.Title != "" {
			f.title = it.Title
		}
		f.shared = c != nil
		ids = append(ids, f.id)
		out = append(out, obj{"id": f.id, "title": f.title})
	}
	if c != nil {
		m := &Message{User: BotUserID, BotID: BotID, Subtype: "file_share", Text: p.str("initial_comment"), ThreadTS: thread, Files: ids}
		s.addMessageLocked(c, m)
		s.messageEventLocked(c, m)
	}
	return obj{"files": out}, ""
}

func (s *Server) filesInfo(p params) (obj, string) {
	f := s.files[p.str("file")]
	if f == nil || !f.uploaded {
		return nil, "file_not_found"
	}
	return obj{"file": s.fileJSON(f)}, ""
}

func mimeOf(name string) string {
	if i := strings.LastIndexByte(name, '.'); i >= 0 {
		if t := mime.TypeByExtension(name[i:]); t != "" {
			return t
		}
	}
	return "application/octet-stream"
}
