package tgtest

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode/utf16"

	"github.com/chatbus/chatbus/provider/telegram/botapi"
)

// Message text and its entities, as Telegram takes them: a text of 1 to
// maxTextLen characters, counted here in UTF-16 code units (the unit of
// entity offsets; for text outside the Basic Multilingual Plane the safe
// count), and entities whose spans lie inside the text and nest as the
// Bot API documents it:
//
//   - if two entities share characters, one holds the other whole;
//   - bold, italic, underline, strikethrough and spoiler may hold and be
//     held by any entity but pre and code;
//   - blockquote and expandable_blockquote are not nested in each other;
//   - every other entity holds none and is held only by those styles.
//
// Telegram's texts for entity errors were not verified: they are
// approximate ("can't parse entities: …").

// entityTypes are the types the Bot API takes in entities.
var entityTypes = map[string]bool{
	"mention": true, "hashtag": true, "cashtag": true, "bot_command": true, "url": true, "email": true,
	"phone_number": true, "bold": true, "italic": true, "underline": true, "strikethrough": true,
	"spoiler": true, "blockquote": true, "expandable_blockquote": true, "code": true, "pre": true,
	"text_link": true, "text_mention": true, "custom_emoji": true,
}

// styles may hold anything but pre and code, and be held by anything.
var styles = map[string]bool{"bold": true, "italic": true, "underline": true, "strikethrough": true, "spoiler": true}

func isQuote(t string) bool { return t == "blockquote" || t == "expandable_blockquote" }

func errEntities(format string, args ...any) *apiError {
	return badRequest("can't parse entities: " + fmt.Sprintf(format, args...))
}

// utf16Len is the length of s in UTF-16 code units.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// textWithEntities reads a message text (field "text") and its entities
// (field "entities"): empty and too-long texts are refused as Telegram
// refuses them, and entities that lie outside the text or nest wrongly
// are refused.
func textWithEntities(p params, field, entitiesField string, limit int, tooLong *apiError) (string, []botapi.MessageEntity, *apiError) {
	text := p.str(field)
	n := utf16Len(text)
	if n > limit {
		return "", nil, tooLong
	}
	raw := p.str(entitiesField)
	if raw == "" {
		return text, nil, nil
	}
	var es []botapi.MessageEntity
	if err := json.Unmarshal([]byte(raw), &es); err != nil {
		return "", nil, errEntities("%s is not a JSON array of MessageEntity", entitiesField)
	}
	if err := checkEntities(es, n); err != nil {
		return "", nil, err
	}
	return text, es, nil
}

// checkEntities checks es against a text of n UTF-16 code units.
func checkEntities(es []botapi.MessageEntity, n int) *apiError {
	for _, e := range es {
		switch {
		case !entityTypes[e.Type]:
			return errEntities("unsupported entity type %q", e.Type)
		case e.Offset < 0 || e.Length <= 0 || e.Offset+e.Length > n:
			return errEntities("%s entity at %d of length %d is outside the text (%d UTF-16 code units)", e.Type, e.Offset, e.Length, n)
		case e.Type == "text_link" && !strings.Contains(e.URL, ":"):
			return errEntities("text_link needs an absolute url, got %q", e.URL)
		case e.Type != "pre" && e.Language != "":
			return errEntities("%s entity has a language", e.Type)
		}
	}
	sorted := append([]botapi.MessageEntity(nil), es...)
	sort.SliceStable(sorted, func(i, j int) bool {
		a, b := sorted[i], sorted[j]
		if a.Offset != b.Offset {
			return a.Offset < b.Offset
		}
		return a.Length > b.Length // the holder first
	})
	var open []botapi.MessageEntity // entities holding the current one, outermost first
	for _, e := range sorted {
		for len(open) > 0 && open[len(open)-1].Offset+open[len(open)-1].Length <= e.Offset {
			open = open[:len(open)-1]
		}
		for _, h := range open {
			switch {
			case e.Offset+e.Length > h.Offset+h.Length:
				return errEntities("%s entity at %d crosses %s entity at %d", e.Type, e.Offset, h.Type, h.Offset)
			case !canHold(h.Type, e.Type):
				return errEntities("%s entity at %d cannot be inside %s entity at %d", e.Type, e.Offset, h.Type, h.Offset)
			}
		}
		open = append(open, e)
	}
	return nil
}

// canHold says whether an entity of type outer may hold one of type inner.
func canHold(outer, inner string) bool {
	switch {
	case outer == inner:
		return false
	case styles[outer]:
		return inner != "pre" && inner != "code"
	case styles[inner]:
		return outer != "pre" && outer != "code"
	case isQuote(outer):
		return !isQuote(inner)
	case isQuote(inner):
		return false
	}
	return false
}
