package provider

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Params are a call's JSON params, a top-level key's value as the
// follower wrote it (numbers keep their text). A Platform's Call scopes
// them to the caller's thread (see [Platform]):
//
//	m, err := provider.ParseParams(method, raw)       // ErrInvalid if not an object
//	err = m.Pin("chat_id", t.Chat, "chat")            // ErrOutOfScope if another
//	err = m.Refuse(method, "inline_message_id")       // ErrOutOfScope if present
//	m.Set("chat_id", t.Chat)                          // where the call goes
//	body, err := json.Marshal(m)
//
// A key may be a dotted path into nested objects
// ("reply_parameters.chat_id").
type Params map[string]json.RawMessage

// ParseParams decodes a call's params; empty params are an empty object.
// Params that are not a JSON object are [ErrInvalid].
func ParseParams(method string, raw json.RawMessage) (Params, error) {
	m := Params{}
	if len(bytes.TrimSpace(raw)) == 0 {
		return m, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil || m == nil {
		return nil, fmt.Errorf("%w: %s params must be a JSON object", ErrInvalid, method)
	}
	return m, nil
}

// lookup returns the value at key (a dotted path). An object on the way
// that is not one is [ErrInvalid].
func (m Params) lookup(key string) (json.RawMessage, bool, error) {
	head, rest, nested := strings.Cut(key, ".")
	v, ok := m[head]
	if !ok || !nested {
		return v, ok, nil
	}
	var inner Params
	if err := json.Unmarshal(v, &inner); err != nil || inner == nil {
		return nil, false, fmt.Errorf("%w: %s must be an object", ErrInvalid, head)
	}
	return inner.lookup(rest)
}

// Text returns the value at key as text: a string's value, a number as
// written; "" if the key is absent or holds anything else.
func (m Params) Text(key string) string {
	v, ok, err := m.lookup(key)
	if !ok || err != nil {
		return ""
	}
	return IDText(v)
}

// Has reports whether key is present.
func (m Params) Has(key string) bool {
	_, ok, _ := m.lookup(key)
	return ok
}

// Pin refuses, wrapping [ErrOutOfScope], a key that is present and names
// another id than want ("chat_id 5 is not your chat"); an absent key
// passes (the Platform fills it in with [Params.Set]).
func (m Params) Pin(key, want, what string) error {
	v, ok, err := m.lookup(key)
	if err != nil || !ok {
		return err
	}
	if got := IDText(v); got != want {
		return fmt.Errorf("%w: %s %s is not your %s", ErrOutOfScope, key, v, what)
	}
	return nil
}

// Refuse refuses, wrapping [ErrOutOfScope], params that hold any of keys:
// what they name cannot be tied to the caller's thread.
func (m Params) Refuse(method string, keys ...string) error {
	for _, k := range keys {
		if m.Has(k) {
			return fmt.Errorf("%w: %s: %s cannot be tied to a thread", ErrOutOfScope, method, k)
		}
	}
	return nil
}

// Set sets a top-level key to v's JSON.
func (m Params) Set(key string, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("provider: Params.Set(%q): %v", key, err)) // only for values that always marshal
	}
	m[key] = b
}

// IDText returns a JSON id, a string or a number, as text; "" for any
// other JSON value.
func IDText(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	var s string
	if json.Unmarshal(v, &s) == nil {
		return s
	}
	var n json.Number
	if json.Unmarshal(v, &n) == nil {
		return n.String()
	}
	return ""
}
