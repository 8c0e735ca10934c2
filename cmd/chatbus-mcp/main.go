// Command chatbus-mcp is a Claude Code channel: an MCP server on stdio
// that is a chatbus follower. Each agent session that launches it gets its
// own chat thread through the supervisor (a Telegram forum topic): the
// thread's messages arrive in the session as notifications/claude/channel,
// the session answers with the reply, react, edit_message and
// download_attachment tools, and Claude Code's permission prompts are
// relayed into the thread with Allow / Deny buttons.
//
// Several sessions on one bot each run their own chatbus-mcp; only the
// supervisor polls the bot, so none of them fight over getUpdates.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/chatbus/chatbus/internal/proc"
	"github.com/chatbus/chatbus/internal/version"
	"github.com/chatbus/chatbus/paths"
)

const usage = `chatbus-mcp: a Claude Code channel on a chatbus supervisor.

Claude Code launches it over stdio (an entry in .mcp.json); it is not run by
hand. It starts the profile's supervisord unless one runs, registers one
follower for the session (its own thread: a Telegram forum topic named after
the working directory), forwards the thread's messages into the session and
relays permission prompts to the thread. Messages reach the session as
channel notifications when the session loaded chatbus as a channel, else
through the session's inbox socket (Claude Code 2.1.224 and later, also on
an API key); with neither they wait in the thread, and the thread says so. When Claude Code closes its stdin it
hands the thread over to the session's next chatbus-mcp (a reload keeps the
thread and every message not yet delivered) and exits.

  .mcp.json:  {"mcpServers": {"chatbus": {"command": "chatbus-mcp"}}}
  launch:     claude   (messages through the session's inbox socket)
         or claude --dangerously-load-development-channels server:chatbus
              (messages as a channel, with the permission relay; claude.ai login)

The profile key (which thread is the session's) is, in order: --profile-key,
$CHATBUS_PROFILE_KEY, else "mcp:<pid>@<start time>" of the process that
launched chatbus-mcp (the Claude Code session), which a reload keeps.
$CHATBUS_LAUNCH_ID, set when chatbus started the session from a launch
template (docs/launch.md), is sent at registration.

Flags:
`

// config is everything run needs from flags and the environment.
type config struct {
	paths      paths.Paths
	profileKey string
	threadName string
	// launchID is $CHATBUS_LAUNCH_ID: set when chatbus launched the
	// session from a launch template, sent at registration.
	launchID string
	provider string
	cwd      string
	ensure   bool
	binary   string
	logLevel zerolog.Level
	// ackReaction, if set, marks each message delivered to Claude Code.
	ackReaction string
	// ways finds the ways in to the session (wayin.go); nil: the channel,
	// as for a client that is not Claude Code.
	ways   *ways
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr)
	stop()
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return
		}
		fmt.Fprintln(os.Stderr, "chatbus-mcp:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) error {
	cfg, err := parseFlags(args, getenv, stdout, stderr)
	if err != nil {
		return err
	}
	cfg.stdin, cfg.stdout, cfg.stderr = stdin, stdout, stderr
	log := zerolog.New(stderr).Level(cfg.logLevel).With().Timestamp().Str("component", "chatbus-mcp").Logger()
	return serve(ctx, cfg, log)
}

func parseFlags(args []string, getenv func(string) string, stdout, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("chatbus-mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	profile := fs.String("profile", envOr(getenv, "CHATBUS_PROFILE", paths.DefaultProfile), "supervisor profile ($CHATBUS_PROFILE)")
	socket := fs.String("socket", "", "supervisor socket (default: the profile's)")
	stateDir := fs.String("state-dir", "", "supervisor state dir (default: the profile's)")
	secretFile := fs.String("secret-file", "", "bearer secret file (default: <state dir>/secret)")
	profileKey := fs.String("profile-key", getenv("CHATBUS_PROFILE_KEY"), "stable identity of the session across reloads ($CHATBUS_PROFILE_KEY; default: the launching process)")
	threadName := fs.String("thread-name", getenv("CHATBUS_THREAD_NAME"), "thread name ($CHATBUS_THREAD_NAME; default: the working directory's base name)")
	provider := fs.String("provider", "", "provider to bind on (default: the supervisor's)")
	noStart := fs.Bool("no-start", false, "do not start supervisord when none runs")
	binary := fs.String("supervisord", "", "supervisord to start (default: the one beside chatbus-mcp, else from PATH)")
	logLevel := fs.String("log-level", "info", "log level on stderr: debug, info, warn, error")
	ackReaction := fs.String("ack-reaction", getenv("CHATBUS_ACK_REACTION"), "react with this emoji (e.g. 👀) on each message once Claude Code has it, so the person sees it arrived ($CHATBUS_ACK_REACTION; default: none)")
	wayIn := fs.String("way-in", envOr(getenv, "CHATBUS_WAY_IN", wayAuto), "how messages reach the session: auto (Claude Code's channel if the session loaded chatbus as one, else its inbox socket), channel, or inbox ($CHATBUS_WAY_IN)")
	srvName := fs.String("server-name", envOr(getenv, "CHATBUS_SERVER_NAME", serverName), "this server's name in the MCP config (.mcp.json), as --channels names it ($CHATBUS_SERVER_NAME)")
	showVersion := fs.Bool("version", false, "print the version and exit")
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	if fs.NArg() > 0 {
		return config{}, fmt.Errorf("unexpected arguments %q (see --help)", fs.Args())
	}
	if *showVersion {
		fmt.Fprintln(stdout, "chatbus-mcp", version.String())
		return config{}, flag.ErrHelp
	}
	switch *wayIn {
	case wayAuto, wayChannel, wayInbox:
	default:
		return config{}, fmt.Errorf("--way-in %q: want auto, channel or inbox", *wayIn)
	}
	lvl, err := zerolog.ParseLevel(*logLevel)
	if err != nil {
		return config{}, fmt.Errorf("--log-level: %w", err)
	}
	if *ackReaction != "" && !validReaction(*ackReaction) {
		return config{}, fmt.Errorf("--ack-reaction %q: want one emoji, e.g. 👀", *ackReaction)
	}
	p, err := paths.Resolve(*profile, getenv, os.Getuid())
	if err != nil {
		return config{}, err
	}
	if *socket != "" {
		p.SetSocket(*socket)
	}
	if *stateDir != "" {
		p.SetStateDir(*stateDir)
	}
	if *secretFile != "" {
		p.Secret = *secretFile
	}
	cwd, err := os.Getwd()
	if err != nil {
		return config{}, err
	}
	key := *profileKey
	if key == "" {
		if key, err = launcherKey(); err != nil {
			return config{}, err
		}
	}
	name := *threadName
	if name == "" {
		name = filepath.Base(cwd)
	}
	return config{
		paths: p, profileKey: key, threadName: name, launchID: getenv("CHATBUS_LAUNCH_ID"), provider: *provider, cwd: cwd,
		ensure: !*noStart, binary: *binary, logLevel: lvl, ackReaction: *ackReaction,
		ways: newWays(*wayIn, *srvName, cwd, getenv),
	}, nil
}

// launcherKey names the process that launched chatbus-mcp (Claude Code):
// its pid and start time, so that a recycled pid never names another
// session. A reload starts a new chatbus-mcp from the same process, so the
// key stays.
func launcherKey() (string, error) {
	ppid := os.Getppid()
	if ppid <= 1 {
		return "", errors.New("no launching process to name the session after (parent is init): set --profile-key or CHATBUS_PROFILE_KEY")
	}
	start, err := proc.StartTime(ppid)
	if err != nil {
		return "mcp:" + strconv.Itoa(ppid), nil // no /proc: the pid alone
	}
	return fmt.Sprintf("mcp:%d@%d", ppid, start), nil
}

func envOr(getenv func(string) string, key, def string) string {
	if v := getenv(key); v != "" {
		return v
	}
	return def
}

// shutdownTimeout bounds the handoff at exit.
const shutdownTimeout = 5 * time.Second
