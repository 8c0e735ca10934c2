package hub

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/chatbus/chatbus/server/registry"
	"github.com/chatbus/chatbus/server/store"
)

// Call makes a platform call in the follower's own thread. The method must
// be one the binding's provider declared; each declared parameter naming
// an id of the thread (a message, a file, an interaction) must name one the
// thread has seen, in an update or a call result. The provider then scopes
// the call to the thread itself (it fills in the chat and thread and
// refuses parameters naming others). What the result makes available
// becomes part of the thread's scope.
//
// A call that finds the thread deleted (ErrTargetGone: nothing was sent)
// gives the binding a new thread (topics.go) and is made once more there,
// with its idempotency key, unless it names ids of the deleted thread;
// then the first error is returned, and the follower learns of its new
// thread from Heartbeat and its stream.
func (h *Hub) Call(ctx context.Context, f *registry.Follower, method string, params []byte, idempotencyKey string) (Result, error) {
	return h.call(ctx, f, method, false, params, idempotencyKey)
}

// call is Call and Verb: verb says which the caller asked for, and method
// must be of that sort.
func (h *Hub) call(ctx context.Context, f *registry.Follower, method string, verb bool, params []byte, idempotencyKey string) (Result, error) {
	b, err := h.activeBinding(f, "call "+method)
	if err != nil {
		return Result{}, err
	}
	if err := h.checkCall(b.Target, method, verb, params); err != nil {
		return Result{}, err
	}
	c := Call{BindingKey: b.Key, Target: b.Target, Method: method, Params: params, Key: idempotencyKey}
	res, err := h.cfg.Providers.Call(ctx, c)
	if errors.Is(err, ErrTargetGone) {
		nb, rerr := h.replaceThread(ctx, b.Key, b.Target)
		switch {
		case rerr != nil:
			h.log.Warn().Err(rerr).Str("binding", b.Key).Msg("a call found its thread deleted; it could not be replaced")
		case h.checkCall(nb.Target, method, verb, params) == nil:
			c.Target = nb.Target
			res, err = h.cfg.Providers.Call(ctx, c)
		}
	}
	if err != nil {
		return Result{}, err
	}
	h.learnSent(c.Target, res.Refs)
	f.Called(h.cfg.Now(), saysSomething[method])
	return res, nil
}

// saysSomething are the calls that put words in the thread (a session's
// last message, as the chat's sessions command shows it).
var saysSomething = map[string]bool{VerbSend: true, VerbEdit: true, VerbDraft: true}

// checkCall refuses a method (or verb) the provider of t did not declare,
// and parameters naming ids t never saw.
func (h *Hub) checkCall(t store.Target, method string, verb bool, params []byte) error {
	d, ok := h.cfg.Providers.Description(t.Provider)
	if !ok {
		return fmt.Errorf("call %s: %w: %s", method, ErrNotDescribed, t.Provider)
	}
	m, ok := d.method(method)
	switch {
	case ok && m.Verb && !verb:
		return fmt.Errorf("%w: %s is a message verb: use its own call (SendMessage, EditMessage, React, SendTyping, AnswerInteraction)", ErrMethodNotAllowed, method)
	case !ok && verb:
		return fmt.Errorf("%w: %s has no %s verb (its verbs: %s)", ErrVerbUnsupported, t.Provider, method, strings.Join(d.names(true), ", "))
	case !ok:
		return fmt.Errorf("%w: %s (%s allows %s; files go through UploadFile/DownloadFile)", ErrMethodNotAllowed, method, t.Provider, strings.Join(d.names(false), ", "))
	}
	if len(m.Params) == 0 {
		return nil // nothing to check: the provider validates the rest
	}
	var obj map[string]json.RawMessage
	if len(bytes.TrimSpace(params)) > 0 {
		if err := json.Unmarshal(params, &obj); err != nil || obj == nil {
			return fmt.Errorf("%w: %s params must be a JSON object", ErrBadParams, method)
		}
	}
	sc := h.scopeOf(t)
	for _, p := range m.Params {
		v, present := lookup(obj, p.Name)
		if !present {
			if p.Required {
				return fmt.Errorf("%w: %s needs %s (a %s of your thread)", ErrBadParams, method, p.Name, kindName(p.Kind))
			}
			continue
		}
		id, ok := idOf(v)
		if !ok {
			return fmt.Errorf("%w: %s: %s must be a string or a number", ErrBadParams, method, p.Name)
		}
		if !sc.has(p.Kind, id) {
			return fmt.Errorf("%w: %s %s was not sent or received in your thread", ErrOutOfScope, kindName(p.Kind), id)
		}
	}
	return nil
}

// ParamID is the id a call's JSON params give the parameter name (a
// top-level key or a dotted path, a string or a number), as checkCall
// reads it; false if they give none.
func ParamID(params []byte, name string) (string, bool) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(params, &obj) != nil {
		return "", false
	}
	v, ok := lookup(obj, name)
	if !ok {
		return "", false
	}
	return idOf(v)
}

// lookup finds a parameter by name: a top-level key, or a dotted path
// into nested objects. A JSON null counts as absent.
func lookup(obj map[string]json.RawMessage, name string) (json.RawMessage, bool) {
	for {
		head, rest, nested := strings.Cut(name, ".")
		v, ok := obj[head]
		if !ok || bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
			return nil, false
		}
		if !nested {
			return v, true
		}
		obj = nil
		if json.Unmarshal(v, &obj) != nil || obj == nil {
			return nil, false
		}
		name = rest
	}
}

// idOf returns a JSON string or number as the id text.
func idOf(v json.RawMessage) (string, bool) {
	v = bytes.TrimSpace(v)
	if len(v) > 0 && v[0] == '"' {
		var s string
		if json.Unmarshal(v, &s) != nil || s == "" {
			return "", false
		}
		return s, true
	}
	var n json.Number
	if json.Unmarshal(v, &n) != nil {
		return "", false
	}
	return n.String(), true
}

func kindName(k store.RefKind) string {
	switch k {
	case store.RefMessage:
		return "message"
	case store.RefFile:
		return "file"
	case store.RefInteraction:
		return "interaction"
	}
	return "reference"
}
