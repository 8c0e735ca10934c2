package slack

import (
	"time"

	"github.com/chatbus/chatbus/provider"
)

// Pacing. Slack limits the Web API per method, per app, per workspace
// (docs.slack.dev/apis/web-api/rate-limits): each method has a tier —
// Tier 2 allows 20+ calls a minute, Tier 3 50+, Tier 4 100+ — and
// chat.postMessage has a limit of its own: about one message a second
// per channel, short bursts allowed, though Slack warns that it may not
// store or show the messages of a burst. The provider declares these
// limits (DefaultLimits) and the supervisor paces its calls to them; all
// of a provider's threads are in its one channel, so they share the
// channel's chat.postMessage limit, and every thread shares the
// workspace's tiers.

// Calls a minute Slack allows a method of each tier (at least).
const (
	tier2 = 20
	tier3 = 50
	tier4 = 100
)

// tierLimit is a tier's allowance for the methods: perMinute calls in
// any minute, spread as a tenth of them in any 6 s, so that a burst
// (30 edits of one message in two seconds) waits for the limit and is
// coalesced instead of spending the minute's calls at once. It never
// exceeds the tier in any minute. Tiers count per workspace: ScopeBot.
func tierLimit(name string, perMinute int, methods ...string) provider.RateLimit {
	return provider.RateLimit{Name: name, Scope: provider.ScopeBot, Count: perMinute / 10, Per: 6 * time.Second, Methods: methods}
}

// DefaultLimits are Slack's limits for the calls the provider makes for
// followers, each named after the method it counts (the key of the
// "limits" setting): chat.postMessage one a second per channel, with no
// burst (Slack does not promise to show a burst's messages; every part
// of a long text counts); chat.update, chat.delete and reactions.add
// Tier 3; reactions.remove Tier 2; chat.postEphemeral Tier 4; an upload
// is one files.getUploadURLExternal and one files.completeUploadExternal,
// both Tier 4. Each limit counts the method and the verb made with it
// (send: chat.postMessage, edit: chat.update, react: reactions.add,
// answer: chat.postEphemeral). The provider's own calls (thread roots,
// the channel's membership) are not paced by the supervisor.
var DefaultLimits = []provider.RateLimit{
	{Name: "chat.postMessage", Scope: provider.ScopeChat, Count: 1, Per: time.Second,
		Methods: []string{provider.VerbSend, "chat.postMessage"}},
	tierLimit("chat.update", tier3, provider.VerbEdit, "chat.update"),
	tierLimit("chat.delete", tier3, "chat.delete"),
	tierLimit("reactions.add", tier3, provider.VerbReact, "reactions.add"),
	tierLimit("reactions.remove", tier2, "reactions.remove"),
	tierLimit("chat.postEphemeral", tier4, provider.VerbAnswer, "chat.postEphemeral"),
	tierLimit("upload", tier4, "upload"),
}

// limitScope is the scope Slack ran out of when it answers a call of
// method as rate limited: the channel's for chat.postMessage, the
// workspace's (the bot's) for a tier.
func limitScope(method string) provider.LimitScope {
	if method == "chat.postMessage" {
		return provider.ScopeChat
	}
	return provider.ScopeBot
}
