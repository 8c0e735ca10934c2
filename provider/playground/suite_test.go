package playground

import (
	"strconv"
	"sync/atomic"
	"testing"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/provider/providertest"
)

// TestContract: provider-playground keeps the provider contract, its own
// page being the platform.
func TestContract(t *testing.T) {
	const local = "the playground is its own platform, in the provider's process: no HTTP answer of another service to class"
	providertest.Run(t, providertest.Target{
		Start: func(t *testing.T) providertest.Instance {
			r := newRig(t, t.TempDir())
			return providertest.InProcess(r.h, &suitePlayground{web: r.web})
		},
		NotApplicable: map[string]string{
			"errors/rate_limited_resource_exhausted_with_retry": local,
			"errors/platform_5xx_unavailable_or_unknown":        local,
			"errors/revoked_token_permission_denied":            local,
		},
	})
}

// suitePlayground acts on the page for the suite, as the person's
// browser.
type suitePlayground struct {
	web  *browser
	sent atomic.Int64 // numbers the person's messages (their client ids)
}

func suiteRoom(t *testing.T, th *providerv1.Target) int64 {
	t.Helper()
	room, err := strconv.ParseInt(th.GetThread(), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return room
}

func (s *suitePlayground) Say(t *testing.T, th *providerv1.Target, text string) {
	s.web.say(suiteRoom(t, th), "suite-"+strconv.FormatInt(s.sent.Add(1), 10), text)
}

func (s *suitePlayground) Sent(t *testing.T, th *providerv1.Target) int {
	n := 0
	for _, m := range s.web.history(suiteRoom(t, th)) {
		if m.From == "bot" && !m.Deleted {
			n++
		}
	}
	return n
}

func (s *suitePlayground) Fail(t *testing.T, f providertest.Fault) {
	t.Fatalf("the playground has no %s to inject", f)
}
