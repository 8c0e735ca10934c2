package control

import "strings"

// Link is a link that opens a thread, where its platform has one ("" where
// it has none): a Telegram forum topic, https://t.me/c/<id>/<thread>, for
// a supergroup (whose chat id is -100<id>). A private chat's topics have
// no link.
func Link(platform, chat, thread string) string {
	switch platform {
	case "telegram":
		id, ok := strings.CutPrefix(chat, "-100")
		if !ok || id == "" || thread == "" {
			return ""
		}
		return "https://t.me/c/" + id + "/" + thread
	}
	return ""
}
