package tgtest

import (
	"encoding/json"
	"net/http"
	"regexp"
	"unicode/utf8"

	"github.com/chatbus/chatbus/provider/telegram/botapi"
)

// The bot's command menu: setMyCommands replaces it (default scope and
// language only), as the Bot API does; Commands shows it.

// commandName is what the Bot API takes as a command: 1-32 characters,
// lower-case English letters, digits and underscores.
var commandName = regexp.MustCompile(`^[a-z0-9_]{1,32}$`)

func (s *Server) setMyCommands(_ *http.Request, p params) (any, *apiError) {
	var cmds []botapi.BotCommand
	if err := json.Unmarshal([]byte(p.str("commands")), &cmds); err != nil {
		return nil, badRequest("can't parse commands JSON object")
	}
	if len(cmds) > 100 {
		return nil, badRequest("too many commands specified")
	}
	for _, c := range cmds {
		if !commandName.MatchString(c.Command) {
			return nil, badRequest("BOT_COMMAND_INVALID")
		}
		if n := utf8.RuneCountInString(c.Description); n < 1 || n > 256 {
			return nil, badRequest("BOT_COMMAND_DESCRIPTION_INVALID")
		}
	}
	s.mu.Lock()
	s.commands = cmds
	s.mu.Unlock()
	return true, nil
}

// Commands returns the bot's command menu as last set (nil: never set).
func (s *Server) Commands() []botapi.BotCommand {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]botapi.BotCommand(nil), s.commands...)
}
