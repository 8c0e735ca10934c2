package provider

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/chatbus/chatbus/internal/enumtab"
	"github.com/chatbus/chatbus/internal/suggest"
	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
)

// Pacing. A platform declares its rate limits ([Description.Limits]) and
// the lane of each method ([Method.Lane]); the supervisor paces the calls
// to stay within the limits (a call that would exceed one waits), serves
// the lanes in order and the threads in turn. A call the platform still
// refuses as rate limited returns [RateLimited] (or [RateLimitedIn]): the
// supervisor queues it again and holds its scope back for the delay. A
// platform that learns a scope is out of room as it answers (Discord's
// bucket headers) sets [Result.Pause].

// LimitScope says what a limit counts calls per.
type LimitScope int

const (
	// ScopeBot counts every call of the connection.
	ScopeBot LimitScope = iota + 1
	// ScopeChat counts the calls into one chat, whatever their thread.
	ScopeChat
	// ScopeThread counts the calls into one thread.
	ScopeThread
)

var scopeNames = map[LimitScope]string{ScopeBot: "bot", ScopeChat: "chat", ScopeThread: "thread"}

func (s LimitScope) String() string {
	if n, ok := scopeNames[s]; ok {
		return n
	}
	return "scope(" + strconv.Itoa(int(s)) + ")"
}

// Lane says which calls go first when calls wait for the limits.
type Lane int

const (
	// LaneMessage (the zero Lane): new messages.
	LaneMessage Lane = iota
	// LanePrompt: questions the person must answer, answers to button
	// presses.
	LanePrompt
	// LaneEdit: edits of messages.
	LaneEdit
	// LaneAmbient: typing indicators, reactions.
	LaneAmbient
)

// RateLimit is one limit the platform puts on calls: at most Count calls
// in any window of Per, per Scope, of Methods (method and verb names;
// "upload" for files; empty: every call).
type RateLimit struct {
	// Name is the key of the limit in the provider's "limits" setting.
	Name    string
	Scope   LimitScope
	Count   int
	Per     time.Duration
	Methods []string
}

// Pause says the platform has no room in Scope (of the call's thread) for
// After; with MethodOnly, for calls of the call's method only.
type Pause struct {
	Scope      LimitScope
	After      time.Duration
	MethodOnly bool
}

// RateLimitedIn is [RateLimited] for a platform that says which scope is
// out of room (a global limit: ScopeBot).
func RateLimitedIn(scope LimitScope, after time.Duration, cause error) error {
	return &Error{Code: codes.ResourceExhausted, Message: ErrRateLimited.Error(), RetryAfter: after, Reason: ReasonRateLimited,
		Metadata: map[string]string{"scope": scope.String()}, Err: cause}
}

// LimitSettings is the "limits" setting of a provider: limits by name,
// each "<count>/<window>" ("20/1m", "1/s", "3/3s") or "off". A provider
// applies it to its defaults with [LimitSettings.Apply].
type LimitSettings map[string]string

// Apply returns defaults with the operator's changes. An unknown name or
// a value that is not a limit is a [*SettingError] under "limits".
func (ls LimitSettings) Apply(defaults []RateLimit) ([]RateLimit, error) {
	names := make([]string, len(defaults))
	for i, d := range defaults {
		names[i] = d.Name
	}
	for _, k := range slices.Sorted(maps.Keys(ls)) {
		if !slices.Contains(names, k) {
			hint := ""
			if c := suggest.Closest(k, names); c != "" {
				hint = "; did you mean " + c + "?"
			}
			return nil, Settingf("limits."+k, "unknown limit%s (known: %s)", hint, strings.Join(names, ", "))
		}
	}
	out := make([]RateLimit, 0, len(defaults))
	for _, d := range defaults {
		v, ok := ls[d.Name]
		if !ok {
			out = append(out, d)
			continue
		}
		if strings.TrimSpace(v) == "off" {
			continue
		}
		count, per, err := ParseRate(v)
		if err != nil {
			return nil, Settingf("limits."+d.Name, "%v", err)
		}
		d.Count, d.Per = count, per
		out = append(out, d)
	}
	return out, nil
}

// ParseRate reads "<count>/<window>": a count of 1 to 10000 and a window
// as a Go duration ("3s", "1m") or a bare unit ("s", "m", "h": one of it).
func ParseRate(v string) (count int, per time.Duration, err error) {
	c, w, ok := strings.Cut(strings.TrimSpace(v), "/")
	if !ok {
		return 0, 0, fmt.Errorf("%q is not a rate: want <count>/<window>, e.g. 20/1m, 1/s, 3/3s, or off", v)
	}
	count, err = strconv.Atoi(strings.TrimSpace(c))
	if err != nil || count < 1 || count > 10000 {
		return 0, 0, fmt.Errorf("%q: the count must be a whole number from 1 to 10000", v)
	}
	w = strings.TrimSpace(w)
	switch w {
	case "s", "m", "h":
		w = "1" + w
	}
	per, err = time.ParseDuration(w)
	if err != nil || per <= 0 || per > 24*time.Hour {
		return 0, 0, fmt.Errorf("%q: the window must be a duration from 1ns to 24h (e.g. 1s, 1m)", v)
	}
	return count, per, nil
}

// lanes maps Lane onto the contract's Lane.
var lanes = enumtab.New(map[Lane]providerv1.Lane{
	LaneMessage: providerv1.Lane_LANE_MESSAGE,
	LanePrompt:  providerv1.Lane_LANE_PROMPT,
	LaneEdit:    providerv1.Lane_LANE_EDIT,
	LaneAmbient: providerv1.Lane_LANE_AMBIENT,
})

// proto is l's wire form; a lane outside the table goes as LaneMessage.
func (l Lane) proto() providerv1.Lane {
	if p := lanes.Proto(l); p != providerv1.Lane_LANE_UNSPECIFIED {
		return p
	}
	return providerv1.Lane_LANE_MESSAGE
}

// limitScopes maps LimitScope onto the contract's LimitScope; a scope
// outside it goes out as LIMIT_SCOPE_UNSPECIFIED.
var limitScopes = enumtab.New(map[LimitScope]providerv1.LimitScope{
	ScopeBot:    providerv1.LimitScope_LIMIT_SCOPE_BOT,
	ScopeChat:   providerv1.LimitScope_LIMIT_SCOPE_CHAT,
	ScopeThread: providerv1.LimitScope_LIMIT_SCOPE_THREAD,
})

func (s LimitScope) proto() providerv1.LimitScope { return limitScopes.Proto(s) }

func (l RateLimit) proto() *providerv1.RateLimit {
	return &providerv1.RateLimit{Name: l.Name, Scope: l.Scope.proto(), Count: uint32(l.Count), Per: durationpb.New(l.Per), Methods: l.Methods}
}

func (p *Pause) Proto() *providerv1.Pause {
	if p == nil || p.After <= 0 {
		return nil
	}
	return &providerv1.Pause{Scope: p.Scope.proto(), After: durationpb.New(p.After), MethodOnly: p.MethodOnly}
}
