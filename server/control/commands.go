package control

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/chatbus/chatbus/server/store"
)

// run runs cmd and returns its answer, its outcome (ok, refused, failed)
// and, when not ok, why.
func (c *Controller) run(ctx context.Context, cmd Command, u store.Update, by Requester, to answerTo) (Message, string, string) {
	switch cmd.Name {
	case CmdSessions:
		return c.sessions(u.Provider), "ok", ""
	case CmdStatus:
		return c.status(), "ok", ""
	case CmdHelp:
		return Message{Text: c.helpText(u.Provider)}, "ok", ""
	case CmdRestart:
		return c.restart(ctx, cmd.Provider, to)
	case CmdNew:
		return c.launch(ctx, cmd, by)
	case CmdStop:
		return c.stop(ctx, cmd.Slot, u, by)
	}
	return Message{Text: "unknown command " + cmd.Name}, "refused", "unknown command"
}

// helpText lists the commands as the provider's platform spells them.
func (c *Controller) helpText(provider string) string {
	p := c.cfg.Supervisor.CommandPrefix(provider)
	var b strings.Builder
	b.WriteString("**chatbus commands**\n\n")
	for _, n := range Names {
		fmt.Fprintf(&b, "- `%s%s`: %s\n", p, usage[n], what[n])
	}
	if c.cfg.Launcher == nil {
		b.WriteString("\nNo launch templates are configured, so `new` cannot start sessions (docs/launch.md).\n")
	} else if ts := c.cfg.Launcher.Templates(); len(ts) > 0 {
		b.WriteString("\nTemplates: ")
		for i, t := range ts {
			if i > 0 {
				b.WriteString("; ")
			}
			fmt.Fprintf(&b, "`%s`", t.Name)
			if len(t.Projects) > 0 {
				fmt.Fprintf(&b, " (%s)", strings.Join(t.Projects, ", "))
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

// maxListed bounds the sessions one answer lists.
const maxListed = 40

// sessions lists every live and parked session; a Stop button for each
// live one of the asking provider (at most a row's worth).
func (c *Controller) sessions(provider string) Message {
	ss := c.cfg.Supervisor.Sessions()
	sort.SliceStable(ss, func(i, j int) bool {
		if ss[i].Live != ss[j].Live {
			return ss[i].Live
		}
		if ss[i].Provider != ss[j].Provider {
			return ss[i].Provider < ss[j].Provider
		}
		if len(ss[i].Slot) != len(ss[j].Slot) {
			return len(ss[i].Slot) < len(ss[j].Slot)
		}
		return ss[i].Slot < ss[j].Slot
	})
	if len(ss) == 0 {
		return Message{Text: "No sessions: no follower has registered yet."}
	}
	now := c.cfg.Now()
	var b strings.Builder
	live := 0
	for _, s := range ss {
		if s.Live {
			live++
		}
	}
	fmt.Fprintf(&b, "**Sessions**: %d live, %d parked\n\n", live, len(ss)-live)
	var buttons []Button
	for i, s := range ss {
		if i == maxListed {
			fmt.Fprintf(&b, "… and %d more (busctl bindings lists them all)\n", len(ss)-maxListed)
			break
		}
		b.WriteString(sessionLine(s, now))
		b.WriteString("\n")
		if s.Live && s.Provider == provider && s.Slot != "" && len(buttons) < maxButtons {
			buttons = append(buttons, Button{Label: "Stop " + s.Slot, Data: "/stop " + s.Slot})
		}
	}
	return Message{Text: b.String(), Buttons: buttons}
}

// maxButtons is the most buttons under one answer (one row).
const maxButtons = 6

// sessionLine is one session of the sessions answer.
func sessionLine(s Session, now time.Time) string {
	name := s.ThreadName
	if name == "" {
		name = "thread " + s.Thread
	}
	thread := escape(name)
	if s.Link != "" {
		thread = fmt.Sprintf("[%s](%s)", escape(name), s.Link)
	}
	var parts []string
	slot := s.Slot
	if slot == "" {
		slot = "-"
	}
	parts = append(parts, fmt.Sprintf("**%s** %s", slot, thread))
	parts = append(parts, AgentName(s.Agent))
	if s.Live {
		if s.Working {
			parts = append(parts, "working")
		} else {
			parts = append(parts, "idle")
		}
	} else {
		st := s.Status
		if st == "" {
			st = "offline"
		}
		parts = append(parts, "parked ("+st+")")
	}
	if s.Dir != "" || s.Host != "" {
		where := "`" + s.Dir + "`"
		if s.Dir == "" {
			where = ""
		}
		if s.Host != "" {
			where = strings.TrimSpace(where + " on " + s.Host)
		}
		parts = append(parts, where)
	}
	if s.Queued > 0 {
		parts = append(parts, fmt.Sprintf("%d queued", s.Queued))
	}
	if !s.LastMessage.IsZero() {
		parts = append(parts, "last message "+Age(now.Sub(s.LastMessage))+" ago")
	}
	parts = append(parts, "via "+s.Provider)
	return "- " + strings.Join(parts, " · ")
}

// AgentName is what sessions calls a follower of this agent kind.
func AgentName(agent string) string {
	switch agent {
	case "claude-code":
		return "Claude Code"
	case "pi":
		return "pi"
	case "":
		return "follower"
	}
	return escape(agent)
}

// escape keeps a name from being read as Markdown.
func escape(s string) string {
	r := strings.NewReplacer(`\`, `\\`, "*", `\*`, "_", `\_`, "`", "\\`", "[", `\[`, "]", `\]`)
	return r.Replace(s)
}

// Age is d, rounded for people ("45s", "3m", "2h", "5d").
func Age(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", max(0, int(d.Seconds())))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

// status describes the supervisor and each provider.
func (c *Controller) status() Message {
	st := c.cfg.Supervisor.Status()
	now := c.cfg.Now()
	var b strings.Builder
	fmt.Fprintf(&b, "**chatbus %s**: supervisor up %s", escape(st.Version), Age(now.Sub(st.Started)))
	if st.Host != "" {
		fmt.Fprintf(&b, " on %s", escape(st.Host))
	}
	if st.PID != 0 {
		fmt.Fprintf(&b, " (pid %d)", st.PID)
	}
	fmt.Fprintf(&b, ", %d follower(s)\n", st.Followers)
	if st.Leader != "" {
		fmt.Fprintf(&b, "Cluster leader: %s\n", escape(st.Leader))
	}
	b.WriteString("\n")
	for _, p := range st.Providers {
		health := "serving"
		if !p.Serving {
			health = "not serving"
			if p.Detail != "" {
				health += " (" + escape(p.Detail) + ")"
			}
		}
		plat := ""
		if p.Platform != "" && p.Platform != p.Name {
			plat = " (" + escape(p.Platform) + ")"
		}
		fmt.Fprintf(&b, "- **%s**%s: %s, %s, %d attached, %d queued", escape(p.Name), plat, p.State, health, p.Attached, p.Queued)
		if p.Held > 0 {
			fmt.Fprintf(&b, ", %d held", p.Held)
		}
		b.WriteString("\n")
	}
	return Message{Text: b.String()}
}

// restart runs the doctor's restart and reports its steps: a message
// sent as it begins is edited as each step passes (best effort: while the
// provider that carries it restarts, the edits wait, and a newer one
// replaces an older one still waiting), and the answer replaces it.
func (c *Controller) restart(ctx context.Context, provider string, to answerTo) (Message, string, string) {
	var names []string
	for _, p := range c.cfg.Supervisor.Status().Providers {
		names = append(names, p.Name)
	}
	if !slices.Contains(names, provider) {
		why := fmt.Sprintf("no provider of that name (the providers: %s)", strings.Join(names, ", "))
		return Message{Text: fmt.Sprintf("restart %s: %s", provider, why)}, "refused", why
	}
	var (
		mu    sync.Mutex
		steps []string
	)
	report := func(head string) string {
		mu.Lock()
		defer mu.Unlock()
		var b strings.Builder
		b.WriteString(head + "\n\n")
		for i, s := range steps {
			fmt.Fprintf(&b, "%d. %s\n", i+1, escape(s))
		}
		return b.String()
	}
	// A command that names an interaction (an application command) has
	// one response, the answer: no message before it.
	progressID := ""
	if to.replyTo == "" {
		id, err := c.cfg.Messenger.Send(ctx, to.t, Message{Text: fmt.Sprintf("Restarting **%s**…", escape(provider))}, to.key+"/begun")
		if err == nil {
			progressID = id
		} // else the answer is a message of its own
	}
	pctx, stopProgress := context.WithCancel(ctx)
	progressed := make(chan struct{}, 1)
	var edits sync.WaitGroup
	if progressID != "" {
		edits.Go(func() {
			for {
				select {
				case <-pctx.Done():
					return
				case <-progressed:
				}
				ectx, cancel := context.WithTimeout(pctx, progressEditWait)
				err := c.cfg.Messenger.Edit(ectx, to.t, progressID, Message{Text: report(fmt.Sprintf("Restarting **%s**…", escape(provider)))}, "")
				cancel()
				if err != nil && pctx.Err() == nil {
					c.log.Debug().Err(err).Msg("showing a restart's progress")
				}
			}
		})
	}
	summary, ok, err := c.cfg.Supervisor.Restart(ctx, provider, func(s string) {
		mu.Lock()
		steps = append(steps, s)
		mu.Unlock()
		select {
		case progressed <- struct{}{}:
		default:
		}
	})
	stopProgress()
	edits.Wait()
	if err != nil {
		return Message{Text: fmt.Sprintf("restart %s: %v", provider, err), EditOf: progressID}, "refused", err.Error()
	}
	if !ok {
		return Message{Text: report(fmt.Sprintf("**%s not restarted**: %s", escape(provider), escape(summary))), EditOf: progressID},
			"failed", summary
	}
	return Message{Text: report(fmt.Sprintf("**%s restarted**: %s", escape(provider), escape(summary))), EditOf: progressID}, "ok", ""
}

// progressEditWait bounds one edit showing a restart's progress.
const progressEditWait = 10 * time.Second

// noTemplates is the answer to new and stop without a launcher.
const noTemplates = "No launch templates are configured, so chatbus starts no sessions from the chat " +
	"(docs/launch.md says how to add one)."

// launch runs new.
func (c *Controller) launch(ctx context.Context, cmd Command, by Requester) (Message, string, string) {
	if c.cfg.Launcher == nil {
		return Message{Text: noTemplates}, "refused", "no launch templates"
	}
	l, err := c.cfg.Launcher.New(ctx, NewRequest{Template: cmd.Template, Project: cmd.Project, By: by})
	var r *Refusal
	switch {
	case errors.As(err, &r):
		return Message{Text: r.Reason}, "refused", r.Reason
	case err != nil:
		return Message{Text: fmt.Sprintf("new %s: %v", cmd.Template, err)}, "failed", err.Error()
	}
	text := fmt.Sprintf("Started **%s** from template `%s`", l.Slot, cmd.Template)
	if cmd.Project != "" {
		text += " in `" + cmd.Project + "`"
	}
	for _, s := range c.cfg.Supervisor.Sessions() {
		if s.Slot == l.Slot && s.Live && s.Provider == by.Provider {
			text += ": " + threadRef(s)
			break
		}
	}
	if l.Window != "" {
		text += fmt.Sprintf(" (tmux window `%s`)", l.Window)
	}
	return Message{Text: text, Buttons: []Button{{Label: "Stop " + l.Slot, Data: "/stop " + l.Slot}}}, "ok", ""
}

// threadRef is a session's thread as a link where it has one.
func threadRef(s Session) string {
	name := escape(s.ThreadName)
	if s.Link != "" {
		return fmt.Sprintf("[%s](%s)", name, s.Link)
	}
	return name
}

// stop runs stop: a launched session is ended by the launcher; any other
// is asked to stop.
func (c *Controller) stop(ctx context.Context, slot string, u store.Update, by Requester) (Message, string, string) {
	if c.cfg.Launcher != nil {
		st, err := c.cfg.Launcher.Stop(ctx, slot, by)
		var r *Refusal
		switch {
		case err == nil:
			text := fmt.Sprintf("Stopped **%s**", slot)
			if st.How != "" {
				text += " (" + escape(st.How) + ")"
			}
			return Message{Text: text + "; its thread is parked."}, "ok", ""
		case errors.As(err, &r):
			return Message{Text: r.Reason}, "refused", r.Reason
		case !errors.Is(err, ErrNotLaunched):
			return Message{Text: fmt.Sprintf("stop %s: %v", slot, err)}, "failed", err.Error()
		}
	}
	s, err := c.cfg.Supervisor.RequestStop(u.Provider, u.Chat, slot, by)
	switch {
	case errors.Is(err, ErrNoSession):
		return Message{Text: fmt.Sprintf("No live session holds slot %s (sessions lists them).", slot)}, "refused", "no such session"
	case err != nil:
		return Message{Text: fmt.Sprintf("stop %s: %v", slot, err)}, "failed", err.Error()
	}
	return Message{Text: fmt.Sprintf("**%s** (%s) was not started by chatbus: it was asked to stop, and stops its own way "+
		"(%s).", slot, threadRef(s), stopsHow(s.Agent))}, "ok", "asked to stop"
}

// stopsHow says what a follower of this kind does when asked to stop.
func stopsHow(agent string) string {
	switch agent {
	case "claude-code":
		return "chatbus-mcp suspends the session's binding and exits; Claude Code goes on without its chat"
	}
	return "a follower ends its session when it is told; one that does not listen keeps running"
}
