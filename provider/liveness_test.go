package provider_test

import (
	"strings"
	"testing"
	"time"

	"github.com/chatbus/chatbus/provider"
)

// TestLiveness: the steps a platform feeds and the health they give.
func TestLiveness(t *testing.T) {
	type step struct {
		do          func(l *provider.Liveness, c *fakeClock)
		serving     bool
		whyContains string
	}
	failed := func(why string) func(*provider.Liveness, *fakeClock) {
		return func(l *provider.Liveness, c *fakeClock) { c.Add(time.Second); l.Failed(why) }
	}
	ok := func(l *provider.Liveness, _ *fakeClock) { l.Succeeded() }
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{name: "three failures in a row", steps: []step{
			{do: failed("unreachable"), serving: true},
			{do: failed("unreachable"), serving: true},
			{do: failed("502 Bad Gateway"), serving: false, whyContains: "502 Bad Gateway (3 attempts in a row failed"},
			{do: ok, serving: true},
		}},
		{name: "failing for the whole bound", steps: []step{
			{do: failed("timeout"), serving: true},
			{do: func(l *provider.Liveness, c *fakeClock) { c.Add(10 * time.Second); l.Failed("timeout") }, serving: false, whyContains: "timeout"},
		}},
		{name: "a success resets the count", steps: []step{
			{do: failed("x"), serving: true},
			{do: failed("x"), serving: true},
			{do: ok, serving: true},
			{do: failed("x"), serving: true},
			{do: failed("x"), serving: true},
		}},
		{name: "refused at once until a success", steps: []step{
			{do: func(l *provider.Liveness, _ *fakeClock) { l.Refused("401 Unauthorized: token revoked") }, serving: false, whyContains: "401"},
			{do: failed("x"), serving: false, whyContains: "401"},
			{do: ok, serving: true},
		}},
		{name: "a block outlives successes", steps: []step{
			{do: func(l *provider.Liveness, _ *fakeClock) { l.Block("chat", "chat -100 is not a forum") }, serving: false, whyContains: "not a forum"},
			{do: ok, serving: false, whyContains: "not a forum"},
			{do: func(l *provider.Liveness, _ *fakeClock) { l.Block("chat", "the bot may not manage topics") }, serving: false, whyContains: "manage topics"},
			{do: func(l *provider.Liveness, _ *fakeClock) { l.Unblock("chat") }, serving: true},
		}},
		{name: "a refusal wins over a block", steps: []step{
			{do: func(l *provider.Liveness, _ *fakeClock) { l.Block("chat", "not a forum") }, serving: false, whyContains: "not a forum"},
			{do: func(l *provider.Liveness, _ *fakeClock) { l.Refused("409 Conflict") }, serving: false, whyContains: "409"},
			{do: ok, serving: false, whyContains: "not a forum"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := newFakeClock(time.Unix(1_700_000_000, 0))
			h := provider.NewHealth()
			l := provider.NewLiveness(h, provider.LivenessConfig{Now: clock.Now})
			for i, s := range tc.steps {
				s.do(l, clock)
				serving, why := h.Serving()
				if serving != s.serving || !strings.Contains(why, s.whyContains) {
					t.Fatalf("step %d: serving %v (%q), want %v (%q)", i, serving, why, s.serving, s.whyContains)
				}
			}
		})
	}
}
