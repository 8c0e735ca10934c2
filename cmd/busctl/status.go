package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/chatbus/chatbus/client"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
)

func (a *app) statusCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "status",
		Short: "Is the supervisor running: pid, socket, profile, followers, provider health",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, p, err := a.dial()
			if err != nil {
				if errors.Is(err, client.ErrNotRunning) && (a.format() == formatJSON || a.format() == formatYAML) {
					a.render(&view{data: jsonData(map[string]any{"running": false, "socket": p.Socket, "profile": p.Profile,
						"config": p.Config, "config_exists": fileExists(p.Config)})})
				}
				return err
			}
			defer c.Close()
			ctx, cancel := a.callCtx(cmd)
			defer cancel()
			v, err := a.status(ctx, c, p.Config)
			if err != nil {
				return err
			}
			return a.render(v)
		},
	}
}

// status is the supervisor's description; defaultConfig is the config
// file a supervisor that names none read.
func (a *app) status(ctx context.Context, c *client.Client, defaultConfig string) (*view, error) {
	info, err := c.Info(ctx)
	if err != nil {
		return nil, err
	}
	ps, err := c.Admin.ListProviders(ctx, &chatbusv1.ListProvidersRequest{})
	if err != nil {
		return nil, clientErr(err)
	}
	cfg := info.GetConfigPath()
	if cfg == "" {
		cfg = defaultConfig
	}
	cfgExists := fileExists(cfg)
	h := summarize(ps.GetProviders())

	t := newTable(col("KEY"), col("VALUE"))
	t.noHeader = true
	up := time.Since(info.GetStartedAt().AsTime()).Round(time.Second)
	t.add(txt("supervisord"), paint(fmt.Sprintf("running (pid %d, up %s)", info.GetPid(), up), styleGood))
	t.add(txt("version"), txt(info.GetVersion()))
	t.add(txt("profile"), txt(info.GetProfile()))
	t.add(txt("socket"), txt(info.GetSocketPath()))
	t.add(txt("state dir"), txt(info.GetStateDir()))
	t.add(txt("config"), txt(cfg+absentNote(cfgExists)))
	t.add(txt("followers"), txt(fmt.Sprint(info.GetFollowerCount())))
	st := styleGood
	switch {
	case h.total == 0:
		st = stylePlain
	case h.serving == 0:
		st = styleBad
	case h.serving < h.total:
		st = styleWarn
	}
	t.add(txt("providers"), paint(h.String(), st))
	cl, err := c.Cluster.GetCluster(ctx, &chatbusv1.GetClusterRequest{})
	inCluster := err == nil
	if inCluster {
		t.add(txt("cluster"), txt(clusterLine(cl)))
	}

	data := map[string]any{
		"running": true, "pid": info.GetPid(), "version": info.GetVersion(), "profile": info.GetProfile(),
		"socket": info.GetSocketPath(), "state_dir": info.GetStateDir(), "config": cfg, "config_exists": cfgExists,
		"started_at": info.GetStartedAt().AsTime(), "followers": info.GetFollowerCount(),
		"providers": map[string]any{"total": h.total, "serving": h.serving, "not_serving": h.notServing},
	}
	if inCluster {
		data["cluster"] = clusterData(cl)
	}
	return &view{data: jsonData(data), table: t}, nil
}

// health is the providers' health in sum, as status says it.
type health struct {
	total, serving int
	notServing     []unhealthy
}

// unhealthy is a provider that does not serve, why, and since when.
type unhealthy struct {
	Name   string    `json:"name"`
	Detail string    `json:"detail"`
	Since  time.Time `json:"since,omitzero"`
}

func summarize(ps []*chatbusv1.ProviderInfo) health {
	h := health{total: len(ps), notServing: []unhealthy{}}
	for _, p := range ps {
		if p.GetServing() {
			h.serving++
			continue
		}
		u := unhealthy{Name: p.GetName(), Detail: firstOf(p.GetHealthDetail(), p.GetLastError(), "not serving")}
		if p.GetHealthSince() != nil {
			u.Since = p.GetHealthSince().AsTime()
		}
		h.notServing = append(h.notServing, u)
	}
	return h
}

// String: "1 serving, 1 not serving (telegram: Bot API unreachable since 09:12)".
func (h health) String() string {
	if h.total == 0 {
		return "none configured"
	}
	s := fmt.Sprintf("%d serving", h.serving)
	if len(h.notServing) == 0 {
		return s
	}
	var why []string
	for _, u := range h.notServing {
		w := u.Name + ": " + u.Detail
		if !u.Since.IsZero() {
			w += " since " + clock(u.Since)
		}
		why = append(why, w)
	}
	return fmt.Sprintf("%s, %d not serving (%s)", s, len(h.notServing), strings.Join(why, "; "))
}

// clock is t as a wall-clock time: "09:12" today, "Jan 2 09:12" before.
func clock(t time.Time) string {
	t = t.Local()
	if y, m, d := t.Date(); y == time.Now().Year() && m == time.Now().Month() && d == time.Now().Day() {
		return t.Format("15:04")
	}
	return t.Format("Jan 2 15:04")
}

func firstOf(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}
