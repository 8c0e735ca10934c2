package main

import (
	"fmt"

	"github.com/spf13/cobra"
)

func (a *app) pathsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "paths [socket|secret|state-dir|config]",
		Short: "Print the profile's file locations (one, for scripts, when named)",
		Example: `  grpcurl -plaintext -unix -max-time 5 \
    -H "authorization: Bearer $(cat "$(busctl paths secret)")" \
    "$(busctl paths socket)" chatbus.v1.AdminService/GetInfo`,
		Args:      cobra.MaximumNArgs(1),
		ValidArgs: []string{"socket", "secret", "state-dir", "config"},
		RunE: func(cmd *cobra.Command, args []string) error {
			p, err := a.paths()
			if err != nil {
				return err
			}
			all := []struct{ name, path string }{
				{"socket", p.Socket}, {"secret", p.Secret}, {"state-dir", p.StateDir}, {"config", p.Config},
			}
			if len(args) == 1 {
				for _, e := range all {
					if e.name == args[0] {
						_, err := fmt.Fprintln(a.stdout, e.path)
						return err
					}
				}
				return usagef("unknown path %q: want socket, secret, state-dir or config", args[0])
			}
			m := map[string]any{"profile": p.Profile, "config_exists": fileExists(p.Config)}
			t := newTable(col("KEY"), col("PATH"))
			t.noHeader = true
			t.add(txt("profile"), txt(p.Profile))
			for _, e := range all {
				m[e.name] = e.path
				note := ""
				if e.name == "config" {
					note = absentNote(fileExists(e.path))
				}
				t.add(txt(e.name), txt(e.path+note))
			}
			return a.render(&view{data: jsonData(m), table: t})
		},
	}
}
