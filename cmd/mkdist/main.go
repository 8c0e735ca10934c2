// Command mkdist builds chatbus's release archives (internal/dist): one
// tar.gz per platform with every shipped binary, the example config, the
// service file for the OS, LICENSE, THIRD_PARTY_LICENSES and INSTALL, and
// SHA256SUMS beside them, reproducibly. `make dist` runs it from the
// repository root:
//
//	mkdist -out dist -version v1.2.3 -commit <hash> -epoch <unix seconds> \
//	    -platforms "linux/amd64 darwin/arm64" supervisord busctl ...
//
// It is a build tool: no archive ships it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/chatbus/chatbus/internal/dist"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return
		}
		fmt.Fprintln(os.Stderr, "mkdist:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("mkdist", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, "Usage: mkdist [flags] COMMAND...\n\nBuilds the release archives of ./cmd/COMMAND... (run from the repository root).\n\nFlags:\n")
		fs.PrintDefaults()
	}
	out := fs.String("out", "dist", "where the archives and SHA256SUMS go")
	version := fs.String("version", "", "version stamped into the binaries and naming the archives (required)")
	commit := fs.String("commit", "", "commit stamped into the binaries")
	epoch := fs.String("epoch", "0", "time of every archive entry, in Unix seconds (SOURCE_DATE_EPOCH)")
	platforms := fs.String("platforms", "", "GOOS/GOARCH pairs, space- or comma-separated (default: every released platform)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	sec, err := strconv.ParseInt(strings.TrimSpace(*epoch), 10, 64)
	if err != nil || sec < 0 {
		return fmt.Errorf("-epoch %q: want Unix seconds", *epoch)
	}
	cfg := dist.Config{Root: ".", Out: *out, Version: *version, Commit: *commit, Epoch: time.Unix(sec, 0), Commands: fs.Args(), Log: stdout}
	if *platforms != "" {
		if cfg.Platforms, err = dist.ParsePlatforms(*platforms); err != nil {
			return err
		}
	}
	_, err = dist.Build(ctx, cfg)
	return err
}
