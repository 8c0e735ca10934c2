package minimal

import (
	"testing"

	"go.uber.org/goleak"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/provider"
	"github.com/chatbus/chatbus/provider/child"
	"github.com/chatbus/chatbus/provider/providertest"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// TestContract: the minimal provider keeps the provider contract, as
// every provider does.
func TestContract(t *testing.T) {
	const local = "the echo chat is in the provider's process: no answer of another service to class"
	providertest.Run(t, providertest.Target{
		Start: func(t *testing.T) providertest.Instance {
			s, err := ParseSettings(nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			p, err := New(s)
			if err != nil {
				t.Fatal(err)
			}
			h := providertest.Start(t, child.Config{Name: "minimal", Platform: p})
			return providertest.InProcess(h, suiteChat{p})
		},
		NotApplicable: map[string]string{
			"errors/rate_limited_resource_exhausted_with_retry": local,
			"errors/platform_5xx_unavailable_or_unknown":        local,
			"errors/revoked_token_permission_denied":            local,
		},
		OutOfScope: []providertest.Call{{Method: "note", Params: `{"thread":"999","text":"x"}`}},
	})
}

// suiteChat is the person in the echo chat, for the suite.
type suiteChat struct{ p *Platform }

func (c suiteChat) Say(t *testing.T, th *providerv1.Target, text string) {
	c.p.mu.Lock()
	defer c.p.mu.Unlock()
	c.p.say(provider.Target{Chat: th.GetChat(), Thread: th.GetThread()}, text)
}

func (c suiteChat) Sent(t *testing.T, th *providerv1.Target) int {
	c.p.mu.Lock()
	defer c.p.mu.Unlock()
	return c.p.posts[th.GetThread()]
}

func (c suiteChat) Fail(t *testing.T, f providertest.Fault) {
	t.Fatalf("the echo chat has no %s to inject", f)
}

// TestSettings: every refusal names its key.
func TestSettings(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"unknown key", `{"prefx":"x"}`, "prefx: unknown setting; did you mean prefix?"},
		{"wrong type", `{"max_text_chars":"long"}`, "max_text_chars: want an integer, got a string"},
		{"out of range", `{"max_text_chars":3}`, "max_text_chars: 3 is out of range"},
		{"unknown limit", `{"limits":{"sned":"1/s"}}`, "limits.sned"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseSettings([]byte(tc.in), nil)
			if err == nil || len(err.Error()) < len(tc.want) || err.Error()[:len(tc.want)] != tc.want {
				t.Fatalf("got %v, want %q…", err, tc.want)
			}
		})
	}
}
