package slack

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/provider"
)

// The control surface on Slack: what a person addresses to chatbus itself
// rather than to a follower, delivered as updates of kind COMMAND in the
// channel's control place (thread ""), whose text is what follows the
// command's name ("sessions", "new claude web"):
//
//   - a slash command, /chatbus <args>, which Socket Mode delivers as a
//     slash_commands envelope. Slack waits 3 s for its acknowledgement
//     and does not deliver a slash command again (the person sees
//     "/chatbus failed with the error operation_timeout"), so, unlike an
//     event, it is acknowledged on arrival, by the reader, before the
//     supervisor journalled it (see slashAck): a doctor restart holding
//     admission closed must not turn every command into an error. The
//     command is then delivered as any update; one the provider could not
//     hand over before it exited is lost, and the person, who got no
//     answer, types it again. A command used in another channel is
//     answered there, in the acknowledgement, with where chatbus listens
//     (only the person sees it) and routed nowhere; a person not on
//     allowed_user_ids gets an empty acknowledgement (nothing shows) and
//     the update, not allowed, is dropped and counted by the supervisor.
//     A redelivered envelope (the connection dropped before the
//     acknowledgement arrived) is the same command: its dedup id is the
//     trigger id.
//   - a mention of the bot at the start of a top-level message of the
//     channel (@chatbus sessions): Slack sends it twice, as the message
//     event and as an app_mention event, both made the same update with
//     the mention taken off, journalled once by its dedup id (the
//     message's ts). A mention elsewhere in a message, or in a thread, is
//     an ordinary message.
//
// The answer is the send verb to the control place: a message at the
// channel's top level (Send with thread ""). Slack has no interaction to
// name in ReplyTo.

// CommandName is the slash command the app's manifest declares.
const CommandName = "/chatbus"

// slashCommand is a slash_commands envelope's payload: the fields Slack
// posts to a command's Request URL, as JSON.
type slashCommand struct {
	Command     string `json:"command"`
	Text        string `json:"text"`
	UserID      string `json:"user_id"`
	UserName    string `json:"user_name"`
	ChannelID   string `json:"channel_id"`
	ChannelName string `json:"channel_name"`
	TeamID      string `json:"team_id"`
	ResponseURL string `json:"response_url"`
	TriggerID   string `json:"trigger_id"`
}

// commandText is what a command asks: its arguments, with the command's
// own name first when it is not /chatbus (an app may declare /sessions
// as well: its text is "sessions").
func commandText(c *slashCommand) string {
	args := strings.TrimSpace(c.Text)
	name := strings.TrimPrefix(strings.TrimSpace(c.Command), "/")
	if c.Command == CommandName || name == "" {
		return args
	}
	return strings.TrimSpace(name + " " + args)
}

// slashAck is the payload of a slash command's acknowledgement: nil (an
// empty acknowledgement, nothing shows) for a command routed and for a
// person not allowed; for a command used outside the channel, an
// ephemeral answer saying where chatbus listens.
func (p *Platform) slashAck(payload json.RawMessage) json.RawMessage {
	var c slashCommand
	if json.Unmarshal(payload, &c) != nil || c.ChannelID == p.s.ChannelID || !p.allowed[c.UserID] {
		return nil
	}
	b, _ := json.Marshal(map[string]string{
		"response_type": "ephemeral",
		"text":          fmt.Sprintf("chatbus listens in <#%s>: use %s there.", p.s.ChannelID, CommandName),
	})
	return b
}

// convertSlash makes the update of a slash command: nil and why not for
// one used outside the channel.
func (p *Platform) convertSlash(env *envelope) (*providerv1.Update, string, error) {
	var c slashCommand
	if err := json.Unmarshal(env.Payload, &c); err != nil {
		return nil, "", fmt.Errorf("slash command: %w", err)
	}
	if c.ChannelID != p.s.ChannelID {
		return nil, fmt.Sprintf("not routed: %s used in %s, not in the channel (answered with where chatbus listens)", c.Command, c.ChannelID), nil
	}
	u := p.update(c.ChannelID, "", c.UserID, providerv1.UpdateKind_UPDATE_KIND_COMMAND)
	u.SenderName = c.UserName
	u.Text = commandText(&c)
	u.DedupId = "trigger:" + c.TriggerID
	if c.TriggerID == "" {
		u.DedupId = "envelope:" + env.ID
	}
	return u, "", nil
}

// mentionPrefix matches a mention at the start of a text: <@U123> or
// <@U123|name>, and the spaces after it.
var mentionPrefix = regexp.MustCompile(`^\s*<@([UW][A-Z0-9]+)(?:\|[^>]*)?>[\s:,]*`)

// mentionCommand is the text after a mention of the bot at the start of
// text, and whether there is one.
// (Mentions of the bot repeated at the start are all taken off.)
func mentionCommand(id identity, text string) (string, bool) {
	found := false
	for {
		m := mentionPrefix.FindStringSubmatchIndex(text)
		if m == nil || text[m[2]:m[3]] != id.UserID {
			return strings.TrimSpace(text), found
		}
		text, found = text[m[1]:], true
	}
}

// mention makes the update of a person's top-level message in the
// channel that starts with a mention of the bot (the message event and
// the app_mention event make the same one), or nil if m is not one.
func (p *Platform) mention(id identity, channel string, m *message) *providerv1.Update {
	if channel != p.s.ChannelID || (m.ThreadTS != "" && m.ThreadTS != m.TS) || m.TS == "" {
		return nil
	}
	text, ok := mentionCommand(id, m.Text)
	if !ok {
		return nil
	}
	u := p.update(channel, "", m.User, providerv1.UpdateKind_UPDATE_KIND_COMMAND)
	u.Text = text
	u.SenderName = profileName(m)
	u.DedupId = "mention:" + channel + ":" + m.TS
	u.References = provider.RefsProto([]provider.Ref{{Kind: provider.RefMessage, ID: m.TS}})
	return u
}
