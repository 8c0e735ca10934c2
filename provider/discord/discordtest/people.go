package discordtest

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"time"
)

// PostMessage writes a message as user into channel (a text channel or a
// thread) and dispatches MESSAGE_CREATE to every session that can receive
// it. A message into an archived thread unarchives it, as Discord does.
// It returns the message; an unknown channel is a test failure.
func (s *Server) PostMessage(channel string, user User, content string) Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return *s.postLocked(channel, &Message{Author: user, Content: content})
}

// PostFile writes a message with one attachment.
func (s *Server) PostFile(channel string, user User, content, filename string, data []byte) Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := &Message{ID: s.newIDLocked(), Author: user, Content: content}
	m.Attachments = []Attachment{s.storeFileLocked(channel, filename, data)}
	return *s.postLocked(channel, m)
}

// PostVoiceMessage writes a voice message as Discord's apps record one:
// flags IS_VOICE_MESSAGE (1<<13), no content, one OGG/Opus attachment
// "voice-message.ogg" with its length in seconds and a waveform.
func (s *Server) PostVoiceMessage(channel string, user User, data []byte, seconds float64) Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := &Message{ID: s.newIDLocked(), Author: user, Flags: 1 << 13}
	a := s.storeFileLocked(channel, "voice-message.ogg", data)
	a.ContentType, a.DurationSecs = "audio/ogg", seconds
	a.Waveform = base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{0x20, 0x80, 0xe0}, 85))
	s.files[channel+"/"+a.ID+"/voice-message.ogg"].att = a
	m.Attachments = []Attachment{a}
	return *s.postLocked(channel, m)
}

// PostReply writes a reply to message ref.
func (s *Server) PostReply(channel string, user User, content, ref string) Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return *s.postLocked(channel, &Message{Author: user, Content: content, Type: 19,
		MessageReference: &MessageReference{MessageID: ref, ChannelID: channel, GuildID: s.guildID}})
}

func (s *Server) postLocked(channel string, m *Message) *Message {
	c, ok := s.channels[channel]
	if !ok {
		s.tb.Fatalf("discordtest: post into unknown channel %s", channel)
	}
	if md := c.ThreadMetadata; md != nil && md.Archived {
		md.Archived = false
		s.dispatchLocked("THREAD_UPDATE", IntentGuilds, c)
	}
	s.addMessageLocked(c, m)
	return m
}

// React adds user's reaction with a unicode emoji to a message and
// dispatches MESSAGE_REACTION_ADD.
func (s *Server) React(channel, message string, user User, emoji string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.findLocked(channel, message)
	if m == nil {
		s.tb.Fatalf("discordtest: react to unknown message %s in %s", message, channel)
	}
	if s.addReactionLocked(m, user.ID, Emoji{Name: emoji}) {
		s.dispatchLocked("MESSAGE_REACTION_ADD", IntentGuildMessageReactions, s.reactionLocked(channel, m, user.ID, Emoji{Name: emoji}))
	}
}

// Press presses the button customID on a message as user: an
// INTERACTION_CREATE (MESSAGE_COMPONENT) is dispatched, and the
// interaction waits 3s for its callback. It returns the interaction's id
// and token.
func (s *Server) Press(channel, message string, user User, customID string) (id, token string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.findLocked(channel, message)
	if m == nil {
		s.tb.Fatalf("discordtest: press a button on unknown message %s in %s", message, channel)
	}
	if !hasButton(m, customID) {
		s.tb.Fatalf("discordtest: message %s has no button %q", message, customID)
	}
	in := &interaction{id: s.newIDLocked(), token: "aW50ZXJhY3Rpb246" + randomHex(40), channel: channel, message: m.ID, user: user.ID, created: time.Now()}
	s.interactions[in.id] = in
	s.tokens[in.token] = in
	c := s.channels[channel]
	payload := map[string]any{
		"id": in.id, "application_id": s.appID, "type": 3, "token": in.token, "version": 1,
		"guild_id": s.guildID, "channel_id": channel, "channel": c,
		"data":    map[string]any{"custom_id": customID, "component_type": 2},
		"member":  map[string]any{"user": user, "roles": []string{}, "joined_at": stamp(time.Now()), "permissions": "2248473465835073"},
		"message": m, "app_permissions": "2248473465835073", "locale": "en-US", "guild_locale": "en-US",
		"entitlements": []any{}, "authorizing_integration_owners": map[string]string{"0": s.guildID}, "context": 0,
	}
	s.dispatchLocked("INTERACTION_CREATE", 0, payload)
	return in.id, in.token
}

func hasButton(m *Message, customID string) bool {
	for _, raw := range m.Components {
		var row struct {
			Components []struct {
				Type     int    `json:"type"`
				CustomID string `json:"custom_id"`
			} `json:"components"`
		}
		if json.Unmarshal(raw, &row) != nil {
			continue
		}
		for _, c := range row.Components {
			if c.Type == 2 && c.CustomID == customID {
				return true
			}
		}
	}
	return false
}

// String describes the server for test logs.
func (s *Server) String() string { return fmt.Sprintf("discordtest at %s", s.hs.URL) }
