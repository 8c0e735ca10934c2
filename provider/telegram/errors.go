package telegram

import (
	"errors"
	"fmt"
	"strings"

	"github.com/chatbus/chatbus/provider"
	"github.com/chatbus/chatbus/provider/telegram/botapi"
)

// mapErr turns Bot API errors into the SDK's classes. It is the one place
// Telegram's answers become error classes.
func mapErr(err error) error {
	if err == nil {
		return nil
	}
	if d, ok := botapi.IsRateLimited(err); ok {
		return provider.RateLimited(d, err)
	}
	if isTopicGone(err) {
		return fmt.Errorf("%w: %v", provider.ErrTargetGone, err)
	}
	var api *botapi.APIError
	if errors.As(err, &api) {
		switch {
		case api.Code == 400 && lacksRights(api.Description):
			return fmt.Errorf("%w: %v", provider.ErrPermissionDenied, err)
		case api.Code == 400:
			return fmt.Errorf("%w: %v", provider.ErrInvalid, err)
		case api.Code == 401, api.Code == 403:
			return fmt.Errorf("%w: %v", provider.ErrPermissionDenied, err)
		case api.Code == 404:
			return fmt.Errorf("%w: %v", provider.ErrNotFound, err)
		case api.Code >= 500:
			return fmt.Errorf("%w: %v", provider.ErrUnavailable, err)
		}
	}
	return err
}

// mapFileErr is mapErr for getFile: Telegram answers a file id it does
// not know (never issued, or another bot's) as Bad Request ("invalid
// file_id", "wrong file identifier"), which the contract calls
// NOT_FOUND: the file does not exist for this bot.
func mapFileErr(err error) error {
	var api *botapi.APIError
	if errors.As(err, &api) && api.Code == 400 && strings.Contains(strings.ToLower(api.Description), "file") {
		return fmt.Errorf("%w: %v", provider.ErrNotFound, err)
	}
	return mapErr(err)
}

// lacksRights reports whether a 400's description says the bot lacks an
// administrator right (Telegram answers some of these as Bad Request, not
// 403: "not enough rights to …", CHAT_ADMIN_REQUIRED).
func lacksRights(desc string) bool {
	d := strings.ToLower(desc)
	return strings.Contains(d, "not enough rights") || strings.Contains(d, "chat_admin_required")
}
