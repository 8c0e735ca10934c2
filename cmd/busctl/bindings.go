package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/chatbus/chatbus/client"
	chatbusv1 "github.com/chatbus/chatbus/proto/chatbus/v1"
)

// bindingEvents are the changes that alter busctl bindings (a follower
// coming or going changes LIVE).
var bindingEvents = append([]chatbusv1.EventKind{
	chatbusv1.EventKind_EVENT_KIND_BINDING_CHANGED,
	chatbusv1.EventKind_EVENT_KIND_BINDING_FAILED,
	chatbusv1.EventKind_EVENT_KIND_UPDATES_DROPPED,
	chatbusv1.EventKind_EVENT_KIND_RECONCILED,
}, followerComings...)

func (a *app) bindingsCmd() *cobra.Command {
	return a.listCmd(&cobra.Command{
		Use:   "bindings",
		Short: "List bindings (threads): status, owner, last reconcile action, unacked updates; -o name prints their keys",
	}, bindingEvents, bindingsView)
}

func bindingsView(ctx context.Context, c *client.Client) (*view, error) {
	resp, err := c.Admin.ListBindings(ctx, &chatbusv1.ListBindingsRequest{})
	if err != nil {
		return nil, clientErr(err)
	}
	t := newTable(col("PROFILE KEY"), col("PLATFORM"), col("SLOT"), col("THREAD"), col("TARGET"), col("STATUS"), col("LIVE"),
		col("INSTANCE"), col("LAST ACTION"), col("UNACKED"), col("DROPPED"), col("UPDATED"),
		wideCol("OWNER"), wideCol("BYTES"), wideCol("ACKED THROUGH"), wideCol("LAST SEQ"), wideCol("CREATED"))
	t.empty = "(no bindings)"
	names := make([]string, 0, len(resp.GetBindings()))
	for _, bi := range resp.GetBindings() {
		b := bi.GetBinding()
		names = append(names, b.GetProfileKey())
		live := txt("-")
		if bi.GetLive() {
			live = paint("yes", styleGood)
		}
		j := bi.GetJournal()
		unacked := txt(fmt.Sprint(j.GetUnacked()))
		if j.GetUnacked() > 0 {
			unacked.style = styleWarn
		}
		r := t.add(txt(b.GetProfileKey()), txt(orDash(b.GetPlatform())), txt(orDash(b.GetSlot())), txt(orDash(b.GetThreadName())),
			txt(target(b.GetTarget())), bindingStatus(b), live, txt(orDash(b.GetInstanceId())), txt(orDash(bi.GetLastAction())),
			unacked, txt(fmt.Sprint(j.GetDropped())), txt(ago(bi.GetUpdatedAt().AsTime())+" ago"),
			txt(orDash(bi.GetOwnerKind())), txt(fmt.Sprint(j.GetBytes())), txt(fmt.Sprint(j.GetAckedThrough())),
			txt(fmt.Sprint(j.GetLastSeq())), txt(bi.GetCreatedAt().AsTime().Local().Format("2006-01-02 15:04:05")))
		if bi.GetLastError() != "" {
			r.note(paint("error: "+bi.GetLastError(), styleBad))
		}
	}
	return &view{data: protoData(resp), table: t, names: names}, nil
}

// bindingStatus is a binding's status word, coloured.
func bindingStatus(b *chatbusv1.Binding) cell {
	if b == nil {
		return txt("-")
	}
	s := strings.ToLower(strings.TrimPrefix(b.GetStatus().String(), "BINDING_STATUS_"))
	switch b.GetStatus() {
	case chatbusv1.BindingStatus_BINDING_STATUS_ACTIVE:
		return paint(s, styleGood)
	case chatbusv1.BindingStatus_BINDING_STATUS_UNSPECIFIED:
		return txt("-")
	case chatbusv1.BindingStatus_BINDING_STATUS_FAILED, chatbusv1.BindingStatus_BINDING_STATUS_OFFLINE:
		return paint(s, styleBad)
	}
	return paint(s, styleWarn)
}
