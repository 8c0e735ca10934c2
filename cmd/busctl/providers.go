package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/chatbus/chatbus/client"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
)

// providerEvents are the changes that alter busctl providers.
var providerEvents = []chatbusv1.EventKind{
	chatbusv1.EventKind_EVENT_KIND_PROVIDER_STARTED,
	chatbusv1.EventKind_EVENT_KIND_PROVIDER_EXITED,
	chatbusv1.EventKind_EVENT_KIND_PROVIDER_FATAL,
	chatbusv1.EventKind_EVENT_KIND_PROVIDER_HEALTH,
	chatbusv1.EventKind_EVENT_KIND_DOCTOR,
	chatbusv1.EventKind_EVENT_KIND_CONFIG_RELOADED, // a provider added or removed
}

func (a *app) providersCmd() *cobra.Command {
	return a.listCmd(&cobra.Command{
		Use:   "providers",
		Short: "List chat providers: platform, state, pid, uptime, restarts, last exit, health and why, outbound queue; -o name prints their names",
		Long: `providers lists the configured chat providers and their child processes. A
provider that does not serve says why and since when under its row, and a
child that failed to start or exited shows the last lines it wrote to
stderr. The default provider's name has a *.

QUEUED is how many calls wait for the platform's rate limits (or for a
provider that does not admit, during a restart), OLDEST WAIT how long the
first of them has waited; a provider with calls waiting says by lane under
its row. -o wide adds the calls sent, coalesced (edits of one message
replaced by a newer one) and refused by the platform as rate limited (429s),
and the limits calls are paced to.`,
	}, providerEvents, providersView)
}

func providersView(ctx context.Context, c *client.Client) (*view, error) {
	resp, err := c.Admin.ListProviders(ctx, &chatbusv1.ListProvidersRequest{})
	if err != nil {
		return nil, clientErr(err)
	}
	return providersTable(resp), nil
}

// providersTable is the view of a ListProviders answer.
func providersTable(resp *chatbusv1.ListProvidersResponse) *view {
	t := newTable(col("NAME"), col("PLATFORM"), col("STATE"), col("PID"), col("UPTIME"), col("RESTARTS"), col("LAST EXIT"),
		col("HEALTH"), col("ATTACHED"), col("INGESTED"), col("DROPPED"), col("QUEUED"), col("OLDEST WAIT"), col("LAST ERROR"),
		wideCol("ACCOUNT"), wideCol("HEALTH SINCE"), wideCol("PAGE"), wideCol("SENT"), wideCol("COALESCED"), wideCol("429s"), wideCol("LIMITS"))
	t.empty = "(no providers configured: see deploy/config.example.yaml)"
	names := make([]string, 0, len(resp.GetProviders()))
	for _, p := range resp.GetProviders() {
		names = append(names, p.GetName())
		up := "-"
		if p.GetSince() != nil && p.GetState() == chatbusv1.ProviderState_PROVIDER_STATE_RUNNING {
			up = time.Since(p.GetSince().AsTime()).Round(time.Second).String()
		}
		health := paint("serving", styleGood)
		if !p.GetServing() {
			health = paint("not-serving", styleBad)
		}
		name := p.GetName()
		if p.GetDefault() {
			name += "*"
		}
		since := "-"
		if p.GetHealthSince() != nil {
			since = p.GetHealthSince().AsTime().Local().Format("2006-01-02 15:04:05")
		}
		q := p.GetOutbound()
		oldest := "-"
		if d := q.GetOldestWait(); d != nil {
			oldest = d.AsDuration().Round(time.Millisecond).String()
		}
		r := t.add(txt(name), txt(orDash(p.GetPlatform())), providerState(p.GetState()), txt(pidOrDash(p.GetPid())), txt(up),
			txt(fmt.Sprint(p.GetRestarts())), txt(orDash(p.GetLastExit())), health, txt(fmt.Sprint(p.GetAttached())),
			txt(fmt.Sprint(p.GetIngested())), txt(fmt.Sprint(p.GetDroppedNotAllowed())), txt(fmt.Sprint(q.GetQueued())), txt(oldest),
			txt(orDash(p.GetLastError())),
			txt(orDash(p.GetAccount())), txt(since), txt(orDash(p.GetWebUrl())), txt(fmt.Sprint(q.GetSent())),
			txt(fmt.Sprint(q.GetCoalesced())), txt(fmt.Sprint(q.GetRateLimited())), txt(orDash(limitsText(q.GetLimits()))))
		if q.GetQueued() > 0 {
			r.note(paint(fmt.Sprintf("waiting for the platform's limits: %d (prompts %d, messages %d, edits %d, typing and reactions %d), the oldest for %s; paced to %s",
				q.GetQueued(), q.GetPrompts(), q.GetMessages(), q.GetEdits(), q.GetAmbient(), oldest, orDash(limitsText(q.GetLimits()))), styleWarn))
		}
		if !p.GetServing() {
			why := "not serving: " + firstOf(p.GetHealthDetail(), p.GetLastError(), "no reason given")
			if p.GetHealthSince() != nil {
				why += " (since " + clock(p.GetHealthSince().AsTime()) + ")"
			}
			r.note(paint(why, styleBad))
		}
		if tail := p.GetStderrTail(); len(tail) > 0 {
			r.note(txt("last lines on stderr:"))
			for _, l := range tail {
				r.note(paint("  "+l, styleDim))
			}
		}
	}
	return &view{data: protoData(resp), table: t, names: names}
}

// providerState is a provider's state word, coloured.
func providerState(s chatbusv1.ProviderState) cell {
	word := strings.TrimPrefix(s.String(), "PROVIDER_STATE_")
	switch s {
	case chatbusv1.ProviderState_PROVIDER_STATE_RUNNING:
		return paint(word, styleGood)
	case chatbusv1.ProviderState_PROVIDER_STATE_STARTING, chatbusv1.ProviderState_PROVIDER_STATE_BACKOFF:
		return paint(word, styleWarn)
	case chatbusv1.ProviderState_PROVIDER_STATE_FATAL, chatbusv1.ProviderState_PROVIDER_STATE_STOPPED:
		return paint(word, styleBad)
	}
	return txt(word)
}

// limitsText is a provider's rate limits in one line: "chat 3/3s, group
// 20/1m".
func limitsText(ls []*chatbusv1.RateLimitInfo) string {
	parts := make([]string, len(ls))
	for i, l := range ls {
		parts[i] = fmt.Sprintf("%s %d/%s", l.GetName(), l.GetCount(), shortDuration(l.GetPer().AsDuration()))
	}
	return strings.Join(parts, ", ")
}

// shortDuration writes whole minutes and seconds as Go does but without
// the zero parts ("1m", not "1m0s").
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
