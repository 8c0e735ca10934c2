package discordtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"time"
	"unicode/utf8"
)

// Application commands: the guild's commands an app registers (GET and
// bulk-overwrite PUT /applications/{app}/guilds/{guild}/commands, checked
// as Discord checks them), a person running one (RunCommand: an
// INTERACTION_CREATE of type APPLICATION_COMMAND, whose options are typed
// as the registered command declares them), and the interaction's
// original response (a deferred one is a loading message, edited by PATCH
// /webhooks/{app}/{token}/messages/@original within the token's 15
// minutes; ExpireInteraction ages a token past them).

// Command option types (Discord's).
const (
	OptionSubCommand = 1
	OptionString     = 3
	OptionInteger    = 4
)

// flagLoading marks a deferred response not edited yet ("… is
// thinking").
const flagLoading = 1 << 7

// tokenLife is how long an interaction's token takes follow-ups and edits.
const tokenLife = 15 * time.Minute

// commandName is what Discord takes as a command's or option's name
// (CHAT_INPUT: lower case).
var commandName = regexp.MustCompile(`^[-_\p{Ll}\p{N}]{1,32}$`)

// appCommand is a registered command as Discord stores it.
type appCommand struct {
	ID            string          `json:"id"`
	ApplicationID string          `json:"application_id"`
	GuildID       string          `json:"guild_id"`
	Version       string          `json:"version"`
	Type          int             `json:"type"`
	Name          string          `json:"name"`
	Description   string          `json:"description"`
	Options       []commandOption `json:"options,omitempty"`
	// What Discord adds that the app did not say.
	DefaultMemberPermissions *string `json:"default_member_permissions"`
	NSFW                     bool    `json:"nsfw"`
}

type commandOption struct {
	Type         int             `json:"type"`
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	Required     bool            `json:"required,omitempty"`
	MinValue     *float64        `json:"min_value,omitempty"`
	MaxValue     *float64        `json:"max_value,omitempty"`
	Autocomplete bool            `json:"autocomplete,omitempty"`
	Options      []commandOption `json:"options,omitempty"`
}

// checkOptions checks options as Discord does: at most 25, named, with
// descriptions of 1–100 characters, required ones first, subcommands
// holding value options only. path names them in the error.
func checkOptions(opts []commandOption, path string, depth int) (int, any) {
	if len(opts) > 25 {
		return http.StatusBadRequest, formError(path, "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
	}
	optional := false
	for i, o := range opts {
		at := fmt.Sprintf("%s.%d", path, i)
		switch {
		case !commandName.MatchString(o.Name):
			return http.StatusBadRequest, formError(at+".name", "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid")
		case o.Description == "" || utf8.RuneCountInString(o.Description) > 100:
			return http.StatusBadRequest, formError(at+".description", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length.")
		case o.Type < 1 || o.Type > 11:
			return http.StatusBadRequest, formError(at+".type", "BASE_TYPE_CHOICES", "Value must be one of (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11).")
		case o.Type <= 2 && (depth > 0 || o.Required):
			return http.StatusBadRequest, formError(at+".type", "APPLICATION_COMMAND_OPTION_INVALID_SUB_COMMAND", "Sub-command options must be at the top level and not required")
		case o.Type > 2 && len(o.Options) > 0:
			return http.StatusBadRequest, formError(at+".options", "APPLICATION_COMMAND_OPTIONS_TYPE_INVALID", "Only sub-commands may have options")
		case o.Required && optional:
			return http.StatusBadRequest, formError(path, "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID", "Required options must be placed before non-required options")
		}
		optional = optional || (o.Type > 2 && !o.Required)
		if status, e := checkOptions(o.Options, at+".options", depth+1); e != nil {
			return status, e
		}
	}
	return 0, nil
}

func (s *Server) guildCommandsPath(r *request) (int, any) {
	switch {
	case r.params["app"] != s.appID:
		return http.StatusForbidden, errBody(50001, "Missing Access")
	case r.params["guild"] != s.guildID:
		return http.StatusForbidden, errBody(50001, "Missing Access")
	case s.noCommandsScope:
		// An app installed without applications.commands.
		return http.StatusForbidden, errBody(50001, "Missing Access")
	}
	return 0, nil
}

// getCommands answers GET /applications/{app}/guilds/{guild}/commands.
func (s *Server) getCommands(r *request) (int, any) {
	if status, e := s.guildCommandsPath(r); e != nil {
		return status, e
	}
	return http.StatusOK, append([]appCommand{}, s.commands...)
}

// putCommands answers the bulk overwrite: the guild's commands become
// the ones sent. A command that was there by name keeps its id (and its
// version, if unchanged).
func (s *Server) putCommands(r *request) (int, any) {
	if status, e := s.guildCommandsPath(r); e != nil {
		return status, e
	}
	var in []appCommand
	if err := json.Unmarshal(r.body, &in); err != nil {
		return http.StatusBadRequest, errBody(50109, "The request body contains invalid JSON.")
	}
	if len(in) > 100 {
		return http.StatusBadRequest, formError("_errors", "BASE_TYPE_MAX_LENGTH", "Must be 100 or fewer in length.")
	}
	old := map[string]appCommand{}
	for _, c := range s.commands {
		old[c.Name] = c
	}
	seen := map[string]bool{}
	out := make([]appCommand, 0, len(in))
	for i, c := range in {
		at := strconv.Itoa(i)
		if c.Type == 0 {
			c.Type = 1
		}
		switch {
		case !commandName.MatchString(c.Name):
			return http.StatusBadRequest, formError(at+".name", "APPLICATION_COMMAND_INVALID_NAME", "Command name is invalid")
		case c.Type == 1 && (c.Description == "" || utf8.RuneCountInString(c.Description) > 100):
			return http.StatusBadRequest, formError(at+".description", "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 100 in length.")
		case seen[c.Name]:
			return http.StatusBadRequest, formError(at+".name", "APPLICATION_COMMANDS_DUPLICATE_NAME", "Application command names must be unique")
		}
		seen[c.Name] = true
		if status, e := checkOptions(c.Options, at+".options", 0); e != nil {
			return status, e
		}
		c.ApplicationID, c.GuildID = s.appID, s.guildID
		prev, had := old[c.Name]
		c.ID, c.Version = prev.ID, prev.Version
		if !had {
			c.ID = s.newIDLocked()
		}
		if !had || !sameCommand(prev, c) {
			c.Version = s.newIDLocked()
		}
		out = append(out, c)
	}
	s.commands = out
	return http.StatusOK, out
}

func sameCommand(a, b appCommand) bool {
	a.Version, a.ID = b.Version, b.ID
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// Commands returns the guild's registered commands as JSON (what GET
// answers).
func (s *Server) Commands() json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, _ := json.Marshal(s.commands)
	return b
}

// SetCommandsScope installs the app with (true, the default) or without
// the applications.commands scope: without it, the guild's commands
// answer 403 Missing Access.
func (s *Server) SetCommandsScope(ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.noCommandsScope = !ok
}

// Invocation is a person running a registered command.
type Invocation struct {
	// Channel is where it is run (the guild's channel or a thread).
	Channel string
	User    User
	// Command is the command's name; if empty, "chatbus".
	Command string
	// Sub is the subcommand run ("" for a command without subcommands).
	Sub string
	// Options are the values given by option name, typed as the command
	// declares them.
	Options map[string]string
}

// RunCommand runs a registered command as a person does: an
// INTERACTION_CREATE of type APPLICATION_COMMAND, whose options come in
// the order the command declares them; the interaction waits 3s for its
// callback. A command that is not registered in the guild cannot be run
// (Discord's client offers only registered ones) and fails the test. It
// returns the interaction's id and token.
func (s *Server) RunCommand(inv Invocation) (id, token string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if inv.Command == "" {
		inv.Command = "chatbus"
	}
	var cmd *appCommand
	for i := range s.commands {
		if s.commands[i].Name == inv.Command {
			cmd = &s.commands[i]
		}
	}
	if cmd == nil {
		s.tb.Fatalf("discordtest: command /%s is not registered in the guild", inv.Command)
		return "", ""
	}
	c := s.channels[inv.Channel]
	if c == nil {
		s.tb.Fatalf("discordtest: run a command in unknown channel %s", inv.Channel)
		return "", ""
	}
	decl := cmd.Options
	var sub *commandOption
	if inv.Sub != "" {
		for i := range cmd.Options {
			if cmd.Options[i].Name == inv.Sub && cmd.Options[i].Type == OptionSubCommand {
				sub = &cmd.Options[i]
			}
		}
		if sub == nil {
			s.tb.Fatalf("discordtest: /%s has no subcommand %q", inv.Command, inv.Sub)
			return "", ""
		}
		decl = sub.Options
	}
	var values []map[string]any
	for _, o := range decl {
		v, ok := inv.Options[o.Name]
		if !ok {
			if o.Required {
				s.tb.Fatalf("discordtest: /%s %s: option %s is required", inv.Command, inv.Sub, o.Name)
			}
			continue
		}
		var value any = v
		if o.Type == OptionInteger {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil || (o.MinValue != nil && float64(n) < *o.MinValue) {
				s.tb.Fatalf("discordtest: option %s takes an integer (at least %v): %q", o.Name, o.MinValue, v)
			}
			value = n
		}
		values = append(values, map[string]any{"name": o.Name, "type": o.Type, "value": value})
	}
	for name := range inv.Options {
		if !declared(decl, name) {
			s.tb.Fatalf("discordtest: /%s %s has no option %q", inv.Command, inv.Sub, name)
		}
	}
	data := map[string]any{"id": cmd.ID, "name": cmd.Name, "type": 1, "guild_id": s.guildID}
	if sub != nil {
		data["options"] = []any{map[string]any{"name": sub.Name, "type": OptionSubCommand, "options": values}}
	} else if values != nil {
		data["options"] = values
	}
	in := &interaction{id: s.newIDLocked(), token: "aW50ZXJhY3Rpb246" + randomHex(40), channel: inv.Channel, user: inv.User.ID,
		created: time.Now(), command: true}
	s.interactions[in.id] = in
	s.tokens[in.token] = in
	payload := map[string]any{
		"id": in.id, "application_id": s.appID, "type": 2, "token": in.token, "version": 1,
		"guild_id": s.guildID, "channel_id": inv.Channel, "channel": c, "data": data,
		"member":          map[string]any{"user": inv.User, "roles": []string{}, "joined_at": stamp(time.Now()), "permissions": "2248473465835073"},
		"app_permissions": "2248473465835073", "locale": "en-US", "guild_locale": "en-US",
		"entitlements": []any{}, "authorizing_integration_owners": map[string]string{"0": s.guildID}, "context": 0,
	}
	s.dispatchLocked("INTERACTION_CREATE", 0, payload)
	return in.id, in.token
}

func declared(opts []commandOption, name string) bool {
	for _, o := range opts {
		if o.Name == name {
			return true
		}
	}
	return false
}

// ExpireInteraction ages interaction id past its token's 15 minutes:
// follow-ups and edits of its response answer 404 Unknown Webhook.
func (s *Server) ExpireInteraction(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if in := s.interactions[id]; in != nil {
		in.created = time.Now().Add(-tokenLife - time.Second)
	}
}

// Original returns interaction id's original response: the message of a
// type 4 or 5 callback as it is now (a deferred one is loading until
// edited).
func (s *Server) Original(id string) (Message, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	in := s.interactions[id]
	if in == nil || in.original == nil {
		return Message{}, false
	}
	return *in.original, true
}

// Loading reports whether a message is a deferred response not edited
// yet.
func (m Message) Loading() bool { return m.Flags&flagLoading != 0 }

// editOriginal answers PATCH /webhooks/{app}/{token}/messages/@original:
// the interaction's response is edited, within the token's 15 minutes.
func (s *Server) editOriginal(r *request) (int, any) {
	in, ok := s.tokens[r.params["token"]]
	if !ok || r.params["app"] != s.appID || in.original == nil || time.Since(in.created) > tokenLife {
		return http.StatusNotFound, errBody(10015, "Unknown Webhook")
	}
	return s.applyEditLocked(in.original, r.body)
}
