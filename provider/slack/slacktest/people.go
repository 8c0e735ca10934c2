package slacktest

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Posted names a message a test posted and the event that announced it.
type Posted struct {
	TS      string
	EventID string
}

// PostMessage posts text as user into channel (threadTS "": top level),
// and sends the app the message event. user joins the channel.
func (s *Server) PostMessage(channelID, user, text, threadTS string) Posted {
	return s.post(channelID, &Message{User: user, Text: text, ThreadTS: threadTS})
}

// PostFile posts a file as user into channel (threadTS "": top level),
// with caption as the message text, and returns the message and the
// file's id.
func (s *Server) PostFile(channelID, user, threadTS, name, caption string, data []byte) (Posted, string) {
	s.mu.Lock()
	f := &file{id: s.newIDLocked("F"), name: name, title: name, mimetype: mimeOf(name), data: data, length: len(data), uploaded: true, shared: true}
	s.files[f.id] = f
	s.mu.Unlock()
	return s.post(channelID, &Message{User: user, Text: caption, ThreadTS: threadTS, Subtype: "file_share", Files: []string{f.id}}), f.id
}

// PostAudioClip posts an audio clip as a person records one in Slack (a
// file of subtype slack_audio, with its length) as user into channel,
// and returns the message and the file's id. mimetype is what the app
// recorded ("audio/webm" on the desktop, "audio/mp4" on a phone).
func (s *Server) PostAudioClip(channelID, user, threadTS, mimetype string, data []byte, duration time.Duration) (Posted, string) {
	s.mu.Lock()
	ext := map[string]string{"audio/webm": ".webm", "audio/mp4": ".m4a"}[mimetype]
	f := &file{id: s.newIDLocked("F"), name: "audio_message" + ext, title: "Audio clip", mimetype: mimetype, data: data, length: len(data),
		uploaded: true, shared: true, subtype: "slack_audio", durationMS: int(duration.Milliseconds())}
	s.files[f.id] = f
	s.mu.Unlock()
	return s.post(channelID, &Message{User: user, ThreadTS: threadTS, Subtype: "file_share", Files: []string{f.id}}), f.id
}

func (s *Server) post(channelID string, m *Message) Posted {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.channels[channelID]
	if c == nil {
		s.tb.Errorf("slacktest: post into unknown channel %s", channelID)
		return Posted{}
	}
	if m.ThreadTS != "" {
		t := threadLocked(c, m.ThreadTS)
		if t == "" { // Slack's apps offer no way to reply to what is not there
			s.tb.Errorf("slacktest: post into thread %s of %s: no such thread", m.ThreadTS, channelID)
			return Posted{}
		}
		m.ThreadTS = t
	}
	c.members[m.User] = true
	s.addMessageLocked(c, m)
	return Posted{TS: m.TS, EventID: s.messageEventLocked(c, m)}
}

// Edit changes a person's message text (message_changed with a new
// "edited").
func (s *Server) Edit(channelID, ts, text string) string {
	return s.change(channelID, ts, func(m *Message) { m.Text, m.EditedTS = text, s.newTSLocked() })
}

// Unfurl sends the message_changed Slack sends when it adds a link
// preview to a message: the text and "edited" stay as they were.
func (s *Server) Unfurl(channelID, ts string) string {
	return s.change(channelID, ts, func(*Message) {})
}

// change applies edit to a message and sends its message_changed; it
// returns the event id.
func (s *Server) change(channelID, ts string, edit func(*Message)) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, m := s.findLocked(channelID, ts)
	if m == nil {
		return ""
	}
	prev := *m
	edit(m)
	return s.changedEventLocked(c, m, &prev)
}

// React adds user's reaction name to a message (reaction_added).
func (s *Server) React(channelID, ts, user, name string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, m := s.findLocked(channelID, ts)
	if m == nil || !s.reactLocked(c, m, user, name) {
		return ""
	}
	return s.lastKeyLocked()
}

// DeleteMessage deletes a message as a person or an admin would
// (message_deleted). Deleting a thread's root before anyone replied ends
// the thread: a chat.postMessage with its thread_ts is posted at the
// channel's top level (see threadLocked); a root with replies stays a
// thread.
func (s *Server) DeleteMessage(channelID, ts string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, m := s.findLocked(channelID, ts); m != nil {
		s.deleteLocked(c, m)
	}
}

// PressButton presses a button of message ts, as user: an interactive
// envelope (block_actions). The button is the one with actionID and
// value among the message's blocks (actionID "": the one with value); a
// message without such a button cannot be pressed and fails the test.
// It returns the interaction's trigger id.
func (s *Server) PressButton(channelID, ts, user, actionID, value string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, m := s.findLocked(channelID, ts)
	if m == nil {
		return ""
	}
	var pressed *Button
	for _, b := range copyMessage(m).Buttons() {
		if b.Value == value && (actionID == "" || b.ActionID == actionID) {
			pressed = &b
			break
		}
	}
	if pressed == nil {
		s.tb.Errorf("slacktest: message %s has no button %q with value %q: %+v", ts, actionID, value, copyMessage(m).Buttons())
		return ""
	}
	now := time.Now()
	s.seq++
	trigger := fmt.Sprintf("%d.%d.%016x", now.Unix(), 1000+s.seq, s.clock)
	container := obj{"type": "message", "message_ts": m.TS, "channel_id": c.id, "is_ephemeral": false}
	if t := threadOf(m); t != "" {
		container["thread_ts"] = t
	}
	payload := obj{
		"type":       "block_actions",
		"user":       obj{"id": user, "username": nameOf(user), "name": nameOf(user), "team_id": TeamID},
		"api_app_id": AppID, "token": verificationToken,
		"container":    container,
		"trigger_id":   trigger,
		"team":         obj{"id": TeamID, "domain": TeamName},
		"channel":      obj{"id": c.id, "name": c.name},
		"message":      s.messageJSON(m),
		"state":        obj{"values": obj{}},
		"response_url": s.hs.URL + "/actions/" + trigger,
		"actions": []obj{{"action_id": pressed.ActionID, "block_id": "chatbus", "value": value, "type": "button",
			"text": obj{"type": "plain_text", "text": pressed.Label}, "action_ts": fmt.Sprintf("%d.%06d", now.Unix(), now.Nanosecond()/1000)}},
	}
	b, _ := json.Marshal(payload)
	s.enqueueLocked("interactive", trigger, b)
	return trigger
}

// SlashCommand runs a slash command as user in channel (command "":
// /chatbus), with text as its arguments: a slash_commands envelope whose
// payload is the command as Slack sends it, which the app must
// acknowledge within 3 s (EventStats.Late, Stats.LateAcks otherwise),
// optionally with a response payload (EventStats.Response). It returns
// the command's trigger id (Event's key).
func (s *Server) SlashCommand(channelID, user, command, text string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if command == "" {
		command = "/chatbus"
	}
	c := s.channels[channelID]
	name := ""
	if c != nil {
		name = c.name
	}
	now := time.Now()
	s.seq++
	trigger := fmt.Sprintf("%d.%d.%016x", now.Unix(), 1000+s.seq, s.clock)
	// The fields Slack posts to a command's Request URL, as JSON (all
	// strings, as the form's are).
	payload := obj{
		"token": verificationToken, "team_id": TeamID, "team_domain": TeamName,
		"channel_id": channelID, "channel_name": name, "user_id": user, "user_name": nameOf(user),
		"command": command, "text": text, "api_app_id": AppID, "is_enterprise_install": "false",
		"response_url": s.hs.URL + "/commands/" + TeamID + "/" + trigger, "trigger_id": trigger,
	}
	b, _ := json.Marshal(payload)
	e := s.enqueueLocked("slash_commands", trigger, b)
	e.slash = true
	return trigger
}

func nameOf(user string) string { return strings.ToLower(user) }

func (s *Server) findLocked(channelID, ts string) (*channel, *Message) {
	c := s.channels[channelID]
	if c == nil || c.byTS[ts] == nil {
		s.tb.Errorf("slacktest: no message %s in %s", ts, channelID)
		return nil, nil
	}
	return c, c.byTS[ts]
}

// addMessageLocked gives m its ts and puts it in c; a reply makes its
// root a thread's parent.
func (s *Server) addMessageLocked(c *channel, m *Message) {
	m.Channel, m.TS = c.id, s.newTSLocked()
	c.msgs = append(c.msgs, m)
	c.byTS[m.TS] = m
	if m.ThreadTS != "" {
		if root := c.byTS[m.ThreadTS]; root != nil {
			root.ThreadTS = root.TS
			root.Replies++
		}
	}
}

func (s *Server) deleteLocked(c *channel, m *Message) {
	prev := s.messageJSON(m)
	m.Deleted = true
	ev := obj{"type": "message", "subtype": "message_deleted", "hidden": true, "channel": c.id, "ts": s.newTSLocked(),
		"deleted_ts": m.TS, "previous_message": prev}
	ev["event_ts"] = ev["ts"]
	s.callbackLocked(ev)
}

// reactLocked adds user's reaction; false if it was there.
func (s *Server) reactLocked(c *channel, m *Message, user, name string) bool {
	if m.Reactions == nil {
		m.Reactions = map[string][]string{}
	}
	for _, u := range m.Reactions[name] {
		if u == user {
			return false
		}
	}
	m.Reactions[name] = append(m.Reactions[name], user)
	s.reactionEventLocked(c, m, user, name, true)
	return true
}

// messageEventLocked sends the app the message event of m (also for the
// bot's own messages: Slack echoes them to an app subscribed to the
// channel's messages) and returns its event id.
// A person's message that mentions the bot also sends app_mention (the
// app subscribes to it), after the message event.
func (s *Server) messageEventLocked(c *channel, m *Message) string {
	ev := s.messageJSON(m)
	ev["channel"], ev["event_ts"], ev["channel_type"] = c.id, m.TS, "channel"
	id := s.callbackLocked(ev)
	if m.BotID == "" && strings.Contains(m.Text, "<@"+BotUserID) {
		mention := obj{"type": "app_mention", "user": m.User, "text": m.Text, "ts": m.TS, "channel": c.id, "event_ts": m.TS, "team": TeamID}
		if m.ThreadTS != "" {
			mention["thread_ts"] = m.ThreadTS
		}
		s.callbackLocked(mention)
	}
	return id
}

func (s *Server) changedEventLocked(c *channel, m, prev *Message) string {
	ts := s.newTSLocked()
	return s.callbackLocked(obj{"type": "message", "subtype": "message_changed", "hidden": true, "channel": c.id,
		"ts": ts, "event_ts": ts, "channel_type": "channel", "message": s.messageJSON(m), "previous_message": s.messageJSON(prev)})
}

func (s *Server) reactionEventLocked(c *channel, m *Message, user, name string, added bool) {
	typ := "reaction_added"
	if !added {
		typ = "reaction_removed"
	}
	s.callbackLocked(obj{"type": typ, "user": user, "reaction": name, "item_user": m.User,
		"item": obj{"type": "message", "channel": c.id, "ts": m.TS}, "event_ts": s.newTSLocked()})
}

// callbackLocked wraps an inner event in an event_callback, queues it for
// delivery and returns its event id.
func (s *Server) callbackLocked(ev obj) string {
	id := s.newIDLocked("Ev")
	payload := obj{"token": verificationToken, "team_id": TeamID, "api_app_id": AppID, "event": ev,
		"type": "event_callback", "event_id": id, "event_time": time.Now().Unix(), "is_ext_shared_channel": false,
		"authorizations": []obj{{"enterprise_id": nil, "team_id": TeamID, "user_id": BotUserID, "is_bot": true, "is_enterprise_install": false}},
		"event_context":  "4-slacktest-" + id}
	b, _ := json.Marshal(payload)
	s.enqueueLocked("events_api", id, b)
	return id
}

func (s *Server) lastKeyLocked() string { return s.events[len(s.events)-1].key }

// messageJSON is a message as Slack writes it in events and answers.
func (s *Server) messageJSON(m *Message) obj {
	out := obj{"type": "message", "text": m.Text, "ts": m.TS, "team": TeamID}
	if m.User != "" {
		out["user"] = m.User
	}
	if m.BotID != "" {
		out["bot_id"], out["app_id"] = m.BotID, AppID
		out["bot_profile"] = obj{"id": m.BotID, "app_id": AppID, "name": BotName, "team_id": TeamID}
	}
	if m.Subtype != "" {
		out["subtype"] = m.Subtype
	}
	if m.ThreadTS != "" {
		out["thread_ts"] = m.ThreadTS
	}
	if m.Replies > 0 {
		out["reply_count"] = m.Replies
	}
	if m.Blocks != nil {
		out["blocks"] = json.RawMessage(m.Blocks)
	}
	if m.EditedTS != "" {
		out["edited"] = obj{"user": m.User, "ts": m.EditedTS}
	}
	if len(m.Files) > 0 {
		files := make([]obj, 0, len(m.Files))
		for _, id := range m.Files {
			if f := s.files[id]; f != nil {
				files = append(files, s.fileJSON(f))
			}
		}
		out["files"] = files
	}
	if len(m.Reactions) > 0 {
		var rs []obj
		for name, users := range m.Reactions {
			rs = append(rs, obj{"name": name, "users": users, "count": len(users)})
		}
		out["reactions"] = rs
	}
	return out
}

func (s *Server) fileJSON(f *file) obj {
	base := s.hs.URL + "/files-pri/" + TeamID + "-" + f.id + "/"
	o := obj{"id": f.id, "name": f.name, "title": f.title, "mimetype": f.mimetype, "size": len(f.data),
		"url_private": base + f.name, "url_private_download": base + "download/" + f.name, "is_external": false}
	if f.subtype != "" {
		o["subtype"], o["media_display_type"], o["duration_ms"] = f.subtype, "audio", f.durationMS
	}
	return o
}
