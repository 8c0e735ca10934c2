package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

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
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, ctx, done, err := a.connect(cmd)
			if err != nil {
				return err
			}
			defer done()
			info, err := c.Info(ctx)
			if err != nil {
				return err
			}
			ps, err := c.Admin.ListProviders(ctx, &chatbusv1.ListProvidersRequest{})
			if err != nil {
				return clientErr(err)
			}
			pages := map[string]string{}
			for _, p := range ps.GetProviders() {
				if p.GetWebUrl() != "" {
					pages[p.GetName()] = p.GetWebUrl()
				}
			}
			if a.json {
				return a.printJSON(map[string]any{"console_url": info.GetConsoleUrl(), "pages": pages})
			}
			w := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
			if u := info.GetConsoleUrl(); u != "" {
				fmt.Fprintf(w, "console\t%s\n", u)
			} else {
				fmt.Fprintf(w, "console\toff (supervisord --console=false, or console.enabled: false)\n")
			}
			for _, p := range ps.GetProviders() {
				if u := pages[p.GetName()]; u != "" {
					fmt.Fprintf(w, "%s\t%s\n", p.GetName(), u)
				}
			}
			if len(pages) == 0 {
				fmt.Fprintf(w, "chat pages\tnone (no provider serves one; the playground does)\n")
			}
			return w.Flush()
		},
	}
}
