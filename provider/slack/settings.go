package slack

import (
	"encoding/json"
	"regexp"
	"strings"
	"time"

	"github.com/chatbus/chatbus/provider"
)

// DefaultBaseURL is Slack's Web API.
const DefaultBaseURL = "https://slack.com/api/"

// Settings is the provider's config, written by the supervisor to the
// child's stdin as JSON: the providers.slack section of the supervisor's
// config file (minus the supervisor's own keys), plus name.
type Settings struct {
	Name string `json:"name"`
	// AppToken is the app-level token (xapp-…, scope connections:write)
	// that opens Socket Mode connections. If empty, the command reads
	// CHATBUS_SLACK_APP_TOKEN.
	AppToken string `json:"app_token"`
	// BotToken is the bot token (xoxb-…) of every Web API call. If empty,
	// the command reads CHATBUS_SLACK_BOT_TOKEN.
	BotToken string `json:"bot_token"`
	// ChannelID is the channel the followers' threads live in (C… for a
	// public channel, G… for a private one). Required.
	ChannelID string `json:"channel_id"`
	// AllowedUserIDs may talk to followers (U… or W… ids); everyone else
	// is dropped and counted. Empty: nobody is routed (fail closed).
	AllowedUserIDs []string `json:"allowed_user_ids"`
	// BaseURL of the Web API. If empty, DefaultBaseURL.
	BaseURL string `json:"base_url"`
	// DeadAfter: a Socket Mode connection on which nothing arrives (no
	// frame, ping or pong) for this long is dead and is replaced. The
	// provider pings every third of it. If empty, 30s; at most 24h.
	DeadAfter string `json:"dead_after"`
	// AuthRetry is how long the provider waits before trying again after
	// Slack refused a token (invalid_auth, token_revoked…) or turned
	// Socket Mode off (link_disabled), and between looks at whether the
	// bot is in its channel while it is not. If empty, 1m; at most 24h.
	AuthRetry string `json:"auth_retry"`
	// Limits changes the rate limits calls are paced to (DefaultLimits),
	// by the name of the method each counts ("chat.postMessage",
	// "chat.update", …, "upload"): "<count>/<window>" or "off".
	Limits provider.LimitSettings `json:"limits"`
}

var (
	channelID = regexp.MustCompile(`^[CG][A-Z0-9]{2,}$`)
	userID    = regexp.MustCompile(`^[UW][A-Z0-9]{2,}$`)
)

// The environment variables the tokens are read from when the settings
// carry none (so they can stay out of the config file).
const (
	AppTokenEnv = "CHATBUS_SLACK_APP_TOKEN"
	BotTokenEnv = "CHATBUS_SLACK_BOT_TOKEN"
)

// ParseSettings decodes the settings (JSON) and checks every one of them
// without contacting Slack; a token left out is read with getenv from
// [AppTokenEnv] or [BotTokenEnv]. A problem is a *provider.SettingError
// naming the key. A token's value never appears in an error.
func ParseSettings(b json.RawMessage, getenv func(string) string) (Settings, error) {
	var s Settings
	if err := provider.DecodeSettings(b, &s); err != nil {
		return s, err
	}
	switch {
	case s.ChannelID == "":
		return s, provider.Settingf("channel_id", "required: the id of the channel the threads live in, e.g. C0123ABCD (in Slack, the channel's details › About, at the bottom)")
	case !channelID.MatchString(s.ChannelID):
		return s, provider.Settingf("channel_id", "%q is not a channel id (C… or G…, upper case, e.g. C0123ABCD; not the channel's name)", s.ChannelID)
	}
	for _, id := range s.AllowedUserIDs {
		if !userID.MatchString(id) {
			return s, provider.Settingf("allowed_user_ids", "%q is not a Slack member id (U… or W…, e.g. U0123ABCD: your profile › ⋮ › Copy member ID)", id)
		}
	}
	if err := provider.URLSetting("base_url", s.BaseURL, "http", DefaultBaseURL); err != nil {
		return s, err
	}
	if s.BaseURL != "" && !strings.HasSuffix(s.BaseURL, "/") {
		s.BaseURL += "/"
	}
	if _, _, err := s.durations(); err != nil {
		return s, err
	}
	if _, err := s.Limits.Apply(DefaultLimits); err != nil {
		return s, err
	}
	if getenv != nil {
		if s.AppToken == "" {
			s.AppToken = strings.TrimSpace(getenv(AppTokenEnv))
		}
		if s.BotToken == "" {
			s.BotToken = strings.TrimSpace(getenv(BotTokenEnv))
		}
	}
	return s, s.CheckTokens()
}

// CheckTokens says what is wrong with the tokens, once they are filled in
// (from the settings or the environment).
func (s Settings) CheckTokens() error {
	switch {
	case s.AppToken == "":
		return provider.Settingf("app_token", "missing: set app_token under providers.slack or export %s (Basic Information › App-Level Tokens, scope connections:write)", AppTokenEnv)
	case !strings.HasPrefix(s.AppToken, "xapp-"):
		return provider.Settingf("app_token", "not an app-level token (it starts with xapp-; a bot token xoxb- goes in bot_token)")
	case s.BotToken == "":
		return provider.Settingf("bot_token", "missing: set bot_token under providers.slack or export %s (OAuth & Permissions › Bot User OAuth Token)", BotTokenEnv)
	case !strings.HasPrefix(s.BotToken, "xoxb-"):
		return provider.Settingf("bot_token", "not a bot token (it starts with xoxb-)")
	}
	return nil
}

// durations returns DeadAfter and AuthRetry, their defaults where empty,
// and what is wrong with either.
func (s Settings) durations() (deadAfter, authRetry time.Duration, err error) {
	deadAfter, err = provider.DurationSetting("dead_after", s.DeadAfter, 30*time.Second, time.Millisecond, 24*time.Hour)
	if err != nil {
		return deadAfter, time.Minute, err
	}
	authRetry, err = provider.DurationSetting("auth_retry", s.AuthRetry, time.Minute, time.Millisecond, 24*time.Hour)
	return deadAfter, authRetry, err
}
