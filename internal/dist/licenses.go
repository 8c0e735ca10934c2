package dist

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// licenseFile matches the files of a module's root directory that carry
// its licence or notices.
var licenseFile = regexp.MustCompile(`(?i)^(licen[cs]e|copying|notice|patents)([.-].*)?$`)

// module is one module compiled into the binaries.
type module struct{ path, version, dir string }

// thirdPartyLicenses is THIRD_PARTY_LICENSES: for the Go standard library
// and every module the packages depend on for the platform in env (the
// main module left out), the licence and notice files of its root
// directory, in module order. A module without one fails the build: what
// the archive redistributes must carry its terms.
func thirdPartyLicenses(ctx context.Context, cfg Config, env []string, pkgs []string) ([]byte, error) {
	var out bytes.Buffer
	args := append([]string{"list", "-deps", "-f", "{{with .Module}}{{if not .Main}}{{.Path}}\t{{.Version}}\t{{if .Replace}}{{.Replace.Dir}}{{else}}{{.Dir}}{{end}}{{end}}{{end}}"}, pkgs...)
	if err := run(ctx, cfg, env, &out, args...); err != nil {
		return nil, err
	}
	var mods []module
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) != 3 {
			continue
		}
		m := module{f[0], f[1], f[2]}
		if !slices.Contains(mods, m) {
			mods = append(mods, m)
		}
	}
	slices.SortFunc(mods, func(a, b module) int { return strings.Compare(a.path, b.path) })

	var goroot bytes.Buffer
	if err := run(ctx, cfg, env, &goroot, "env", "GOROOT", "GOVERSION"); err != nil {
		return nil, err
	}
	gf := strings.Fields(goroot.String())
	if len(gf) != 2 {
		return nil, fmt.Errorf("go env GOROOT GOVERSION: %q", goroot.String())
	}
	mods = append([]module{{"Go standard library and runtime", gf[1], gf[0]}}, mods...)

	var b bytes.Buffer
	b.WriteString("The chatbus binaries include the following third-party software, each\nunder the licence reproduced below.\n")
	for _, m := range mods {
		ents, err := os.ReadDir(m.dir)
		if err != nil {
			return nil, fmt.Errorf("licence of %s: %w", m.path, err)
		}
		var found int
		for _, e := range ents {
			if e.IsDir() || !licenseFile.MatchString(e.Name()) {
				continue
			}
			text, err := os.ReadFile(filepath.Join(m.dir, e.Name()))
			if err != nil {
				return nil, err
			}
			fmt.Fprintf(&b, "\n%s\n%s %s (%s)\n%s\n\n", strings.Repeat("=", 72), m.path, m.version, e.Name(), strings.Repeat("-", 72))
			b.Write(bytes.TrimSpace(text))
			b.WriteString("\n")
			found++
		}
		if found == 0 {
			return nil, fmt.Errorf("module %s %s has no licence file in %s", m.path, m.version, m.dir)
		}
	}
	return b.Bytes(), nil
}
