package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/chatbus/chatbus/client"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
)

func (a *app) consoleCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "console",
		Short: "Print the URLs to open: the operator console and the providers' pages (the playground's chat)",
		Long: `console prints the addresses, with this start's access tokens, of the pages the
supervisor and its providers serve on 127.0.0.1: the operator console (followers,
bindings, providers, events, doctor restarts) and each provider's page for people
(the playground's chat). Open one in a browser on this machine; the token is
exchanged for a session cookie. Keep the URLs to yourself: they grant access.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return a.show(cmd, consoleView) },
	}
}

func consoleView(ctx context.Context, c *client.Client) (*view, error) {
	info, err := c.Info(ctx)
	if err != nil {
		return nil, err
	}
	ps, err := c.Admin.ListProviders(ctx, &chatbusv1.ListProvidersRequest{})
	if err != nil {
		return nil, clientErr(err)
	}
	pages := map[string]string{}
	for _, p := range ps.GetProviders() {
		if p.GetWebUrl() != "" {
			pages[p.GetName()] = p.GetWebUrl()
		}
	}
	t := newTable(col("PAGE"), col("URL"))
	t.noHeader = true
	if u := info.GetConsoleUrl(); u != "" {
		t.add(txt("console"), txt(u))
	} else {
		t.add(txt("console"), txt("off (supervisord --console=false, or console.enabled: false)"))
	}
	for _, p := range ps.GetProviders() {
		if u := pages[p.GetName()]; u != "" {
			t.add(txt(p.GetName()), txt(u))
		}
	}
	if len(pages) == 0 {
		t.add(txt("chat pages"), txt("none (no provider serves one; the playground does)"))
	}
	return &view{data: jsonData(map[string]any{"console_url": info.GetConsoleUrl(), "pages": pages}), table: t}, nil
}
