package version

import (
	"runtime/debug"
	"testing"
)

func TestResolve(t *testing.T) {
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "-trimpath", Value: "true"}, {Key: "vcs", Value: "git"},
			{Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
	}
	const rev = "6f4134a8c1f0f2b0c9f7d1e3a5b7c9d1e3f5a7b9"
	for _, tc := range []struct {
		name            string
		version, commit string
		bi              *debug.BuildInfo
		want            Info
		wantString      string
	}{
		{
			name: "stamped", version: "v1.2.3", commit: rev,
			bi:   &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261204-6f4134a8c1f0"}, Settings: vcs("ffff", "true")},
			want: Info{"v1.2.3", rev}, wantString: "v1.2.3 (commit " + rev + ")",
		},
		{
			name: "stamped version only: the commit from the build info", version: "v1.2.3",
			bi:   &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs(rev, "false")},
			want: Info{"v1.2.3", rev}, wantString: "v1.2.3 (commit " + rev + ")",
		},
		{
			name: "go install pkg@version: the module version, no VCS",
			bi:   &debug.BuildInfo{Main: debug.Module{Version: "v1.4.0"}},
			want: Info{"v1.4.0", ""}, wantString: "v1.4.0",
		},
		{
			name:       "go build in a modified checkout",
			bi:         &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261204140000-6f4134a8c1f0+dirty"}, Settings: vcs(rev, "true")},
			want:       Info{"v0.0.0-20261204140000-6f4134a8c1f0+dirty", rev + "-dirty"},
			wantString: "v0.0.0-20261204140000-6f4134a8c1f0+dirty (commit " + rev + "-dirty)",
		},
		{
			name: "devel without VCS (-buildvcs=false)",
			bi:   &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}},
			want: Info{"dev", ""}, wantString: "dev",
		},
		{name: "no build info", want: Info{"dev", ""}, wantString: "dev"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := resolve(tc.version, tc.commit, tc.bi)
			if got != tc.want {
				t.Fatalf("resolve = %+v, want %+v", got, tc.want)
			}
			if s := got.String(); s != tc.wantString {
				t.Errorf("String = %q, want %q", s, tc.wantString)
			}
		})
	}
}

// TestGetIsStable: Get resolves once and answers the same every time.
func TestGetIsStable(t *testing.T) {
	a, b := Get(), Get()
	if a != b || a.Version == "" {
		t.Fatalf("Get = %+v then %+v", a, b)
	}
	if String() != a.String() {
		t.Errorf("String() = %q, Get().String() = %q", String(), a.String())
	}
}
