package slack

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/slack-go/slack"

	"github.com/chatbus/chatbus/internal/backoff"
)

// The bot must be a member of its channel to post there: Slack answers
// chat.postMessage with not_in_channel (a public channel) or
// channel_not_found (a private one, which the bot cannot see until it is
// invited). The provider says so in its health (componentChannel), with
// what to do, instead of serving while every thread it provisions fails:
//
//   - at start, conversations.info tells whether the bot is a member
//     (scope channels:read, groups:read for a private channel);
//   - a call into the channel answered not_in_channel or
//     channel_not_found (the bot was removed) turns it NOT_SERVING, and a
//     message posted there turns it SERVING;
//   - member_joined_channel and member_left_channel for the bot's own user
//     (the bot invited, or removed) are seen at once;
//   - while it is NOT_SERVING, conversations.info is asked again every
//     auth_retry, so it serves again by itself once invited even without
//     those events.
//
// Without channels:read Slack answers conversations.info missing_scope:
// then only the calls tell, and the reason says to add the scope.

// componentChannel is the bot's membership of its channel.
const componentChannel = "channel"

// noteResult tells the health what a Web API call into channel said:
// success means the bot token works; a refusal may say that it does not,
// or that the bot is not in its channel.
func (p *Platform) noteResult(channel string, err error) {
	if err == nil {
		p.health.set(componentBot, true, "")
		return
	}
	p.noteBotErr(err)
	if channel != p.s.ChannelID {
		return
	}
	switch code := slackCode(err); code {
	case "not_in_channel", "channel_not_found":
		p.health.set(componentChannel, false, p.notInChannel(code, false))
	}
}

// inChannel records that a message was posted in channel: the bot is a
// member.
func (p *Platform) inChannel(channel string) {
	if channel == p.s.ChannelID {
		p.health.set(componentChannel, true, "")
	}
}

// notInChannel is the reason the health gives, for Slack's answer code
// ("not_in_channel", "channel_not_found"); noScope adds that the
// provider cannot see by itself when the bot is invited.
func (p *Platform) notInChannel(code string, noScope bool) string {
	bot := "the bot"
	p.idMu.Lock()
	if p.id != nil {
		bot = "@" + p.id.User
	}
	p.idMu.Unlock()
	why := fmt.Sprintf("%s is not in channel %s (%s): invite it with /invite %s in that channel", bot, p.s.ChannelID, code, bot)
	if code == "channel_not_found" {
		why = fmt.Sprintf("channel %s not found (%s): check channel_id; a private channel is found once %s is invited (/invite %s)",
			p.s.ChannelID, code, bot, bot)
	}
	if noScope {
		why += "; the app lacks channels:read (groups:read for a private channel), so chatbus cannot see when it is invited: add the scope, or restart the provider after inviting (busctl doctor restart slack)"
	}
	return why
}

// checkChannel asks Slack whether the bot is in its channel and sets the
// health from the answer, unless something newer was learnt while it was
// asked (a post refused, the bot invited or removed); an answer that
// tells nothing (a failure on the way) changes nothing.
func (p *Platform) checkChannel(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	mark := p.health.saidOf(componentChannel)
	info, err := p.api.GetConversationInfoContext(ctx, &slack.GetConversationInfoInput{ChannelID: p.s.ChannelID})
	switch code := slackCode(err); {
	case err == nil && info.IsMember:
		p.health.setSince(mark, componentChannel, true, "")
	case err == nil:
		p.health.setSince(mark, componentChannel, false, p.notInChannel("not_in_channel", false))
	case code == "channel_not_found":
		p.health.setSince(mark, componentChannel, false, p.notInChannel(code, false))
	case code == "missing_scope":
		if why, bad := p.health.reason(componentChannel); bad {
			code := "not_in_channel"
			if strings.Contains(why, "(channel_not_found)") {
				code = "channel_not_found"
			}
			p.health.set(componentChannel, false, p.notInChannel(code, true))
		}
		p.log.Warn().Err(err).Msg("conversations.info: the app lacks channels:read (groups:read for a private channel): chatbus cannot tell whether the bot is in its channel")
	default:
		p.noteBotErr(err)
		p.log.Debug().Err(err).Msg("conversations.info failed: the channel's membership is not known")
	}
}

// watchChannel checks the channel at start, and again every auth_retry
// while the bot is not in it, until ctx ends.
func (p *Platform) watchChannel(ctx context.Context) {
	p.checkChannel(ctx)
	for backoff.Sleep(ctx, p.authRetry) == nil {
		if p.health.broken(componentChannel) {
			p.checkChannel(ctx)
		}
	}
}

// memberEvent handles member_joined_channel and member_left_channel of
// the bot's own user in its channel.
func (p *Platform) memberEvent(id identity, ev *event) {
	if ev.User != id.UserID || ev.Channel != p.s.ChannelID {
		return
	}
	if ev.Type == "member_joined_channel" {
		p.log.Info().Str("channel", ev.Channel).Msg("the bot was invited to its channel")
		p.health.set(componentChannel, true, "")
		return
	}
	p.log.Warn().Str("channel", ev.Channel).Msg("the bot was removed from its channel")
	p.health.set(componentChannel, false, p.notInChannel("not_in_channel", false))
}
