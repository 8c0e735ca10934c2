package child

import (
	"github.com/chatbus/chatbus/provider"

	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/rs/zerolog"

	"github.com/chatbus/chatbus/internal/contract"
	"github.com/chatbus/chatbus/internal/version"
)

// CheckFlag is the argument that runs a provider binary in check mode:
// it validates the settings on stdin and exits, serving nothing (README.md,
// "Check mode").
const CheckFlag = contract.CheckFlag

// ProbeFlag is the argument that runs a provider binary in probe mode:
// check mode, then [Prober.Probe] if the Platform has it.
const ProbeFlag = contract.ProbeFlag

// probeTimeout bounds a probe's look at the platform.
const probeTimeout = 15 * time.Second

// Prober is a Platform that can look at the platform once without
// serving: probe mode (supervisord --check-config --online) calls Probe,
// and reports its error as check mode reports a setting's (a
// [*provider.SettingError] names the key).
type Prober interface {
	Probe(ctx context.Context) error
}

// SettingsNameKey is the key of the settings object on stdin that holds the
// provider name the supervisor configured.
const SettingsNameKey = contract.SettingsNameKey

// maxSettingsBytes bounds the settings document read from stdin.
const maxSettingsBytes = 1 << 20

// Program is what a provider binary's main hands to [Main]: how to build its
// Platform from the settings.
type Program struct {
	// Name is the provider's name when neither CHATBUS_PROVIDER_NAME nor
	// the settings name one (e.g. "telegram").
	Name string
	// Usage is printed for -h and --help.
	Usage string
	// Build validates the settings completely and builds the Platform. It
	// must not contact the platform (check mode runs it with no network
	// in mind, and a start must not wait on it). A problem with a setting
	// should be a [*provider.SettingError] naming the key; any error refuses the
	// settings. In check mode the Platform it returns is discarded.
	Build func(BuildContext) (provider.Platform, error)
}

// BuildContext is what [Program.Build] gets.
type BuildContext struct {
	// Name is the provider name (CHATBUS_PROVIDER_NAME, else the settings'
	// "name", else Program.Name).
	Name string
	// Settings are the platform's own settings: the JSON object on stdin
	// without "secret" and "name". Decode them with [provider.DecodeSettings].
	Settings json.RawMessage
	// Getenv reads the child's environment (for a token kept out of the
	// config file).
	Getenv func(string) string
	// Logger is the child's log: JSON lines on stderr, tagged with the
	// provider name. In check mode it discards.
	Logger zerolog.Logger
	// Health is where the Platform reports whether its connection works.
	Health *provider.Health
	// StateDir is the child's private state directory ("state_dir" of the
	// settings: <supervisor state dir>/providers/<name>, mode 0700), "" if
	// the supervisor named none. In check mode nothing may be written.
	StateDir string
	// Check is true in check mode: nothing will be served.
	Check bool
}

// Process is the process [Main] runs in. Only [Exec] reads the real one
// (os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.Getenv).
type Process struct {
	Args   []string
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
}

// Exit codes of [Main].
const (
	// ExitOK: served and stopped cleanly, or check mode found nothing wrong.
	ExitOK = 0
	// ExitFailed: the settings were refused, or serving failed.
	ExitFailed = 1
	// ExitUsage: an unknown argument.
	ExitUsage = 2
)

// Main is a provider binary's whole main: cmd/provider-<name> calls
// os.Exit(child.Main(ctx, process, program)). It implements the child
// contract of README.md:
//
//   - "--check": read the settings from stdin, validate them with
//     child.Build (nothing is served, the platform is not contacted) and
//     exit 0 printing nothing, or print one line saying what is wrong
//     (which key and why) on stdout and exit 1;
//   - "--probe": "--check", then, if the Platform is a [Prober], one look
//     at the platform (within 15 s), answered the same way;
//   - no argument: read the settings, build the Platform, listen on
//     $CHATBUS_PROVIDER_SOCKET and [Serve] until ctx ends or a doctor
//     Commit settled, logging JSON lines to stderr. A failure to start is
//     logged as one JSON line at level "error" (so the supervisor, which
//     copies the child's stderr into its own log, records it as an error)
//     and exits 1;
//   - "-h", "--help": print child.Usage;
//   - "--version": print "provider-<name> <version> (commit <hash>)" (the
//     build's, see internal/version).
func Main(ctx context.Context, p Process, child Program) int {
	if p.Getenv == nil {
		p.Getenv = func(string) string { return "" }
	}
	check, probe := false, false
	switch {
	case len(p.Args) == 0:
	case len(p.Args) == 1 && p.Args[0] == CheckFlag:
		check = true
	case len(p.Args) == 1 && p.Args[0] == ProbeFlag:
		check, probe = true, true
	case len(p.Args) == 1 && (p.Args[0] == "-h" || p.Args[0] == "--help"):
		fmt.Fprintln(p.Stdout, strings.TrimSpace(child.Usage))
		return ExitOK
	case len(p.Args) == 1 && p.Args[0] == "--version":
		fmt.Fprintln(p.Stdout, "provider-"+childName(child), version.String())
		return ExitOK
	default:
		fmt.Fprintf(p.Stderr, "%s: unknown arguments %q: this binary is started by supervisord (see --help)\n", childName(child), p.Args)
		return ExitUsage
	}
	name := p.Getenv(EnvName)
	if check {
		if err := runCheck(ctx, p, child, name, probe); err != nil {
			fmt.Fprintln(p.Stdout, oneLine(err.Error()))
			return ExitFailed
		}
		return ExitOK
	}
	if name == "" {
		name = childName(child)
	}
	// Serve tags its own lines with the name; the rest are tagged here.
	base := zerolog.New(p.Stderr).With().Timestamp().Logger()
	tagged := base.With().Str("provider", name).Logger()
	if err := serveChild(ctx, p, child, name, base, tagged); err != nil {
		tagged.Error().Err(err).Msg("provider cannot run")
		return ExitFailed
	}
	return ExitOK
}

// runCheck is check mode: the settings, split and built, nothing served;
// with probe, the Platform's Probe too.
func runCheck(ctx context.Context, p Process, child Program, name string, probe bool) error {
	// The secret is checked by ParseChildSettings: the supervisor hands
	// one in check mode too.
	cs, settings, err := readSettings(p.Stdin)
	if err != nil {
		return err
	}
	bc, err := buildContext(child, name, settings, p.Getenv, zerolog.Nop(), true)
	if err != nil {
		return err
	}
	bc.StateDir = cs.StateDir
	plat, err := child.Build(bc)
	defer closePlatform(plat)
	if err != nil || !probe {
		return err
	}
	if pr, ok := plat.(Prober); ok {
		ctx, cancel := context.WithTimeout(ctx, probeTimeout)
		defer cancel()
		return pr.Probe(ctx)
	}
	return nil
}

func serveChild(ctx context.Context, p Process, child Program, name string, base, tagged zerolog.Logger) error {
	socket := p.Getenv(EnvSocket)
	if socket == "" {
		return fmt.Errorf("%s is not set: this binary is started by supervisord (see --help)", EnvSocket)
	}
	cs, settings, err := readSettings(p.Stdin)
	if err != nil {
		return err
	}
	bc, err := buildContext(child, name, settings, p.Getenv, tagged, false)
	if err != nil {
		return err
	}
	bc.StateDir = cs.StateDir
	plat, err := child.Build(bc)
	if err != nil {
		return fmt.Errorf("settings: %w", err)
	}
	defer closePlatform(plat) // a Platform that holds resources releases them after serving
	return Serve(ctx, Config{
		Name:      bc.Name,
		Socket:    socket,
		Platform:  plat,
		Secret:    cs.Secret,
		Logger:    base,
		Health:    bc.Health,
		Handshake: p.Stdout,
	})
}

// closePlatform closes a Platform that has a Close method (with or
// without an error).
func closePlatform(p provider.Platform) {
	switch c := p.(type) {
	case interface{ Close() error }:
		c.Close()
	case interface{ Close() }:
		c.Close()
	}
}

// readSettings reads the settings document to EOF and splits off the
// supervisor's keys (secret, state dir).
func readSettings(r io.Reader) (ChildSettings, json.RawMessage, error) {
	if r == nil {
		return ChildSettings{}, nil, errors.New("no settings on stdin")
	}
	raw, err := io.ReadAll(io.LimitReader(r, maxSettingsBytes+1))
	if err != nil {
		return ChildSettings{}, nil, fmt.Errorf("read settings from stdin: %w", err)
	}
	if len(raw) > maxSettingsBytes {
		return ChildSettings{}, nil, fmt.Errorf("settings on stdin are larger than %d bytes", maxSettingsBytes)
	}
	return ParseChildSettings(raw)
}

// buildContext takes "name" out of the platform's settings.
func buildContext(child Program, envName string, settings json.RawMessage, getenv func(string) string, log zerolog.Logger, check bool) (BuildContext, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(settings, &m); err != nil {
		return BuildContext{}, fmt.Errorf("settings on stdin must be one JSON object: %v", err)
	}
	name := envName
	if v, ok := m[SettingsNameKey]; ok {
		var s string
		if err := json.Unmarshal(v, &s); err != nil {
			return BuildContext{}, provider.Settingf(SettingsNameKey, "want a string")
		}
		if name == "" {
			name = s
		}
		delete(m, SettingsNameKey)
	}
	if name == "" {
		name = childName(child)
	}
	rest, err := json.Marshal(m)
	if err != nil {
		return BuildContext{}, err
	}
	if child.Build == nil {
		return BuildContext{}, errors.New("child: Program.Build is required")
	}
	return BuildContext{Name: name, Settings: rest, Getenv: getenv, Logger: log, Health: provider.NewHealth(), Check: check}, nil
}

func childName(child Program) string {
	if child.Name != "" {
		return child.Name
	}
	return "provider"
}

// oneLine folds an error's text onto one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// Exec is a provider binary's whole main: [Main] in the real process
// (os.Args[1:], the standard streams, os.Getenv) until SIGINT or SIGTERM,
// or until the supervisor that started it exits (parent_<os>.go), logging
// times to the millisecond, then os.Exit with its code.
func Exec(child Program) {
	zerolog.TimeFieldFormat = "2006-01-02T15:04:05.000Z07:00"
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	ctx, unwatch := untilParentExits(ctx)
	code := Main(ctx, Process{
		Args: os.Args[1:], Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv,
	}, child)
	unwatch()
	stop()
	os.Exit(code)
}
