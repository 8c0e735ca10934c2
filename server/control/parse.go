package control

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The commands, by name: one vocabulary for every platform. Each
// platform spells them its own way (a bot command, /sessions or
// /sessions@thebot; a slash command, /chatbus sessions; a room of
// commands, plain sessions); Parse reads every spelling.
const (
	CmdSessions = "sessions"
	CmdStatus   = "status"
	CmdNew      = "new"
	CmdStop     = "stop"
	CmdRestart  = "restart"
	CmdHelp     = "help"
)

// Names are the commands in the order help lists them.
var Names = []string{CmdSessions, CmdStatus, CmdNew, CmdStop, CmdRestart, CmdHelp}

// usage is each command's arguments, as help and refusals show them.
var usage = map[string]string{
	CmdSessions: "sessions",
	CmdStatus:   "status",
	CmdNew:      "new <template> [<project>]",
	CmdStop:     "stop <slot>",
	CmdRestart:  "restart <provider>",
	CmdHelp:     "help",
}

// what says what each command does, for help.
var what = map[string]string{
	CmdSessions: "every live and parked session: its slot, thread, directory, what it is, working or idle",
	CmdStatus:   "the supervisor, each provider's health and queue, the version",
	CmdNew:      "start an agent session from a launch template, in one of its projects",
	CmdStop:     "stop a session (one chatbus did not start is asked to stop)",
	CmdRestart:  "restart a provider (the doctor's restart), its steps reported",
	CmdHelp:     "this list",
}

// MaxCommandBytes bounds a command's text: longer ones are refused
// unread.
const MaxCommandBytes = 1024

// maxNameLen bounds a template, project or provider name.
const maxNameLen = 64

// Command is a parsed command. Only the fields of its Name are set.
type Command struct {
	Name string
	// Template and Project: new ("" Project: the template's first).
	Template, Project string
	// Slot: stop, upper-case ("B").
	Slot string
	// Provider: restart.
	Provider string
}

// String is the command as the person would type it, without a platform's
// prefix ("new claude web").
func (c Command) String() string {
	parts := []string{c.Name}
	for _, a := range []string{c.Template, c.Project, c.Slot, c.Provider} {
		if a != "" {
			parts = append(parts, a)
		}
	}
	return strings.Join(parts, " ")
}

// ParseError is a command that could not be read: Reason is told to the
// person as is.
type ParseError struct {
	// Unknown is set when the command's name is none of Names (a
	// message for another bot, in a chat several share, may look so).
	Unknown bool
	Reason  string
}

func (e *ParseError) Error() string { return e.Reason }

func refuse(format string, args ...any) *ParseError {
	return &ParseError{Reason: fmt.Sprintf(format, args...)}
}

// Parse reads a command from text: a control-place message ("/sessions",
// "/sessions@thebot", "/new claude web", "sessions") or a COMMAND
// update's text ("sessions", "new claude web"). A leading "chatbus" word
// (the /chatbus slash command, written out) is skipped. Names are
// matched without regard to case; a slot is returned upper-case. An error
// is a *ParseError.
func Parse(text string) (Command, error) {
	if len(text) > MaxCommandBytes {
		return Command{}, refuse("that command is too long (%d bytes; at most %d)", len(text), MaxCommandBytes)
	}
	if !utf8.ValidString(text) {
		return Command{}, refuse("that command is not valid text")
	}
	words := strings.Fields(text)
	if len(words) > 0 && strings.EqualFold(strings.TrimPrefix(words[0], "/"), "chatbus") {
		words = words[1:]
	}
	if len(words) == 0 {
		return Command{}, refuse("no command given; the commands: %s", strings.Join(Names, ", "))
	}
	name := strings.TrimPrefix(words[0], "/")
	if at := strings.IndexByte(name, '@'); at >= 0 {
		name = name[:at] // /sessions@thebot
	}
	name = strings.ToLower(name)
	if name == "start" {
		name = CmdHelp // /start: a bot's first message from a person
	}
	args := words[1:]
	for _, a := range args {
		if strings.IndexFunc(a, unicode.IsControl) >= 0 {
			return Command{}, refuse("%s: an argument holds a control character", name)
		}
	}
	c := Command{Name: name}
	switch name {
	case CmdSessions, CmdStatus, CmdHelp:
		if len(args) > 0 {
			return Command{}, refuse("%s takes no arguments (got %q)", name, strings.Join(args, " "))
		}
	case CmdNew:
		if len(args) == 0 || len(args) > 2 {
			return Command{}, refuse("usage: %s", usage[CmdNew])
		}
		if err := checkName("template", args[0]); err != nil {
			return Command{}, err
		}
		c.Template = args[0]
		if len(args) == 2 {
			if err := checkProject(args[1]); err != nil {
				return Command{}, err
			}
			c.Project = args[1]
		}
	case CmdStop:
		if len(args) != 1 {
			return Command{}, refuse("usage: %s (sessions lists the slots)", usage[CmdStop])
		}
		slot := strings.ToUpper(args[0])
		if len(slot) > 4 || strings.TrimLeft(slot, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") != "" {
			return Command{}, refuse("stop %s: a slot is a letter or a few (A, B, … AA); sessions lists them", args[0])
		}
		c.Slot = slot
	case CmdRestart:
		if len(args) != 1 {
			return Command{}, refuse("usage: %s (status lists the providers)", usage[CmdRestart])
		}
		p := strings.ToLower(args[0])
		if len(p) > maxNameLen || strings.TrimLeft(p, "abcdefghijklmnopqrstuvwxyz0123456789-") != "" {
			return Command{}, refuse("restart %s: a provider's name is lower-case letters, digits and '-' (status lists them)", args[0])
		}
		c.Provider = p
	default:
		return Command{}, &ParseError{Unknown: true, Reason: fmt.Sprintf("unknown command %q; the commands: %s", words[0], strings.Join(Names, ", "))}
	}
	return c, nil
}

// checkName refuses a template name that is not a plain name.
func checkName(what, s string) error {
	if len(s) > maxNameLen || strings.TrimLeft(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") != "" || strings.Contains(s, "..") || strings.HasPrefix(s, ".") {
		return refuse("%s %q: a %s is named by letters, digits, '-', '_' and '.'", what, s, what)
	}
	return nil
}

// checkProject refuses what cannot be a project's name: a path (absolute,
// with a separator, or with "..") rather than the name of one of the
// template's directories. The launcher matches the name against the
// template's projects; this only makes the common mistakes clear early.
func checkProject(s string) error {
	switch {
	case len(s) > 255:
		return refuse("project %q is too long", s[:32]+"…")
	case strings.ContainsAny(s, `/\`) || strings.Contains(s, ".."):
		return refuse("project %q: name a project by its directory's name, not a path (no '/', no '..')", s)
	case strings.HasPrefix(s, "~") || strings.HasPrefix(s, "."):
		return refuse("project %q: name a project by its directory's name (sessions and help list them)", s)
	}
	return nil
}
