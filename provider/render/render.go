// Package render owns what a person sees of an agent's Markdown on each
// chat platform: it parses the Markdown once with a CommonMark parser
// (goldmark, with GitHub's strikethrough, tables, bare links and task
// lists) and renders it for one platform, cut into messages no longer than
// the platform takes. Providers call it; it knows no platform's API beyond
// the text format, and holds no state.
//
//   - [Telegram]: plain text and Bot API message entities (bold, italic,
//     strikethrough, code, pre with its language, text_link, blockquote),
//     offsets and lengths in UTF-16 code units, to be sent without
//     parse_mode: nothing is escaped, so nothing can be escaped wrongly.
//   - [Slack]: mrkdwn (*bold*, _italic_, ~strike~, `code`, ``` blocks,
//     <url|text> links, &, < and > escaped).
//   - [Discord]: the Markdown itself, which Discord renders.
//   - [HTML]: sanitized HTML for the playground.
//
// In the text renderings (Telegram, Slack), headings are bold lines, list
// items start with "• " (then "◦ ", "▪ " when nested) or "1. ", tables are a
// code block of aligned columns, images are a link to the image, a rule is
// "———", and raw HTML is shown as the text it is.
//
// # Plain text
//
// Text with no Markdown in it (none of \ ` * _ ~ [ ] < > & | anywhere, and
// no line that starts a block: #, >, -, +, =, "1." or "1)", an indented
// line) is not parsed: Telegram, Slack and Discord give it back as it is,
// cut as below. On every path a carriage return is a line break (CR LF is
// one), and a NUL or a byte that is not UTF-8 is U+FFFD.
//
// # Cutting
//
// A rendering longer than the limit is cut into parts, each within the
// limit in the platform's unit (Telegram: UTF-16 code units; Slack and
// Discord: code points) and valid on its own:
//
//   - Where: at the last blank line between blocks if that fills at least
//     a third of the part, else at the last line break if that fills half,
//     else at the last space if that fills half, else at the last of those
//     that fits at all; only a word
//     longer than a part is cut inside, between two grapheme clusters (an
//     emoji with joiners or a letter with its accents stays whole), never
//     inside a UTF-16 surrogate pair. A link or inline code is not cut
//     unless it is longer than a part.
//   - What a cut takes: outside code, the whole run of white space at the
//     cut (spaces, tabs, line breaks; not no-break spaces): no part starts
//     or ends with white space, and the rendering itself is trimmed so. In
//     a code block, the white space is content: a cut there takes one line
//     break and the spaces or tabs that end the line before it, so the next
//     line keeps its indentation; a code line longer than a part is cut
//     with nothing taken.
//   - Styles across a cut: nothing crosses a cut. On Telegram an entity cut
//     in two is two entities of the same type (same language, same URL),
//     offsets counted from each part's start. On Slack and Discord the
//     markup open at the cut is closed at the end of the one part and
//     opened again at the start of the next: a fenced block cut in two is
//     two fenced blocks with the same language, **a b** cut at the space is
//     **a** and **b**. A cut does not fall where the markup to open again
//     would take more than half the limit, unless nothing else fits; then
//     the markup is not repeated.
//
// So, for each rendering: the parts, with the markup added at the cuts
// removed, joined with the white space each cut took, are the whole
// rendering: nothing lost, nothing repeated. A blank rendering has no
// parts: the caller sends nothing.
//
// # Use
//
// A provider renders when it sends or edits a message's text, and sends
// the parts in order (an edit takes the first part, or refuses a text that
// needs more than one):
//
//	for _, part := range render.Telegram(text, 0) {
//		params := map[string]any{"chat_id": chat, "text": part.Text}
//		if len(part.Entities) > 0 {
//			params["entities"] = part.Entities // no parse_mode
//		}
//		if err := bot.Call(ctx, "sendMessage", params); err != nil {
//			return err
//		}
//	}
//
//	for _, text := range render.Slack(text, 0) { // chat.postMessage "text", mrkdwn on
//		…
//	}
//	for _, content := range render.Discord(text, 0) { // "content"
//		…
//	}
//	page := render.HTML(text) // the playground's message body
package render

import (
	"strings"
	"unicode/utf8"
)

// The platforms' limits, the default when a limit passed is zero or less.
const (
	// TelegramLimit is the Bot API's limit on a message's text, counted
	// here in UTF-16 code units (the unit of entity offsets; the safe count
	// for text with characters outside the Basic Multilingual Plane).
	TelegramLimit = 4096
	// SlackLimit is not Slack's limit (chat.postMessage takes 40,000
	// characters) but a readable part: 3,000 characters is also the most a
	// section block's text takes, so a part can be moved into Block Kit (a
	// message with buttons) as it is, and Slack folds longer messages behind
	// "Show more" anyway. Counted in code points, as Slack counts.
	SlackLimit = 3000
	// DiscordLimit is Discord's limit on a message's content, which its API
	// counts in code points (Python's len: a character outside the Basic
	// Multilingual Plane is one, not two as in JavaScript's length;
	// discord-api-docs issue 1315), so code points are the unit here.
	DiscordLimit = 2000
	// MinLimit is the smallest limit honoured; a smaller one is taken as
	// this.
	MinLimit = 16
)

// Entity is a Telegram Bot API MessageEntity.
type Entity struct {
	// Type is bold, italic, strikethrough, code, pre, text_link or
	// blockquote.
	Type string `json:"type"`
	// Offset and Length are in UTF-16 code units, from the part's start.
	Offset int `json:"offset"`
	Length int `json:"length"`
	// URL is a text_link's target.
	URL string `json:"url,omitempty"`
	// Language is a pre block's language, if the Markdown named one.
	Language string `json:"language,omitempty"`
}

// TelegramPart is one message: the text and its entities, as sendMessage
// and editMessageText take them (no parse_mode).
type TelegramPart struct {
	Text     string   `json:"text"`
	Entities []Entity `json:"entities,omitempty"`
}

// Telegram renders md as Telegram messages of at most limit UTF-16 code
// units each (TelegramLimit if limit <= 0).
func Telegram(md string, limit int) []TelegramPart {
	l, spans := telegramPlan(md)
	pieces := l.split(clampLimit(limit, TelegramLimit))
	parts := make([]TelegramPart, 0, len(pieces))
	for _, p := range pieces {
		text := l.text[p.start:p.end]
		if strings.TrimSpace(text) == "" {
			continue // white space only (a blank code line): Telegram refuses it as empty
		}
		parts = append(parts, TelegramPart{Text: text, Entities: entities(l.text, p.start, p.end, spans)})
	}
	return parts
}

func telegramPlan(md string) (*layout, []span) {
	src, plain := clean(md)
	if plain {
		return &layout{text: src, unit: utf16Units}, nil
	}
	d := build([]byte(src))
	spans := telegramSpans(d.spans)
	l := &layout{text: d.text, unit: utf16Units, frames: make([]frame, len(spans))}
	for i, s := range spans {
		l.frames[i] = frame{
			lo: s.start, cs: s.start, ce: s.end, hi: s.end,
			verbatim: s.kind == kindPre || s.kind == kindCode,
			whole:    s.kind == kindCode || s.kind == kindLink,
		}
	}
	return l, spans
}

// Slack renders md as Slack mrkdwn messages of at most limit code points
// each (SlackLimit if limit <= 0).
func Slack(md string, limit int) []string {
	limit = clampLimit(limit, SlackLimit)
	return slackPlan(md, limit).strings(limit)
}

func slackPlan(md string, limit int) *layout {
	src, plain := clean(md)
	if plain {
		return &layout{text: src, unit: codePoints}
	}
	return slackLayout(build([]byte(src)), limit)
}

// Discord cuts md, kept as the Markdown it is, into Discord messages of at
// most limit code points each (DiscordLimit if limit <= 0). A fenced block
// cut in two is closed at the end of the one part and opened again, with
// its language, in the next; so is emphasis; links and inline code are
// not cut.
//
// Discord's Markdown is not CommonMark throughout: __text__ is underlined
// there, not bold, and tables and indented code blocks show as text.
func Discord(md string, limit int) []string {
	return discordPlan(md).strings(clampLimit(limit, DiscordLimit))
}

// Markdown cuts md, kept as the Markdown it is, into parts of at most
// limit code points each (DiscordLimit if limit <= 0), each valid on its
// own, as Discord does: for a platform that renders Markdown itself (the
// playground's page).
func Markdown(md string, limit int) []string { return Discord(md, limit) }

func discordPlan(md string) *layout {
	src, plain := clean(md)
	l := &layout{text: src, unit: codePoints}
	if !plain {
		l.frames = discordFrames([]byte(src))
	}
	return l
}

func (l *layout) strings(limit int) []string {
	pieces := l.split(limit)
	out := make([]string, len(pieces))
	for i, p := range pieces {
		if p.prefix == "" && p.suffix == "" {
			out[i] = l.text[p.start:p.end]
			continue
		}
		out[i] = p.prefix + l.text[p.start:p.end] + p.suffix
	}
	return out
}

func clampLimit(limit, def int) int {
	if limit <= 0 {
		return def
	}
	return max(limit, MinLimit)
}

// clean makes md safe to render: valid UTF-8 (U+FFFD for bad bytes), no
// NUL (U+FFFD, as CommonMark says), line feeds for CR LF and lone CR. It
// reports whether the result is plain text (see the package doc).
func clean(md string) (string, bool) {
	if !utf8.ValidString(md) {
		md = strings.ToValidUTF8(md, "\uFFFD")
	}
	if strings.IndexByte(md, 0) >= 0 {
		md = strings.ReplaceAll(md, "\x00", "\uFFFD")
	}
	if strings.IndexByte(md, '\r') >= 0 {
		md = strings.ReplaceAll(md, "\r\n", "\n")
		md = strings.ReplaceAll(md, "\r", "\n")
	}
	return md, isPlain(md)
}

// isPlain reports whether s certainly has no Markdown in it: no character
// that can start an inline construct, and no line that can start a block
// (or be a setext underline, or indented code).
func isPlain(s string) bool {
	lineStart := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if lineStart {
			lineStart = false
			j := i
			for j < len(s) && s[j] == ' ' {
				j++
			}
			if j-i >= 4 || j < len(s) && s[j] == '\t' {
				return false
			}
			if j < len(s) {
				switch d := s[j]; {
				case d == '#' || d == '>' || d == '-' || d == '+' || d == '=':
					return false
				case d >= '0' && d <= '9':
					k := j
					for k < len(s) && s[k] >= '0' && s[k] <= '9' {
						k++
					}
					if k < len(s) && (s[k] == '.' || s[k] == ')') {
						return false
					}
				}
			}
		}
		switch c {
		case '\\', '`', '*', '_', '~', '[', ']', '<', '>', '&', '|':
			return false
		case '\n':
			lineStart = true
		}
	}
	return true
}
