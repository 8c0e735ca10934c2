package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
)

func (a *app) eventsCmd() *cobra.Command {
	var follow bool
	cmd := &cobra.Command{
		Use:   "events",
		Short: "Show recent runtime events; --follow streams new ones",
		Long: `events prints the recent runtime events the supervisor still holds, one a
line (-o json: one JSON object a line; -o yaml: one document each).

--follow keeps streaming new ones until interrupted (exit 0), and exits 3
when the supervisor goes away (it stops: its supervisor_stopping event is
the last line; or it is killed).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, _, err := a.dial()
			if err != nil {
				return err
			}
			defer c.Close()
			if !follow {
				ctx, cancel := a.callCtx(cmd)
				defer cancel()
				evs, err := c.Events(ctx)
				if err != nil {
					return err
				}
				for _, e := range evs {
					if err := a.printEvent(e); err != nil {
						return err
					}
				}
				return nil
			}
			return a.eachEvent(cmd.Context(), c, &chatbusv1.WatchEventsRequest{ReplayRecent: true}, nil, a.printEvent)
		},
	}
	cmd.Flags().BoolVarP(&follow, "follow", "f", false, "keep streaming events until interrupted or the supervisor goes away")
	return cmd
}

// printEvent prints one event: a line, a JSON line (-o json) or a YAML
// document (-o yaml).
func (a *app) printEvent(e *chatbusv1.Event) error {
	p := palette{on: a.color}
	kind := strings.ToLower(strings.TrimPrefix(e.GetKind().String(), "EVENT_KIND_"))
	line := fmt.Sprintf("%s  %s %s", e.GetTime().AsTime().Local().Format("15:04:05.000"), p.paint(fmt.Sprintf("%-22s", kind), eventStyle(e.GetKind())), e.GetMessage())
	if e.GetInstanceId() != "" {
		line += "  instance=" + e.GetInstanceId()
	}
	keys := make([]string, 0, len(e.GetAttrs()))
	for k := range e.GetAttrs() {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		line += fmt.Sprintf("  %s=%s", k, e.GetAttrs()[k])
	}
	return a.record(e, line)
}

// eventStyle colours the kinds an operator looks for.
func eventStyle(k chatbusv1.EventKind) style {
	switch k {
	case chatbusv1.EventKind_EVENT_KIND_PROVIDER_FATAL, chatbusv1.EventKind_EVENT_KIND_BINDING_FAILED,
		chatbusv1.EventKind_EVENT_KIND_AUTH_REFUSED, chatbusv1.EventKind_EVENT_KIND_UPDATES_DROPPED,
		chatbusv1.EventKind_EVENT_KIND_UPDATE_DEAD_LETTERED:
		return styleBad
	case chatbusv1.EventKind_EVENT_KIND_PROVIDER_EXITED, chatbusv1.EventKind_EVENT_KIND_PROVIDER_HEALTH,
		chatbusv1.EventKind_EVENT_KIND_SUPERVISOR_STOPPING, chatbusv1.EventKind_EVENT_KIND_EVENTS_DROPPED,
		chatbusv1.EventKind_EVENT_KIND_CLUSTER_FENCED, chatbusv1.EventKind_EVENT_KIND_CLUSTER_LEADERSHIP_LOST,
		chatbusv1.EventKind_EVENT_KIND_CLUSTER_MEMBER_LEFT:
		return styleWarn
	}
	return stylePlain
}
