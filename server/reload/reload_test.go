package reload

import (
	"slices"
	"testing"
	"time"

	"github.com/chatbus/chatbus/server/providers"
)

// TestStartOnly: a start-only setting that differs is reported with both
// values as Show renders them, in the order of the new settings; one
// that is the same (however written) is not; one that only one side has
// is "(default)" on the other.
func TestStartOnly(t *testing.T) {
	tests := []struct {
		name      string
		cur, next []Setting
		want      []fixedField
	}{
		{name: "nothing differs", cur: []Setting{{"socket", "/s"}, {"stale_after", 5 * time.Second}},
			next: []Setting{{"socket", "/s"}, {"stale_after", 5 * time.Second}}},
		{name: "zero values read as the default", cur: []Setting{{"console.port", 0}, {"log_file", ""}},
			next: []Setting{{"console.port", 8080}, {"log_file", "/var/log/x"}},
			want: []fixedField{{"console.port", "(default)", "8080"}, {"log_file", "(default)", "/var/log/x"}}},
		{name: "in the new settings' order", cur: []Setting{{"b", "1"}, {"a", "1"}},
			next: []Setting{{"b", "2"}, {"a", "2"}},
			want: []fixedField{{"b", "1", "2"}, {"a", "1", "2"}}},
		{name: "added and removed keys", cur: []Setting{{"gone", "x"}, {"same", true}},
			next: []Setting{{"same", true}, {"new", "y"}},
			want: []fixedField{{"new", "(default)", "y"}, {"gone", "x", "(default)"}}},
		{name: "durations as written", cur: []Setting{{"heartbeat_interval", 200 * time.Millisecond}},
			next: []Setting{{"heartbeat_interval", 300 * time.Millisecond}},
			want: []fixedField{{"heartbeat_interval", "200ms", "300ms"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := startOnly(tc.cur, tc.next); !slices.Equal(got, tc.want) {
				t.Errorf("startOnly = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestLaunchDiff: what a provider's child is started from, compared
// without showing setting values (they may be secrets).
func TestLaunchDiff(t *testing.T) {
	base := providers.Spec{Name: "telegram", Binary: "/bin/p", Settings: map[string]any{"token": "secret-1", "allow": []any{1.0, 2.0}}}
	tests := []struct {
		name string
		edit func(*providers.Spec)
		want string
	}{
		{name: "the same", edit: func(*providers.Spec) {}, want: ""},
		{name: "the default flag is not a launch change", edit: func(s *providers.Spec) { s.Default = true }, want: ""},
		{name: "binary", edit: func(s *providers.Spec) { s.Binary = "" }, want: "binary /bin/p → (default)"},
		{name: "supervision bounds", edit: func(s *providers.Spec) { s.StartLimit = 9 }, want: "supervision bounds"},
		{name: "settings by key, values hidden", edit: func(s *providers.Spec) {
			s.Settings = map[string]any{"token": "secret-2", "allow": []any{1.0, 2.0}, "extra": true}
		}, want: "settings extra, token"},
		{name: "all of them", edit: func(s *providers.Spec) {
			s.Binary, s.BackoffMax, s.Settings = "/bin/q", time.Minute, nil
		}, want: "binary /bin/p → /bin/q; supervision bounds; settings allow, token"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			next := base
			next.Settings = map[string]any{"token": "secret-1", "allow": []any{1.0, 2.0}}
			tc.edit(&next)
			if got := launchDiff(base, next); got != tc.want {
				t.Errorf("launchDiff = %q, want %q", got, tc.want)
			}
		})
	}
}
