package slacktest

import (
	"encoding/json"
	"regexp"
	"unicode/utf8"
)

// Block Kit as Slack checks it, for the blocks the stand-in is sent: an
// answer {"ok": false, "error": "invalid_blocks"} for what Slack refuses
// (the limits are Slack's documented ones: 50 blocks a message, section
// text 3,000 characters, 25 elements in an actions block, a button's text
// 75 characters and its value 2,000, ids 255 and unique in the message).
// Block types the stand-in does not look into are taken as they are.

// emojiName is what reactions.add takes as a name: Slack's short names
// (eyes, +1, white_check_mark, a workspace's own emoji), with an optional
// skin tone; anything else, an emoji character included, is invalid_name.
var emojiName = regexp.MustCompile(`^[a-z0-9_+'-]+(::skin-tone-[2-6])?$`)

var blockTypes = map[string]bool{"section": true, "actions": true, "divider": true, "header": true, "context": true,
	"image": true, "rich_text": true, "input": true, "markdown": true, "file": true, "video": true}

type textObject struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type block struct {
	Type     string      `json:"type"`
	BlockID  string      `json:"block_id"`
	Text     *textObject `json:"text"`
	Fields   []any       `json:"fields"`
	Elements []element   `json:"elements"`
}

type element struct {
	Type     string      `json:"type"`
	ActionID string      `json:"action_id"`
	Value    string      `json:"value"`
	Style    string      `json:"style"`
	Text     *textObject `json:"text"`
}

// checkBlocks returns the error code Slack answers for blocks, "" if
// they are fine (or absent).
func checkBlocks(raw []byte) string {
	if raw == nil {
		return ""
	}
	var bs []json.RawMessage
	if json.Unmarshal(raw, &bs) != nil || len(bs) > 50 {
		return "invalid_blocks"
	}
	ids := map[string]bool{}
	unique := func(kind, id string) bool { // an absent id is Slack's to make
		if id == "" {
			return true
		}
		if ids[kind+id] || utf8.RuneCountInString(id) > 255 {
			return false
		}
		ids[kind+id] = true
		return true
	}
	for _, r := range bs {
		var b block
		if json.Unmarshal(r, &b) != nil || !blockTypes[b.Type] || !unique("block:", b.BlockID) {
			return "invalid_blocks"
		}
		switch b.Type {
		case "section":
			if b.Text == nil && len(b.Fields) == 0 {
				return "invalid_blocks"
			}
			if b.Text != nil && !validText(b.Text, 3000, "mrkdwn", "plain_text") {
				return "invalid_blocks"
			}
		case "actions":
			if len(b.Elements) == 0 || len(b.Elements) > 25 {
				return "invalid_blocks"
			}
			for _, e := range b.Elements {
				if e.Type != "button" {
					continue // selects and others: not looked into
				}
				if e.Text == nil || !validText(e.Text, 75, "plain_text") || utf8.RuneCountInString(e.Value) > 2000 ||
					!unique("action:", e.ActionID) || (e.Style != "" && e.Style != "primary" && e.Style != "danger") {
					return "invalid_blocks"
				}
			}
		}
	}
	return ""
}

func validText(t *textObject, limit int, types ...string) bool {
	n := utf8.RuneCountInString(t.Text)
	if n == 0 || n > limit {
		return false
	}
	for _, typ := range types {
		if t.Type == typ {
			return true
		}
	}
	return false
}

func isEmptyArray(b []byte) bool {
	var a []json.RawMessage
	return json.Unmarshal(b, &a) == nil && len(a) == 0
}

// Button is a button of a message's blocks.
type Button struct {
	ActionID, Value, Label string
}

// Buttons returns the buttons of m's actions blocks, in order.
func (m Message) Buttons() []Button {
	var bs []block
	json.Unmarshal(m.Blocks, &bs)
	var out []Button
	for _, b := range bs {
		if b.Type != "actions" {
			continue
		}
		for _, e := range b.Elements {
			if e.Type == "button" && e.Text != nil {
				out = append(out, Button{ActionID: e.ActionID, Value: e.Value, Label: e.Text.Text})
			}
		}
	}
	return out
}

// SectionTexts returns the text of m's section blocks, in order.
func (m Message) SectionTexts() []string {
	var bs []block
	json.Unmarshal(m.Blocks, &bs)
	var out []string
	for _, b := range bs {
		if b.Type == "section" && b.Text != nil {
			out = append(out, b.Text.Text)
		}
	}
	return out
}
