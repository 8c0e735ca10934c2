package provider

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/chatbus/chatbus/internal/suggest"
)

// ErrSettings is what every [*SettingError] matches: the provider's
// settings are not usable as they are.
var ErrSettings = errors.New("invalid provider settings")

// SettingError says what is wrong with one provider setting. Key is its
// path in the settings object ("token", "allowed_user_ids", a dotted path
// into nested objects); "" when the problem is not one key's. Why says
// what is wrong and, where it helps, what would be right. It never holds
// a secret's value.
type SettingError struct {
	Key string
	Why string
}

// Error returns "<key>: <why>", or why alone without a key: the one line
// a provider prints in --check mode (see child.Main).
func (e *SettingError) Error() string {
	if e.Key == "" {
		return e.Why
	}
	return e.Key + ": " + e.Why
}

// Is matches [ErrSettings].
func (e *SettingError) Is(target error) bool { return target == ErrSettings }

// Settingf returns a [*SettingError] for key.
func Settingf(key, format string, args ...any) error {
	return &SettingError{Key: key, Why: fmt.Sprintf(format, args...)}
}

// URLSetting checks the value of a URL setting: an absolute URL with a
// host whose scheme is scheme or its secure form (scheme "http" takes http
// and https, "ws" takes ws and wss). Empty is left to the caller's default.
// A wrong value is a [*SettingError] naming key, with example as a right
// one ("base_url: "api.telegram.org" is not an absolute http(s) URL (e.g.
// https://api.telegram.org)").
func URLSetting(key, value, scheme, example string) error {
	if value == "" {
		return nil
	}
	if u, err := url.Parse(value); err == nil && (u.Scheme == scheme || u.Scheme == scheme+"s") && u.Host != "" {
		return nil
	}
	return Settingf(key, "%q is not an absolute %s(s) URL (e.g. %s)", value, scheme, example)
}

// DurationSetting returns the duration a setting's value names ("30s",
// "1m30s"), or def when it is empty. A value that is not a duration, or
// lies outside min to max, is a [*SettingError] naming key ("poll_timeout:
// "soon" is not a duration (e.g. 30s)", "poll_timeout: 0s is out of range
// (1s to 5m0s)"), returned with def.
func DurationSetting(key, value string, def, min, max time.Duration) (time.Duration, error) {
	if value == "" {
		return def, nil
	}
	v, err := time.ParseDuration(value)
	if err != nil {
		return def, Settingf(key, "%q is not a duration (e.g. 30s)", value)
	}
	if v < min || v > max {
		return def, Settingf(key, "%s is out of range (%s to %s)", value, min, max)
	}
	return v, nil
}

// DecodeSettings decodes a platform's settings (one JSON object, as
// the runtime, provider/child, hands it) into v, a pointer to a struct whose
// fields carry json tags. A key v does not know, and a value of the wrong
// type, is a [*SettingError] naming the key in the operator's words
// ("tokn: unknown setting; did you mean token? (known: …)", "allowed_user_ids:
// want a list of integers, got a string"), never a Go type.
func DecodeSettings(raw json.RawMessage, v any) error {
	if len(bytes.TrimSpace(raw)) == 0 {
		raw = json.RawMessage("{}")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		return nil
	}
	known := settingKeys(reflect.TypeOf(v))
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
		key := te.Field
		if key == "" {
			return &SettingError{Why: fmt.Sprintf("the settings must be one JSON object, got %s", article(te.Value))}
		}
		if ft := fieldType(reflect.TypeOf(v), key); ft != nil && (ft.Kind() == reflect.Slice || ft.Kind() == reflect.Array) && ft.Elem() == te.Type {
			return &SettingError{Key: key, Why: fmt.Sprintf("want %s, got %s in it", describeType(ft), article(te.Value))}
		}
		return &SettingError{Key: key, Why: fmt.Sprintf("want %s, got %s", describeType(te.Type), article(te.Value))}
	case errors.As(err, &se):
		return &SettingError{Why: fmt.Sprintf("the settings are not valid JSON: %v", err)}
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		if u, uerr := strconv.Unquote(name); uerr == nil {
			name = u
		}
		why := "unknown setting"
		if c := Closest(name, known); c != "" {
			why += "; did you mean " + c + "?"
		}
		return &SettingError{Key: name, Why: why + " (known: " + strings.Join(known, ", ") + ")"}
	}
	return &SettingError{Key: blame(raw, reflect.TypeOf(v)), Why: strings.TrimPrefix(err.Error(), "json: ")}
}

// blame finds the key whose value the decoder refused with an error of a
// value's own (an UnmarshalJSON's, which encoding/json does not place):
// the first key, in sorted order, that does not decode alone into a fresh
// t. "" if none does (or raw is no object).
func blame(raw json.RawMessage, t reflect.Type) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) != nil || t == nil || t.Kind() != reflect.Pointer {
		return ""
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		one, err := json.Marshal(map[string]json.RawMessage{k: m[k]})
		if err != nil {
			continue
		}
		if json.Unmarshal(one, reflect.New(t.Elem()).Interface()) != nil {
			return k
		}
	}
	return ""
}

// settingKeys lists the json keys of the struct t points to, sorted.
func settingKeys(t reflect.Type) []string {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	var keys []string
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch name {
		case "-":
			continue
		case "":
			name = f.Name
		}
		keys = append(keys, name)
	}
	slices.Sort(keys)
	return keys
}

// fieldType is the type of the field of the struct t points to whose json
// key is key (a top-level one); nil if there is none.
func fieldType(t reflect.Type, key string) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return nil
	}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == key || (name == "" && f.Name == key) {
			return f.Type
		}
	}
	return nil
}

// describeType names what a Go type wants, in the operator's words.
func describeType(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "a string"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Slice, reflect.Array:
		return "a list of " + plural(describeType(t.Elem()))
	case reflect.Map, reflect.Struct:
		return "an object (key: value)"
	case reflect.Pointer:
		return describeType(t.Elem())
	}
	return "another kind of value"
}

// plural turns "an integer" into "integers", "a string" into "strings".
func plural(s string) string {
	for _, a := range []string{"an ", "a "} {
		if rest, ok := strings.CutPrefix(s, a); ok {
			return rest + "s"
		}
	}
	return s
}

// article names a JSON kind as encoding/json reports it ("string",
// "number", "array", "object", "bool", "number -5") with an article.
func article(kind string) string {
	k, _, _ := strings.Cut(kind, " ")
	switch k {
	case "array":
		return "a list"
	case "object":
		return "an object"
	case "bool":
		return "true or false"
	case "number":
		return "a number"
	case "string":
		return "a string"
	}
	return kind
}

// Closest returns the name in known within edit distance 2 of name (the
// nearest, the first of equals), or "" if none is that near: the setting a
// person probably meant when they typed an unknown one.
func Closest(name string, known []string) string { return suggest.Closest(name, known) }
