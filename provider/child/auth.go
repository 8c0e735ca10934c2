package child

import (
	"github.com/chatbus/chatbus/provider"

	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/chatbus/chatbus/internal/contract"
)

// SettingsSecretKey is the key of the settings object on stdin that holds
// the bearer secret the supervisor hands each incarnation.
const SettingsSecretKey = contract.SettingsSecretKey

// SettingsStateDirKey is the key of the settings object on stdin that names
// the child's own private state directory (mode 0700, kept across restarts
// of the child), where a provider keeps what must survive it.
const SettingsStateDirKey = contract.SettingsStateDirKey

// minSecretLen bounds how short a secret may be: the supervisor's are 32
// random bytes in base64url (43 characters).
const minSecretLen = 16

// healthPrefix is the one service callable without the secret: it says
// only whether the child serves, and lets an operator probe it with
// grpc-health-probe.
const healthPrefix = "/grpc.health.v1.Health/"

// ChildSettings are the keys the supervisor adds to every child's settings
// on stdin, beside the provider's own.
type ChildSettings struct {
	// Secret is this incarnation's bearer secret (key "secret").
	Secret string
	// StateDir is the child's private state directory (key "state_dir"),
	// the same for every incarnation; "" when the supervisor named none
	// (supervisors before it did).
	StateDir string
}

// SplitSettings takes the settings document a child reads from stdin (one
// JSON object) apart: the secret the supervisor added (key "secret"), and
// the rest, the platform's own settings, as a JSON object without the
// supervisor's keys ("secret", "state_dir"). A document that is not a JSON
// object, or holds no secret, is an error. [ParseChildSettings] also
// returns the state dir.
func SplitSettings(raw []byte) (secret string, platform json.RawMessage, err error) {
	cs, platform, err := ParseChildSettings(raw)
	return cs.Secret, platform, err
}

// ParseChildSettings is [SplitSettings] returning every key the supervisor
// added: the secret and the state dir.
func ParseChildSettings(raw []byte) (ChildSettings, json.RawMessage, error) {
	var cs ChildSettings
	var m map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&m); err != nil || m == nil {
		return cs, nil, fmt.Errorf("settings on stdin must be one JSON object: %v", err)
	}
	v, ok := m[SettingsSecretKey]
	if !ok {
		return cs, nil, fmt.Errorf("settings on stdin carry no %q: this binary is started by supervisord", SettingsSecretKey)
	}
	if err := json.Unmarshal(v, &cs.Secret); err != nil || len(cs.Secret) < minSecretLen {
		return ChildSettings{}, nil, fmt.Errorf("settings: %q must be a string of at least %d bytes", SettingsSecretKey, minSecretLen)
	}
	if v, ok := m[SettingsStateDirKey]; ok {
		if err := json.Unmarshal(v, &cs.StateDir); err != nil || (cs.StateDir != "" && !filepath.IsAbs(cs.StateDir)) {
			return ChildSettings{}, nil, fmt.Errorf("settings: %q must be an absolute path", SettingsStateDirKey)
		}
	}
	delete(m, SettingsSecretKey)
	delete(m, SettingsStateDirKey)
	platform, err := json.Marshal(m)
	return cs, platform, err
}

// authorize checks the bearer secret of the call in ctx, in constant time.
func (s *Server) authorize(ctx context.Context, method string) error {
	if strings.HasPrefix(method, healthPrefix) {
		return nil
	}
	md, _ := metadata.FromIncomingContext(ctx)
	for _, v := range md.Get("authorization") {
		token, ok := strings.CutPrefix(v, "Bearer ")
		if ok && subtle.ConstantTimeCompare([]byte(token), []byte(s.cfg.Secret)) == 1 {
			return nil
		}
	}
	s.log.Warn().Str("method", method).Msg("refused a call without the supervisor's secret")
	return status.Error(codes.Unauthenticated, "provider: missing or wrong bearer secret: only the supervisor that started this provider may call it")
}

func (s *Server) authUnary(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if err := s.authorize(ctx, info.FullMethod); err != nil {
		return nil, err
	}
	return handler(ctx, req)
}

func (s *Server) authStream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	if err := s.authorize(ss.Context(), info.FullMethod); err != nil {
		return err
	}
	return handler(srv, ss)
}

// check refuses a Description the supervisor could not use.
func checkDescription(d provider.Description) error {
	if d.Platform == "" {
		return fmt.Errorf("no platform name: %w", provider.ErrInvalid)
	}
	if err := checkLimits(d.Limits); err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, m := range d.Methods {
		if isVerb(m.Name) {
			return fmt.Errorf("method %q is named as a message verb (implement Messenger instead): %w", m.Name, provider.ErrInvalid)
		}
		if m.Name == "" || seen[m.Name] {
			return fmt.Errorf("method %q: empty or declared twice: %w", m.Name, provider.ErrInvalid)
		}
		seen[m.Name] = true
		for _, p := range m.Params {
			if p.Name == "" || p.Kind < provider.RefMessage || p.Kind > provider.RefInteraction {
				return fmt.Errorf("method %s: parameter %q of kind %d: %w", m.Name, p.Name, p.Kind, provider.ErrInvalid)
			}
		}
	}
	return nil
}
