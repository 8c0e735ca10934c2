//go:build !chatbus_testhooks

package main

import (
	"context"

	"github.com/rs/zerolog"

	"github.com/chatbus/chatbus/server"
)

// installTestHooks does nothing: the hooks exist only in binaries built
// with -tags chatbus_testhooks (testhooks.go).
func installTestHooks(context.Context, *server.Server, zerolog.Logger) {}
