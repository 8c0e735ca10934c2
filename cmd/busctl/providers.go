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
		Short: "List chat providers: platform, state, pid, uptime, restarts, last exit, health and why; -o name prints their names",
		Long: `providers lists the configured chat providers and their child processes. A
provider that does not serve says why and since when under its row, and a
child that failed to start or exited shows the last lines it wrote to
stderr. The default provider's name has a *.`,
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
		col("HEALTH"), col("ATTACHED"), col("INGESTED"), col("DROPPED"), col("LAST ERROR"),
		wideCol("ACCOUNT"), wideCol("HEALTH SINCE"), wideCol("PAGE"))
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
		r := t.add(txt(name), txt(orDash(p.GetPlatform())), providerState(p.GetState()), txt(pidOrDash(p.GetPid())), txt(up),
			txt(fmt.Sprint(p.GetRestarts())), txt(orDash(p.GetLastExit())), health, txt(fmt.Sprint(p.GetAttached())),
			txt(fmt.Sprint(p.GetIngested())), txt(fmt.Sprint(p.GetDroppedNotAllowed())), txt(orDash(p.GetLastError())),
			txt(orDash(p.GetAccount())), txt(since), txt(orDash(p.GetWebUrl())))
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
