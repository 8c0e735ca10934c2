package slack_test

import (
	"testing"

	providerv1 "github.com/chatbus/chatbus/proto/chatbus/provider/v1"
	"github.com/chatbus/chatbus/provider/providertest"
	"github.com/chatbus/chatbus/provider/slack/slacktest"
)

// TestContract: provider-slack keeps the provider contract, against
// slacktest.
func TestContract(t *testing.T) {
	providertest.Run(t, providertest.Target{
		Start: func(t *testing.T) providertest.Instance {
			r := newRig(t, rigConfig{})
			return providertest.InProcess(r.h, suiteSlack{r.st})
		},
		OutOfScope: []providertest.Call{
			{Method: "chat.postMessage", Params: `{"channel":"C0OTHER","text":"x"}`},
			{Method: "chat.postMessage", Params: `{"thread_ts":"1700000000.000001","text":"x"}`},
			{Method: "chat.postMessage", Params: `{"file":"F0FILE","text":"x"}`},
			{Method: "chat.postEphemeral", Params: `{"user":"` + stranger + `","text":"x"}`},
		},
	})
}

// suiteSlack acts on slacktest for the suite; the person is on newRig's
// allow-list.
type suiteSlack struct{ st *slacktest.Server }

func (s suiteSlack) Say(_ *testing.T, th *providerv1.Target, text string) {
	s.st.PostMessage(th.GetChat(), person, text, th.GetThread())
}

func (s suiteSlack) Sent(_ *testing.T, th *providerv1.Target) int {
	return len(s.st.Sent(th.GetChat(), th.GetThread()))
}

func (s suiteSlack) Fail(_ *testing.T, f providertest.Fault) {
	switch f {
	case providertest.RateLimited:
		s.st.Fail("chat.postMessage", slacktest.Fault{Status: 429, RetryAfter: 3})
	case providertest.Unavailable:
		s.st.Fail("chat.postMessage", slacktest.Fault{Status: 503})
	case providertest.Revoked:
		s.st.Fail("chat.postMessage", slacktest.Fault{Error: "token_revoked"})
	}
}
