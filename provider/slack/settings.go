package slack

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"time"
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
	// provider pings every third of it. If empty, 30s.
	DeadAfter string `json:"dead_after"`
	// AuthRetry is how long the provider waits before trying again after
	// Slack refused a token (invalid_auth, token_revoked…) or turned
	// Socket Mode off (link_disabled), and between looks at whether the
	// bot is in its channel while it is not. If empty, 1m.
	AuthRetry string `json:"auth_retry"`
}

var (
	channelID = regexp.MustCompile(`^[CG][A-Z0-9]{2,}$`)
	userID    = regexp.MustCompile(`^[UW][A-Z0-9]{2,}$`)
)

// ParseSettings decodes and checks the stdin config. Unknown keys are
// refused. Tokens are not required here: the command may take them from
// the environment (see [Settings.CheckTokens]).
func ParseSettings(b []byte) (Settings, error) {
	var s Settings
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&s); err != nil {
		return s, fmt.Errorf("slack settings: %w (known keys: app_token, bot_token, channel_id, allowed_user_ids, base_url, dead_after, auth_retry)", err)
	}
	switch {
	case s.ChannelID == "":
		return s, errors.New("slack settings: channel_id is required (the id of the channel the threads live in, e.g. C0123ABCD: in Slack, the channel's details › About, at the bottom)")
	case !channelID.MatchString(s.ChannelID):
		return s, fmt.Errorf("slack settings: channel_id %q is not a channel id (C… or G…, upper case, e.g. C0123ABCD; not the channel's name)", s.ChannelID)
	}
	for _, id := range s.AllowedUserIDs {
		if !userID.MatchString(id) {
			return s, fmt.Errorf("slack settings: allowed_user_ids: %q is not a Slack member id (U… or W…, e.g. U0123ABCD: your profile › ⋮ › Copy member ID)", id)
		}
	}
	if s.BaseURL != "" {
		u, err := url.Parse(s.BaseURL)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return s, fmt.Errorf("slack settings: base_url %q is not an http(s) URL", s.BaseURL)
		}
		if !strings.HasSuffix(s.BaseURL, "/") {
			s.BaseURL += "/"
		}
	}
	for _, d := range []struct{ key, v string }{{"dead_after", s.DeadAfter}, {"auth_retry", s.AuthRetry}} {
		if d.v == "" {
			continue
		}
		if v, err := time.ParseDuration(d.v); err != nil || v <= 0 {
			return s, fmt.Errorf("slack settings: %s: %q is not a positive duration (e.g. 30s)", d.key, d.v)
		}
	}
	return s, nil
}

// CheckTokens says what is wrong with the tokens, once they are filled in
// (from the settings or the environment).
func (s Settings) CheckTokens() error {
	switch {
	case s.AppToken == "":
		return errors.New("slack: no app-level token: set app_token in the provider settings or CHATBUS_SLACK_APP_TOKEN (Basic Information › App-Level Tokens, scope connections:write)")
	case !strings.HasPrefix(s.AppToken, "xapp-"):
		return errors.New("slack: app_token is not an app-level token (it starts with xapp-; a bot token xoxb- goes in bot_token)")
	case s.BotToken == "":
		return errors.New("slack: no bot token: set bot_token in the provider settings or CHATBUS_SLACK_BOT_TOKEN (OAuth & Permissions › Bot User OAuth Token)")
	case !strings.HasPrefix(s.BotToken, "xoxb-"):
		return errors.New("slack: bot_token is not a bot token (it starts with xoxb-)")
	}
	return nil
}

// durations returns DeadAfter and AuthRetry with their defaults; the
// strings were checked by ParseSettings.
func (s Settings) durations() (deadAfter, authRetry time.Duration) {
	deadAfter, authRetry = 30*time.Second, time.Minute
	if v, err := time.ParseDuration(s.DeadAfter); err == nil && v > 0 {
		deadAfter = v
	}
	if v, err := time.ParseDuration(s.AuthRetry); err == nil && v > 0 {
		authRetry = v
	}
	return deadAfter, authRetry
}
