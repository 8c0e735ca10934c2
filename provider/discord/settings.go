package discord

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/chatbus/chatbus/provider"
)

// Settings is the provider's config, written by the supervisor to the
// child's stdin as JSON (the providers.discord section of the supervisor's
// config file, plus name). Ids are snowflakes, given as strings or numbers.
type Settings struct {
	Name string `json:"name"`
	// Token is the bot token. If empty, the CHATBUS_DISCORD_TOKEN
	// environment variable (read by the command, not here).
	Token string `json:"token"`
	// GuildID is the server (guild) the bot works in. Required.
	GuildID Snowflake `json:"guild_id"`
	// ChannelID is the text channel whose threads are the followers'
	// threads. Required.
	ChannelID Snowflake `json:"channel_id"`
	// AllowedUserIDs may talk to followers; everyone else is sent with
	// allowed=false (dropped and counted). Empty: nobody is routed.
	AllowedUserIDs []Snowflake `json:"allowed_user_ids"`
	// BaseURL is the REST API root without the version. If empty,
	// https://discord.com/api.
	BaseURL string `json:"base_url"`
	// GatewayURL is the gateway to identify at. If empty, the one GET
	// /gateway/bot names.
	GatewayURL string `json:"gateway_url"`
	// Limits changes the rate limits calls are paced to (DefaultLimits):
	// "global", "message", "edit", "delete", "reaction", "typing", each
	// "<count>/<window>" or "off". The buckets Discord announces are
	// learned as they come whatever these say.
	Limits provider.LimitSettings `json:"limits"`
}

// Snowflake is a Discord id as text. In JSON it may be a string or a
// number (YAML config files write ids as numbers).
type Snowflake string

// UnmarshalJSON accepts "123" and 123.
func (s *Snowflake) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var v string
		if err := json.Unmarshal(b, &v); err != nil {
			return err
		}
		b = []byte(v)
	}
	if _, err := strconv.ParseUint(string(b), 10, 64); err != nil || string(b) == "0" {
		return fmt.Errorf("%s is not a Discord id (a snowflake such as 1234567890123456789)", b)
	}
	*s = Snowflake(b)
	return nil
}

// versioned is an API version at the end of a base_url.
var versioned = regexp.MustCompile(`/v\d+$`)

// DefaultBaseURL is the REST API root.
const DefaultBaseURL = "https://discord.com/api"

// TokenEnv is the environment variable the bot token is read from when
// the settings carry none (so it can stay out of the config file).
const TokenEnv = "CHATBUS_DISCORD_TOKEN"

// ParseSettings decodes the settings (JSON) and checks every one of them
// without contacting Discord; a token left out is read with getenv from
// [TokenEnv]. A problem is a *provider.SettingError naming the key.
func ParseSettings(b json.RawMessage, getenv func(string) string) (Settings, error) {
	var s Settings
	if err := provider.DecodeSettings(b, &s); err != nil {
		return s, err
	}
	switch {
	case s.GuildID == "":
		return s, provider.Settingf("guild_id", "required: the server's id (turn on Developer Mode, right-click the server, Copy Server ID)")
	case s.ChannelID == "":
		return s, provider.Settingf("channel_id", "required: the text channel the followers' threads go in (right-click it, Copy Channel ID)")
	}
	if s.BaseURL == "" {
		s.BaseURL = DefaultBaseURL
	}
	s.BaseURL = strings.TrimRight(s.BaseURL, "/")
	if err := provider.URLSetting("base_url", s.BaseURL, "http", DefaultBaseURL); err != nil {
		return s, err
	}
	if m := versioned.FindString(s.BaseURL); m != "" {
		return s, provider.Settingf("base_url", "%q ends in the API version; give the root without it (%s): the provider adds /v10 itself", s.BaseURL, strings.TrimSuffix(s.BaseURL, m))
	}
	if err := provider.URLSetting("gateway_url", s.GatewayURL, "ws", "wss://gateway.discord.gg"); err != nil {
		return s, err
	}
	if _, err := s.Limits.Apply(DefaultLimits); err != nil {
		return s, err
	}
	if s.Token == "" && getenv != nil {
		s.Token = strings.TrimSpace(getenv(TokenEnv))
	}
	if s.Token == "" {
		return s, provider.Settingf("token", "missing: set token under providers.discord or export %s", TokenEnv)
	}
	return s, nil
}
