//go:build !chatbus_testhooks

package main

import (
	"context"

	"github.com/rs/zerolog"
	"github.com/spf13/cobra"

	"github.com/chatbus/chatbus/server"
)

// The test hooks exist only in binaries built with -tags chatbus_testhooks
// (testhooks.go): here they do nothing.

func addTestFlags(*cobra.Command) {}

func applyTestFlags(*server.Config) {}

func installTestHooks(context.Context, *server.Server, zerolog.Logger) {}
