package dist

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"debug/macho"
	"encoding/binary"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParsePlatforms(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []Platform
		wantErr  string
	}{
		{name: "spaces and commas, duplicates once", in: "linux/amd64, darwin/arm64 linux/amd64",
			want: []Platform{{"linux", "amd64"}, {"darwin", "arm64"}}},
		{name: "no arch", in: "linux", wantErr: "want GOOS/GOARCH"},
		{name: "three parts", in: "linux/arm/v7", wantErr: "want GOOS/GOARCH"},
		{name: "an OS without a service file", in: "windows/amd64", wantErr: "no service file for windows"},
		{name: "empty", in: " ", wantErr: "no platform"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParsePlatforms(tc.in)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || !slices.Equal(got, tc.want) {
				t.Fatalf("got %v, %v; want %v", got, err, tc.want)
			}
		})
	}
}

// TestWriteArchive: the same entries in any order give the same bytes;
// directories come before what they hold, all in name order, owned by 0:0
// without names, at the epoch, and the gzip header has no time.
func TestWriteArchive(t *testing.T) {
	epoch := time.Date(2026, 12, 3, 20, 17, 40, 500, time.FixedZone("x", 3600))
	entries := []entry{
		{"bin/supervisord", 0o755, []byte("elf")},
		{"INSTALL", 0o644, []byte("install\n")},
		{"systemd/supervisord@.service", 0o644, []byte("[Unit]\n")},
		{"bin/busctl", 0o755, []byte("elf2")},
	}
	var a, b bytes.Buffer
	if err := writeArchive(&a, "chatbus-v1-linux-amd64", epoch, entries); err != nil {
		t.Fatal(err)
	}
	rev := slices.Clone(entries)
	slices.Reverse(rev)
	if err := writeArchive(&b, "chatbus-v1-linux-amd64", epoch, rev); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Fatal("the entries' order changed the archive")
	}

	zr, err := gzip.NewReader(&a)
	if err != nil {
		t.Fatal(err)
	}
	if !zr.ModTime.IsZero() || zr.Name != "" {
		t.Errorf("gzip header: time %v, name %q", zr.ModTime, zr.Name)
	}
	tr := tar.NewReader(zr)
	var got []string
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(tr)
		got = append(got, h.Name+" "+strings.TrimSpace(string(data)))
		if h.Uid != 0 || h.Gid != 0 || h.Uname != "" || h.Gname != "" || h.ModTime.Unix() != epoch.Unix() || h.Format != tar.FormatUSTAR {
			t.Errorf("%s: %d:%d %q:%q %v %v", h.Name, h.Uid, h.Gid, h.Uname, h.Gname, h.ModTime, h.Format)
		}
		if (h.Typeflag == tar.TypeDir) != strings.HasSuffix(h.Name, "/") {
			t.Errorf("%s: type %c", h.Name, h.Typeflag)
		}
	}
	want := []string{
		"chatbus-v1-linux-amd64/ ", "chatbus-v1-linux-amd64/INSTALL install",
		"chatbus-v1-linux-amd64/bin/ ", "chatbus-v1-linux-amd64/bin/busctl elf2", "chatbus-v1-linux-amd64/bin/supervisord elf",
		"chatbus-v1-linux-amd64/systemd/ ", "chatbus-v1-linux-amd64/systemd/supervisord@.service [Unit]",
	}
	if !slices.Equal(got, want) {
		t.Errorf("entries:\n  %s\nwant:\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}

	if err := writeArchive(io.Discard, "d", epoch, []entry{{"a", 0o644, nil}, {"a", 0o644, nil}}); err == nil {
		t.Error("an entry twice was written")
	}
}

func TestLicenseFile(t *testing.T) {
	for name, want := range map[string]bool{
		"LICENSE": true, "LICENSE.md": true, "license.txt": true, "LICENCE": true, "COPYING": true,
		"NOTICE": true, "PATENTS": true, "LICENSE-APACHE": true, "licenses.go": false, "README.md": false, "LICENSEE": false,
	} {
		if got := licenseFile.MatchString(name); got != want {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
	}
}

// TestCheckBinary builds a small program as make dist builds the binaries
// (CGO_ENABLED=0, -trimpath, -s -w) for linux/amd64 and darwin/arm64, and
// checks each against its platform and the other's.
func TestCheckBinary(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module hello\n\ngo 1.24\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main\n\nfunc main() { println(\"hello\") }\n"), 0o644)
	build := func(p Platform) []byte {
		out := filepath.Join(dir, p.OS+"-"+p.Arch)
		cmd := exec.Command("go", "build", "-trimpath", "-buildvcs=false", "-ldflags", "-s -w", "-o", out, ".")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOOS="+p.OS, "GOARCH="+p.Arch, "CGO_ENABLED=0", "GOFLAGS=")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build for %s: %v\n%s", p, err, b)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	linux, darwin := Platform{"linux", "amd64"}, Platform{"darwin", "arm64"}
	bins := map[Platform][]byte{linux: build(linux), darwin: build(darwin)}
	for _, tc := range []struct {
		built, want Platform
		wantErr     string
	}{
		{linux, linux, ""},
		{darwin, darwin, ""},
		{linux, Platform{"linux", "arm64"}, "not linux/arm64"},
		{darwin, Platform{"darwin", "amd64"}, "not darwin/amd64"},
		{linux, darwin, "invalid magic"},
		{darwin, linux, "bad magic"},
	} {
		err := CheckBinary(tc.want, bins[tc.built])
		if tc.wantErr == "" && err != nil || tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)) {
			t.Errorf("a %s binary checked as %s: %v, want %q", tc.built, tc.want, err, tc.wantErr)
		}
	}
	// Without its signature (the load command's bytes changed), an arm64
	// Mach-O is refused.
	unsigned := bytes.Clone(bins[darwin])
	f, err := macho.NewFile(bytes.NewReader(unsigned))
	if err != nil {
		t.Fatal(err)
	}
	off := 32 // the 64-bit Mach-O header
	for _, l := range f.Loads {
		raw := l.Raw()
		if binary.LittleEndian.Uint32(raw) == lcCodeSignature {
			binary.LittleEndian.PutUint32(unsigned[off:], 0x7fff)
		}
		off += len(raw)
	}
	if err := CheckBinary(darwin, unsigned); err == nil || !strings.Contains(err.Error(), "no code signature") {
		t.Errorf("an unsigned darwin/arm64 binary: %v", err)
	}
}
