package control

import "strings"

// Link is the link that opens thread, made from its provider's template
// (hub.Description.ThreadLink: "{thread}" stands for the thread's id); ""
// when the provider gave none.
func Link(template, thread string) string {
	if template == "" || thread == "" || !strings.Contains(template, "{thread}") {
		return ""
	}
	return strings.ReplaceAll(template, "{thread}", thread)
}
