package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/spf13/cobra"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/chatbus/chatbus/client"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
)

// clearScreen moves the cursor home and clears the terminal: a watch on a
// terminal redraws its table in place.
const clearScreen = "\x1b[H\x1b[2J"

// listCmd makes cmd a listing verb with names (-o name) that -w watches:
// it prints what fetch returns, again after every event of kinds.
func (a *app) listCmd(cmd *cobra.Command, kinds []chatbusv1.EventKind, fetch fetchFunc) *cobra.Command {
	var watch bool
	cmd.Args = cobra.NoArgs
	cmd.RunE = func(cmd *cobra.Command, _ []string) error { return a.list(cmd, watch, kinds, fetch) }
	cmd.Flags().BoolVarP(&watch, "watch", "w", false, "after printing, print again on every change (the supervisor's events say when) until interrupted")
	return withNames(cmd)
}

// list is a listing verb's body: show once, or with watch, show and then
// again after every event of kinds (the changes that can alter it).
func (a *app) list(cmd *cobra.Command, watch bool, kinds []chatbusv1.EventKind, fetch fetchFunc) error {
	if !watch {
		return a.show(cmd, fetch)
	}
	c, _, err := a.dial()
	if err != nil {
		return err
	}
	defer c.Close()
	ctx := cmd.Context()
	var last []byte
	n := 0
	draw := func() error {
		fctx, cancel := context.WithTimeout(ctx, a.timeout)
		v, err := fetch(fctx, c)
		cancel()
		if err != nil {
			return err
		}
		data, err := v.data()
		if err != nil {
			return err
		}
		if n > 0 && bytes.Equal(data, last) {
			return nil // an event that changed nothing shown
		}
		last = data
		out, err := a.encode(v)
		if err != nil {
			return err
		}
		var pre string
		switch f := a.format(); {
		case a.tty && (f == formatTable || f == formatWide):
			pre = clearScreen
		case n == 0:
		case f == formatYAML:
			pre = "---\n"
		case f == formatTable || f == formatWide:
			pre = "\n"
		}
		n++
		_, err = io.WriteString(a.stdout, pre+string(out))
		return err
	}
	req := &chatbusv1.WatchEventsRequest{Kinds: kinds}
	return a.eachEvent(ctx, c, req, draw, func(*chatbusv1.Event) error { return draw() })
}

// eachEvent streams the supervisor's events to fn, once ready (if not
// nil) has run with the watch in place, so no change after ready goes
// unseen. It returns nil when ctx ends (Ctrl-C), and an error matching
// client.ErrNotRunning when the supervisor goes away: it stops
// (after fn saw its supervisor_stopping event), is killed, or the stream
// ends.
func (a *app) eachEvent(ctx context.Context, c *client.Client, req *chatbusv1.WatchEventsRequest, ready func() error, fn func(*chatbusv1.Event) error) error {
	if len(req.GetKinds()) > 0 {
		req.Kinds = append(slices.Clone(req.Kinds), chatbusv1.EventKind_EVENT_KIND_SUPERVISOR_STOPPING)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := c.Admin.WatchEvents(ctx, req)
	if err != nil {
		return a.streamErr(ctx, err)
	}
	// The supervisor sends its headers once the watch is in place.
	if _, err := stream.Header(); err != nil {
		return a.streamErr(ctx, err)
	}
	if ready != nil {
		if err := ready(); err != nil {
			return a.streamErr(ctx, err)
		}
	}
	for {
		resp, err := stream.Recv()
		if err != nil {
			return a.streamErr(ctx, err)
		}
		e := resp.GetEvent()
		if e.GetKind() == chatbusv1.EventKind_EVENT_KIND_SUPERVISOR_STOPPING {
			if len(req.GetKinds()) == 0 { // a watch of every event shows it
				fn(e)
			}
			return a.wentAway()
		}
		if err := fn(e); err != nil {
			return a.streamErr(ctx, err)
		}
	}
}

// streamErr classifies how a watch ended: interrupted (nil), the
// supervisor gone, or another error.
func (a *app) streamErr(ctx context.Context, err error) error {
	switch {
	case ctx.Err() != nil:
		return nil
	case errors.Is(err, io.EOF), status.Code(err) == codes.Unavailable, errors.Is(err, client.ErrUnavailable), errors.Is(err, client.ErrNotRunning):
		return a.wentAway()
	}
	return clientErr(err)
}

func (a *app) wentAway() error {
	return fmt.Errorf("the supervisor went away (profile %q): %w", a.profile, client.ErrNotRunning)
}
