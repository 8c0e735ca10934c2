package provider_test

import (
	"testing"

	"github.com/chatbus/chatbus/provider"
)

func TestClosest(t *testing.T) {
	known := []string{"token", "forum_chat_id", "allowed_user_ids", "base_url"}
	for _, tc := range []struct{ name, want string }{
		{"tokn", "token"},
		{"toke", "token"},
		{"base_ur", "base_url"},
		{"allowed_users", ""},
		{"x", ""},
		{"token", "token"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := provider.Closest(tc.name, known); got != tc.want {
				t.Errorf("Closest(%q) = %q, want %q", tc.name, got, tc.want)
			}
		})
	}
}
