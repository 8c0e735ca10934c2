package telegram

import (
	"encoding/json"
	"regexp"
	"strings"
	"time"

	"github.com/chatbus/chatbus/provider"
)

// TokenEnv is the environment variable the bot token is read from when
// the settings carry none (so it can stay out of the config file).
const TokenEnv = "CHATBUS_TELEGRAM_TOKEN"

// Settings is the provider's config: the providers.telegram section of the
// supervisor's config file, minus the supervisor's own keys, written to
// the child's stdin as JSON.
type Settings struct {
	// PrivateChatID is the person (their user id) in whose private chat
	// with the bot threads are made, as topics (the bot's threaded mode,
	// Bot API 9.3). Exactly one of PrivateChatID and ForumChatID is set.
	PrivateChatID int64 `json:"private_chat_id"`
	// ForumChatID is the forum supergroup threads are made in, as topics.
	ForumChatID int64 `json:"forum_chat_id"`
	// Token is the bot token. If empty, $CHATBUS_TELEGRAM_TOKEN.
	Token string `json:"token"`
	// BaseURL of the Bot API. If empty, https://api.telegram.org.
	BaseURL string `json:"base_url"`
	// AllowedUserIDs may talk to followers; everyone else is dropped and
	// counted. Empty: nobody is routed (fail closed).
	AllowedUserIDs []int64 `json:"allowed_user_ids"`
	// PollTimeout is the long-poll timeout. If empty, 30s.
	PollTimeout string `json:"poll_timeout"`
	// PollGrace is added to the HTTP timeout of a long poll. If empty, 10s.
	PollGrace string `json:"poll_grace"`
	// ChatRecheck is how soon a forum chat found unusable (not a forum,
	// the bot no admin that may manage topics) is looked at again. If
	// empty, 10s. A usable chat is looked at again every 5 minutes.
	ChatRecheck string `json:"chat_recheck"`
	// Limits changes the rate limits calls are paced to (DefaultLimits):
	// "bot", "chat", "group", each "<count>/<window>" or "off".
	Limits provider.LimitSettings `json:"limits"`
}

// tokenPattern is a bot token as BotFather gives it: the bot's id, a
// colon, a secret of URL-safe characters.
var tokenPattern = regexp.MustCompile(`^[0-9]+:[A-Za-z0-9_-]+$`)

// ParseSettings decodes the settings (JSON) and checks every one of them
// without contacting Telegram; a token left out is read with getenv from
// [TokenEnv]. A problem is a *provider.SettingError naming the key. The
// token's value never appears in an error.
func ParseSettings(b json.RawMessage, getenv func(string) string) (Settings, error) {
	var s Settings
	if err := provider.DecodeSettings(b, &s); err != nil {
		return s, err
	}
	switch {
	case s.PrivateChatID != 0 && s.ForumChatID != 0:
		return s, provider.Settingf("private_chat_id", "set either private_chat_id (your user id: threads in your private chat with the bot) or forum_chat_id (a forum supergroup), not both")
	case s.PrivateChatID == 0 && s.ForumChatID == 0:
		return s, provider.Settingf("private_chat_id", "required: your Telegram user id (e.g. 123456789), for threads in your private chat with the bot; or forum_chat_id for a forum supergroup")
	case s.PrivateChatID < 0:
		return s, provider.Settingf("private_chat_id", "%d is a group's id; a user id is positive (e.g. 123456789); for a forum supergroup use forum_chat_id", s.PrivateChatID)
	case s.ForumChatID > 0:
		return s, provider.Settingf("forum_chat_id", "%d is a user's id; a forum supergroup's id is negative (e.g. -1001234567890); for your private chat with the bot use private_chat_id", s.ForumChatID)
	}
	if s.Token == "" && getenv != nil {
		s.Token = strings.TrimSpace(getenv(TokenEnv))
	}
	switch {
	case s.Token == "":
		return s, provider.Settingf("token", "missing: set token under providers.telegram or export %s", TokenEnv)
	case !tokenPattern.MatchString(s.Token):
		return s, provider.Settingf("token", "not a bot token (want <bot id>:<secret> as @BotFather gives it)")
	}
	if err := provider.URLSetting("base_url", s.BaseURL, "http", "https://api.telegram.org"); err != nil {
		return s, err
	}
	for i, id := range s.AllowedUserIDs {
		if id <= 0 {
			return s, provider.Settingf("allowed_user_ids", "entry %d (%d) is not a user id: user ids are positive", i+1, id)
		}
	}
	if _, err := s.Limits.Apply(s.defaultLimits()); err != nil {
		return s, err
	}
	_, _, _, err := s.durations()
	return s, err
}

// durations returns PollTimeout, PollGrace and ChatRecheck, their
// defaults where empty, and what is wrong with any.
func (s Settings) durations() (pollTimeout, pollGrace, chatRecheck time.Duration, err error) {
	pollTimeout, err = provider.DurationSetting("poll_timeout", s.PollTimeout, 30*time.Second, time.Second, 5*time.Minute)
	if err != nil {
		return 0, 0, 0, err
	}
	pollGrace, err = provider.DurationSetting("poll_grace", s.PollGrace, 10*time.Second, time.Millisecond, 5*time.Minute)
	if err != nil {
		return 0, 0, 0, err
	}
	chatRecheck, err = provider.DurationSetting("chat_recheck", s.ChatRecheck, 10*time.Second, 10*time.Millisecond, time.Hour)
	return pollTimeout, pollGrace, chatRecheck, err
}

// Private reports whether threads are topics of a private chat (else of a
// forum supergroup).
func (s Settings) Private() bool { return s.PrivateChatID != 0 }

// ChatID is the chat threads are made in: the private chat (its id is the
// person's) or the forum supergroup.
func (s Settings) ChatID() int64 {
	if s.Private() {
		return s.PrivateChatID
	}
	return s.ForumChatID
}

// chatKey is the setting that names the chat, for messages.
func (s Settings) chatKey() string {
	if s.Private() {
		return "private_chat_id"
	}
	return "forum_chat_id"
}

// defaultLimits are the rate limits that apply to the chat.
func (s Settings) defaultLimits() []provider.RateLimit {
	if s.Private() {
		return PrivateLimits
	}
	return DefaultLimits
}
