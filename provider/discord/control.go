package discord

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/disgoorg/disgo/rest"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/provider"
)

// The control surface on Discord: /chatbus, an application command
// registered for the configured guild, whose uses become updates of kind
// COMMAND in the channel's control place (thread ""), their text what
// follows the command's name ("sessions", "new claude web").
//
// The command has a subcommand per verb (sessions, status, new, stop,
// restart, help) rather than one free-text option: Discord's client then lists
// each with what it does as soon as /chatbus is typed, asks for each
// argument by name (template, project, slot, provider) and refuses to send
// a command whose required argument is missing, so the vocabulary is
// found without a help text and a typo is caught before it reaches
// chatbus. A new verb needs the command registered again, which the next
// start does by itself (registerCommand).
//
// A use is answered at once, by the gateway reader (Discord waits 3 s,
// admission or not): where it is allowed — an allowed person, in the
// configured channel or one of its threads — with a deferred response
// (type 5, "chatbus is thinking…"), whose interaction the update names
// (references: the interaction's token, then its id); the supervisor's
// answer, a send to the control place with ReplyTo naming it, edits that
// response (PATCH …/messages/@original) and adds follow-ups for the rest
// of a long answer. Once the token is spent (15 minutes) or unknown, or
// the deferral failed, the answer is posted in the channel instead.
// Elsewhere the use is answered with where chatbus listens, and a person
// not on allowed_user_ids is told so (Discord shows "The application did
// not respond" to an interaction left unanswered); both only to that
// person (ephemeral), and nothing runs: the first is routed nowhere, the
// second is delivered not allowed, which the supervisor drops and counts.
//
// A mention of the bot opening a message of the channel (@chatbus
// sessions) is a COMMAND of the control place too, the mention taken off.

// commandName is the application command the provider registers.
const commandName = "chatbus"

// Application command and option types (Discord's).
const (
	interactionCommand = 2 // APPLICATION_COMMAND
	commandChatInput   = 1 // CHAT_INPUT: a slash command
	optionSubcommand   = 1
	optionString       = 3
	// callbackDeferredMessage answers an interaction with a response to
	// come (DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE).
	callbackDeferredMessage = 5
)

// appCommand is an application command as registered: the fields the
// provider sets, which are also what it compares with what Discord
// holds (Discord's answer has more: ids, version, permissions).
type appCommand struct {
	Type        int             `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Options     []commandOption `json:"options,omitempty"`
}

type commandOption struct {
	Type        int             `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Required    bool            `json:"required,omitempty"`
	Options     []commandOption `json:"options,omitempty"`
}

func stringOption(name, description string, required bool) commandOption {
	return commandOption{Type: optionString, Name: name, Description: description, Required: required}
}

// controlCommand is /chatbus as the provider registers it.
var controlCommand = appCommand{
	Type: commandChatInput, Name: commandName, Description: "Steer chatbus: its sessions, providers and status",
	Options: []commandOption{
		{Type: optionSubcommand, Name: "sessions", Description: "Every session: its slot, thread, directory, state"},
		{Type: optionSubcommand, Name: "status", Description: "The supervisor, each provider's health and queue, the version"},
		{Type: optionSubcommand, Name: "new", Description: "Start a session from a launch template", Options: []commandOption{
			stringOption("template", "The launch template's name", true),
			stringOption("project", "The project (directory) it runs in", false)}},
		{Type: optionSubcommand, Name: "stop", Description: "End a session", Options: []commandOption{
			stringOption("slot", "The session's slot (A, B, …)", true)}},
		{Type: optionSubcommand, Name: "restart", Description: "Restart a provider (the doctor's restart)", Options: []commandOption{
			stringOption("provider", "The provider's name", true)}},
		{Type: optionSubcommand, Name: "help", Description: "What each command does"},
	},
}

// normalized is c as compared: a type left out is CHAT_INPUT.
func (c appCommand) normalized() appCommand {
	if c.Type == 0 {
		c.Type = commandChatInput
	}
	return c
}

// registerCommand makes /chatbus the guild's one command of the app:
// GET /applications/{app}/guilds/{guild}/commands, and the bulk
// overwrite PUT only when what is registered differs (the overwrite is
// idempotent, but its rate limit is tight: a provider restarting often
// would spend it for nothing). Failures are retried with a backoff (a
// 429 after its retry_after) until ctx ends; a refusal (the bot was
// invited without the applications.commands scope) is logged with what
// to do and not retried: the followers' threads work without the
// command.
//
// It runs once per process: settled reports that it is done (registered,
// found registered, or refused), false when ctx ended first.
func (p *Platform) registerCommand(ctx context.Context) (settled bool) {
	want := []appCommand{controlCommand.normalized()}
	for attempt := 0; ; attempt++ {
		done, err := p.syncCommands(ctx, want)
		if done {
			return ctx.Err() == nil
		}
		if errors.Is(err, provider.ErrPermissionDenied) {
			p.log.Error().Err(err).Msg("registering /chatbus refused: invite the bot with the applications.commands scope (OAuth2 URL Generator: bot + applications.commands); the threads work without it")
			return true
		}
		wait, ok := provider.RetryAfter(err)
		if !ok {
			wait = p.o.Timing.retryBackoff(attempt)
		}
		p.log.Warn().Err(err).Dur("retry_after", wait).Msg("registering /chatbus failed; retrying")
		select {
		case <-ctx.Done():
			return false
		case <-time.After(wait):
		}
	}
}

// syncCommands registers want unless it is what the guild has; done:
// nothing is left to do (or ctx ended).
func (p *Platform) syncCommands(ctx context.Context, want []appCommand) (done bool, err error) {
	app, err := p.application(ctx)
	if err != nil {
		return ctx.Err() != nil, err
	}
	var have []appCommand
	if err := p.get(ctx, rest.GetGuildCommands.Compile(nil, app, p.guild), &have); err != nil {
		return ctx.Err() != nil, p.mapErr(err, false, false)
	}
	for i := range have {
		have[i] = have[i].normalized()
	}
	if reflect.DeepEqual(have, want) {
		p.log.Debug().Msg("/chatbus is registered as it should be")
		return true, nil
	}
	if err := p.do(ctx, rest.SetGuildCommands.Compile(nil, app, p.guild), want, nil); err != nil {
		return ctx.Err() != nil, p.mapErr(err, true, false)
	}
	p.log.Info().Int("had", len(have)).Msg("/chatbus registered for the guild")
	return true, nil
}

// commandValue is an option of a command's use as the interaction
// carries it.
type commandValue struct {
	Name    string          `json:"name"`
	Type    int             `json:"type"`
	Value   json.RawMessage `json:"value"`
	Options []commandValue  `json:"options"`
}

// commandText is what a use of a command asks: its subcommand and the
// values of its options, in the order the command declares them (other
// options after, as given); a command other than /chatbus brings its
// name first.
func commandText(name string, opts []commandValue) string {
	var words []string
	if name != commandName {
		words = append(words, name)
	}
	decl := controlCommand.Options
	for len(opts) > 0 {
		var next []commandValue
		sorted := slices.Clone(opts)
		slices.SortStableFunc(sorted, func(a, b commandValue) int { return declIndex(decl, a.Name) - declIndex(decl, b.Name) })
		for _, o := range sorted {
			if o.Type == optionSubcommand || o.Type == optionSubcommand+1 { // a subcommand or a group of them
				words = append(words, o.Name)
				next, decl = o.Options, declOf(decl, o.Name)
				continue
			}
			if v := valueText(o.Value); v != "" {
				words = append(words, v)
			}
		}
		opts = next
	}
	return strings.Join(words, " ")
}

// declIndex is where option name stands among decl (unknown ones last).
func declIndex(decl []commandOption, name string) int {
	for i, o := range decl {
		if o.Name == name {
			return i
		}
	}
	return len(decl)
}

func declOf(decl []commandOption, name string) []commandOption {
	if i := declIndex(decl, name); i < len(decl) {
		return decl[i].Options
	}
	return nil
}

// valueText is an option's value as text: a string as it is, a number
// or a boolean as written.
func valueText(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) == nil {
		return strings.TrimSpace(s)
	}
	if len(v) == 0 || string(v) == "null" {
		return ""
	}
	return string(v)
}

// isControl reports whether t is the channel's control place.
func (p *Platform) isControl(t provider.Target) bool { return t.Thread == "" && t.Chat == p.channel }

// inControlPlace reports whether an interaction was made where commands
// are taken: the configured channel or one of its threads, in the guild.
func (p *Platform) inControlPlace(in *interaction) bool {
	if in.GuildID != p.guild {
		return false
	}
	return in.ChannelID == p.channel || (in.Channel != nil && in.Channel.ParentID != nil && *in.Channel.ParentID == p.channel)
}

// commandArrived answers a use of an application command at once (the
// gateway reader calls it; see the comment at the top): deferred where
// it is allowed, with where chatbus listens outside its channel, with
// "not allowed" to a person not allowed.
func (p *Platform) commandArrived(in interaction) {
	allowed := p.allowed[in.sender().ID]
	var body map[string]any
	switch {
	case !allowed:
		body = map[string]any{"type": callbackMessage, "data": ephemeral("You are not on chatbus's allowed_user_ids: nothing was run.")}
	case !p.inControlPlace(&in):
		body = map[string]any{"type": callbackMessage, "data": ephemeral(fmt.Sprintf("chatbus listens in <#%s>: use /%s there.", p.channel, commandName))}
	default:
		body = map[string]any{"type": callbackDeferredMessage}
	}
	pr := &press{token: in.Token, at: time.Now(), done: make(chan struct{}), command: true}
	if allowed && p.inControlPlace(&in) {
		p.mu.Lock()
		if in.ApplicationID != "" {
			p.appID = in.ApplicationID
		}
		p.rememberLocked(in.ID, pr)
		p.mu.Unlock()
	}
	p.acknowledge(in, body, pr)
}

// command makes the update of a use of an application command in the
// control place; nil elsewhere (answered already with where chatbus
// listens). Its references are the interaction's token, then its id:
// the token first, as the supervisor's answer names the first, and a
// successor process (a doctor restart of this provider, which the
// command may have asked for) can answer a token it never saw, not an id.
func (r *runner) command(in *interaction, raw json.RawMessage) *providerv1.Update {
	if !r.p.inControlPlace(in) {
		return nil
	}
	u := r.update(provider.Target{Chat: r.p.channel}, in.sender(), in.Member, providerv1.UpdateKind_UPDATE_KIND_COMMAND,
		commandText(in.Data.Name, in.Data.Options), raw, in.ID)
	var refs []provider.Ref
	if tokenParam(in.Token) {
		refs = append(refs, provider.Ref{Kind: provider.RefInteraction, ID: in.Token})
	}
	u.References = provider.RefsProto(append(refs, provider.Ref{Kind: provider.RefInteraction, ID: in.ID}))
	return u
}

// mentionCommand is the text after mentions of the bot (<@id> or
// <@!id>) opening content, and whether there is one.
func mentionCommand(bot, content string) (string, bool) {
	found := false
	text := strings.TrimSpace(content)
	for {
		rest, ok := strings.CutPrefix(text, "<@"+bot+">")
		if !ok {
			rest, ok = strings.CutPrefix(text, "<@!"+bot+">")
		}
		if !ok || bot == "" {
			return text, found
		}
		text, found = strings.TrimLeft(rest, " \t\n:,"), true
	}
}

// sendControl is Send to the channel's control place (see the comment at
// the top): the answer to the command ReplyTo names, edited into its
// deferred response while its token lasts, else posted in the channel.
func (p *Platform) sendControl(ctx context.Context, m provider.Message, rows []any, parts []string, key string) (provider.Result, error) {
	pr, token := p.commandOf(m.ReplyTo)
	if token != "" {
		res, err := p.answerCommand(ctx, pr, token, rows, parts)
		if err == nil || !errors.Is(err, errTokenSpent) {
			return res, err
		}
		p.log.Info().Err(err).Str("interaction", m.ReplyTo).Msg("the command's answer goes to the channel")
	}
	replyTo := m.ReplyTo
	if pr != nil || !isSnowflake(replyTo) {
		replyTo = "" // an interaction, not a message to answer
	}
	return p.sendParts(ctx, p.channel, replyTo, rows, parts, key)
}

// errTokenSpent: an interaction's token takes no more edits or
// follow-ups (its 15 minutes passed, or it was never acknowledged).
var errTokenSpent = errors.New("the interaction's token is spent")

// commandOf finds the command id names: one this process deferred (by
// its id or its token), or, for a token it did not see (the provider
// restarted since), that token. token is "" when the answer cannot go
// through the interaction.
func (p *Platform) commandOf(id string) (pr *press, token string) {
	if id == "" {
		return nil, ""
	}
	p.mu.Lock()
	pr = p.presses[id]
	if pr == nil {
		for _, c := range p.presses {
			if c.token == id {
				pr = c
				break
			}
		}
	}
	p.mu.Unlock()
	switch {
	case pr != nil && pr.command:
		return pr, pr.token
	case pr == nil && !isSnowflake(id) && tokenParam(id):
		return nil, id
	}
	return pr, ""
}

// answerCommand edits the deferred response of a command with the first
// part and sends the others as follow-ups (the buttons under the last);
// errTokenSpent when the token takes none (nothing was sent).
func (p *Platform) answerCommand(ctx context.Context, pr *press, token string, rows []any, parts []string) (provider.Result, error) {
	if pr != nil {
		select {
		case <-pr.done:
		case <-ctx.Done():
			return provider.Result{}, fmt.Errorf("%w: waiting for the command's acknowledgement: %v", provider.ErrUnavailable, ctx.Err())
		}
		switch {
		case pr.ackErr != nil:
			return provider.Result{}, fmt.Errorf("%w: it was not acknowledged: %v", errTokenSpent, pr.ackErr)
		case time.Since(pr.at) >= tokenLife:
			return provider.Result{}, fmt.Errorf("%w: %s passed", errTokenSpent, tokenLife)
		}
	}
	app, err := p.application(ctx)
	if err != nil {
		return provider.Result{}, err
	}
	var res provider.Result
	for i, content := range parts {
		body := map[string]any{"content": content, "allowed_mentions": mentions}
		if i == len(parts)-1 && len(rows) > 0 {
			body["components"] = rows
		}
		ep := rest.CreateFollowupMessage.Compile(nil, app, token)
		if i == 0 {
			ep = rest.UpdateInteractionResponse.Compile(nil, app, token)
		}
		var out json.RawMessage
		_, err := p.paced(ctx, ep, body, &out)
		switch {
		case err != nil && i == 0 && (isCode(err, codeUnknownWebhook) || isCode(err, codeUnknownInteraction)):
			return provider.Result{}, fmt.Errorf("%w: %v", errTokenSpent, err)
		case err != nil:
			return provider.Result{}, partFailure(p.mapErr(err, true, false), i, len(parts), res.Refs)
		}
		res.Refs = append(res.Refs, resultRefs(out)...)
		res.JSON = out
	}
	return res, nil
}
